//! Stateless 2026-07-28 requests: `resultType` on every result, caching hints on lists, calls
//! with progress on the request's own stream, POST only, and the methods that do not exist.

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::json;

use crate::common::modern::MODERN;
use crate::common::{MCP, Mock, text_json};

#[tokio::test(start_paused = true)]
async fn tools_list_carries_result_type_ttl_and_cache_scope() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");

    let reply = client.rpc("tools/list", json!({})).await;

    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let result = &reply.body["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "private");
    assert!(result["ttlMs"].as_u64().is_some());
    let names: Vec<&str> = result["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, mock_server::TOOL_NAMES);
}

#[tokio::test(start_paused = true)]
async fn ping_and_initialize_were_removed_in_the_modern_era() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    for method in ["ping", "initialize"] {
        let reply = client.rpc(method, json!({})).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}: {reply:?}");
        assert_eq!(reply.body["error"]["code"], -32601);
        assert!(reply.headers.get("mcp-session-id").is_none());
    }
}

#[tokio::test(start_paused = true)]
async fn a_call_without_a_progress_token_answers_a_complete_tool_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");

    let result = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#files Analyze the survey responses"}),
        )
        .await;

    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["isError"], false);
    let body = text_json(&result);
    assert_eq!(body["event"], "complete");
    assert_eq!(result["structuredContent"], body);
    assert!(
        result["content"]
            .as_array()
            .expect("content")
            .iter()
            .any(|b| b["type"] == "resource_link"),
        "2026-07-28 clients get resource_link blocks: {result}"
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "perplexity-computer-mock"
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_with_a_progress_token_streams_progress_then_the_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");

    let reply = client
        .rpc(
            "tools/call",
            json!({
                "name": "call_perplexity_computer",
                "arguments": {"message": "#complete Summarize the top 5 stories"},
                "_meta": {"progressToken": 7}
            }),
        )
        .await;

    assert_eq!(reply.status, StatusCode::OK);
    let (last, notes) = reply.events.split_last().expect("events");
    assert!(!notes.is_empty(), "{:?}", reply.events);
    for note in notes {
        assert_eq!(note["method"], "notifications/progress");
        assert_eq!(note["params"]["progressToken"], 7);
    }
    assert_eq!(last["result"]["resultType"], "complete");
    assert_eq!(text_json(&last["result"])["event"], "complete");
}

#[tokio::test(start_paused = true)]
async fn get_and_delete_are_not_allowed_in_the_modern_era() {
    let mock = Mock::new();
    for method in ["GET", "DELETE"] {
        let request = Request::builder()
            .method(method)
            .uri(MCP)
            .header("accept", "text/event-stream")
            .header("authorization", "Bearer alice-dev-token")
            .header("mcp-protocol-version", MODERN)
            .body(Body::empty())
            .expect("request");
        let reply = mock.send(request).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.headers["allow"], "POST");
    }
}

#[tokio::test(start_paused = true)]
async fn unknown_methods_and_removed_task_methods_are_method_not_found() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    for method in [
        "tasks/result",
        "tasks/list",
        "resources/list",
        "initialize-ish",
    ] {
        let reply = client.rpc(method, json!({})).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{method}: {reply:?}");
        assert_eq!(reply.body["error"]["code"], -32601, "{method}");
    }
    let reply = client.rpc("tasks/list", json!({})).await;
    assert!(
        reply.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("poll tasks/get")),
        "{reply:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn notifications_are_accepted_without_a_session() {
    let mock = Mock::new();
    let reply = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", "Bearer alice-dev-token"),
                ("mcp-protocol-version", MODERN),
            ],
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})
                .to_string(),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
}
