//! A later request without `MCP-Protocol-Version` (Gemini CLI sends none after negotiating
//! 2025-06-18). MCP specification 2025-06-18, Transports, Protocol Version Header: "if the
//! server does not receive an MCP-Protocol-Version header, and has no other way to identify the
//! version - for example, by relying on the protocol version negotiated during initialization -
//! the server SHOULD assume protocol version 2025-03-26." A session's negotiated version is
//! that other way, so the request is answered in the version the session negotiated.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::Mock;

/// `call_perplexity_computer` on `session` with no `MCP-Protocol-Version` header.
async fn call_without_the_header(mock: &Mock, session: &str) -> Value {
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", "Bearer alice-dev-token"),
        ("mcp-session-id", session),
    ];
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "call_perplexity_computer",
        "arguments": {"message": "#files Analyze the survey responses"}}});
    let reply = mock.post_mcp(&headers, body.to_string()).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    reply.body["result"].clone()
}

fn block_types(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["type"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn without_the_header_a_session_answers_in_the_version_it_negotiated() {
    // Negotiated 2025-06-18: files come as resource_link blocks too, header or not.
    let mock = Mock::new();
    let client = mock.session_at("alice-dev-token", "2025-06-18").await;
    let session = client.session.clone().expect("session");
    let result = call_without_the_header(&mock, &session).await;
    assert_eq!(
        block_types(&result),
        ["text", "resource_link", "resource_link", "resource_link"]
    );

    // Negotiated 2025-03-26: no resource_link blocks, that type does not exist there.
    let old = mock.session_at("alice-dev-token", "2025-03-26").await;
    let session = old.session.clone().expect("session");
    let result = call_without_the_header(&mock, &session).await;
    assert_eq!(block_types(&result), ["text"]);
}

/// MCP specification 2025-06-18, changelog: "Add support for structured tool output"
/// (`structuredContent`, `outputSchema`) and "Add `title` field for human-friendly display
/// names": none of the three exists in 2025-03-26, so a session that negotiated it gets no
/// tool `title` or `outputSchema` in `tools/list` and no `structuredContent` in results; the
/// text block still carries the whole JSON, and `annotations.title` (2025-03-26) stays.
#[tokio::test(start_paused = true)]
async fn a_2025_03_26_session_gets_no_title_output_schema_or_structured_content() {
    let mock = Mock::new();
    let mut old = mock.session_at("alice-dev-token", "2025-03-26").await;
    let listed = old.rpc("tools/list", json!({})).await.body;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert_eq!(tools.len(), 12);
    for tool in tools {
        assert!(tool.get("title").is_none(), "{tool}");
        assert!(tool.get("outputSchema").is_none(), "{tool}");
        assert!(tool["annotations"]["title"].is_string(), "{tool}");
    }
    let session = old.session.clone().expect("session");
    let result = call_without_the_header(&mock, &session).await;
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().expect("text"))
        .expect("the text block is the JSON");
    assert!(text["thread_id"].is_string(), "{text}");

    // 2025-06-18 has all three.
    let mut new = mock.session_at("alice-dev-token", "2025-06-18").await;
    let listed = new.rpc("tools/list", json!({})).await.body;
    let tools = listed["result"]["tools"].as_array().expect("tools");
    assert!(tools.iter().all(|t| t["title"].is_string()));
    assert!(tools.iter().any(|t| t["outputSchema"].is_object()));
    let session = new.session.clone().expect("session");
    let result = call_without_the_header(&mock, &session).await;
    assert!(result["structuredContent"].is_object(), "{result}");
}
