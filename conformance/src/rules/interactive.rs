//! Questions, confirmations and several interactions waiting at once.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{ToolCall, Transcript};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::rule::Rule;

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_QUESTION_ANSWER,
            summary: "ask_user_question is answered with answer_question{thread_id, answers, followup_uuid}",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "answer_question",
                quote: "followup_uuid: The followup_uuid from the event's interactive object, or request.answer_submission_uuid from a read_thread form. Pass it when present so the answer reaches the right question.",
            },
            scenarios: &["ask-user-question", "pending-interactions"],
            check: question,
        },
        Rule {
            id: ids::COMPUTER_CONFIRM_DECIDE,
            summary: "confirm_action is decided with confirm_action_approve/deny{thread_id, result, followup_uuid}",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "confirm_action_approve / confirm_action_deny",
                quote: "confirm_action: Call confirm_action_approve or confirm_action_deny. [...] result (Required): Reason or message for the approval.",
            },
            scenarios: &["confirm-action", "pending-interactions"],
            check: confirm,
        },
        Rule {
            id: ids::COMPUTER_PENDING_EACH,
            summary: "every item of pending_interactions is handled",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Response Format",
                quote: "pending_interactions: Present when more than one question or confirmation is waiting. Each item has the same shape as interactive.",
            },
            scenarios: &["pending-interactions"],
            check: pending,
        },
    ]
}

/// `answer_submission_uuid`s the client could have read from read_thread.
fn submission_uuids(t: &Transcript) -> Vec<String> {
    let mut found = Vec::new();
    for c in t.calls_named("read_thread") {
        collect_key(&c.result, "answer_submission_uuid", &mut found);
    }
    found
}

fn collect_key(value: &Value, key: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == key
                    && let Some(s) = v.as_str()
                {
                    out.push(s.to_owned());
                }
                collect_key(v, key, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_key(v, key, out)),
        _ => {}
    }
}

/// Interactions of `kind` results asked for, with the object: each result's `interactive` and
/// every item of its `pending_interactions` (the same shape, flagged `true`), so an answer is
/// judged wherever its question was asked.
fn asked<'a>(t: &'a Transcript, kind: &str) -> Vec<(&'a ToolCall, &'a Value, bool)> {
    t.calls
        .iter()
        .flat_map(|c| {
            let pending = c
                .result
                .get("pending_interactions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            let own = c.result.get("interactive").into_iter().map(|i| (i, false));
            own.chain(pending.map(|i| (i, true)))
                .filter(move |(i, _)| i.get("type").and_then(Value::as_str) == Some(kind))
                .map(move |(i, listed)| (c, i, listed))
        })
        .collect()
}

/// Checks that each interactive of `kind` got one of `tools` with the right arguments.
fn follow_up(t: &Transcript, kind: &str, tools: &[&str], required: &str) -> Outcome {
    let asks = asked(t, kind);
    if asks.is_empty() {
        return Outcome::Unobserved(format!("no result carried an interactive {kind}"));
    }
    let uuids = submission_uuids(t);
    let mut answered = std::collections::BTreeSet::new();
    let mut used = std::collections::BTreeSet::new();
    let listed_uuids: std::collections::BTreeSet<&str> = t
        .calls
        .iter()
        .filter_map(|c| c.result.get("pending_interactions")?.as_array())
        .filter(|items| items.len() > 1)
        .flatten()
        .filter_map(|i| i.get("followup_uuid").and_then(Value::as_str))
        .collect();
    for (ask, interactive, listed) in asks {
        let thread = ask.result_thread().unwrap_or_default();
        let uuid = interactive.get("followup_uuid").and_then(Value::as_str);
        if uuid.is_some_and(|u| answered.contains(u)) {
            continue;
        }
        // The answer that names this interaction, else the first answer not taken by another.
        let replies = || {
            t.calls
                .iter()
                .filter(|c| c.seq > ask.seq && tools.contains(&c.name.as_str()))
        };
        let named = replies().find(|c| {
            uuid.is_some() && c.args.get("followup_uuid").and_then(Value::as_str) == uuid
        });
        let reply = named.or_else(|| replies().find(|c| !used.contains(&c.seq)));
        // An interaction once listed among several stays the pending rule's when unanswered.
        let listed = listed || uuid.is_some_and(|u| listed_uuids.contains(u));
        if reply.is_none() && listed {
            // Whether every listed interaction was handled is computer.pending.each's business;
            // here only the answers given are judged.
            continue;
        }
        let Some(reply) = reply else {
            return Outcome::Violated {
                message: format!(
                    "{kind} on thread {thread} (#{}) was never answered with {}",
                    ask.seq,
                    tools.join(" or ")
                ),
                evidence: vec![ask.seq],
            };
        };
        let problem = if reply.thread_arg() != Some(thread) {
            Some(format!("thread_id is not {thread}"))
        } else if !has_value(reply.args.get(required)) {
            Some(format!("`{required}` is missing or empty"))
        } else {
            match (
                uuid,
                reply.args.get("followup_uuid").and_then(Value::as_str),
            ) {
                (Some(expected), Some(given))
                    if given == expected || uuids.iter().any(|u| u == given) =>
                {
                    None
                }
                (Some(expected), Some(given)) => Some(format!(
                    "followup_uuid {given} is neither the interactive's {expected} nor an answer_submission_uuid from read_thread"
                )),
                (Some(expected), None) => Some(format!(
                    "followup_uuid {expected} was present but not passed"
                )),
                (None, _) => None,
            }
        };
        if let Some(problem) = problem {
            return Outcome::Violated {
                message: format!("{}: {problem}", reply.describe()),
                evidence: vec![ask.seq, reply.seq],
            };
        }
        used.insert(reply.seq);
        if let Some(u) = uuid {
            answered.insert(u.to_owned());
        }
    }
    Outcome::Pass(format!(
        "every {kind} was answered with thread_id, {required} and followup_uuid"
    ))
}

fn has_value(v: Option<&Value>) -> bool {
    match v {
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Null) | None => false,
        Some(_) => true,
    }
}

fn question(t: &Transcript) -> Outcome {
    follow_up(t, "ask_user_question", &["answer_question"], "answers")
}

fn confirm(t: &Transcript) -> Outcome {
    follow_up(
        t,
        "confirm_action",
        &["confirm_action_approve", "confirm_action_deny"],
        "result",
    )
}

fn pending(t: &Transcript) -> Outcome {
    let lists: Vec<_> = t
        .calls
        .iter()
        .filter_map(|c| {
            let items = c.result.get("pending_interactions")?.as_array()?;
            (items.len() > 1).then_some((c, items))
        })
        .collect();
    if lists.is_empty() {
        return Outcome::Unobserved("no result listed more than one pending interaction".into());
    }
    for (call, items) in lists {
        for item in items {
            let Some(uuid) = item.get("followup_uuid").and_then(Value::as_str) else {
                continue;
            };
            // Whether the answer carried the right followup_uuid is the question and confirm
            // rules' business; here any answer of the item's kind on the thread counts.
            let tools: &[&str] = match item.get("type").and_then(Value::as_str) {
                Some("confirm_action") => &["confirm_action_approve", "confirm_action_deny"],
                _ => &["answer_question"],
            };
            let thread = call.result_thread();
            let handled = t.calls.iter().any(|c| {
                c.seq > call.seq
                    && (c.args.get("followup_uuid").and_then(Value::as_str) == Some(uuid)
                        || (tools.contains(&c.name.as_str()) && c.thread_arg() == thread))
            });
            if !handled {
                return Outcome::Violated {
                    message: format!(
                        "pending interaction {} ({uuid}) listed at #{} was never handled",
                        item.get("type").and_then(Value::as_str).unwrap_or("?"),
                        call.seq
                    ),
                    evidence: vec![call.seq],
                };
            }
        }
    }
    Outcome::Pass("every pending interaction was handled".into())
}
