//! The handshake era's lifecycle and transport: version negotiation, sessions, headers, origins.

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::common::{self, MCP, Mock, initialize_body};

const ALICE: &str = "Bearer alice-dev-token";
/// The headers of a POST from a client that has no session yet.
const JSON_REQUEST_AS_ALICE: [(&str, &str); 3] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
    ("authorization", ALICE),
];

/// The headers of a later request on `session`, with `version` as MCP-Protocol-Version.
fn session_headers<'a>(session: &'a str, version: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", ALICE),
        ("mcp-session-id", session),
        ("mcp-protocol-version", version),
    ]
}

fn ping() -> String {
    json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}).to_string()
}

async fn initialize(mock: &Mock, version: &str) -> common::Reply {
    mock.post_mcp(&JSON_REQUEST_AS_ALICE, initialize_body(version).to_string())
        .await
}

fn message(reply: &common::Reply) -> String {
    reply.body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(start_paused = true)]
async fn supported_protocol_versions_are_echoed() {
    let mock = Mock::new();
    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let reply = initialize(&mock, version).await;
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.body["result"]["protocolVersion"], version);
        assert_eq!(reply.body["id"], 1);
    }
}

#[tokio::test(start_paused = true)]
async fn unsupported_protocol_versions_get_the_newest_handshake_version() {
    let mock = Mock::new();
    for version in ["2026-07-28", "2024-11-05", "not-a-version"] {
        let reply = initialize(&mock, version).await;
        assert_eq!(reply.status, StatusCode::OK, "{version}");
        assert_eq!(
            reply.body["result"]["protocolVersion"], "2025-11-25",
            "{version}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn initialize_issues_a_session_id_that_later_requests_must_carry() {
    let mock = Mock::new();
    let reply = initialize(&mock, "2025-11-25").await;
    let session = reply.headers["mcp-session-id"].to_str().expect("ascii");
    assert!(!session.is_empty());
    assert!(session.chars().all(|c| c.is_ascii_graphic()));

    let without = mock.post_mcp(&JSON_REQUEST_AS_ALICE, ping()).await;
    assert_eq!(without.status, StatusCode::BAD_REQUEST);
    assert!(
        message(&without).contains("Mcp-Session-Id header is required"),
        "{without:?}"
    );

    let with = mock
        .post_mcp(&session_headers(session, "2025-11-25"), ping())
        .await;
    assert_eq!(with.status, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn an_unknown_session_gets_404_with_session_not_found() {
    let mock = Mock::new();
    let reply = mock
        .post_mcp(&session_headers("no-such-session", "2025-11-25"), ping())
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(reply.body["error"]["code"], -32001);
    assert!(
        message(&reply).contains("Send a new initialize request"),
        "{reply:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn delete_ends_the_session_and_later_requests_get_404() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("session");
    let request = Request::delete(MCP)
        .header("authorization", ALICE)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::empty())
        .expect("request");
    let deleted = mock.send(request).await;
    assert_eq!(deleted.status, StatusCode::OK);

    let after = client.post_raw(ping(), &[]).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    assert_eq!(after.body["error"]["code"], -32001);
}

#[tokio::test(start_paused = true)]
async fn notifications_and_responses_are_accepted_with_an_empty_202() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let initialized = client
        .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(initialized.status, StatusCode::ACCEPTED);
    assert_eq!(initialized.body, Value::Null);

    let response = client
        .post(json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}}))
        .await;
    assert_eq!(response.status, StatusCode::ACCEPTED);
    assert_eq!(response.body, Value::Null);
}

#[tokio::test(start_paused = true)]
async fn ping_answers_an_empty_object() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let reply = client.rpc("ping", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["result"], json!({}));
    assert_eq!(reply.body["jsonrpc"], "2.0");
}

#[tokio::test(start_paused = true)]
async fn tools_list_describes_the_twelve_tools() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let reply = client.rpc("tools/list", json!({})).await;
    let tools = reply.body["result"]["tools"].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    let mut expected = mock_server::TOOL_NAMES.to_vec();
    expected.sort_unstable();
    assert_eq!(names, expected);
    assert_eq!(tools.len(), 12);
    for tool in tools {
        let name = tool["name"].as_str().expect("name");
        assert!(tool["title"].is_string(), "{name} has a title");
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name} has a description"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert!(tool["annotations"].is_object(), "{name} has annotations");
        let open_ended = matches!(name, "call_perplexity_computer" | "notify_connected");
        assert_eq!(
            tool.get("outputSchema").is_none(),
            open_ended,
            "{name}: outputSchema only on tools whose results are fixed"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_unsupported_protocol_version_header_is_refused_and_an_absent_one_accepted() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("session");

    let bad = mock
        .post_mcp(&session_headers(&session, "1999-01-01"), ping())
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(
        message(&bad).contains("unsupported MCP-Protocol-Version `1999-01-01`"),
        "{bad:?}"
    );

    let absent = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", ALICE),
                ("mcp-session-id", &session),
            ],
            ping(),
        )
        .await;
    assert_eq!(absent.status, StatusCode::OK);
    assert_eq!(absent.body["result"], json!({}));
}

#[tokio::test(start_paused = true)]
async fn accept_may_list_the_types_in_either_order_but_must_list_event_streams() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("session");
    for accept in [
        "application/json, text/event-stream",
        "text/event-stream, application/json",
    ] {
        let mut headers = session_headers(&session, "2025-11-25");
        headers[1] = ("accept", accept);
        let reply = mock.post_mcp(&headers, ping()).await;
        assert_eq!(reply.status, StatusCode::OK, "{accept}");
    }
    let mut headers = session_headers(&session, "2025-11-25");
    headers[1] = ("accept", "application/json");
    let reply = mock.post_mcp(&headers, ping()).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    assert!(message(&reply).contains("text/event-stream"), "{reply:?}");
}

#[tokio::test(start_paused = true)]
async fn a_body_that_is_not_declared_json_gets_415() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("session");
    let mut headers = session_headers(&session, "2025-11-25");
    headers[0] = ("content-type", "text/plain");
    let reply = mock.post_mcp(&headers, ping()).await;
    assert_eq!(reply.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(
        message(&reply).contains("Content-Type: application/json"),
        "{reply:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn get_opens_an_event_stream() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("session");
    let request = Request::get(MCP)
        .header("accept", "text/event-stream")
        .header("authorization", ALICE)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(Body::empty())
        .expect("request");
    let (status, headers) = mock.send_head(request).await;
    assert_eq!(status, StatusCode::OK);
    let content_type = headers["content-type"].to_str().expect("ascii");
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
}

#[tokio::test(start_paused = true)]
async fn server_discover_without_the_modern_envelope_is_an_error_so_sdks_fall_back() {
    let mock = Mock::new();
    let reply = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", ALICE),
                ("mcp-protocol-version", "2026-07-28"),
            ],
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}})
                .to_string(),
        )
        .await;
    // A modern probe must carry the `_meta` envelope; any JSON-RPC error makes the SDKs fall
    // back to initialize.
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert_eq!(reply.body["error"]["code"], -32602, "{reply:?}");
    assert_eq!(reply.body["id"], 1);
}

#[tokio::test(start_paused = true)]
async fn foreign_origins_and_hosts_are_refused_before_authentication() {
    let mock = Mock::new();
    for (name, value) in [
        ("origin", "http://evil.example.com"),
        ("host", "evil.example.com"),
    ] {
        let reply = mock
            .post_mcp(
                &[
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"),
                    (name, value),
                ],
                initialize_body("2025-11-25").to_string(),
            )
            .await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert!(message(&reply).contains("is not allowed"), "{reply:?}");
    }
    let local = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", ALICE),
                ("origin", "http://localhost:3000"),
            ],
            initialize_body("2025-11-25").to_string(),
        )
        .await;
    assert_eq!(local.status, StatusCode::OK, "{local:?}");
}

#[tokio::test(start_paused = true)]
async fn get_without_event_stream_in_accept_is_not_acceptable() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("session");
    let request = Request::get(MCP)
        .header("accept", "application/json")
        .header("authorization", ALICE)
        .header("mcp-session-id", &session)
        .body(Body::empty())
        .expect("request");
    let reply = mock.send(request).await;
    assert_eq!(reply.status, StatusCode::NOT_ACCEPTABLE);
    assert!(
        message(&reply).contains("needs Accept: text/event-stream"),
        "{reply:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn get_and_delete_on_an_unknown_session_say_how_to_recover() {
    let mock = Mock::new();
    for request in [
        Request::get(MCP).header("accept", "text/event-stream"),
        Request::delete(MCP),
    ] {
        let request = request
            .header("authorization", ALICE)
            .header("mcp-session-id", "no-such-session")
            .body(Body::empty())
            .expect("request");
        let reply = mock.send(request).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND);
        assert_eq!(reply.body["error"]["code"], -32001);
        assert!(
            message(&reply).contains("Send a new initialize request"),
            "{reply:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_second_initialize_on_a_session_is_refused_with_a_sentence() {
    // As the TypeScript SDK answers: 400, "already initialized".
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let reply = client
        .rpc(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["error"]["code"], -32600, "{reply:?}");
    assert!(reply.headers.get("mcp-session-id").is_none());
    assert!(
        message(&reply).contains("send initialize without an Mcp-Session-Id header"),
        "{reply:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn initialize_without_a_protocol_version_says_what_to_send() {
    let mock = Mock::new();
    let reply = mock
        .post_mcp(
            &JSON_REQUEST_AS_ALICE,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
                .to_string(),
        )
        .await;
    assert_eq!(reply.body["error"]["code"], -32602, "{reply:?}");
    assert!(
        message(&reply).contains("params.protocolVersion"),
        "{reply:?}"
    );
    assert!(reply.headers.get("mcp-session-id").is_none());
}

#[tokio::test(start_paused = true)]
async fn allow_origin_lets_that_page_reach_the_mcp_endpoint_too() {
    let page = "https://dash.example:8443";
    let headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("authorization", ALICE),
        ("origin", page),
    ];
    let body = initialize_body("2025-11-25").to_string();
    let refused = Mock::new().post_mcp(&headers, body.clone()).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{refused:?}");
    assert!(
        message(&refused).contains(&format!("--allow-origin {page}")),
        "the refusal names the flag that lets the page in: {refused:?}"
    );
    let allowed = Mock::with(mock_server::MockServer::builder().allow_origin(page))
        .post_mcp(&headers, body)
        .await;
    assert_eq!(allowed.status, StatusCode::OK, "{allowed:?}");
}
