//! Account-world and sign-in checks over hand-made journals, for the variants the reference
//! client never plays: a sign-in the mock reports settled, effort without model, visibility
//! without a Project, an authenticated upload, and the refresh of an expired link.

use conformance::rules::{Outcome, UserRecord};
use mock_server::Exchange;
use serde_json::{Value, json};

use crate::common::rule_checks::check;

fn exchange(seq: usize, method: &str, path: &str, status: u16) -> Exchange {
    Exchange::new(seq, method, path, status, chrono::Utc::now())
}

/// A `tools/call` exchange whose result is `result` (as structuredContent).
fn call(seq: usize, tool: &str, args: Value, result: Value) -> Exchange {
    let mut e = exchange(seq, "POST", mock_server::MCP_PATH, 200);
    e.request_body = json!({"jsonrpc": "2.0", "id": seq, "method": "tools/call",
        "params": {"name": tool, "arguments": args}});
    e.response_body = json!({"jsonrpc": "2.0", "id": seq, "result": {"content": [], "structuredContent": result}});
    e
}

/// The user channel handing out `turn` when `at` exchanges had been recorded.
fn turn(at: usize, turn: Value) -> UserRecord {
    UserRecord {
        at,
        kind: "next-message".into(),
        request: Value::Null,
        response: turn,
    }
}

fn read_with_sign_ins(connectors: &[&str]) -> Value {
    let requests: Vec<Value> = connectors
        .iter()
        .map(|c| json!({"type": "auth_required", "connector": c, "auth_url": format!("http://h/_mock/connect/T/{c}")}))
        .collect();
    json!({"thread_id": "T", "event": "transcript",
        "web_state": {"task_status": "input_required", "entries": [{"auth_requests": requests}]}})
}

#[test]
fn connector_when_several_counts_the_sign_ins_the_mock_reported_waiting() {
    let asked = json!({"thread_id": "T", "event": "auth_required", "task_status": "input_required",
        "interactive": {"type": "auth_required", "connector": "github", "auth_url": "http://h/_mock/connect/T/github"}});
    let notify = |seq, connector: Option<&str>, status: &str| {
        let mut args = json!({"thread_id": "T", "message": "done"});
        if let Some(c) = connector {
            args["connector"] = json!(c);
        }
        call(
            seq,
            "notify_connected",
            args,
            json!({"thread_id": "T", "event": "complete", "task_status": status}),
        )
    };
    let rule = "computer.auth.connector-when-several";
    // The mock's read_thread showed two sign-ins waiting: leaving out connector breaks the rule.
    let two = vec![
        call(
            0,
            "call_perplexity_computer",
            json!({"message": "m"}),
            asked.clone(),
        ),
        call(
            1,
            "read_thread",
            json!({"thread_id": "T"}),
            read_with_sign_ins(&["github", "linear"]),
        ),
        notify(2, None, "working"),
    ];
    assert!(matches!(
        check(rule, two, Vec::new()),
        Outcome::Violated { .. }
    ));
    // The mock showed one left (the other was settled on its page): no connector is needed, and
    // the rule was never exercised.
    let one = vec![
        call(
            0,
            "call_perplexity_computer",
            json!({"message": "m"}),
            asked.clone(),
        ),
        call(
            1,
            "read_thread",
            json!({"thread_id": "T"}),
            read_with_sign_ins(&["github", "linear"]),
        ),
        exchange(2, "POST", "/_mock/connect/T/github", 200),
        notify(3, None, "working"),
    ];
    assert!(matches!(
        check(rule, one, Vec::new()),
        Outcome::Unobserved(_)
    ));
    // Naming the connector and being told another still waits (input_required) is the proof
    // that several were waiting, even without a read_thread.
    let named = vec![
        call(
            0,
            "call_perplexity_computer",
            json!({"message": "m"}),
            asked,
        ),
        notify(1, Some("github"), "input_required"),
    ];
    assert!(matches!(check(rule, named, Vec::new()), Outcome::Pass(_)));
}

#[test]
fn effort_without_model_and_visibility_without_a_project_are_violations() {
    let done = json!({"thread_id": "T", "event": "complete", "task_status": "completed"});
    let effort = vec![call(
        0,
        "call_perplexity_computer",
        json!({"message": "m", "effort": "high"}),
        done.clone(),
    )];
    assert!(matches!(
        check("computer.settings.mode-or-model", effort, Vec::new()),
        Outcome::Violated { .. }
    ));
    let visibility = vec![call(
        0,
        "call_perplexity_computer",
        json!({"message": "m", "project_visibility": "project"}),
        done,
    )];
    assert!(matches!(
        check("computer.project.new-conversation", visibility, Vec::new()),
        Outcome::Violated { .. }
    ));
}

#[test]
fn an_upload_post_carrying_authorization_is_a_violation() {
    let url = "http://h/_mock/uploads/uploads/u/a.csv";
    let envelope = call(
        0,
        "create_attachment_upload",
        json!({"filename": "a.csv", "mime_type": "text/csv", "size_bytes": 3}),
        json!({"attachment_url": url, "upload_url": "http://h/_mock/uploads", "upload_fields": {"key": "uploads/u/a.csv"}}),
    );
    let mut post = exchange(1, "POST", "/_mock/uploads", 204);
    post.response_headers.insert("location".into(), json!(url));
    assert!(matches!(
        check(
            "computer.upload.envelope",
            vec![envelope.clone(), post.clone()],
            Vec::new()
        ),
        Outcome::Pass(_)
    ));
    post.request_headers
        .insert("authorization".into(), json!("[redacted]"));
    assert!(matches!(
        check("computer.upload.envelope", vec![envelope, post], Vec::new()),
        Outcome::Violated { .. }
    ));
}

#[test]
fn an_expired_link_must_be_replaced_through_create_asset_download() {
    let user = vec![turn(
        0,
        json!({"message": "download it", "request": {"kind": "download", "filename": "catalog.pdf"}}),
    )];
    let expired = exchange(0, "GET", "/_mock/files/old/catalog.pdf", 403);
    let rule = "computer.assets.refresh-download";
    assert!(matches!(
        check(rule, vec![expired.clone()], user.clone()),
        Outcome::Violated { .. }
    ));
    let fresh = call(
        1,
        "create_asset_download",
        json!({"thread_id": "T", "asset_id": "A"}),
        json!({"asset_id": "A", "url": "http://h/_mock/files/new/catalog.pdf", "expires_in_seconds": 3600}),
    );
    let fetched = exchange(2, "GET", "/_mock/files/new/catalog.pdf", 200);
    assert!(matches!(
        check(rule, vec![expired, fresh, fetched], user),
        Outcome::Pass(_)
    ));
}
