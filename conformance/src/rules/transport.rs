//! The MCP client's duties when the transport fails (suite `computer`, issue 26): a session the
//! server forgot is replaced by a new one, and a call whose stream dropped before its answer is
//! resumed with `Last-Event-ID`, never sent again (the task it started goes on).
//!
//! The faults are staged by the runner (the scenario's `faults`, in the mock's fault grammar):
//! `forget-session` in `mcp-session-forgotten`, `end-after-events=2` in `mcp-stream-dropped`.
//! Everything is read from the journal.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Rpc, Transcript, resumes_of};

use super::documents::{COMPUTER_DOC, MCP_SPEC};
use super::ids;
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::MCP_TRANSPORT_SESSION_NOT_FOUND_REINITIALIZE,
            summary: "after a 404 to a request carrying Mcp-Session-Id, the client starts a new session with an initialize without it, and never sends the forgotten id again",
            level: Level::Must,
            doc: DocRef {
                document: MCP_SPEC,
                section: "Transports: Session Management",
                quote: "When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.",
            },
            scenarios: &["mcp-session-forgotten"],
            check: reinitialize,
        },
        Rule {
            id: ids::MCP_TRANSPORT_RESUME_DROPPED_STREAM,
            summary: "a call whose SSE stream ended before its response is resumed with GET and the Last-Event-ID of the last event received, through to the response",
            level: Level::Should,
            doc: DocRef {
                document: MCP_SPEC,
                section: "Transports: Resumability and Redelivery",
                quote: "If the client wishes to resume after a disconnection (whether due to network failure or otherwise), it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID header to indicate the last event ID it received.",
            },
            scenarios: &["mcp-stream-dropped"],
            check: resumed,
        },
        Rule {
            id: ids::COMPUTER_DISCONNECT_NO_RESEND,
            summary: "after the stream of call_perplexity_computer dropped before its answer, the same message is not sent again: the task it started goes on",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "MCP Tasks: Start a task",
                quote: "After a disconnect, authenticate again and continue polling the same ID. A disconnect does not stop Computer.",
            },
            scenarios: &["mcp-stream-dropped"],
            check: no_resend,
        },
    ]
}

fn reinitialize(t: &Transcript) -> Outcome {
    let Some((refused, forgotten)) = t.rpcs.iter().find_map(|r| {
        let session = r.header("mcp-session-id")?;
        (r.status == 404).then(|| (r, session.to_owned()))
    }) else {
        return Outcome::Unobserved(
            "no request met the forgotten session (404 on its Mcp-Session-Id)".into(),
        );
    };
    let later: Vec<&Rpc> = t.rpcs.iter().filter(|r| r.seq > refused.seq).collect();
    let Some(next) = later.first() else {
        return Outcome::Violated {
            message: format!(
                "{} (#{}) got 404 for session {forgotten} and the client sent nothing more: it must initialize a new session",
                refused.method.as_deref().unwrap_or("?"),
                refused.seq
            ),
            evidence: vec![refused.seq],
        };
    };
    // A client that negotiates the era starts afresh with `server/discover` (no session),
    // then initializes: what counts is that it starts without the forgotten id, and starts a
    // new session.
    if let Some(session) = next.header("mcp-session-id") {
        return Outcome::Violated {
            message: format!(
                "after the 404 for session {forgotten} (#{}), the next request was {} (#{}) in session {session}, not a new initialize without Mcp-Session-Id",
                refused.seq,
                next.method.as_deref().unwrap_or("?"),
                next.seq,
            ),
            evidence: vec![refused.seq, next.seq],
        };
    }
    let Some(initialize) = later.iter().find(|r| {
        r.method.as_deref() == Some("initialize") && r.header("mcp-session-id").is_none()
    }) else {
        return Outcome::Violated {
            message: format!(
                "after the 404 for session {forgotten} (#{}) the client never sent a new initialize without Mcp-Session-Id",
                refused.seq
            ),
            evidence: vec![refused.seq],
        };
    };
    if let Some(stale) = later
        .iter()
        .find(|r| r.header("mcp-session-id") == Some(forgotten.as_str()))
    {
        return Outcome::Violated {
            message: format!(
                "the client initialized again (#{}) but later sent {} (#{}) in the forgotten session {forgotten}",
                initialize.seq,
                stale.method.as_deref().unwrap_or("?"),
                stale.seq
            ),
            evidence: vec![refused.seq, stale.seq],
        };
    }
    Outcome::Pass(format!(
        "the 404 (#{}) was followed by a new initialize (#{}), and the forgotten session was not used again",
        refused.seq, initialize.seq
    ))
}

/// The first `call_perplexity_computer` whose stream ended before its response (the journal
/// kept what the client saw: events, none of them the response).
fn dropped_call(t: &Transcript) -> Option<&Rpc> {
    t.rpcs.iter().find(|r| {
        r.method.as_deref() == Some("tools/call")
            && r.params.get("name").and_then(Value::as_str) == Some(CPC)
            && t.exchanges.iter().any(|e| {
                e.seq == r.seq
                    && !e.sse_events.is_empty()
                    && !e.sse_events.iter().any(|s| s.data.get("id") == Some(&r.id))
            })
    })
}

/// Why no stream dropped: the calls sent no progress token, so each was answered as one JSON
/// body, with nothing to cut short (the token rule judges that); or no call was made.
fn not_dropped(t: &Transcript) -> Outcome {
    let calls: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| r.params.get("name").and_then(Value::as_str) == Some(CPC))
        .collect();
    if !calls.is_empty()
        && calls
            .iter()
            .all(|r| r.params.pointer("/_meta/progressToken").is_none())
    {
        return Outcome::NotReached(format!(
            "call_perplexity_computer sent no progress token, so it was answered as one JSON body with no stream to drop ({} judges the token)",
            ids::COMPUTER_PROGRESS_TOKEN
        ));
    }
    Outcome::Unobserved("no call_perplexity_computer stream was cut short".into())
}

fn resumed(t: &Transcript) -> Outcome {
    let Some(dropped) = dropped_call(t) else {
        return not_dropped(t);
    };
    let received: Vec<&Value> = t
        .exchanges
        .iter()
        .filter(|e| e.seq == dropped.seq)
        .flat_map(|e| e.sse_events.iter().map(|s| &s.data))
        .collect();
    match resumes_of(t, dropped).first() {
        // Each event of the stream says something new (a progress count, the response): one
        // the client already had, replayed, means it resumed from an older id than its last.
        Some(resume) => match resume
            .sse_events
            .iter()
            .find(|s| received.contains(&&s.data))
        {
            Some(again) => Outcome::Violated {
                message: format!(
                    "the stream of #{} was resumed (#{}) from an older Last-Event-ID than the last event received: the replay repeated {}",
                    dropped.seq, resume.seq, again.data
                ),
                evidence: vec![dropped.seq, resume.seq],
            },
            None => Outcome::Pass(format!(
                "the stream of #{} was resumed after its last event with Last-Event-ID (#{}) and carried its response",
                dropped.seq, resume.seq
            )),
        },
        None => Outcome::Violated {
            message: format!(
                "the stream of call_perplexity_computer (#{}) ended before its response and the client never resumed it with GET and Last-Event-ID",
                dropped.seq
            ),
            evidence: vec![dropped.seq],
        },
    }
}

fn no_resend(t: &Transcript) -> Outcome {
    let Some(dropped) = dropped_call(t) else {
        return not_dropped(t);
    };
    let message = dropped.params.pointer("/arguments/message");
    let again = t.rpcs.iter().find(|r| {
        r.seq > dropped.seq
            && r.method.as_deref() == Some("tools/call")
            && r.params.get("name").and_then(Value::as_str) == Some(CPC)
            && r.params.pointer("/arguments/message") == message
    });
    match again {
        Some(again) => Outcome::Violated {
            message: format!(
                "the stream of call_perplexity_computer (#{}) dropped and the client sent the same message again (#{}), starting a second task while the first went on",
                dropped.seq, again.seq
            ),
            evidence: vec![dropped.seq, again.seq],
        },
        None => Outcome::Pass(format!(
            "the message of #{} was not sent again after its stream dropped",
            dropped.seq
        )),
    }
}
