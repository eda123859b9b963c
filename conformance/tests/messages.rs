//! What a failure tells the client's author: one line naming what the client did (in its own
//! terms: the era it negotiated, the token it sent, the field it read), what was expected and
//! the fix, with its evidence capped to a few exchanges.

use conformance::check::{Check, EVIDENCE_SHOWN, Status};
use conformance::rules::{self, Transcript};
use mock_server::Exchange;
use serde_json::{Value, json};

use crate::common;

/// A POST to the MCP endpoint with `body`, answered `status` with `answer`.
fn post(seq: usize, body: Value, status: u16, answer: Value, headers: &[(&str, &str)]) -> Exchange {
    let mut e = Exchange::new(
        seq,
        "POST",
        mock_server::MCP_PATH,
        status,
        chrono::Utc::now(),
    );
    for (name, value) in headers {
        e.request_headers.insert((*name).into(), json!(value));
    }
    e.request_body = body;
    e.response_body = answer;
    e
}

/// A handshake-era `tools/call` of `tool` (with or without a progress token).
fn tool_call(seq: usize, tool: &str, args: Value, token: bool, result: Value) -> Exchange {
    let mut params = json!({"name": tool, "arguments": args});
    if token {
        params["_meta"] = json!({"progressToken": format!("p{seq}")});
    }
    post(
        seq,
        json!({"jsonrpc": "2.0", "id": seq, "method": "tools/call", "params": params}),
        200,
        json!({"jsonrpc": "2.0", "id": seq, "result": {"content": [], "structuredContent": result}}),
        &[
            ("mcp-session-id", "s"),
            ("mcp-protocol-version", "2025-11-25"),
        ],
    )
}

fn judged(scenario: &str, exchanges: Vec<Exchange>) -> Vec<Check> {
    rules::judge(&Transcript::new(scenario, exchanges, Vec::new()))
}

fn check<'a>(checks: &'a [Check], rule: &str) -> &'a Check {
    checks
        .iter()
        .find(|c| c.rule == rule)
        .unwrap_or_else(|| panic!("{rule} judged: {checks:#?}"))
}

fn read_thread(seq: usize, task_status: &str, token: bool) -> Exchange {
    tool_call(
        seq,
        "read_thread",
        json!({"thread_id": "T"}),
        token,
        json!({"thread_id": "T", "event": "transcript", "status": "idle",
               "web_state": {"task_status": task_status, "entries": []}}),
    )
}

#[test]
fn read_thread_calls_without_a_progress_token_are_not_warned_about() {
    let timeout = json!({"thread_id": "T", "event": "timeout", "task_status": "working"});
    let mut journal = vec![tool_call(
        0,
        "call_perplexity_computer",
        json!({"message": "m"}),
        true,
        timeout,
    )];
    journal.extend((1..=25).map(|seq| read_thread(seq, "working", false)));
    let checks = judged("timeout-then-complete", journal);
    let progress = check(&checks, "computer.progress.token");
    assert_eq!(progress.status, Status::Success, "{}", progress.details);
    assert_eq!(
        progress.details,
        "1 waiting tools/call carried a unique progress token"
    );
}

#[test]
fn a_missing_progress_token_is_one_line_with_three_exchanges_and_the_count() {
    let complete = |seq: usize| {
        tool_call(
            seq,
            "call_perplexity_computer",
            json!({"message": format!("m{seq}")}),
            false,
            json!({"thread_id": format!("T{seq}"), "event": "complete", "task_status": "completed"}),
        )
    };
    let checks = judged("follow-up", (0..25).map(complete).collect());
    let progress = check(&checks, "computer.progress.token");
    assert_eq!(progress.status, Status::Warning);
    assert_eq!(progress.evidence.len(), EVIDENCE_SHOWN);
    assert_eq!(
        progress.evidence.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert!(!progress.details.contains('\n'), "{}", progress.details);
    assert_eq!(
        progress.details,
        "25 of 25 waiting calls sent no params._meta.progressToken (first: #0 \
         call_perplexity_computer), so the mock could stream no progress to show the user (25 \
         exchanges, the first 3 below). Expected: every tools/call that waits on the task \
         (call_perplexity_computer, the answers, notify_connected) carries a unique \
         params._meta.progressToken."
    );
}

/// What the Python `mcp` SDK's default `mode="auto"` did against a mock that accepted its
/// probe: `server/discover`, then 2026-07-28 requests, never `initialize`.
fn auto_client_journal() -> Vec<Exchange> {
    let envelope = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    vec![
        post(
            0,
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": envelope}}),
            200,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2026-07-28"], "resultType": "complete"}}),
            &[("mcp-protocol-version", "2026-07-28")],
        ),
        post(
            1,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": envelope}}),
            200,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}),
            &[("mcp-protocol-version", "2026-07-28")],
        ),
    ]
}

#[test]
fn a_handshake_scenario_names_the_era_the_client_negotiated_and_the_sdk_switch() {
    let checks = judged("follow-up", auto_client_journal());
    for rule in [
        "mcp.lifecycle.initialized",
        "mcp.transport.protocol-version-header",
        "mcp.transport.session-id",
    ] {
        let c = check(&checks, rule);
        assert_eq!(c.status, Status::Failure);
        assert!(
            c.details.starts_with(
                "not observed: the client never completed an initialize handshake: this \
                 scenario runs the 2025-11-25 handshake era \
                 (MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25), but the client probed \
                 server/discover (#0) and went on in 2026-07-28 without initialize. Expected: "
            ),
            "{rule}: {}",
            c.details
        );
        assert!(
            c.details.ends_with(
                "(Python mcp SDK: Client(url, mode=\"legacy\"); TypeScript \
                 @modelcontextprotocol/client: versionNegotiation {mode: \"legacy\"})."
            ),
            "{rule}: {}",
            c.details
        );
        assert_eq!(c.evidence.first().map(|e| e.seq), Some(0), "{rule}");
    }
    // Once the mock answers the probe as a 2025-11-25 server would (unknown method), a client
    // that still does not fall back is told that instead.
    let mut refused = auto_client_journal();
    refused[0].response_body = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
    let checks = judged("follow-up", refused);
    assert!(
        check(&checks, "mcp.lifecycle.initialized")
            .details
            .contains(
                "the client probed server/discover (#0), which the mock refused as a 2025-11-25 \
             server does, and did not fall back to initialize"
            )
    );
}

#[test]
fn a_modern_scenario_names_the_handshake_the_client_made_instead() {
    let journal = vec![post(
        0,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        200,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}),
        &[],
    )];
    let checks = judged("task-question", journal);
    let failing: Vec<&Check> = checks
        .iter()
        .filter(|c| c.status == Status::Failure)
        .collect();
    assert!(!failing.is_empty());
    for c in failing {
        assert!(
            c.details.contains(
                "this scenario runs 2026-07-28 (MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28, flow \
                 tasks), but the client sent initialize (#0) and negotiated 2025-11-25"
            ) && c.details.contains(
                "clientCapabilities declaring the io.modelcontextprotocol/tasks extension"
            ) && c
                .details
                .contains("Python mcp SDK: the default mode=\"auto\""),
            "{}: {}",
            c.rule,
            c.details
        );
    }
}

#[test]
fn a_dev_token_in_a_sign_in_scenario_is_named_with_what_to_do_instead() {
    let dev = format!(
        "Bearer {}",
        mock_server::journal::fingerprint("alice-dev-token")
    );
    let journal = vec![post(
        0,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}),
        200,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}),
        &[("authorization", &dev)],
    )];
    let checks = judged("sign-in", journal);
    let pkce = check(&checks, "oauth.pkce-s256");
    assert_eq!(pkce.status, Status::Failure);
    assert!(
        pkce.details.contains(
            "the client sent the built-in dev token alice-dev-token (#0) instead of signing in; \
             a sign-in scenario hands out no token (CONFORMANCE_BEARER_TOKEN is unset) and the \
             mock accepted it, so the client never met the 401 that starts the sign-in"
        ) && pkce.details.contains("Fix: never fall back to a dev token"),
        "{}",
        pkce.details
    );
}

#[test]
fn requests_without_a_token_are_told_to_send_the_one_the_runner_hands_out() {
    let refused = |seq: usize| {
        post(
            seq,
            json!({"jsonrpc": "2.0", "id": seq, "method": "initialize", "params": {}}),
            401,
            json!({"error": "invalid_token"}),
            &[],
        )
    };
    let checks = judged("follow-up", vec![refused(0), refused(1)]);
    let failing: Vec<&Check> = checks
        .iter()
        .filter(|c| c.status == Status::Failure)
        .collect();
    assert!(!failing.is_empty());
    for c in failing {
        assert!(
            c.details.contains(
                "all 2 MCP requests were refused with 401 because they carried no Authorization header"
            ) && c.details.contains(
                "Fix: send `Authorization: Bearer $CONFORMANCE_BEARER_TOKEN` on every MCP request."
            ),
            "{}: {}",
            c.rule,
            c.details
        );
    }
}

#[test]
fn a_client_that_sent_nothing_is_told_where_to_connect() {
    let checks = judged("follow-up", Vec::new());
    let reuse = check(&checks, "computer.thread.reuse");
    assert!(
        reuse.details.contains(
            ": the client sent no request to the mock at all. Expected: a follow-up carries the \
             previous thread_id; a new conversation omits it. Fix: connect to the MCP URL the \
             runner passes as the target's last argument"
        ),
        "{}",
        reuse.details
    );
}

#[test]
fn a_client_polling_past_the_end_is_told_where_read_thread_reports_the_status() {
    let timeout = json!({"thread_id": "T", "event": "timeout", "task_status": "working"});
    let mut journal = vec![tool_call(
        0,
        "call_perplexity_computer",
        json!({"message": "m"}),
        true,
        timeout,
    )];
    journal.push(read_thread(1, "working", false));
    journal.extend((2..6).map(|seq| read_thread(seq, "completed", false)));
    let t = Transcript::new("timeout-then-complete", journal, Vec::new());
    let hint = rules::timed_out_polling(&t).expect("a hint");
    assert!(
        hint.starts_with(
            "it was still calling read_thread: 3 more calls after #2 showed the task completed \
             at structuredContent.web_state.task_status."
        ),
        "{hint}"
    );
    // A client that stopped when the task ended was not polling past it.
    let stopped = Transcript::new(
        "timeout-then-complete",
        vec![
            read_thread(1, "working", false),
            read_thread(2, "completed", false),
        ],
        Vec::new(),
    );
    assert_eq!(rules::timed_out_polling(&stopped), None);
}

/// A real client in the wrong era: the reference client told it runs in 2026-07-28 whatever
/// the scenario says, against a handshake scenario; and the other way round.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_in_the_wrong_era_is_told_both_eras_end_to_end() {
    let modern = format!(
        "MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28 {}",
        common::reference(None)
    );
    let run = common::run(&common::options(&modern, &["follow-up"])).await;
    let init = run
        .checks()
        .find(|c| c.rule == "mcp.lifecycle.initialized")
        .expect("judged");
    assert_eq!(init.status, Status::Failure);
    assert!(
        init.details.contains(
            "this scenario runs the 2025-11-25 handshake era (MCP_CONFORMANCE_PROTOCOL_VERSION=\
             2025-11-25), but the client sent 2026-07-28 requests"
        ),
        "{}",
        init.details
    );
    let handshake = format!(
        "MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 {}",
        common::reference(None)
    );
    let run = common::run(&common::options(&handshake, &["elicitation-confirm"])).await;
    let failing: Vec<&Check> = run
        .checks()
        .filter(|c| c.status == Status::Failure && c.rule != "target.exit")
        .collect();
    assert!(!failing.is_empty(), "the handshake client failed nothing");
    assert!(
        failing.iter().all(|c| c.details.contains(
            "but the client sent initialize (#0) and the mock refused it as a \
                       2026-07-28-only server does (method not found)"
        )),
        "{failing:#?}"
    );
}
