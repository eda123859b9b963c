//! Following a request through to its real end: a task-flow request that could not start, a
//! task's status before its answer, an answered in-call form that goes on working, a thread
//! state that could not be loaded, a sign-in that leaves the task waiting on more, and a
//! connection that drops while a task is polled.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::suite::TASKS;
use crate::transcript::{Rpc, ToolCall, Transcript, UserRecord, terminal};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::outcomes::{show_kind, show_text, shows, without_user_channel};
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::TASKS_REGULAR_RESULT_SHOWN,
            summary: "a task-flow call answered with a regular tool result (it could not start) is shown to the user, with no task to poll",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "If a request cannot start, such as an invalid argument or insufficient credits, the call can return a regular tool result instead.",
            },
            scenarios: &["task-credits-before-send"],
            check: regular_result_shown,
        },
        Rule {
            id: ids::TASKS_STATUS_FINAL_AFTER_TERMINAL,
            summary: "a task's outcome is shown only after a tasks/get reported a final status (resultType complete is not the end)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "tasks/get returns resultType: \"complete\" because the polling request has finished. Use its status field to determine whether Computer has finished.",
            },
            scenarios: &[TASKS],
            check: final_after_terminal,
        },
        Rule {
            id: ids::ELICITATION_WORKING_READ_THREAD,
            summary: "an in-call answer that returns task_status working is followed with read_thread before the answer is shown",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "call_perplexity_computer",
                quote: "If the result also had files or sources, the call returns right after your answer with task_status: \"working\" and those files. Use read_thread",
            },
            scenarios: &["elicitation-question-sources"],
            check: working_read_thread,
        },
        Rule {
            id: ids::COMPUTER_READ_THREAD_RETRY_STATE_ERROR,
            summary: "a read_thread with web_state_error is retried before anything is concluded from it",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "read_thread",
                quote: "web_state_error | string | Present when web_state couldn't be loaded. Retry read_thread.",
            },
            scenarios: &["read-thread-retry"],
            check: retry_state_error,
        },
        Rule {
            id: ids::COMPUTER_AUTH_INPUT_REQUIRED_READ_THREAD,
            summary: "a notify_connected answered with task_status input_required is followed by read_thread, to see what the task needs",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "notify_connected",
                quote: "If the task is waiting on other input, such as another sign-in, the call returns task_status: \"input_required\" instead; use read_thread to see what it needs.",
            },
            scenarios: &["multiple-sign-ins"],
            check: input_required_read_thread,
        },
        Rule {
            id: ids::TASKS_DISCONNECT_POLL_SAME_ID,
            summary: "after the connection drops during tasks/get, the same task id is polled again (the request is not sent again)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "After a disconnect, authenticate again and continue polling the same ID. A disconnect does not stop Computer.",
            },
            scenarios: &["task-reconnect"],
            check: poll_same_id,
        },
    ]
}

/// The first thing shown to the user after journal position `seq` that is not a progress
/// status, and its position.
fn first_answer_after(t: &Transcript, seq: usize) -> Option<&UserRecord> {
    shows(t).find(|u| u.at > seq && show_kind(u) != "status")
}

/// The next tool call after `seq` about `thread`.
fn next_call_on<'a>(t: &'a Transcript, seq: usize, thread: &str) -> Option<&'a ToolCall> {
    t.calls
        .iter()
        .find(|c| c.seq > seq && c.thread() == Some(thread))
}

fn is_method(r: &Rpc, method: &str) -> bool {
    r.method.as_deref() == Some(method)
}

fn regular_result_shown(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let regular: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| is_method(r, "tools/call") && r.params.get("name") == Some(&CPC.into()))
        .filter(|r| {
            r.response.get("result").is_some()
                && r.response
                    .pointer("/result/resultType")
                    .and_then(Value::as_str)
                    != Some("task")
        })
        .collect();
    if regular.is_empty() {
        return Outcome::Unobserved(
            "no call_perplexity_computer was answered with a regular tool result".into(),
        );
    }
    for r in regular {
        let text = t
            .calls
            .iter()
            .find(|c| c.seq == r.seq)
            .and_then(|c| c.result.get("text").and_then(Value::as_str))
            .unwrap_or_default();
        let next_call = t
            .rpcs
            .iter()
            .find(|n| n.seq > r.seq && is_method(n, "tools/call"))
            .map_or(usize::MAX, |n| n.seq);
        if let Some(poll) = t.rpcs.iter().find(|n| {
            n.seq > r.seq
                && n.seq < next_call
                && n.method.as_deref().is_some_and(|m| m.starts_with("tasks/"))
        }) {
            return Outcome::Violated {
                message: format!(
                    "the call at #{} returned a regular tool result (no task), yet the client sent {} (#{}) as if a task had started",
                    r.seq,
                    poll.method.as_deref().unwrap_or("?"),
                    poll.seq
                ),
                evidence: vec![r.seq, poll.seq],
            };
        }
        let shown = shows(t).any(|u| {
            u.at > r.seq && u.at <= next_call && show_kind(u) != "status" && show_text(u) == text
        });
        if !shown {
            return Outcome::Violated {
                message: format!(
                    "the regular tool result of #{} (\"{text}\") was never shown to the user",
                    r.seq
                ),
                evidence: vec![r.seq],
            };
        }
    }
    Outcome::Pass("each regular tool result was shown to the user, with no task polled".into())
}

/// Tasks the client created: (journal position, task id).
fn created_tasks(t: &Transcript) -> Vec<(usize, &str)> {
    t.rpcs
        .iter()
        .filter(|r| is_method(r, "tools/call"))
        .filter(|r| {
            r.response
                .pointer("/result/resultType")
                .and_then(Value::as_str)
                == Some("task")
        })
        .filter_map(|r| Some((r.seq, r.response.pointer("/result/taskId")?.as_str()?)))
        .collect()
}

fn final_after_terminal(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let tasks = created_tasks(t);
    if tasks.is_empty() {
        return Outcome::Unobserved("no call returned a task".into());
    }
    let mut judged = 0;
    // The outcome shown, an answer or an error alike (progress statuses apart).
    for answer in shows(t).filter(|u| show_kind(u) != "status") {
        // The answer belongs to the latest task created before it.
        let Some(&(created, task)) = tasks.iter().rev().find(|(seq, _)| *seq < answer.at) else {
            continue;
        };
        let polls: Vec<&Rpc> = t
            .rpcs
            .iter()
            .filter(|r| r.seq > created && r.seq < answer.at && is_method(r, "tasks/get"))
            .filter(|r| r.params.get("taskId").and_then(Value::as_str) == Some(task))
            .collect();
        let status = |r: &Rpc| {
            r.response
                .pointer("/result/status")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned()
        };
        if !polls.iter().any(|r| terminal(&status(r))) {
            let last = polls.last().map_or_else(
                || "no tasks/get polled it".to_owned(),
                |r| format!("the last tasks/get (#{}) said status {}", r.seq, status(r)),
            );
            return Outcome::Violated {
                message: format!(
                    "\"{}\" was shown as `{}` before task {task} finished: {last}",
                    show_text(answer),
                    show_kind(answer)
                ),
                evidence: polls.last().map(|r| vec![r.seq]).unwrap_or_default(),
            };
        }
        judged += 1;
    }
    if judged == 0 {
        // Following each task to its end is tasks.poll.after-ack's business; here only what
        // was shown is judged.
        return Outcome::NotReached(format!(
            "no task's outcome was shown to the user, so none was shown too early (whether the client followed its tasks to the end is {}'s business)",
            ids::TASKS_POLL_AFTER_ACK
        ));
    }
    Outcome::Pass(format!(
        "{judged} outcome(s) shown only after tasks/get reported the task finished"
    ))
}

fn working_read_thread(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let working: Vec<&ToolCall> = t
        .calls_named(CPC)
        .filter(|c| c.event() == Some("complete") && c.task_status() == Some("working"))
        .collect();
    if working.is_empty() {
        return Outcome::Unobserved("no answered call returned task_status working".into());
    }
    for call in working {
        let thread = call.result_thread().unwrap_or_default();
        let Some(answer) = first_answer_after(t, call.seq) else {
            return Outcome::Violated {
                message: format!(
                    "after {} the rest of the task was never followed nor shown",
                    call.describe()
                ),
                evidence: vec![call.seq],
            };
        };
        let finished = t.calls_named("read_thread").any(|r| {
            r.seq > call.seq
                && r.seq < answer.at
                && r.thread_arg() == Some(thread)
                && r.task_status().is_some_and(terminal)
        });
        if !finished {
            return Outcome::Violated {
                message: format!(
                    "\"{}\" was shown as `{}` while thread {thread} was still working (#{}): no read_thread saw the task finish first",
                    show_text(answer),
                    show_kind(answer),
                    call.seq
                ),
                evidence: vec![call.seq],
            };
        }
    }
    Outcome::Pass(
        "each answer that went on working was followed with read_thread to its end".into(),
    )
}

fn retry_state_error(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let failed: Vec<&ToolCall> = t
        .calls_named("read_thread")
        .filter(|c| {
            c.result
                .get("web_state_error")
                .is_some_and(Value::is_string)
        })
        .collect();
    if failed.is_empty() {
        if let Some(unread) = super::answers::timeout_left_unread(t) {
            return unread;
        }
        return Outcome::Unobserved("no read_thread answered with web_state_error".into());
    }
    for read in failed {
        let thread = read.thread_arg().unwrap_or_default();
        let next = next_call_on(t, read.seq, thread);
        let before = next.map_or(usize::MAX, |n| n.seq);
        if let Some(u) =
            shows(t).find(|u| u.at > read.seq && u.at <= before && show_kind(u) != "status")
        {
            return Outcome::Violated {
                message: format!(
                    "read_thread (#{}) could not load the thread state (web_state_error), and the client showed \"{}\" as `{}` instead of reading again",
                    read.seq,
                    show_text(u),
                    show_kind(u)
                ),
                evidence: vec![read.seq],
            };
        }
        match next {
            Some(n) if n.name == "read_thread" => {}
            Some(n) => {
                return Outcome::Violated {
                    message: format!(
                        "read_thread (#{}) had web_state_error and was not retried: the next call was {}",
                        read.seq,
                        n.describe()
                    ),
                    evidence: vec![read.seq, n.seq],
                };
            }
            None => {
                return Outcome::Violated {
                    message: format!(
                        "read_thread (#{}) had web_state_error and was never retried",
                        read.seq
                    ),
                    evidence: vec![read.seq],
                };
            }
        }
    }
    Outcome::Pass("every read_thread with web_state_error was retried".into())
}

fn input_required_read_thread(t: &Transcript) -> Outcome {
    let waiting: Vec<&ToolCall> = t
        .calls_named("notify_connected")
        .filter(|c| c.task_status() == Some("input_required"))
        .collect();
    if waiting.is_empty() {
        // A notify_connected without `connector` while several sign-ins wait sends a message
        // instead of answering one: that is the connector rule's business.
        if let Some(bare) = t
            .calls_named("notify_connected")
            .find(|c| c.args.get("connector").is_none())
        {
            return Outcome::NotReached(format!(
                "{} named no connector, so no sign-in was answered and none left the task waiting on another ({} judges that)",
                bare.describe(),
                ids::COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL
            ));
        }
        if let Some((thread, url)) = super::auth::unnotified_sign_in(t) {
            return super::auth::not_reached_without_notify(&thread, &url);
        }
        return Outcome::Unobserved(
            "no notify_connected was answered with task_status input_required".into(),
        );
    }
    for call in waiting {
        let thread = call.thread().unwrap_or_default();
        match next_call_on(t, call.seq, thread) {
            Some(n) if n.name == "read_thread" => {}
            Some(n) => {
                return Outcome::Violated {
                    message: format!(
                        "notify_connected (#{}) said the task waits on other input, and the client went on with {} without read_thread to see what it needs",
                        call.seq,
                        n.describe()
                    ),
                    evidence: vec![call.seq, n.seq],
                };
            }
            None => {
                // The client stopped following the thread altogether: computer.status.task-status
                // judges a thread left before its final task_status.
                return Outcome::NotReached(format!(
                    "after notify_connected (#{}) said the task waits on other input, the client made no further call on the thread ({} judges a thread left unfinished)",
                    call.seq,
                    ids::COMPUTER_STATUS_TASK_STATUS
                ));
            }
        }
    }
    Outcome::Pass("each input_required from notify_connected was followed by read_thread".into())
}

/// In `task-reconnect` the runner drops the answer to the first `tasks/get` that found its task
/// (the journal still records it): the next request must poll that task again, through to its end.
fn poll_same_id(t: &Transcript) -> Outcome {
    // The runner cuts the first poll the mock answered with a task (not a refused one).
    let Some(cut) = t
        .rpcs
        .iter()
        .find(|r| is_method(r, "tasks/get") && r.response.get("result").is_some())
    else {
        return Outcome::Unobserved("no tasks/get was sent, so no connection could drop".into());
    };
    let task = cut
        .params
        .get("taskId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let next = t.rpcs.iter().find(|r| {
        r.seq > cut.seq
            && r.method
                .as_deref()
                .is_some_and(|m| !m.starts_with("notifications/"))
    });
    let Some(next) = next else {
        return Outcome::Violated {
            message: format!(
                "the connection dropped during tasks/get of task {task} (#{}) and the client never polled again",
                cut.seq
            ),
            evidence: vec![cut.seq],
        };
    };
    let same = is_method(next, "tasks/get")
        && next.params.get("taskId").and_then(Value::as_str) == Some(task);
    if !same {
        let what = match next.params.get("name").and_then(Value::as_str) {
            Some(CPC) => "sent call_perplexity_computer again, which starts a new task".to_owned(),
            _ => format!(
                "sent {} (#{})",
                next.method.as_deref().unwrap_or("?"),
                next.seq
            ),
        };
        return Outcome::Violated {
            message: format!(
                "the connection dropped during tasks/get of task {task} (#{}); instead of polling that task again the client {what}",
                cut.seq
            ),
            evidence: vec![cut.seq, next.seq],
        };
    }
    let finished = t.rpcs.iter().any(|r| {
        r.seq > cut.seq
            && is_method(r, "tasks/get")
            && r.params.get("taskId").and_then(Value::as_str) == Some(task)
            && r.response
                .pointer("/result/status")
                .and_then(Value::as_str)
                .is_some_and(terminal)
    });
    if !finished {
        return Outcome::Violated {
            message: format!(
                "after the dropped tasks/get (#{}) the client polled task {task} again but stopped before it finished",
                cut.seq
            ),
            evidence: vec![cut.seq],
        };
    }
    Outcome::Pass(format!(
        "after the dropped tasks/get (#{}) task {task} was polled again to its end",
        cut.seq
    ))
}
