//! Thread rules: reuse, timeout, task status, sleep, waiting, cancel.

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Transcript, terminal};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_THREAD_REUSE,
            summary: "a follow-up carries the previous thread_id; a new conversation omits it",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Conversation Threading",
                quote: "To keep follow-up prompts in the same workflow, your MCP client must pass the thread_id from the previous response. The first call creates a new thread and returns a thread_id. Reuse that thread_id on later calls to continue the same session.",
            },
            // Wherever the user sends a follow-up: the reply to a two-factor code and the turns
            // of the thread-assets conversation too.
            scenarios: &["follow-up", "two-factor-required", "thread-assets"],
            check: reuse,
        },
        Rule {
            id: ids::COMPUTER_TIMEOUT_READ_THREAD,
            summary: "after timeout, read_thread on that thread; no call_perplexity_computer just to check status",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Status and Progress Updates",
                quote: "If the tool returns timeout, Computer has not reached a checkpoint yet and is still working. Keep the thread_id and call read_thread with it to check the task's status, read new messages, and find any questions or confirmations waiting for an answer. Don't call call_perplexity_computer again just to check status: that sends a new message to the task.",
            },
            scenarios: &[
                "timeout-then-complete",
                "read-thread-retry",
                "question-in-read-thread",
            ],
            check: timeout,
        },
        Rule {
            id: ids::COMPUTER_STATUS_TASK_STATUS,
            summary: "finished is decided from task_status, not from event or an idle thread",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Events (complete) / read_thread",
                quote: "Check task_status to determine whether Computer has finished. [...] idle or an empty interaction list doesn't prove a task is finished; use web_state.task_status instead.",
            },
            scenarios: &[
                "timeout-then-complete",
                "auth-required",
                "sleep",
                "multiple-sign-ins",
            ],
            check: task_status,
        },
        Rule {
            id: ids::COMPUTER_SLEEP_NO_RESEND,
            summary: "after sleep, no call_perplexity_computer on the thread before wake_at",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Status and Progress Updates (follow-up table)",
                quote: "sleep: Nothing. Computer resumes on its own at the scheduled time, shown in the result's wake_at. Use read_thread to check on it; its web_state.wake_at shows the same time.",
            },
            scenarios: &["sleep"],
            check: sleep,
        },
        Rule {
            id: ids::COMPUTER_WAITING_SAME_THREAD,
            summary: "after waiting, the user's next message continues the same thread_id",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Status and Progress Updates (follow-up table)",
                quote: "waiting: Call call_perplexity_computer with the same thread_id when you want to continue.",
            },
            scenarios: &["waiting"],
            check: waiting,
        },
        Rule {
            id: ids::COMPUTER_CANCEL_CONFIRM,
            summary: "after cancel_task, cancellation is confirmed with read_thread, and retried while active",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "cancel_task",
                quote: "Confirm cancellation with read_thread or tasks/get, and retry if the task remains active.",
            },
            scenarios: &["cancel", "cancel-fails-once"],
            check: cancel,
        },
    ]
}

fn reuse(t: &Transcript) -> Outcome {
    let sends: Vec<_> = t.calls_named(CPC).collect();
    let Some(first) = sends.first() else {
        return Outcome::Unobserved("the client never called call_perplexity_computer".into());
    };
    if first.thread_arg().is_some() {
        return Outcome::Violated {
            message: format!(
                "the first message of a new conversation carried a thread_id: {}",
                first.describe()
            ),
            evidence: vec![first.seq],
        };
    }
    let Some(thread) = first.result_thread() else {
        return Outcome::Unobserved(format!(
            "the first call returned no thread_id: {}",
            first.describe()
        ));
    };
    let follow_ups: Vec<_> = sends.iter().skip(1).collect();
    if follow_ups.is_empty() {
        return Outcome::Unobserved(
            "the user's follow-up message was never sent with call_perplexity_computer".into(),
        );
    }
    for c in follow_ups {
        if c.thread_arg() != Some(thread) {
            return Outcome::Violated {
                message: format!(
                    "a follow-up did not carry the previous thread_id {thread}: {}",
                    c.describe()
                ),
                evidence: vec![first.seq, c.seq],
            };
        }
    }
    Outcome::Pass(format!("follow-ups reused thread {thread}"))
}

fn timeout(t: &Transcript) -> Outcome {
    let timeouts: Vec<_> = t
        .calls
        .iter()
        .filter(|c| c.event() == Some("timeout"))
        .collect();
    if timeouts.is_empty() {
        return Outcome::Unobserved("no call returned a timeout event".into());
    }
    for to in timeouts {
        let Some(thread) = to.result_thread() else {
            continue;
        };
        let later: Vec<_> = t
            .calls
            .iter()
            .filter(|c| c.seq > to.seq && c.thread_arg() == Some(thread))
            .collect();
        // Status of the thread as the client last saw it, walking forward from the timeout.
        let mut working = true;
        let mut read = false;
        for c in &later {
            if c.name == CPC && working && !t.user_message_between(to.seq, c.seq) {
                return Outcome::Violated {
                    message: format!(
                        "after timeout (#{}), call_perplexity_computer was sent to thread {thread} while it was still working, with no new message from the user: {}",
                        to.seq,
                        c.describe()
                    ),
                    evidence: vec![to.seq, c.seq],
                };
            }
            if c.name == "read_thread" {
                read = true;
            }
            if let Some(status) = c.task_status() {
                working = status == "working";
            }
        }
        if !read {
            return Outcome::Unobserved(format!(
                "after timeout (#{}), the client never called read_thread on thread {thread}",
                to.seq
            ));
        }
    }
    Outcome::Pass("after each timeout the client read the thread".into())
}

fn task_status(t: &Transcript) -> Outcome {
    let threads = t.issued_threads();
    if threads.is_empty() {
        return Outcome::Unobserved("no call returned a thread_id".into());
    }
    for thread in &threads {
        let last = t
            .calls
            .iter()
            .rev()
            .find(|c| c.thread() == Some(thread.as_str()) && c.task_status().is_some());
        let Some(last) = last else { continue };
        let status = last.task_status().unwrap_or_default();
        if !terminal(status) {
            // A request left waiting on a sign-in the client never told Computer about.
            if let Some((waiting, url)) = super::auth::unnotified_sign_in(t)
                && waiting == *thread
            {
                return super::auth::not_reached_without_notify(&waiting, &url);
            }
            return Outcome::Violated {
                message: format!(
                    "the client stopped following thread {thread} while task_status was {status}: {}",
                    last.describe()
                ),
                evidence: vec![last.seq],
            };
        }
    }
    Outcome::Pass("every thread was followed to a final task_status".into())
}

fn sleep(t: &Transcript) -> Outcome {
    let sleeps: Vec<_> = t
        .calls
        .iter()
        .filter(|c| c.event() == Some("sleep"))
        .collect();
    if sleeps.is_empty() {
        return Outcome::Unobserved("no call returned a sleep event".into());
    }
    for s in sleeps {
        let (Some(thread), Some(wake)) = (
            s.result_thread(),
            s.result
                .get("wake_at")
                .and_then(serde_json::Value::as_str)
                .and_then(|w| chrono::DateTime::parse_from_rfc3339(w).ok()),
        ) else {
            continue;
        };
        if let Some(c) = t
            .calls_named(CPC)
            .find(|c| c.seq > s.seq && c.thread_arg() == Some(thread) && c.virtual_time < wake)
        {
            return Outcome::Violated {
                message: format!(
                    "call_perplexity_computer was sent to sleeping thread {thread} before its wake_at {wake}: {}",
                    c.describe()
                ),
                evidence: vec![s.seq, c.seq],
            };
        }
    }
    Outcome::Pass("no message was sent to a sleeping thread before wake_at".into())
}

fn waiting(t: &Transcript) -> Outcome {
    let waits: Vec<_> = t
        .calls
        .iter()
        .filter(|c| c.event() == Some("waiting"))
        .collect();
    if waits.is_empty() {
        return Outcome::Unobserved("no call returned a waiting event".into());
    }
    for w in waits {
        let Some(thread) = w.result_thread() else {
            continue;
        };
        let Some(next) = t.calls_named(CPC).find(|c| c.seq > w.seq) else {
            return Outcome::Unobserved(format!(
                "the user's next message after waiting (#{}) was never sent",
                w.seq
            ));
        };
        if next.thread_arg() != Some(thread) {
            return Outcome::Violated {
                message: format!(
                    "after waiting on thread {thread}, the next message did not continue that thread: {}",
                    next.describe()
                ),
                evidence: vec![w.seq, next.seq],
            };
        }
        if !t.user_message_between(w.seq, next.seq) {
            return Outcome::Violated {
                message: format!(
                    "call_perplexity_computer continued waiting thread {thread} with no new message from the user: {}",
                    next.describe()
                ),
                evidence: vec![w.seq, next.seq],
            };
        }
    }
    Outcome::Pass("the waiting thread was continued with the user's next message".into())
}

fn cancel(t: &Transcript) -> Outcome {
    let cancels: Vec<_> = t.calls_named("cancel_task").collect();
    let Some(last) = cancels.last() else {
        return Outcome::Unobserved("the client never called cancel_task".into());
    };
    let Some(thread) = last.thread_arg() else {
        return Outcome::Violated {
            message: format!("cancel_task without a thread_id: {}", last.describe()),
            evidence: vec![last.seq],
        };
    };
    let reads: Vec<_> = t
        .calls_named("read_thread")
        .filter(|c| c.seq > last.seq && c.thread_arg() == Some(thread))
        .collect();
    let Some(read) = reads.last() else {
        return Outcome::Violated {
            message: format!(
                "cancellation was never confirmed: no read_thread on {thread} after cancel_task (#{})",
                last.seq
            ),
            evidence: vec![last.seq],
        };
    };
    match read.task_status() {
        Some(s) if terminal(s) => Outcome::Pass(format!(
            "read_thread (#{}) confirmed task_status {s}",
            read.seq
        )),
        // A cancel that failed returned no task_status: the task may still be running.
        other if last.task_status().is_none() => Outcome::Violated {
            message: format!(
                "cancel_task failed ({}: an error without task_status, so the task may still be running), read_thread then showed task_status {other:?}, and the client did not retry cancel_task",
                last.describe(),
            ),
            evidence: vec![last.seq, read.seq],
        },
        other => Outcome::Violated {
            message: format!(
                "the last read_thread after cancel_task showed task_status {other:?} and the client neither retried cancel_task nor checked again: {}",
                read.describe()
            ),
            evidence: vec![last.seq, read.seq],
        },
    }
}
