//! Causes the suite recognises behind a scenario's failures, said in the client's terms (the
//! era it negotiated, the token it sent, the field it read) with the fix: a client in the wrong
//! protocol era fails every handshake rule with "never completed an initialize handshake",
//! which says nothing of why, and a client that falls back to a dev token fails every OAuth
//! rule without a word about the token.
//!
//! Each diagnosis is a pure function of the transcript and the scenario; [`cause`] returns the
//! most fundamental that holds, and every failing check of the scenario names it: a client in
//! the wrong era, or without a token, has that to fix before anything else.

use serde_json::Value;

use crate::check::Cause;
use crate::suite::{self, Era, Flow, ScenarioSpec, SignIn};
use crate::transcript::{Rpc, Transcript, terminal};

/// The `_meta` key of the 2026-07-28 envelope that names the protocol version.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The dev tokens of the built-in accounts, which a sign-in scenario never hands out.
const DEV_TOKENS: &[&str] = &["alice-dev-token", "bob-dev-token"];

/// The most fundamental cause that holds in `t` (a client that sent nothing needs no word
/// about its era), if any.
pub(crate) fn cause(t: &Transcript) -> Option<Cause> {
    let spec = suite::find(&t.scenario)?;
    no_request(t, spec)
        .or_else(|| unauthorized(t, spec))
        .or_else(|| dev_token_in_sign_in(t, spec))
        .or_else(|| handshake_era_missed(t, spec))
        .or_else(|| modern_era_missed(t, spec))
}

/// The client's own requests: not the scripted person's page visits.
fn by_client(t: &Transcript) -> impl Iterator<Item = &mock_server::Exchange> {
    t.exchanges.iter().filter(|e| {
        e.request_headers.get("user-agent").and_then(Value::as_str)
            != Some(crate::transcript::PERSON_USER_AGENT)
    })
}

fn no_request(t: &Transcript, spec: &ScenarioSpec) -> Option<Cause> {
    if by_client(t).next().is_some() {
        return None;
    }
    let fix = if spec.suite == "agent" {
        "send the scenario's requests to PERPLEXITY_BASE_URL with PERPLEXITY_API_KEY; \
         target.exit shows how the process ended"
    } else {
        "connect to the MCP URL the runner passes as the target's last argument; target.exit \
         shows how the process ended"
    };
    Some(Cause {
        text: "the client sent no request to the mock at all".into(),
        fix: fix.into(),
        evidence: Vec::new(),
    })
}

/// Every MCP request of a scenario that hands out a token was refused with 401.
fn unauthorized(t: &Transcript, spec: &ScenarioSpec) -> Option<Cause> {
    if spec.sign_in != SignIn::Token || spec.suite != "computer" {
        return None;
    }
    let first = t.rpcs.first()?;
    if !t.rpcs.iter().all(|r| r.status == 401) {
        return None;
    }
    let sent = first.header("authorization");
    let text = match sent {
        None => format!(
            "all {} MCP requests were refused with 401 because they carried no Authorization header",
            t.rpcs.len()
        ),
        Some(_) => format!(
            "all {} MCP requests were refused with 401: the bearer token they carried is not one \
             the mock issued",
            t.rpcs.len()
        ),
    };
    Some(Cause {
        text,
        fix: "send `Authorization: Bearer $CONFORMANCE_BEARER_TOKEN` on every MCP request".into(),
        evidence: vec![first.seq],
    })
}

/// A sign-in scenario's client sent a built-in dev token instead of signing in.
fn dev_token_in_sign_in(t: &Transcript, spec: &ScenarioSpec) -> Option<Cause> {
    if spec.sign_in != SignIn::OAuth {
        return None;
    }
    let (rpc, token) = t.rpcs.iter().find_map(|r| {
        let sent = r.header("authorization")?;
        DEV_TOKENS
            .iter()
            .find(|token| sent == format!("Bearer {}", mock_server::journal::fingerprint(token)))
            .map(|token| (r, *token))
    })?;
    let answer = if rpc.status == 401 {
        "the mock refused it (401)"
    } else {
        "the mock accepted it, so the client never met the 401 that starts the sign-in"
    };
    Some(Cause {
        text: format!(
            "the client sent the built-in dev token {token} (#{}) instead of signing in; a \
                 sign-in scenario hands out no token (CONFORMANCE_BEARER_TOKEN is unset) and {answer}",
            rpc.seq
        ),
        fix: "never fall back to a dev token: send the first request without Authorization and \
                  sign in with OAuth on its 401 (WWW-Authenticate names the resource metadata)"
            .into(),
        evidence: vec![rpc.seq],
    })
}

/// The 2026-07-28 protocol version a request announced, in its `_meta` envelope or header.
fn modern_version(r: &Rpc) -> bool {
    r.params
        .pointer(&format!("/_meta/{}", META_VERSION.replace('/', "~1")))
        .and_then(Value::as_str)
        == Some(mock_server::MODERN_VERSION)
        || r.header("mcp-protocol-version") == Some(mock_server::MODERN_VERSION)
}

fn initialized_version(t: &Transcript) -> Option<(&Rpc, &str)> {
    t.rpcs.iter().find_map(|r| {
        if r.method.as_deref() != Some("initialize") {
            return None;
        }
        let version = r.response.pointer("/result/protocolVersion")?.as_str()?;
        Some((r, version))
    })
}

/// A handshake-era scenario whose client never completed `initialize` but spoke 2026-07-28.
fn handshake_era_missed(t: &Transcript, spec: &ScenarioSpec) -> Option<Cause> {
    if spec.era != Era::Handshake || spec.suite != "computer" || initialized_version(t).is_some() {
        return None;
    }
    let discover = t
        .rpcs
        .iter()
        .find(|r| r.method.as_deref() == Some("server/discover"));
    let modern = t.rpcs.iter().find(|r| modern_version(r));
    let (seq, did) = match (discover, modern) {
        (Some(d), _) if d.response.get("error").is_some() => (
            d.seq,
            format!(
                "the client probed server/discover (#{}), which the mock refused as a 2025-11-25 \
                 server does, and did not fall back to initialize",
                d.seq
            ),
        ),
        (Some(d), _) => (
            d.seq,
            format!(
                "the client probed server/discover (#{}) and went on in 2026-07-28 without \
                 initialize",
                d.seq
            ),
        ),
        (None, Some(m)) => (
            m.seq,
            format!(
                "the client sent 2026-07-28 requests (the _meta envelope, first #{}) and never \
                 initialize",
                m.seq
            ),
        ),
        (None, None) => return None,
    };
    Some(Cause {
        text: format!(
            "this scenario runs the 2025-11-25 handshake era (MCP_CONFORMANCE_PROTOCOL_VERSION=\
                 2025-11-25), but {did}"
        ),
        fix: "speak the era MCP_CONFORMANCE_PROTOCOL_VERSION names: for 2025-11-25 start with \
                  initialize (Python mcp SDK: Client(url, mode=\"legacy\"); TypeScript \
                  @modelcontextprotocol/client: versionNegotiation {mode: \"legacy\"})"
            .into(),
        evidence: vec![seq],
    })
}

/// A 2026-07-28 scenario whose client sent `initialize` instead: the mock, a 2026-07-28-only
/// server there, refused it, or (an older transcript) the client negotiated a handshake version.
fn modern_era_missed(t: &Transcript, spec: &ScenarioSpec) -> Option<Cause> {
    if spec.era != Era::Modern || spec.suite != "computer" {
        return None;
    }
    let init = t
        .rpcs
        .iter()
        .find(|r| r.method.as_deref() == Some("initialize"))?;
    if t.rpcs.iter().any(modern_version) {
        return None;
    }
    let answered = match init.response.pointer("/result/protocolVersion") {
        Some(version) => format!("negotiated {}", version.as_str().unwrap_or("?")),
        None => "the mock refused it as a 2026-07-28-only server does (method not found)".into(),
    };
    let declare = match spec.flow {
        Flow::Tasks => "the io.modelcontextprotocol/tasks extension",
        Flow::Elicitation => "elicitation {form, url}",
        Flow::Tools => "its capabilities",
    };
    Some(Cause {
        text: format!(
            "this scenario runs 2026-07-28 (MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28, flow \
                 {}), but the client sent initialize (#{}) and {answered}",
            spec.flow.name(),
            init.seq
        ),
        fix: format!(
            "in a 2026-07-28 scenario send no initialize: every request carries the _meta \
                 envelope (protocolVersion 2026-07-28, clientInfo, clientCapabilities declaring \
                 {declare}); Python mcp SDK: the default mode=\"auto\"; TypeScript \
                 @modelcontextprotocol/client: versionNegotiation {{mode: \"auto\"}} (the 1.x \
                 @modelcontextprotocol/sdk speaks 2025-11-25 only)"
        ),
        evidence: vec![init.seq],
    })
}

/// Why a target that was killed at the timeout was still running, when the transcript shows
/// it: polling `read_thread` on a thread whose `web_state.task_status` had long been final
/// (read at the wrong place, the top-level `task_status` that only the task tools report).
pub fn timed_out_polling(t: &Transcript) -> Option<String> {
    let reads: Vec<_> = t.calls_named("read_thread").collect();
    let (first_final, status) = reads.iter().find_map(|c| {
        let status = c.result.pointer("/web_state/task_status")?.as_str()?;
        terminal(status).then_some((c, status))
    })?;
    let thread = first_final.thread_arg()?;
    let after = reads
        .iter()
        .filter(|c| c.seq > first_final.seq && c.thread_arg() == Some(thread))
        .count();
    if after < 2 {
        return None;
    }
    Some(format!(
        "it was still calling read_thread: {after} more calls after #{} showed the task {status} \
         at structuredContent.web_state.task_status. read_thread reports the task's status there \
         (its top-level `status` is the thread's); call_perplexity_computer and the answer tools \
         report it at the top level, task_status. Fix: stop when web_state.task_status is \
         completed, failed or cancelled",
        first_final.seq
    ))
}
