//! Bad input in the 2026-07-28 era: each envelope or header fault gets its documented error
//! (checked in the reference order) and changes nothing.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::modern::{MODERN, TASKS, drop_header, set_header};
use crate::common::{self, Mock};

fn error(reply: &common::Reply) -> (i64, String) {
    (
        reply.body["error"]["code"].as_i64().unwrap_or_default(),
        reply.body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

#[tokio::test(start_paused = true)]
async fn a_missing_protocol_version_header_is_a_header_mismatch() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    let body = client.body("tools/list", json!({}));
    let reply = client
        .send_edited(&body, |h| drop_header(h, "mcp-protocol-version"))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    let (code, message) = error(&reply);
    assert_eq!(code, -32020);
    assert!(message.contains("MCP-Protocol-Version"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn missing_meta_keys_are_invalid_params() {
    let mock = Mock::new();
    let client = mock.modern("alice-dev-token");
    for meta in [
        json!({}),
        json!({"io.modelcontextprotocol/protocolVersion": MODERN}),
        json!({"io.modelcontextprotocol/clientCapabilities": {}}),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}});
        let reply = client.send_edited(&body, |_| {}).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{meta}");
        let (code, message) = error(&reply);
        assert_eq!(code, -32602, "{meta}");
        assert!(message.contains("_meta"), "{message}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_header_that_disagrees_with_the_meta_version_is_a_header_mismatch() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    let body = client.body("tools/list", json!({}));
    let reply = client
        .send_edited(&body, |h| {
            set_header(h, "mcp-protocol-version", "2099-01-01")
        })
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(error(&reply).0, -32020);
}

#[tokio::test(start_paused = true)]
async fn an_unknown_version_gets_unsupported_with_the_supported_list() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    let mut body = client.body("server/discover", json!({}));
    body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let reply = client
        .send_edited(&body, |h| {
            set_header(h, "mcp-protocol-version", "2099-01-01")
        })
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert_eq!(error(&reply).0, -32022);
    let data = &reply.body["error"]["data"];
    assert_eq!(data["requested"], "2099-01-01");
    assert!(
        data["supported"]
            .as_array()
            .is_some_and(|v| v.contains(&Value::from(MODERN))),
        "{data}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_method_header_that_disagrees_with_the_body_is_a_header_mismatch() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    let body = client.body("tools/list", json!({}));
    for edit in [Some("tools/call"), None] {
        let reply = client
            .send_edited(&body, |h| match edit {
                Some(value) => set_header(h, "mcp-method", value),
                None => drop_header(h, "mcp-method"),
            })
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{edit:?}");
        let (code, message) = error(&reply);
        assert_eq!(code, -32020);
        assert!(message.contains("Mcp-Method"), "{message}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_name_header_that_disagrees_with_the_tool_is_refused_and_starts_nothing() {
    let mock = Mock::new();
    let credits = mock.handle.world().credits("alice");
    let mut client = mock.modern("alice-dev-token");
    let body = client.body(
        "tools/call",
        json!({"name": "call_perplexity_computer", "arguments": {"message": "#complete hi"}}),
    );
    for edit in [Some("read_thread"), None] {
        let reply = client
            .send_edited(&body, |h| match edit {
                Some(value) => set_header(h, "mcp-name", value),
                None => drop_header(h, "mcp-name"),
            })
            .await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{edit:?}");
        let (code, message) = error(&reply);
        assert_eq!(code, -32020);
        assert!(message.contains("Mcp-Name"), "{message}");
    }
    assert_eq!(
        mock.handle.world().credits("alice"),
        credits,
        "no task ran, no credits were spent"
    );
}

#[tokio::test(start_paused = true)]
async fn a_task_name_header_must_match_the_task_id() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let body = client.body("tasks/get", json!({"taskId": "abc"}));
    let reply = client
        .send_edited(&body, |h| set_header(h, "mcp-name", "xyz"))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(error(&reply).0, -32020);
}

#[tokio::test(start_paused = true)]
async fn a_tasks_request_without_the_extension_declared_needs_the_capability() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let reply = client.rpc(method, json!({"taskId": "abc"})).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{method}");
        assert_eq!(error(&reply).0, -32021, "{method}");
        assert_eq!(
            reply.body["error"]["data"]["requiredCapabilities"],
            json!({"extensions": {TASKS: {}}})
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_unknown_task_id_is_invalid_params() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let reply = client
        .rpc("tasks/get", json!({"taskId": "no-such-task"}))
        .await;
    assert_eq!(error(&reply).0, -32602, "{reply:?}");
}
