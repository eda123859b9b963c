//! The Sonar client rules (suite `sonar`): a 429's `Retry-After` waited out before the request
//! goes again, a 5xx retried only after a backoff and given up with an error the person sees,
//! the answer's citations shown to the person, and an answered request (one that spent credits)
//! not sent again.
//!
//! Everything is read from the journal (what the client sent to `/chat/completions` ≡
//! `/v1/chat/completions` ≡ `/v1/sonar` and what the mock answered) and the user channel's log
//! (what the client showed). The wait after a 429 is the client's own, so it is judged in real
//! time against the `Retry-After` the mock announced; everything else is time-independent.

use mock_server::Exchange;
use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::Transcript;

use super::documents::{HTTP_SEMANTICS, PYTHON_SDK_DOC, STREAMING_CITATIONS_DOC};
use super::ids;
use super::retries;
use super::rule::Rule;

/// The paths a chat completion is served on (the SDKs use `/chat/completions`).
pub(crate) const CHAT_PATHS: &[&str] = &["/chat/completions", "/v1/chat/completions", "/v1/sonar"];

/// The Sonar scenarios whose answer cites sources.
const CITED: &[&str] = &["sonar-cited-answer", "sonar-cited-stream"];
/// Every Sonar scenario in which the client's request is answered in the end.
const EVERY_SONAR: &[&str] = &[
    "sonar-cited-answer",
    "sonar-cited-stream",
    "sonar-rate-limited",
    "sonar-server-error-transient",
];
/// The Sonar scenarios whose requests fail with a 5xx.
const SERVER_ERRORS: &[&str] = &["sonar-server-error-transient", "sonar-server-error"];

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
            id: ids::SONAR_SERVER_ERROR_BACKOFF,
            summary: "after a 5xx, a chat completion is sent again only after a backoff (at least 0.25 s of real time from the answer), never at once",
            level: Level::Should,
            doc: DocRef {
                document: PYTHON_SDK_DOC,
                section: "Retries",
                quote: "Certain errors are automatically retried 2 times by default, with a short exponential backoff.",
            },
            scenarios: SERVER_ERRORS,
            check: server_error_backoff,
        },
        Rule {
            id: ids::SONAR_SERVER_ERROR_GIVE_UP,
            summary: "a chat completion the service keeps failing (5xx) is tried at most 6 times, then the client stops and shows the person an error",
            level: Level::Must,
            doc: DocRef {
                document: PYTHON_SDK_DOC,
                section: "Handling errors",
                quote: "When the API returns a non-success status code (that is, 4xx or 5xx response), a subclass of perplexity.APIStatusError is raised",
            },
            scenarios: &["sonar-server-error"],
            check: server_error_give_up,
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
    retries::retry_after_waited(&chats(t).collect::<Vec<_>>(), "chat completion")
}

fn server_error_backoff(t: &Transcript) -> Outcome {
    retries::backed_off(&chats(t).collect::<Vec<_>>(), "chat completion")
}

fn server_error_give_up(t: &Transcript) -> Outcome {
    retries::gave_up(t, &chats(t).collect::<Vec<_>>(), "chat completion")
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
    retries::answered_not_resent(
        &chats(t).collect::<Vec<_>>(),
        |e| e.status == 200,
        "chat completion",
    )
}
