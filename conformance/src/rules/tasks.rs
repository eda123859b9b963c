//! MCP Tasks (`io.modelcontextprotocol/tasks`, 2026-07-28): the extension on every request, the
//! exact `taskId`, polling no faster than `pollIntervalMs`, `Mcp-Name`, `tasks/update` answers,
//! polling after acknowledgements, the thread id from `_meta`, and stopping with `cancel_task`.

use std::collections::BTreeSet;

use serde_json::Value;

use mock_server::form_content_problem;

use super::elicitation::mode_of;
use crate::check::{DocRef, Level, Outcome};
use crate::suite::TASKS;
use crate::transcript::{Rpc, Transcript, terminal};

use super::documents::{COMPUTER_DOC, TASKS_SPEC};
use super::ids;
use super::rule::Rule;

const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_THREAD: &str = "ai.perplexity/threadId";

/// A poll sooner than this share of `pollIntervalMs` is far too early (FAILURE).
const FAR_TOO_EARLY: f64 = 0.5;
/// A poll sooner than this share of `pollIntervalMs` is early (WARNING): the rest is tolerance
/// for a client that times its wait from its own send rather than from the answer.
const SLIGHTLY_EARLY: f64 = 0.9;

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::TASKS_EXTENSION_EVERY_REQUEST,
            summary: "the tasks extension is declared in clientCapabilities on every request, tasks/* included",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "Declare the extension in the capabilities attached to each request, including task methods.",
            },
            scenarios: &[TASKS],
            check: extension_every_request,
        },
        Rule {
            id: ids::TASKS_TASK_ID_EXACT,
            summary: "tasks/* carry the exact taskId a tools/call returned, never one made from it",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "Call tasks/get with params.taskId set to the returned taskId. Wait for the returned pollIntervalMs between polls. Save the exact task ID without parsing it.",
            },
            scenarios: &[TASKS],
            check: task_id_exact,
        },
        Rule {
            id: ids::TASKS_POLL_FAR_TOO_EARLY,
            summary: "no tasks/get comes sooner than half of pollIntervalMs after the answer to the previous poll (or to the call that created the task)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "Wait for the returned pollIntervalMs between polls.",
            },
            scenarios: &[TASKS],
            check: far_too_early,
        },
        Rule {
            id: ids::TASKS_POLL_INTERVAL,
            summary: "tasks/get waits the whole pollIntervalMs (a poll between half and 90 % of it warns)",
            level: Level::Should,
            doc: DocRef {
                document: TASKS_SPEC,
                section: "Client behaviour: polling",
                quote: "SHOULD respect pollIntervalMs and SHOULD poll until terminal or cancel.",
            },
            scenarios: &[TASKS],
            check: slightly_early,
        },
        Rule {
            id: ids::TASKS_MCP_NAME,
            summary: "tasks/get, tasks/update and tasks/cancel carry Mcp-Name: <taskId> and Mcp-Method",
            level: Level::Must,
            doc: DocRef {
                document: TASKS_SPEC,
                section: "Routing headers",
                quote: "On tasks/get|update|cancel the client MUST set Mcp-Name: <params.taskId> plus Mcp-Method: <method>.",
            },
            scenarios: &[TASKS],
            check: mcp_name,
        },
        Rule {
            id: ids::TASKS_UPDATE_INPUT_RESPONSES,
            summary: "tasks/update answers only outstanding inputRequests keys, never one twice, with content valid for the schema",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Answer questions and approvals",
                quote: "For forms, build the fields from params.requestedSchema. Answer with tasks/update, using the exact keys from inputRequests: [...] `accept` with values that match the schema sends the answers.",
            },
            scenarios: &["task-question", "task-approval", "task-sign-in"],
            check: update_input_responses,
        },
        Rule {
            id: ids::TASKS_POLL_AFTER_ACK,
            summary: "polling goes on after tasks/update and tasks/cancel, until the task is terminal",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Answer questions and approvals / Cancel a task",
                quote: "tasks/update returns an acknowledgement, not the final answer. Continue polling the same task ID after an update. [...] Continue polling to confirm that the current task reports cancelled.",
            },
            scenarios: &[
                "task-question",
                "task-approval",
                "task-sign-in",
                "task-cancel",
            ],
            check: poll_after_ack,
        },
        Rule {
            id: ids::TASKS_THREAD_ID_FROM_META,
            summary: "thread_id passed to tools comes from _meta[\"ai.perplexity/threadId\"], never from the taskId or stop URL",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "Task creation, tasks/get, and tasks/cancel return the thread ID in _meta[\"ai.perplexity/threadId\"]. Save this value for tools that require thread_id, including cancel_task before completion. Do not parse the task ID or Stop URL to obtain it.",
            },
            scenarios: &["task-follow-up"],
            check: thread_from_meta,
        },
        Rule {
            id: ids::TASKS_CANCEL_CANCEL_TASK,
            summary: "to stop a task the client calls cancel_task on its thread (or presses Stop on the stop page); tasks/cancel alone stops nothing",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Cancel a task",
                quote: "tasks/cancel acknowledges the request but does not stop Computer or change its saved status. [...] To stop Computer, open that URL and select Stop, or call cancel_task with thread_id set to _meta[\"ai.perplexity/threadId\"].",
            },
            scenarios: &["task-cancel"],
            check: cancel_task_stops,
        },
        Rule {
            id: ids::TASKS_NO_RESULT_OR_LIST,
            summary: "no tasks/result or tasks/list: the result comes inline in tasks/get",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "When status is completed, the same response includes the final tool result in result. There is no separate tasks/result call.",
            },
            scenarios: &[TASKS],
            check: no_result_or_list,
        },
    ]
}

/// A task the mock created.
struct Created<'a> {
    rpc: &'a Rpc,
    task_id: &'a str,
    thread: Option<&'a str>,
    interval_ms: Option<f64>,
}

fn created(t: &Transcript) -> Vec<Created<'_>> {
    t.rpcs
        .iter()
        .filter(|r| r.method.as_deref() == Some("tools/call"))
        .filter_map(|rpc| {
            let result = rpc.response.get("result")?;
            if result.get("resultType").and_then(Value::as_str) != Some("task") {
                return None;
            }
            Some(Created {
                rpc,
                task_id: result.get("taskId")?.as_str()?,
                thread: result
                    .pointer("/_meta")
                    .and_then(|m| m.get(META_THREAD))?
                    .as_str(),
                interval_ms: result.get("pollIntervalMs").and_then(Value::as_f64),
            })
        })
        .collect()
}

fn is_task_method(r: &Rpc) -> bool {
    r.method.as_deref().is_some_and(|m| m.starts_with("tasks/"))
}

fn task_requests(t: &Transcript) -> Vec<&Rpc> {
    t.rpcs.iter().filter(|r| is_task_method(r)).collect()
}

fn task_id(r: &Rpc) -> Option<&str> {
    r.params.get("taskId").and_then(Value::as_str)
}

fn method_of(r: &Rpc) -> &str {
    r.method.as_deref().unwrap_or("?")
}

fn no_tasks() -> Outcome {
    Outcome::Unobserved(
        "the client sent no tasks/* request: declare io.modelcontextprotocol/tasks on \
         call_perplexity_computer and poll the task with tasks/get"
            .into(),
    )
}

fn declares_tasks(r: &Rpc) -> bool {
    r.params
        .pointer("/_meta")
        .and_then(|m| m.get(CAPABILITIES))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some()
}

fn extension_every_request(t: &Transcript) -> Outcome {
    if task_requests(t).is_empty() {
        return no_tasks();
    }
    let requests: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| r.method.is_some() && !r.id.is_null())
        .collect();
    let bad: Vec<&&Rpc> = requests.iter().filter(|r| !declares_tasks(r)).collect();
    match bad.first() {
        None => Outcome::Pass(format!("{} requests declared {EXTENSION}", requests.len())),
        Some(first) => Outcome::Violated {
            message: format!(
                "{} of {} requests lack {EXTENSION} in _meta[\"{CAPABILITIES}\"].extensions (first: #{} {})",
                bad.len(),
                requests.len(),
                first.seq,
                method_of(first)
            ),
            evidence: bad.iter().map(|r| r.seq).collect(),
        },
    }
}

fn task_id_exact(t: &Transcript) -> Outcome {
    let requests = task_requests(t);
    if requests.is_empty() {
        return no_tasks();
    }
    let created = created(t);
    for r in &requests {
        let id = task_id(r);
        let issued = created
            .iter()
            .any(|c| c.rpc.seq < r.seq && Some(c.task_id) == id);
        if !issued {
            return Outcome::Violated {
                message: format!(
                    "#{} {} names taskId {} which no tools/call returned (issued: {:?})",
                    r.seq,
                    method_of(r),
                    id.map_or("(none)".to_owned(), |i| format!("`{i}`")),
                    created.iter().map(|c| c.task_id).collect::<Vec<_>>()
                ),
                evidence: vec![r.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} tasks/* requests named an issued taskId exactly",
        requests.len()
    ))
}

/// One poll and how early it came: (rpc, gap in ms, interval in ms it should have waited).
struct Gap<'a> {
    rpc: &'a Rpc,
    gap_ms: f64,
    interval_ms: f64,
}

/// Every `tasks/get` of every created task, with the gap since the answer to the previous poll
/// of that task (or to the call that created it) and the `pollIntervalMs` that answer gave.
///
/// The gap runs from the answer, not from the previous request's arrival: a client learns the
/// interval from the answer and waits after it, so a slow answer (a loaded machine) must not
/// make a client that waited look early.
fn gaps(t: &Transcript) -> Vec<Gap<'_>> {
    let mut out = Vec::new();
    for task in created(t) {
        let mut previous = task.rpc.real_responded_at;
        let mut interval = task.interval_ms;
        for poll in t.rpcs.iter().filter(|r| {
            r.seq > task.rpc.seq
                && r.method.as_deref() == Some("tasks/get")
                && task_id(r) == Some(task.task_id)
        }) {
            let gap = poll.real_time - previous;
            let gap_ms = gap
                .num_microseconds()
                .map_or(f64::MAX, |us| us as f64 / 1000.0);
            if let Some(interval_ms) = interval {
                out.push(Gap {
                    rpc: poll,
                    gap_ms,
                    interval_ms,
                });
            }
            previous = poll.real_responded_at;
            interval = poll
                .response
                .pointer("/result/pollIntervalMs")
                .and_then(Value::as_f64)
                .or(interval);
        }
    }
    out
}

fn poll_timing(gaps: &[Gap<'_>], from: f64, to: f64, what: &str) -> Outcome {
    if gaps.is_empty() {
        return Outcome::Unobserved(
            "no tasks/get polled a task the client created (with a pollIntervalMs)".into(),
        );
    }
    let early: Vec<&Gap<'_>> = gaps
        .iter()
        .filter(|g| g.gap_ms >= g.interval_ms * from && g.gap_ms < g.interval_ms * to)
        .collect();
    match early.first() {
        None => Outcome::Pass(format!(
            "{} polls, the shortest {:.1} ms after the previous one",
            gaps.len(),
            gaps.iter().map(|g| g.gap_ms).fold(f64::MAX, f64::min)
        )),
        Some(first) => Outcome::Violated {
            message: format!(
                "{} of {} polls came {what} (first: #{} {:.1} ms after the answer to the previous poll, pollIntervalMs {})",
                early.len(),
                gaps.len(),
                first.rpc.seq,
                first.gap_ms,
                first.interval_ms
            ),
            evidence: early.iter().map(|g| g.rpc.seq).collect(),
        },
    }
}

fn far_too_early(t: &Transcript) -> Outcome {
    poll_timing(
        &gaps(t),
        0.0,
        FAR_TOO_EARLY,
        "far too early (under half of pollIntervalMs)",
    )
}

fn slightly_early(t: &Transcript) -> Outcome {
    // A client that does not wait at all fails the MUST; its other gaps only say how busy the
    // machine was (a poll sent at once can land in the "early" band under load), so they are
    // not judged again here.
    let gaps = gaps(t);
    if let Some(first) = gaps
        .iter()
        .find(|g| g.gap_ms < g.interval_ms * FAR_TOO_EARLY)
    {
        return Outcome::NotReached(format!(
            "a poll came far too early (#{}), which tasks.poll.far-too-early judges",
            first.rpc.seq
        ));
    }
    poll_timing(
        &gaps,
        FAR_TOO_EARLY,
        SLIGHTLY_EARLY,
        "early (between half and 90 % of pollIntervalMs)",
    )
}

fn mcp_name(t: &Transcript) -> Outcome {
    let requests = task_requests(t);
    if requests.is_empty() {
        return no_tasks();
    }
    for r in &requests {
        let problem = if r.header("mcp-name") != task_id(r) {
            Some(format!(
                "Mcp-Name is {:?}, params.taskId is {:?}",
                r.header("mcp-name"),
                task_id(r)
            ))
        } else if r.header("mcp-method") != r.method.as_deref() {
            Some(format!("Mcp-Method is {:?}", r.header("mcp-method")))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Outcome::Violated {
                message: format!("#{} {}: {problem}", r.seq, method_of(r)),
                evidence: vec![r.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} tasks/* requests carried Mcp-Name and Mcp-Method",
        requests.len()
    ))
}

fn update_input_responses(t: &Transcript) -> Outcome {
    let updates: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| r.method.as_deref() == Some("tasks/update"))
        .collect();
    if updates.is_empty() {
        return Outcome::Unobserved("no tasks/update answered an input request of the task".into());
    }
    // Keys whose answer the server acknowledged, per task.
    let mut delivered: BTreeSet<(String, String)> = BTreeSet::new();
    for update in &updates {
        let task = task_id(update).unwrap_or_default();
        let Some(asked) = t.rpcs.iter().rev().find(|r| {
            r.seq < update.seq
                && r.method.as_deref() == Some("tasks/get")
                && task_id(r) == Some(task)
                && r.response.pointer("/result").is_some()
        }) else {
            return Outcome::Violated {
                message: format!(
                    "#{} tasks/update came before any tasks/get of task `{task}` listed inputRequests",
                    update.seq
                ),
                evidence: vec![update.seq],
            };
        };
        let requests = asked.response.pointer("/result/inputRequests");
        let Some(responses) = update
            .params
            .get("inputResponses")
            .and_then(Value::as_object)
        else {
            return Outcome::Violated {
                message: format!("#{} tasks/update has no inputResponses object", update.seq),
                evidence: vec![update.seq],
            };
        };
        for (key, response) in responses {
            let violated = |message: String| Outcome::Violated {
                message: format!("#{} tasks/update: {message}", update.seq),
                evidence: vec![asked.seq, update.seq],
            };
            let Some(request) = requests.and_then(|r| r.get(key)) else {
                return violated(format!(
                    "key `{key}` is not among the inputRequests of the last tasks/get (#{})",
                    asked.seq
                ));
            };
            if delivered.contains(&(task.to_owned(), key.clone())) {
                return violated(format!("key `{key}` was already answered"));
            }
            if response.get("action").and_then(Value::as_str) == Some("accept")
                && mode_of(request) == "form"
                && let Some(problem) = form_content_problem(
                    request
                        .pointer("/params/requestedSchema")
                        .unwrap_or(&Value::Null),
                    response.get("content"),
                )
            {
                return violated(format!(
                    "`{key}` accepted with content that does not fit requestedSchema: {problem}"
                ));
            }
        }
        if update.response.get("result").is_some() {
            for key in responses.keys() {
                delivered.insert((task.to_owned(), key.clone()));
            }
        }
    }
    Outcome::Pass(format!(
        "{} tasks/update answered outstanding keys once, with valid content",
        updates.len()
    ))
}

fn status_of(r: &Rpc) -> Option<&str> {
    r.response.pointer("/result/status").and_then(Value::as_str)
}

fn poll_after_ack(t: &Transcript) -> Outcome {
    let acks: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| matches!(r.method.as_deref(), Some("tasks/update" | "tasks/cancel")))
        .collect();
    if acks.is_empty() {
        return Outcome::Unobserved("no tasks/update or tasks/cancel was sent".into());
    }
    for ack in &acks {
        let task = task_id(ack);
        let polls: Vec<&Rpc> = t
            .rpcs
            .iter()
            .filter(|r| {
                r.seq > ack.seq && r.method.as_deref() == Some("tasks/get") && task_id(r) == task
            })
            .collect();
        let Some(last) = polls.last() else {
            return Outcome::Violated {
                message: format!(
                    "no tasks/get of task {task:?} followed {} (#{}): the acknowledgement is not the answer",
                    method_of(ack),
                    ack.seq
                ),
                evidence: vec![ack.seq],
            };
        };
        if !status_of(last).is_some_and(terminal) {
            return Outcome::Violated {
                message: format!(
                    "after {} (#{}) the client stopped polling task {task:?} while it was {:?} (#{})",
                    method_of(ack),
                    ack.seq,
                    status_of(last),
                    last.seq
                ),
                evidence: vec![ack.seq, last.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "polling went on to a terminal status after each of {} acknowledgement(s)",
        acks.len()
    ))
}

fn thread_from_meta(t: &Transcript) -> Outcome {
    let uses: Vec<_> = t
        .calls
        .iter()
        .filter(|c| c.thread_arg().is_some())
        .collect();
    if uses.is_empty() {
        return Outcome::Unobserved("no tool call passed a thread_id".into());
    }
    for call in &uses {
        let Some(thread) = call.thread_arg() else {
            continue;
        };
        let handed_out = t.rpcs.iter().filter(|r| r.seq < call.seq).any(|r| {
            let result = r.response.get("result");
            let from_meta = result
                .and_then(|r| r.pointer("/_meta"))
                .and_then(|m| m.get(META_THREAD))
                .and_then(Value::as_str);
            let from_result = result
                .and_then(|r| r.pointer("/result/structuredContent/thread_id"))
                .and_then(Value::as_str);
            from_meta == Some(thread) || from_result == Some(thread)
        });
        if !handed_out {
            return Outcome::Violated {
                message: format!(
                    "{}: thread_id `{thread}` was never handed out in _meta[\"{META_THREAD}\"]",
                    call.describe()
                ),
                evidence: vec![call.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} tool call(s) used a thread id from _meta[\"{META_THREAD}\"]",
        uses.len()
    ))
}

fn cancel_task_stops(t: &Transcript) -> Outcome {
    let Some(asked) = t.user.iter().find(|u| {
        u.kind == "interrupt" && u.response.get("action").and_then(Value::as_str) == Some("cancel")
    }) else {
        return Outcome::Unobserved(
            "the client never learned the user wants the task stopped (GET the user channel's \
             `interrupt` while the task works)"
                .into(),
        );
    };
    let Some(task) = created(t).into_iter().rev().find(|c| c.rpc.seq < asked.at) else {
        return Outcome::Unobserved("no task was running when the user asked to stop".into());
    };
    let Some(thread) = task.thread else {
        return Outcome::Unobserved("the task named no thread".into());
    };
    let by_tool = t
        .calls_named("cancel_task")
        .find(|c| c.seq >= asked.at && c.thread_arg() == Some(thread));
    let by_page = t.exchanges.iter().find(|e| {
        e.seq >= asked.at
            && e.method == "POST"
            && e.path == format!("/_mock/stop/{thread}")
            && e.status < 400
    });
    match (by_tool, by_page) {
        (Some(c), _) => Outcome::Pass(format!("{} stopped the task", c.describe())),
        (None, Some(e)) => Outcome::Pass(format!("Stop pressed on the stop page (#{})", e.seq)),
        (None, None) => {
            // A cancel_task that named another thread is reported as what it was.
            if let Some(wrong) = t
                .calls_named("cancel_task")
                .find(|c| c.seq >= asked.at && c.thread_arg() != Some(thread))
            {
                let answer = wrong
                    .result
                    .get("text")
                    .and_then(Value::as_str)
                    .map(|text| format!(", answered \"{text}\""))
                    .unwrap_or_default();
                return Outcome::Violated {
                    message: format!(
                        "cancel_task was sent with the wrong thread id {} (#{}{answer}); the task's thread is {thread}, from _meta[\"{META_THREAD}\"], never parsed from the taskId",
                        wrong.thread_arg().unwrap_or("(none)"),
                        wrong.seq
                    ),
                    evidence: vec![wrong.seq],
                };
            }
            let cancels: Vec<usize> = t
                .rpcs
                .iter()
                .filter(|r| r.seq >= asked.at && r.method.as_deref() == Some("tasks/cancel"))
                .map(|r| r.seq)
                .collect();
            Outcome::Violated {
                message: format!(
                    "the user asked to stop, but no cancel_task{{thread_id: {thread}}} (nor Stop on the stop page) followed{}",
                    if cancels.is_empty() {
                        String::new()
                    } else {
                        " — tasks/cancel only acknowledges".to_owned()
                    }
                ),
                evidence: cancels,
            }
        }
    }
}

fn no_result_or_list(t: &Transcript) -> Outcome {
    let bad: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| matches!(r.method.as_deref(), Some("tasks/result" | "tasks/list")))
        .collect();
    if let Some(first) = bad.first() {
        return Outcome::Violated {
            message: format!(
                "#{} {}: the extension has neither; the result comes inline in tasks/get",
                first.seq,
                method_of(first)
            ),
            evidence: bad.iter().map(|r| r.seq).collect(),
        };
    }
    let polls = t
        .rpcs
        .iter()
        .filter(|r| r.method.as_deref() == Some("tasks/get"))
        .count();
    if polls == 0 {
        return no_tasks();
    }
    Outcome::Pass(format!(
        "{polls} tasks/get and no tasks/result or tasks/list"
    ))
}
