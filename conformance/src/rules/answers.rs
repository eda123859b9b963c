//! Answers and choices the client sends for its user: an approval form answered the way the
//! user decided, a declined in-call form resumed with the follow-up tools, a form found only in
//! read_thread answered with its `answer_submission_uuid`, and a mode or model picked from
//! `models_list`.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{ToolCall, Transcript, UserRecord};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::outcomes::without_user_channel;
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_APPROVAL_USER_DECISION,
            summary: "an approval form (no fields) is answered accept when the user approves and decline when they deny",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Answer questions and approvals / call_perplexity_computer",
                quote: "Approvals | Form with no fields | accept approves. decline denies. [...] Declining a confirmation form denies the action",
            },
            scenarios: &[
                "task-approval",
                "task-approval-deny",
                "elicitation-confirm",
                "elicitation-confirm-deny",
            ],
            check: approval_decision,
        },
        Rule {
            id: ids::ELICITATION_DECLINED_FOLLOW_UP_TOOLS,
            summary: "when a declined in-call form returns its event, the task is resumed with the event's follow-up tool on that thread",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "call_perplexity_computer",
                quote: "If your client doesn't show the form, or you decline a question or cancel a form, the call returns the event. Use the following tools to resume the task.",
            },
            scenarios: &["elicitation-question-later"],
            check: declined_follow_up,
        },
        Rule {
            id: ids::COMPUTER_READ_THREAD_ANSWER_FORM,
            summary: "a question found only in read_thread is answered with its tool, the thread_id and followup_uuid = request.answer_submission_uuid",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "answer_question",
                quote: "followup_uuid: The followup_uuid from the event's interactive object, or request.answer_submission_uuid from a read_thread form.",
            },
            scenarios: &["question-in-read-thread"],
            check: read_thread_form,
        },
        Rule {
            id: ids::COMPUTER_SETTINGS_LISTED,
            summary: "a mode, model or effort passed to call_perplexity_computer was listed by an earlier models_list",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Choosing a Mode or Model",
                quote: "Use values returned by models_list. Values that aren't available to your account are rejected.",
            },
            scenarios: &["project-settings"],
            check: settings_listed,
        },
    ]
}

/// An answer to one input request, wherever it went: a `tasks/update` or an in-call retry.
struct Answered<'a> {
    seq: usize,
    action: &'a str,
}

/// The approval forms the server asked for (form mode, no fields), by key, with where.
fn approval_requests(t: &Transcript) -> Vec<(usize, String, String)> {
    let mut found: Vec<(usize, String, String)> = Vec::new();
    for r in &t.rpcs {
        let Some(requests) = r
            .response
            .pointer("/result/inputRequests")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (key, request) in requests {
            let form = request.pointer("/params/mode").and_then(Value::as_str) != Some("url");
            let no_fields = request
                .pointer("/params/requestedSchema/properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty());
            if form && no_fields && !found.iter().any(|(_, k, _)| k == key) {
                let message = request
                    .pointer("/params/message")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                found.push((r.seq, key.clone(), message.to_owned()));
            }
        }
    }
    found
}

/// The first answer to input request `key` after `seq` that the server took.
fn answer_to<'a>(t: &'a Transcript, key: &str, seq: usize) -> Option<Answered<'a>> {
    // Only an answer the server took counts: one it refused (an error) changed nothing.
    let taken = |r: &&crate::transcript::Rpc| r.seq > seq && r.response.get("error").is_none();
    t.rpcs.iter().filter(taken).find_map(|r| {
        let response = r.params.get("inputResponses")?.get(key)?;
        Some(Answered {
            seq: r.seq,
            action: response
                .get("action")
                .and_then(Value::as_str)
                .unwrap_or("?"),
        })
    })
}

/// The user's last decision on a confirmation asked before journal position `before`.
fn decision_before(t: &Transcript, after: usize, before: usize) -> Option<&UserRecord> {
    t.user
        .iter()
        .rev()
        .filter(|u| u.kind == "ask" && u.at > after && u.at <= before)
        .find(|u| u.request.get("kind").and_then(Value::as_str) == Some("confirm"))
}

fn approval_decision(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let requests = approval_requests(t);
    if requests.is_empty() {
        return Outcome::Unobserved("the server asked for no approval form".into());
    }
    for (asked, key, message) in &requests {
        let Some(answer) = answer_to(t, key, *asked) else {
            return Outcome::Violated {
                message: format!("the approval {key} (\"{message}\", #{asked}) was never answered"),
                evidence: vec![*asked],
            };
        };
        let Some(decision) = decision_before(t, *asked, answer.seq) else {
            return Outcome::Violated {
                message: format!(
                    "the approval {key} (\"{message}\") was answered `{}` (#{}) without asking the user",
                    answer.action, answer.seq
                ),
                evidence: vec![*asked, answer.seq],
            };
        };
        let approved = decision.response.get("action").and_then(Value::as_str) == Some("accept");
        let expected = if approved { "accept" } else { "decline" };
        if answer.action != expected {
            let said = if approved { "approved" } else { "denied" };
            return Outcome::Violated {
                message: format!(
                    "the user {said} \"{message}\", but approval {key} was answered `{}` (#{}); `{expected}` {said} it",
                    answer.action, answer.seq
                ),
                evidence: vec![*asked, answer.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} approval(s) answered as the user decided",
        requests.len()
    ))
}

fn declined_follow_up(t: &Transcript) -> Outcome {
    let returned: Vec<&ToolCall> = t
        .calls_named(CPC)
        .filter(|c| matches!(c.event(), Some("ask_user_question" | "confirm_action")))
        .collect();
    if returned.is_empty() {
        return Outcome::Unobserved(
            "no in-call form came back as its event (the user declined none)".into(),
        );
    }
    for event in returned {
        let thread = event.result_thread().unwrap_or_default();
        let tool = event
            .result
            .pointer("/interactive/respond_with_tool")
            .and_then(Value::as_str)
            .unwrap_or(match event.event() {
                Some("confirm_action") => "confirm_action_approve or confirm_action_deny",
                _ => "answer_question",
            });
        // read_thread only looks; the first call that acts must be the follow-up tool.
        let next = t
            .calls
            .iter()
            .find(|c| c.seq > event.seq && c.name != "read_thread");
        let fits = |c: &ToolCall| {
            tool.split(" or ").any(|name| name == c.name)
                || (tool == "confirm_action" && c.name.starts_with("confirm_action_"))
        };
        match next {
            Some(n) if fits(n) && n.thread_arg() == Some(thread) => {}
            Some(n) if fits(n) => {
                return Outcome::Violated {
                    message: format!(
                        "{} answered the form returned on thread {thread} (#{}) with another thread_id",
                        n.describe(),
                        event.seq
                    ),
                    evidence: vec![event.seq, n.seq],
                };
            }
            Some(n) => {
                return Outcome::Violated {
                    message: format!(
                        "the declined form came back as {} on thread {thread} (#{}); the task was resumed with {} instead of {tool}",
                        event.event().unwrap_or("?"),
                        event.seq,
                        n.describe()
                    ),
                    evidence: vec![event.seq, n.seq],
                };
            }
            None => {
                return Outcome::Violated {
                    message: format!(
                        "the declined form came back as {} on thread {thread} (#{}) and the task was never resumed with {tool}",
                        event.event().unwrap_or("?"),
                        event.seq
                    ),
                    evidence: vec![event.seq],
                };
            }
        }
    }
    Outcome::Pass(
        "each form that came back as its event was answered with its follow-up tool".into(),
    )
}

/// Forms waiting in read_thread results whose `answer_submission_uuid` no tool result's
/// `interactive` (or `pending_interactions`) showed: (read, thread, tool, uuid).
fn read_thread_forms(t: &Transcript) -> Vec<(usize, String, String, String)> {
    let shown: Vec<&str> = t
        .calls
        .iter()
        .flat_map(|c| {
            let own = c.result.get("interactive").into_iter();
            let listed = c
                .result
                .get("pending_interactions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten();
            own.chain(listed)
        })
        .filter_map(|i| i.get("followup_uuid").and_then(Value::as_str))
        .collect();
    let mut found: Vec<(usize, String, String, String)> = Vec::new();
    for read in t.calls_named("read_thread") {
        let entries = read
            .result
            .pointer("/web_state/entries")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for i in entries
            .filter_map(|e| e.get("interactions").and_then(Value::as_array))
            .flatten()
        {
            let Some(uuid) = i
                .pointer("/request/answer_submission_uuid")
                .and_then(Value::as_str)
            else {
                continue;
            };
            if shown.contains(&uuid) || found.iter().any(|(_, _, _, u)| u == uuid) {
                continue;
            }
            let tool = i
                .get("respond_with_tool")
                .and_then(Value::as_str)
                .unwrap_or("answer_question");
            let thread = read.thread_arg().unwrap_or_default();
            found.push((
                read.seq,
                thread.to_owned(),
                tool.to_owned(),
                uuid.to_owned(),
            ));
        }
    }
    found
}

/// When a scenario's trigger needs a read_thread after a `timeout` and the client sent none,
/// the rule is not reached: computer.timeout.read-thread judges that.
pub(super) fn timeout_left_unread(t: &Transcript) -> Option<Outcome> {
    let timeout = t.calls_named(CPC).find(|c| c.event() == Some("timeout"))?;
    let thread = timeout.result_thread()?;
    let next = t
        .calls
        .iter()
        .find(|c| c.seq > timeout.seq && c.thread() == Some(thread));
    if next.is_some_and(|n| n.name == "read_thread") {
        return None;
    }
    Some(Outcome::NotReached(format!(
        "after the timeout ({}) the client did not call read_thread, so what read_thread shows never reached it ({} judges that)",
        timeout.describe(),
        ids::COMPUTER_TIMEOUT_READ_THREAD
    )))
}

fn read_thread_form(t: &Transcript) -> Outcome {
    let forms = read_thread_forms(t);
    if forms.is_empty() {
        if let Some(unread) = timeout_left_unread(t) {
            return unread;
        }
        return Outcome::Unobserved(
            "no read_thread showed a form that no tool result had shown".into(),
        );
    }
    for (read, thread, tool, uuid) in &forms {
        let tools: &[&str] = if tool.starts_with("confirm_action") {
            &["confirm_action_approve", "confirm_action_deny"]
        } else {
            &["answer_question"]
        };
        let Some(answer) = t
            .calls
            .iter()
            .find(|c| c.seq > *read && tools.contains(&c.name.as_str()))
        else {
            return Outcome::Violated {
                message: format!(
                    "the form waiting in read_thread (#{read}, answer_submission_uuid {uuid}) was never answered with {}",
                    tools.join(" or ")
                ),
                evidence: vec![*read],
            };
        };
        let given = answer.args.get("followup_uuid").and_then(Value::as_str);
        let problem = if answer.thread_arg() != Some(thread.as_str()) {
            Some(format!("thread_id is not {thread}"))
        } else if given != Some(uuid.as_str()) {
            Some(match given {
                Some(other) => {
                    format!("followup_uuid {other} is not the form's answer_submission_uuid {uuid}")
                }
                None => format!(
                    "the form's answer_submission_uuid {uuid} was not passed as followup_uuid"
                ),
            })
        } else {
            None
        };
        if let Some(problem) = problem {
            return Outcome::Violated {
                message: format!("{}: {problem}", answer.describe()),
                evidence: vec![*read, answer.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} form(s) from read_thread answered with their answer_submission_uuid",
        forms.len()
    ))
}

/// What `models_list` results offered: the modes, and each model with its efforts.
struct Listed<'a> {
    modes: Vec<&'a str>,
    models: Vec<(&'a str, Vec<&'a str>)>,
}

/// What `models_list` results before `seq` offered.
fn listed_before(t: &Transcript, seq: usize) -> Option<Listed<'_>> {
    let lists: Vec<&ToolCall> = t
        .calls_named("models_list")
        .filter(|c| c.seq < seq && c.result.is_object())
        .collect();
    if lists.is_empty() {
        return None;
    }
    let mut modes = Vec::new();
    let mut models = Vec::new();
    for list in lists {
        modes.extend(
            list.result
                .get("modes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|item| item.get("mode").and_then(Value::as_str)),
        );
        for model in list
            .result
            .get("models")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(id) = model.get("id").and_then(Value::as_str) {
                let efforts = model
                    .get("efforts")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                models.push((id, efforts));
            }
        }
    }
    Some(Listed { modes, models })
}

fn settings_listed(t: &Transcript) -> Outcome {
    let picks: Vec<&ToolCall> = t
        .calls_named(CPC)
        .filter(|c| {
            ["mode", "model", "effort"]
                .iter()
                .any(|k| c.args.get(*k).is_some())
        })
        .collect();
    if picks.is_empty() {
        return Outcome::Unobserved("no call passed a mode, model or effort".into());
    }
    for call in &picks {
        let Some(Listed { modes, models }) = listed_before(t, call.seq) else {
            return Outcome::Violated {
                message: format!(
                    "{} chose its settings with no models_list before it",
                    call.describe()
                ),
                evidence: vec![call.seq],
            };
        };
        let arg = |k: &str| call.args.get(k).and_then(Value::as_str);
        let problem = if let Some(mode) = arg("mode")
            && !modes.contains(&mode)
        {
            Some(format!(
                "mode `{mode}` is not among the listed modes {modes:?}"
            ))
        } else if let Some(model) = arg("model") {
            match models.iter().find(|(id, _)| *id == model) {
                None => Some(format!("model `{model}` was not listed")),
                Some((_, efforts)) => arg("effort")
                    .filter(|e| !efforts.contains(e))
                    .map(|e| format!("effort `{e}` is not among {model}'s efforts {efforts:?}")),
            }
        } else {
            None
        };
        if let Some(problem) = problem {
            return Outcome::Violated {
                message: format!("{}: {problem}", call.describe()),
                evidence: vec![call.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} call(s) chose settings models_list had listed",
        picks.len()
    ))
}
