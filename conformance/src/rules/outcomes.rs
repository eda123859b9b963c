//! What the client does with outcomes only the user can act on: progress, a failed run, a
//! refusal for the account, a quota, a form only Perplexity can show, a two-factor code, and a
//! URL input request in a task. Each is judged by what the user was shown or asked, in order.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Transcript, UserRecord};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_PROGRESS_SHOWN,
            summary: "each progress notification's message is shown to the user (show kind status)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Status and Progress Updates",
                quote: "Your client must include a progress token and support progress notifications to display them.",
            },
            scenarios: &[
                "follow-up",
                "timeout-then-complete",
                "computer-error",
                "interaction-required",
                "two-factor-required",
            ],
            check: progress_shown,
        },
        Rule {
            id: ids::COMPUTER_ERROR_SHOWN,
            summary: "a failed run (event error, or a completed task with result.isError) is shown as an error, never as an answer",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Events / MCP Tasks: Task status",
                quote: "error: Task failed. Review the error message. [...] If Computer failed, result.isError is true and result.structuredContent.error_code is computer_error.",
            },
            scenarios: &["computer-error", "task-failure"],
            check: error_shown,
        },
        Rule {
            id: ids::COMPUTER_ACCESS_DENIED_SHOWN,
            summary: "access_denied is shown to the user and the message is not sent again",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Events",
                quote: "access_denied: Computer is unavailable for the account. If you belong to an organization, ask its administrator to enable Computer access.",
            },
            scenarios: &["access-denied"],
            check: access_denied,
        },
        Rule {
            id: ids::COMPUTER_CREDITS_QUOTA_RESET,
            summary: "a quota_exhausted refusal tells the user quota_reset_date; no resend before it unless the plan was changed",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Interactive objects for account events",
                quote: "When the reason is quota_exhausted, interactive also includes quota_reset_date, the UTC time when the quota comes back (for example 2026-11-01T00:00:00Z).",
            },
            scenarios: &["quota-exhausted"],
            check: quota_reset,
        },
        Rule {
            id: ids::COMPUTER_INTERACTION_OPEN_URL,
            summary: "interaction_required: the interactive url is opened, then the same thread continues",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Events",
                quote: "interaction_required: Computer needs input that can only be given in Perplexity [...] Open the url in interactive, complete it there, then continue the thread.",
            },
            scenarios: &["interaction-required"],
            check: interaction,
        },
        Rule {
            id: ids::COMPUTER_TWO_FACTOR_INSTRUCTIONS_SHOWN,
            summary: "two_factor_required: its instructions are shown before the user is asked for the next message (computer.thread.reuse judges the reply's thread)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Events",
                quote: "two_factor_required: A connector or site requires two-factor authentication. Follow the instructions in text, then continue with the same thread_id.",
            },
            scenarios: &["two-factor-required"],
            check: two_factor_shown,
        },
        Rule {
            id: ids::TASKS_URL_OPEN,
            summary: "a URL input request is opened for the user before it is answered; accept alone completes nothing",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Answer questions and approvals",
                quote: "Open the URL and complete the required action in Perplexity. [...] For URL requests, accept does not complete the action. The user must finish on the linked page.",
            },
            scenarios: &["task-sign-in", "task-credits"],
            check: url_open,
        },
    ]
}

/// What a client shows its user is only observable through a user channel: a transcript
/// without one (a journal judged alone, as `conformance::judge` does) leaves these rules
/// unjudged rather than failed. Under the runner there always is one, and a client that never
/// used it fails them.
pub(super) fn without_user_channel(t: &Transcript) -> Option<Outcome> {
    (!t.user_channel).then(|| {
        Outcome::NotReached(
            "no user-channel log was recorded, so what the client showed its user cannot be \
             seen (`conformance --target` records one; `judge_transcript` takes one)"
                .to_owned(),
        )
    })
}

/// What the client showed the user, in order.
pub(super) fn shows(t: &Transcript) -> impl Iterator<Item = &UserRecord> {
    t.user.iter().filter(|u| u.kind == "show")
}

pub(super) fn show_text(u: &UserRecord) -> &str {
    u.request.get("text").and_then(Value::as_str).unwrap_or("")
}

pub(super) fn show_kind(u: &UserRecord) -> &str {
    u.request.get("kind").and_then(Value::as_str).unwrap_or("?")
}

/// How the client presented what happened at journal position `seq`: the first thing it showed
/// afterwards, progress statuses apart.
fn first_show_after(t: &Transcript, seq: usize) -> Option<&UserRecord> {
    shows(t).find(|u| u.at > seq && show_kind(u) != "status")
}

fn progress_shown(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let mut sent = 0;
    for e in &t.exchanges {
        for event in &e.sse_events {
            if event.data.get("method").and_then(Value::as_str) != Some("notifications/progress") {
                continue;
            }
            let Some(message) = event
                .data
                .pointer("/params/message")
                .and_then(Value::as_str)
            else {
                continue;
            };
            sent += 1;
            let shown = shows(t)
                // Shown while the call streams (a live display) or after it returned.
                .any(|u| u.at >= e.seq && show_kind(u) == "status" && show_text(u) == message);
            if !shown {
                return Outcome::Violated {
                    message: format!(
                        "the progress notification \"{message}\" on #{} was never shown to the user (show kind status)",
                        e.seq
                    ),
                    evidence: vec![e.seq],
                };
            }
        }
    }
    if sent == 0 {
        let mut calls = t
            .rpcs
            .iter()
            .filter(|r| r.method.as_deref() == Some("tools/call"))
            .peekable();
        let called = calls.peek().is_some();
        let tokens = calls.any(|r| r.params.pointer("/_meta/progressToken").is_some());
        if called && !tokens {
            // No token, no notifications: computer.progress.token reports the cause.
            return Outcome::NotReached(
                "no tools/call carried a progress token, so no progress was sent (computer.progress.token)".into(),
            );
        }
        return Outcome::Unobserved("the mock sent no progress notification with a message".into());
    }
    Outcome::Pass(format!(
        "all {sent} progress messages were shown to the user"
    ))
}

/// Journal positions where a run failed, with its text: `error` results, and tasks/get
/// answers of a completed task whose result is an error.
fn failures(t: &Transcript) -> Vec<(usize, String)> {
    let mut found: Vec<(usize, String)> = t
        .calls
        .iter()
        .filter(|c| c.event() == Some("error"))
        .map(|c| {
            (
                c.seq,
                c.result
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect();
    for r in t
        .rpcs
        .iter()
        .filter(|r| r.method.as_deref() == Some("tasks/get"))
    {
        let task = &r.response["result"];
        if task.get("status").and_then(Value::as_str) == Some("completed")
            && task.pointer("/result/isError") == Some(&Value::Bool(true))
        {
            let text = task
                .pointer("/result/structuredContent/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            found.push((r.seq, text.to_owned()));
            // One failure per task: later polls repeat it.
            break;
        }
    }
    found
}

fn error_shown(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let failed = failures(t);
    if failed.is_empty() {
        return Outcome::Unobserved(
            "no run failed (no error result, no task with result.isError)".into(),
        );
    }
    for (seq, text) in &failed {
        match first_show_after(t, *seq) {
            Some(u) if show_kind(u) == "error" => {}
            Some(u) => {
                return Outcome::Violated {
                    message: format!(
                        "the failed run at #{seq} was shown as `{}`, not as an error: \"{}\"",
                        show_kind(u),
                        show_text(u)
                    ),
                    evidence: vec![*seq],
                };
            }
            None => {
                return Outcome::Violated {
                    message: format!(
                        "the failed run at #{seq} (\"{text}\") was never shown to the user"
                    ),
                    evidence: vec![*seq],
                };
            }
        }
    }
    Outcome::Pass("every failed run was shown to the user as an error".into())
}

fn access_denied(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let Some(denied) = t.calls.iter().find(|c| c.event() == Some("access_denied")) else {
        return Outcome::Unobserved("no call returned access_denied".into());
    };
    if let Some(again) = t.calls_named(CPC).find(|c| c.seq > denied.seq) {
        return Outcome::Violated {
            message: format!(
                "the message was sent again after access_denied (#{}): {}",
                denied.seq,
                again.describe()
            ),
            evidence: vec![denied.seq, again.seq],
        };
    }
    match first_show_after(t, denied.seq) {
        Some(u) if show_kind(u) == "error" => {
            Outcome::Pass("access_denied was shown as an error and not retried".into())
        }
        Some(u) => Outcome::Violated {
            message: format!(
                "access_denied (#{}) was shown as `{}`",
                denied.seq,
                show_kind(u)
            ),
            evidence: vec![denied.seq],
        },
        None => Outcome::Violated {
            message: format!(
                "access_denied (#{}) was never shown to the user",
                denied.seq
            ),
            evidence: vec![denied.seq],
        },
    }
}

fn quota_reset(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let Some((refusal, reset)) = t.calls.iter().find_map(|c| {
        let i = c.result.get("interactive")?;
        (i.get("reason").and_then(Value::as_str) == Some("quota_exhausted")).then(|| {
            (
                c,
                i.get("quota_reset_date")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            )
        })
    }) else {
        return Outcome::Unobserved("no result was refused with reason quota_exhausted".into());
    };
    // The date part is enough: a host may print the date its own way around it.
    let day = reset.get(..10).unwrap_or(reset);
    let told = shows(t).any(|u| u.at > refusal.seq && show_text(u).contains(day));
    if !told {
        return Outcome::Violated {
            message: format!(
                "the user was never told when the quota comes back ({reset}, from #{})",
                refusal.seq
            ),
            evidence: vec![refusal.seq],
        };
    }
    let billing = refusal
        .result
        .pointer("/interactive/billing_url")
        .and_then(Value::as_str);
    if let Some(again) = t.calls_named(CPC).find(|c| c.seq > refusal.seq) {
        let changed_plan = billing
            .and_then(|url| t.opened_before(url, again.seq))
            .is_some();
        let before_reset = chrono::DateTime::parse_from_rfc3339(reset)
            .is_ok_and(|reset| again.virtual_time < reset);
        if !changed_plan && before_reset {
            return Outcome::Violated {
                message: format!(
                    "the message was sent again before the quota comes back ({reset}) without the plan being changed: {}",
                    again.describe()
                ),
                evidence: vec![refusal.seq, again.seq],
            };
        }
    }
    Outcome::Pass(format!("the user was told the quota comes back on {day}"))
}

fn interaction(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let asks: Vec<_> = t
        .calls
        .iter()
        .filter(|c| c.event() == Some("interaction_required"))
        .collect();
    if asks.is_empty() {
        return Outcome::Unobserved("no call returned interaction_required".into());
    }
    for ask in asks {
        let thread = ask.result_thread().unwrap_or_default();
        let Some(url) = ask
            .result
            .pointer("/interactive/url")
            .and_then(Value::as_str)
        else {
            continue;
        };
        let Some(next) = t.calls.iter().find(|c| c.seq > ask.seq && c.name == CPC) else {
            return Outcome::Violated {
                message: format!(
                    "the thread {thread} was never continued after interaction_required (#{})",
                    ask.seq
                ),
                evidence: vec![ask.seq],
            };
        };
        if next.thread_arg() != Some(thread) {
            return Outcome::Violated {
                message: format!(
                    "after interaction_required on thread {thread} the next message went elsewhere: {}",
                    next.describe()
                ),
                evidence: vec![ask.seq, next.seq],
            };
        }
        if t.opened_before(url, next.seq)
            .is_none_or(|opened| opened < ask.seq)
        {
            return Outcome::Violated {
                message: format!(
                    "the thread was continued ({}) before the form at {url} was opened",
                    next.describe()
                ),
                evidence: vec![ask.seq, next.seq],
            };
        }
    }
    Outcome::Pass("each Perplexity-only form was opened before its thread continued".into())
}

fn two_factor_shown(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let Some(ask) = t
        .calls
        .iter()
        .find(|c| c.event() == Some("two_factor_required"))
    else {
        return Outcome::Unobserved("no call returned two_factor_required".into());
    };
    let thread = ask.result_thread().unwrap_or_default();
    let instructions = ask.result.get("text").and_then(Value::as_str).unwrap_or("");
    let Some(reply) = t.user.iter().find(|u| {
        u.kind == "next-message" && u.at > ask.seq && u.response.get("message").is_some()
    }) else {
        return Outcome::Unobserved("the user's reply was never fetched from next-message".into());
    };
    let shown =
        shows(t).any(|u| u.at > ask.seq && u.at <= reply.at && show_text(u) == instructions);
    if !shown {
        return Outcome::Violated {
            message: format!(
                "the two-factor instructions (#{}) were not shown to the user before asking for the next message",
                ask.seq
            ),
            evidence: vec![ask.seq],
        };
    }
    Outcome::Pass(format!(
        "the two-factor instructions on thread {thread} were shown before the user's reply"
    ))
}

fn url_open(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let mut requests: Vec<(usize, String, String)> = Vec::new();
    for r in t
        .rpcs
        .iter()
        .filter(|r| r.method.as_deref() == Some("tasks/get"))
    {
        let Some(map) = r
            .response
            .pointer("/result/inputRequests")
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (key, request) in map {
            if request.pointer("/params/mode").and_then(Value::as_str) != Some("url")
                || requests.iter().any(|(_, k, _)| k == key)
            {
                continue;
            }
            let url = request
                .pointer("/params/url")
                .and_then(Value::as_str)
                .unwrap_or("");
            requests.push((r.seq, key.clone(), url.to_owned()));
        }
    }
    if requests.is_empty() {
        return Outcome::Unobserved("no tasks/get carried a URL input request".into());
    }
    for (seq, key, url) in &requests {
        let answer = t.rpcs.iter().find(|r| {
            r.method.as_deref() == Some("tasks/update")
                && r.params
                    .pointer("/inputResponses")
                    .and_then(|m| m.get(key))
                    .is_some()
        });
        let before = answer.map_or(usize::MAX, |a| a.seq);
        if t.opened_before(url, before)
            .is_none_or(|opened| opened < *seq)
        {
            let what = match answer {
                Some(a) => format!("it was answered (#{}) before the page was opened", a.seq),
                None => "the page was never opened".to_owned(),
            };
            return Outcome::Violated {
                message: format!("URL input request {key} ({url}, #{seq}): {what}"),
                evidence: std::iter::once(*seq).chain(answer.map(|a| a.seq)).collect(),
            };
        }
    }
    Outcome::Pass(format!(
        "{} URL input request(s) opened before they were answered",
        requests.len()
    ))
}
