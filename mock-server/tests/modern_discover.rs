//! The 2026-07-28 probe: `server/discover` lists both eras, the tasks extension, caching hints
//! and the server info, and a handshake client still gets its session at the same URL.

use http::StatusCode;
use serde_json::json;

use crate::common::modern::{MODERN, TASKS};
use crate::common::{Mock, keys};

#[tokio::test(start_paused = true)]
async fn discover_lists_both_eras_the_tasks_extension_and_caching_hints() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");

    let reply = client.rpc("server/discover", json!({})).await;

    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert!(
        reply.headers.get("mcp-session-id").is_none(),
        "the modern era has no sessions"
    );
    let result = &reply.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([MODERN, "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    assert_eq!(result["capabilities"]["extensions"][TASKS], json!({}));
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": false})
    );
    assert!(result["ttlMs"].as_u64().is_some(), "{result}");
    assert_eq!(result["cacheScope"], "private");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "perplexity-computer-mock"
    );
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("read_thread"))
    );
    assert_eq!(
        keys(result),
        [
            "_meta",
            "cacheScope",
            "capabilities",
            "instructions",
            "resultType",
            "supportedVersions",
            "ttlMs"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_handshake_client_at_the_same_url_still_initializes_a_session() {
    let mock = Mock::new();
    let mut modern = mock.modern("alice-dev-token");
    let discover = modern.rpc("server/discover", json!({})).await;
    assert_eq!(discover.status, StatusCode::OK);

    let mut legacy = mock.session("alice-dev-token").await;
    assert_eq!(legacy.version, "2025-11-25");
    let list = legacy.rpc("tools/list", json!({})).await;
    assert_eq!(list.status, StatusCode::OK);
    assert!(
        list.body["result"].get("resultType").is_none(),
        "handshake results carry no resultType: {list:?}"
    );
    assert!(list.body["result"].get("ttlMs").is_none());
}

#[tokio::test(start_paused = true)]
async fn a_session_cannot_switch_to_the_modern_era() {
    let mock = Mock::new();
    let legacy = mock.session("alice-dev-token").await;

    let session = legacy.session.clone().expect("a session");
    let reply = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", "Bearer alice-dev-token"),
                ("mcp-session-id", &session),
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "tools/list"),
            ],
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {}}}})
            .to_string(),
        )
        .await;

    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert!(
        reply.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unsupported MCP-Protocol-Version")),
        "{reply:?}"
    );
}
