//! The Sonar client rules (suite `sonar`): a 429's `Retry-After` waited out before the request
//! goes again, the answer's citations shown to the person, and an answered request (one that
//! spent credits) not sent again.
//!
//! Everything is read from the journal (what the client sent to `/chat/completions` ≡
//! `/v1/chat/completions` ≡ `/v1/sonar` and what the mock answered) and the user channel's log
//! (what the client showed). The wait after a 429 is the client's own, so it is judged in real
//! time against the `Retry-After` the mock announced; everything else is time-independent.

use mock_server::Exchange;
use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::Transcript;

use super::documents::{HTTP_SEMANTICS, STREAMING_CITATIONS_DOC};
use super::ids;
use super::rule::Rule;

/// The paths a chat completion is served on (the SDKs use `/chat/completions`).
pub(crate) const CHAT_PATHS: &[&str] = &["/chat/completions", "/v1/chat/completions", "/v1/sonar"];

/// The Sonar scenarios whose answer cites sources.
const CITED: &[&str] = &["sonar-cited-answer", "sonar-cited-stream"];
/// Every Sonar scenario.
const EVERY_SONAR: &[&str] = &[
    "sonar-cited-answer",
    "sonar-cited-stream",
    "sonar-rate-limited",
];

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::SONAR_RATE_LIMIT_RETRY_AFTER,
            summary: "after a 429 with Retry-After, the next chat completion request waits at least that long (real time), then goes again",
            level: Level::Must,
            doc: DocRef {
                document: HTTP_SEMANTICS,
                section: "10.2.3. Retry-After",
                quote: "Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request.",
            },
            scenarios: &["sonar-rate-limited"],
            check: retry_after,
        },
        Rule {
            id: ids::SONAR_CITATIONS_SHOWN,
            summary: "an answer's citations (the sources its [1], [2] ... refer to) are shown to the person with the answer",
            level: Level::Should,
            doc: DocRef {
                document: STREAMING_CITATIONS_DOC,
                section: "Streaming citations",
                quote: "The model inserts numbered references like [1], [2] in the text, and the corresponding source URLs arrive in the search_results output item. [...] you can display text and sources progressively",
            },
            scenarios: CITED,
            check: citations_shown,
        },
        Rule {
            id: ids::SONAR_ANSWERED_NO_RESEND,
            summary: "a chat completion that was answered (and spent credits) is not sent again unchanged",
            level: Level::Should,
            doc: DocRef {
                document: HTTP_SEMANTICS,
                section: "9.2.2. Idempotent Methods",
                quote: "A client SHOULD NOT automatically retry a request with a non-idempotent method unless it has some means to know that the request semantics are actually idempotent",
            },
            scenarios: EVERY_SONAR,
            check: answered_no_resend,
        },
    ]
}

// ---- what the rules observe --------------------------------------------------------------------

/// Whether `e` is a chat completion request.
fn is_chat(e: &Exchange) -> bool {
    e.method == "POST" && CHAT_PATHS.contains(&e.path.as_str())
}

/// The chat completion requests, in journal order.
fn chats(t: &Transcript) -> impl Iterator<Item = &Exchange> {
    t.exchanges.iter().filter(|e| is_chat(e))
}

/// The `Retry-After` of a response, in seconds (a whole number, as the mock sends it).
fn retry_after_secs(e: &Exchange) -> Option<f64> {
    let value = e.response_headers.get("retry-after")?.as_str()?;
    value.trim().parse::<f64>().ok()
}

/// The citations a chat completion was answered with (JSON body, or the stream's last chunk
/// that carries them).
fn citations(e: &Exchange) -> Vec<String> {
    let from = |v: &Value| -> Option<Vec<String>> {
        let list = v.get("citations")?.as_array()?;
        Some(
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        )
    };
    from(&e.response_body)
        .or_else(|| e.sse_events.iter().rev().find_map(|s| from(&s.data)))
        .unwrap_or_default()
}

/// Everything the client showed the person, as one text.
fn shown_text(t: &Transcript) -> String {
    t.user
        .iter()
        .filter(|r| r.kind == "show")
        .filter_map(|r| r.request.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

// ---- checks ------------------------------------------------------------------------------------

fn retry_after(t: &Transcript) -> Outcome {
    let limited: Vec<(&Exchange, f64)> = chats(t)
        .filter(|e| e.status == 429)
        .filter_map(|e| Some((e, retry_after_secs(e)?)))
        .collect();
    if limited.is_empty() {
        return Outcome::Unobserved(
            "no chat completion was refused with 429 and a Retry-After".into(),
        );
    }
    let mut waited = 0;
    for (refused, secs) in &limited {
        let Some(next) = chats(t).find(|e| e.seq > refused.seq) else {
            continue;
        };
        // From the answer: the client can only start waiting once it has the 429.
        let gap = (next.real_time - refused.real_responded_at).num_milliseconds() as f64 / 1000.0;
        if gap < *secs {
            return Outcome::Violated {
                message: format!(
                    "the 429 at #{} said Retry-After: {secs}, and the next request went {gap:.3} s later (#{})",
                    refused.seq, next.seq
                ),
                evidence: vec![refused.seq, next.seq],
            };
        }
        waited += 1;
    }
    if waited == 0 {
        return Outcome::Unobserved(
            "the request refused with 429 was never sent again, so no wait could be judged".into(),
        );
    }
    Outcome::Pass(format!(
        "{waited} request(s) after a 429 waited out its Retry-After"
    ))
}

fn citations_shown(t: &Transcript) -> Outcome {
    let cited: Vec<(&Exchange, Vec<String>)> = chats(t)
        .filter(|e| e.status == 200)
        .map(|e| (e, citations(e)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    if cited.is_empty() {
        return Outcome::Unobserved("no chat completion was answered with citations".into());
    }
    let shown = shown_text(t);
    for (e, urls) in &cited {
        if let Some(missing) = urls.iter().find(|u| !shown.contains(u.as_str())) {
            return Outcome::Violated {
                message: format!(
                    "the answer at #{} cites {} source(s); the client never showed `{missing}`",
                    e.seq,
                    urls.len()
                ),
                evidence: vec![e.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "the citations of {} answer(s) were shown",
        cited.len()
    ))
}

fn answered_no_resend(t: &Transcript) -> Outcome {
    let all: Vec<&Exchange> = chats(t).collect();
    let answered: Vec<&&Exchange> = all.iter().filter(|e| e.status == 200).collect();
    if answered.is_empty() {
        return Outcome::Unobserved("no chat completion was answered".into());
    }
    for first in &answered {
        if let Some(again) = all
            .iter()
            .find(|e| e.seq > first.seq && e.request_body == first.request_body)
        {
            return Outcome::Violated {
                message: format!(
                    "the request answered at #{} (it spent credits) was sent again unchanged at #{}",
                    first.seq, again.seq
                ),
                evidence: vec![first.seq, again.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} answered request(s), none sent again",
        answered.len()
    ))
}
