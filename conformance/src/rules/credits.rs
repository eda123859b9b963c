//! Running out of credits, before a message is sent and during a task.

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{ToolCall, Transcript};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_CREDITS_BEFORE_SEND,
            summary: "no thread is assumed from a result without thread_id; the message is sent again after top-up",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Interactive objects for account events",
                quote: "Before a message is sent: the server checks credits before it sends any message, including follow-ups. If that check fails, nothing is sent and the result has no thread_id or task_status. Send the message again after topping up, with the same thread_id for a follow-up.",
            },
            scenarios: &[
                "insufficient-credits-before-send",
                "task-credits-before-send",
            ],
            check: before_send,
        },
        Rule {
            id: ids::COMPUTER_CREDITS_DURING_TASK,
            summary: "after running out mid-task and topping up, the same thread continues",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Interactive objects for account events",
                quote: "During a task: the thread keeps its state and task_status is input_required. After topping up, continue with the same thread_id.",
            },
            scenarios: &["insufficient-credits-during-task"],
            check: during_task,
        },
        Rule {
            id: ids::COMPUTER_CREDITS_NO_BILLING_URL,
            summary: "a credit refusal without billing_url sends the user to no billing page (topping up would not help)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Interactive objects for account events",
                quote: "billing_url is present only when topping up or changing a limit would help; it’s left out for reasons like a temporary service outage.",
            },
            scenarios: &["credit-check-outage"],
            check: no_billing_url,
        },
    ]
}

fn out_of_credits(t: &Transcript, with_thread: bool) -> Vec<&ToolCall> {
    t.calls
        .iter()
        .filter(|c| c.event() == Some("insufficient_credits"))
        .filter(|c| c.result_thread().is_some() == with_thread)
        .collect()
}

fn before_send(t: &Transcript) -> Outcome {
    let refusals = out_of_credits(t, false);
    let Some(first) = refusals.first() else {
        return Outcome::Unobserved("no call was refused for credits before sending".into());
    };
    let issued = t.issued_threads();
    if let Some(c) = t
        .calls
        .iter()
        .find(|c| c.seq > first.seq && c.thread_arg().is_some_and(|th| !issued.contains(th)))
    {
        return Outcome::Violated {
            message: format!(
                "the client used a thread_id the server never returned (the refused result had none): {}",
                c.describe()
            ),
            evidence: vec![first.seq, c.seq],
        };
    }
    let Some(resend) = t
        .calls_named(CPC)
        .find(|c| c.seq > first.seq && c.event() != Some("insufficient_credits"))
    else {
        return Outcome::Unobserved(format!(
            "the refused message (#{}) was never sent again after a top-up",
            first.seq
        ));
    };
    let original = t.calls.iter().find(|c| c.seq == first.seq);
    let same_message =
        original.is_some_and(|o| o.args.get("message") == resend.args.get("message"));
    let same_thread = original.is_some_and(|o| o.thread_arg() == resend.thread_arg());
    if !same_message || !same_thread {
        return Outcome::Violated {
            message: format!(
                "the message sent after the top-up is not the refused one with the same thread_id: {}",
                resend.describe()
            ),
            evidence: vec![first.seq, resend.seq],
        };
    }
    if !t.top_ups().iter().any(|&s| s > first.seq && s < resend.seq) {
        return Outcome::Violated {
            message: format!(
                "the message was sent again without a top-up in between: {}",
                resend.describe()
            ),
            evidence: vec![first.seq, resend.seq],
        };
    }
    Outcome::Pass(format!(
        "the message was sent again after a top-up (#{})",
        resend.seq
    ))
}

/// The billing pages the mock serves (`/_mock/billing/{account}`); a client that offers one the
/// refusal did not name made it up.
const BILLING_PAGES: &str = "/_mock/billing/";

fn no_billing_url(t: &Transcript) -> Outcome {
    let Some(refusal) = t.calls.iter().find(|c| {
        c.event() == Some("insufficient_credits")
            && c.result.pointer("/interactive/billing_url").is_none()
    }) else {
        return Outcome::Unobserved("no credit refusal came without a billing_url".into());
    };
    let next = t
        .calls_named(CPC)
        .find(|c| c.seq > refusal.seq)
        .map_or(usize::MAX, |c| c.seq);
    let asked = t.user.iter().find(|u| {
        u.kind == "ask"
            && u.at > refusal.seq
            && u.at <= next
            && u.request.get("kind").and_then(serde_json::Value::as_str) == Some("url")
    });
    if let Some(ask) = asked {
        let url = ask.request.get("url").and_then(serde_json::Value::as_str);
        return Outcome::Violated {
            message: format!(
                "the refusal (#{}) had no billing_url, yet the user was asked to open {} before the next message",
                refusal.seq,
                url.unwrap_or("a URL")
            ),
            evidence: vec![refusal.seq],
        };
    }
    if let Some(page) = t.exchanges.iter().find(|e| {
        e.seq > refusal.seq
            && e.seq < next
            && e.method == "GET"
            && e.path.starts_with(BILLING_PAGES)
    }) {
        return Outcome::Violated {
            message: format!(
                "the refusal (#{}) had no billing_url, yet a billing page was opened: GET {} (#{})",
                refusal.seq, page.path, page.seq
            ),
            evidence: vec![refusal.seq, page.seq],
        };
    }
    Outcome::Pass(format!(
        "the refusal without billing_url (#{}) sent the user to no billing page",
        refusal.seq
    ))
}

fn during_task(t: &Transcript) -> Outcome {
    let refusals = out_of_credits(t, true);
    let Some(first) = refusals.first() else {
        return Outcome::Unobserved("no task ran out of credits".into());
    };
    let thread = first.result_thread().unwrap_or_default();
    let Some(next) = t.calls_named(CPC).find(|c| c.seq > first.seq) else {
        return Outcome::Unobserved(format!(
            "the client never continued after running out of credits (#{})",
            first.seq
        ));
    };
    if next.thread_arg() != Some(thread) {
        return Outcome::Violated {
            message: format!(
                "after topping up, the client did not continue thread {thread}: {}",
                next.describe()
            ),
            evidence: vec![first.seq, next.seq],
        };
    }
    Outcome::Pass(format!("thread {thread} continued after the top-up"))
}
