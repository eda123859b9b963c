//! Handshake-era wire rules: `initialized`, the protocol version header, the session id, and the
//! progress token on `tools/call`.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::suite::{EVERY_COMPUTER, HANDSHAKE};
use crate::transcript::Transcript;

use super::documents::{COMPUTER_DOC, MCP_SPEC};
use super::ids;
use super::rule::Rule;

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::MCP_LIFECYCLE_INITIALIZED,
            summary: "after initialize, the client sends notifications/initialized before other requests",
            level: Level::Must,
            doc: DocRef {
                document: MCP_SPEC,
                section: "Lifecycle: Initialization",
                quote: "After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations.",
            },
            scenarios: &[HANDSHAKE],
            check: initialized,
        },
        Rule {
            id: ids::MCP_TRANSPORT_PROTOCOL_VERSION_HEADER,
            summary: "every request after initialize carries MCP-Protocol-Version with the negotiated version",
            level: Level::Must,
            doc: DocRef {
                document: MCP_SPEC,
                section: "Transports: Protocol Version Header",
                quote: "If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server.",
            },
            scenarios: &[HANDSHAKE],
            check: protocol_version,
        },
        Rule {
            id: ids::MCP_TRANSPORT_SESSION_ID,
            summary: "every request after initialize echoes the Mcp-Session-Id the server assigned",
            level: Level::Must,
            doc: DocRef {
                document: MCP_SPEC,
                section: "Transports: Session Management",
                quote: "If an Mcp-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the Mcp-Session-Id header on all of their subsequent HTTP requests.",
            },
            scenarios: &[HANDSHAKE],
            check: session_id,
        },
        Rule {
            id: ids::COMPUTER_PROGRESS_TOKEN,
            summary: "every tools/call that waits on the task (call_perplexity_computer, the answers, notify_connected) carries a unique params._meta.progressToken",
            level: Level::Should,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Status and Progress Updates",
                quote: "The Computer MCP server sends status updates as MCP progress notifications while a task runs. Your client must include a progress token and support progress notifications to display them.",
            },
            scenarios: &[EVERY_COMPUTER],
            check: progress_token,
        },
    ]
}

/// The successful `initialize`: (seq, negotiated version, session id).
fn initialize(t: &Transcript) -> Option<(usize, String, Option<String>)> {
    t.rpcs.iter().rev().find_map(|r| {
        if r.method.as_deref() != Some("initialize") {
            return None;
        }
        let version = r.response.pointer("/result/protocolVersion")?.as_str()?;
        let session = r
            .response_headers
            .get("mcp-session-id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Some((r.seq, version.to_owned(), session))
    })
}

fn initialized(t: &Transcript) -> Outcome {
    let Some((init, _, _)) = initialize(t) else {
        return Outcome::Unobserved("the client never completed an initialize handshake".into());
    };
    let later: Vec<_> = t.rpcs.iter().filter(|r| r.seq > init).collect();
    let notified = later
        .iter()
        .find(|r| r.method.as_deref() == Some("notifications/initialized"));
    let first_request = later.iter().find(|r| {
        r.method
            .as_deref()
            .is_some_and(|m| !m.starts_with("notifications/") && m != "ping")
    });
    match (notified, first_request) {
        (None, Some(r)) => Outcome::Violated {
            message: format!(
                "no notifications/initialized was sent after initialize (#{init}), yet the client went on with {}",
                r.method.as_deref().unwrap_or("?")
            ),
            evidence: vec![init, r.seq],
        },
        (None, None) => Outcome::Violated {
            message: format!("no notifications/initialized was sent after initialize (#{init})"),
            evidence: vec![init],
        },
        (Some(n), Some(r)) if r.seq < n.seq => Outcome::Violated {
            message: format!(
                "{} (#{}) was sent before notifications/initialized (#{})",
                r.method.as_deref().unwrap_or("?"),
                r.seq,
                n.seq
            ),
            evidence: vec![r.seq, n.seq],
        },
        (Some(n), _) => Outcome::Pass(format!("notifications/initialized sent (#{})", n.seq)),
    }
}

fn protocol_version(t: &Transcript) -> Outcome {
    let Some((init, version, _)) = initialize(t) else {
        return Outcome::Unobserved("the client never completed an initialize handshake".into());
    };
    let later: Vec<_> = t.rpcs.iter().filter(|r| r.seq > init).collect();
    if later.is_empty() {
        return Outcome::Unobserved("no request followed initialize".into());
    }
    let bad: Vec<_> = later
        .iter()
        .filter(|r| r.header("mcp-protocol-version") != Some(version.as_str()))
        .collect();
    match bad.first() {
        None => Outcome::Pass(format!(
            "{} requests carried MCP-Protocol-Version: {version}",
            later.len()
        )),
        Some(first) => Outcome::Violated {
            message: format!(
                "{} of {} requests after initialize lack MCP-Protocol-Version: {version} (first: #{} {} with {:?})",
                bad.len(),
                later.len(),
                first.seq,
                first.method.as_deref().unwrap_or("?"),
                first.header("mcp-protocol-version")
            ),
            evidence: bad.iter().map(|r| r.seq).collect(),
        },
    }
}

fn session_id(t: &Transcript) -> Outcome {
    let Some((init, _, session)) = initialize(t) else {
        return Outcome::Unobserved("the client never completed an initialize handshake".into());
    };
    let Some(session) = session else {
        return Outcome::Unobserved("the mock assigned no Mcp-Session-Id".into());
    };
    let later: Vec<_> = t.rpcs.iter().filter(|r| r.seq > init).collect();
    if later.is_empty() {
        return Outcome::Unobserved("no request followed initialize".into());
    }
    let bad: Vec<_> = later
        .iter()
        .filter(|r| r.header("mcp-session-id") != Some(session.as_str()))
        .collect();
    match bad.first() {
        None => Outcome::Pass(format!("{} requests echoed the session id", later.len())),
        Some(first) => Outcome::Violated {
            message: format!(
                "{} of {} requests after initialize did not echo Mcp-Session-Id (first: #{} {})",
                bad.len(),
                later.len(),
                first.seq,
                first.method.as_deref().unwrap_or("?")
            ),
            evidence: bad.iter().map(|r| r.seq).collect(),
        },
    }
}

/// The tools whose calls wait on the running task (up to the call window) and so stream its
/// progress; the others (`read_thread`, `cancel_task`, the listings) answer at once and have no
/// progress to show.
pub(crate) const WAITING_TOOLS: &[&str] = &[
    "call_perplexity_computer",
    "answer_question",
    "confirm_action_approve",
    "confirm_action_deny",
    "notify_connected",
];

fn progress_token(t: &Transcript) -> Outcome {
    // A call refused for its token (401) or its forgotten session (404) was never started, so
    // sending it again after signing in or in a new session does not reuse its progress token.
    let all: Vec<_> = t
        .rpcs
        .iter()
        .filter(|r| r.method.as_deref() == Some("tools/call") && !matches!(r.status, 401 | 404))
        .collect();
    if all.is_empty() {
        return Outcome::Unobserved("the client made no tools/call".into());
    }
    let calls: Vec<_> = all
        .iter()
        .filter(|r| {
            r.params
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| WAITING_TOOLS.contains(&name))
        })
        .collect();
    if calls.is_empty() {
        // A refused upload rightly sends no message: only calls that answer at once, which
        // have no progress to show.
        return Outcome::Pass(format!(
            "none of the {} tools/call waited on a task, so none needed a progress token",
            all.len()
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut missing = Vec::new();
    let mut reused = Vec::new();
    for c in &calls {
        let tool = c.params.get("name").and_then(Value::as_str).unwrap_or("?");
        match c.params.pointer("/_meta/progressToken") {
            Some(token @ (Value::String(_) | Value::Number(_))) => {
                if !seen.insert(token.to_string()) {
                    reused.push((c.seq, tool, token.to_string()));
                }
            }
            _ => missing.push((c.seq, tool)),
        }
    }
    let mut parts = Vec::new();
    if let Some((seq, tool)) = missing.first() {
        parts.push(format!(
            "{} of {} waiting calls sent no params._meta.progressToken (first: #{seq} {tool}), \
             so the mock could stream no progress to show the user",
            missing.len(),
            calls.len()
        ));
    }
    if let Some((seq, tool, token)) = reused.first() {
        parts.push(format!(
            "{} reused a progress token of an earlier call (first: #{seq} {tool} sent {token} again)",
            reused.len()
        ));
    }
    if parts.is_empty() {
        return Outcome::Pass(format!(
            "{} waiting tools/call carried a unique progress token",
            calls.len()
        ));
    }
    let mut evidence: Vec<usize> = missing
        .iter()
        .map(|(seq, _)| *seq)
        .chain(reused.iter().map(|(seq, _, _)| *seq))
        .collect();
    evidence.sort_unstable();
    Outcome::Violated {
        message: parts.join("; "),
        evidence,
    }
}
