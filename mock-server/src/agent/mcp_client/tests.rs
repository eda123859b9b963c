//! The client against the mock's own Computer MCP endpoint (a real Streamable HTTP server on a
//! socket) and against small stub servers that answer the ways other servers do.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

use super::*;
use crate::MockServer;

/// What a stub server received: the JSON body (null for DELETE) and the headers.
type Seen = Arc<Mutex<Vec<(String, Value, HeaderMap)>>>;

/// Serves `reply` for every POST at `/mcp` (DELETE answers 200) and records every request.
async fn stub(
    reply: impl Fn(&Value) -> Response + Clone + Send + Sync + 'static,
) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let on_post = seen.clone();
    let on_delete = seen.clone();
    let router = Router::new()
        .route(
            "/old",
            post(|| async { (StatusCode::PERMANENT_REDIRECT, [(header::LOCATION, "/mcp")]) }),
        )
        .route(
            "/mcp",
            post(move |headers: HeaderMap, body: Bytes| {
                let reply = reply.clone();
                let seen = on_post.clone();
                async move {
                    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    if let Ok(mut seen) = seen.lock() {
                        seen.push(("POST".to_owned(), body.clone(), headers));
                    }
                    reply(&body)
                }
            })
            .delete(move |headers: HeaderMap| {
                let seen = on_delete.clone();
                async move {
                    if let Ok(mut seen) = seen.lock() {
                        seen.push(("DELETE".to_owned(), Value::Null, headers));
                    }
                    StatusCode::OK
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (format!("http://{address}/mcp"), seen)
}

fn method(body: &Value) -> &str {
    body["method"].as_str().unwrap_or_default()
}

fn json_reply(body: &Value, result: Value) -> Response {
    axum::Json(json!({"jsonrpc": "2.0", "id": body["id"], "result": result})).into_response()
}

/// A well-behaved server that counter-offers 2025-06-18 and hands out session `sess-1`.
fn handshake(body: &Value) -> Option<Response> {
    match method(body) {
        "initialize" => {
            let result = json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "stub", "version": "1"},
            });
            let mut response = json_reply(body, result);
            response
                .headers_mut()
                .insert("mcp-session-id", HeaderValue::from_static("sess-1"));
            Some(response)
        }
        "notifications/initialized" => Some(StatusCode::ACCEPTED.into_response()),
        _ => None,
    }
}

fn sse(frames: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "text/event-stream")],
        frames.to_owned(),
    )
        .into_response()
}

fn server(url: &str) -> RemoteServer {
    RemoteServer {
        url: url.to_owned(),
        authorization: None,
        headers: Vec::new(),
    }
}

fn mock_server(mock: &MockServer) -> RemoteServer {
    RemoteServer {
        url: mock.mcp_url(),
        authorization: Some("alice-dev-token".to_owned()),
        headers: Vec::new(),
    }
}

#[tokio::test(start_paused = true)]
async fn lists_the_computer_mcp_endpoints_tools_with_their_annotations() {
    let mock = MockServer::builder().start().await.expect("mock starts");
    let tools = McpClient::new()
        .list_tools(&mock_server(&mock))
        .await
        .expect("tools listed");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, crate::TOOL_NAMES);
    let read_thread = tools
        .iter()
        .find(|t| t.name == "read_thread")
        .expect("read_thread");
    assert_eq!(read_thread.read_only, Some(true));
    assert_eq!(read_thread.input_schema["type"], "object");
    assert!(read_thread.description.is_some());
    let start = tools
        .iter()
        .find(|t| t.name == "call_perplexity_computer")
        .expect("call_perplexity_computer");
    assert_eq!(start.read_only, Some(false));

    // The session was opened, used with its id, and ended.
    let exchanges = mock.journal().exchanges();
    let methods: Vec<String> = exchanges
        .iter()
        .map(|e| {
            let rpc = e.request_body["method"].as_str().unwrap_or_default();
            format!("{} {rpc}", e.method)
        })
        .collect();
    assert_eq!(
        methods,
        [
            "POST initialize",
            "POST notifications/initialized",
            "POST tools/list",
            "DELETE "
        ]
    );
    let session = exchanges[0].response_headers["mcp-session-id"].clone();
    for later in &exchanges[1..] {
        assert_eq!(
            later.request_headers["mcp-session-id"], session,
            "{}",
            later.path
        );
        assert_eq!(
            later.request_headers["mcp-protocol-version"],
            PROTOCOL_VERSION
        );
    }
    assert!(
        exchanges[0]
            .request_headers
            .get("mcp-protocol-version")
            .is_none()
    );
    assert_eq!(exchanges[3].status, 200, "the session was ended");
}

#[tokio::test(start_paused = true)]
async fn calls_a_computer_tool_and_reads_its_streamed_result() {
    let mock = MockServer::builder().start().await.expect("mock starts");
    let outcome = McpClient::new()
        .call_tool(&mock_server(&mock), "models_list", &json!({}))
        .await
        .expect("call ran");
    assert!(!outcome.is_error, "{}", outcome.output);
    let body: Value = serde_json::from_str(&outcome.output).expect("the text block is JSON");
    assert!(
        body["models"].as_array().is_some_and(|m| !m.is_empty()),
        "{body}"
    );

    // With a progress token the mock answers over SSE; the result came from that stream.
    let call = mock
        .journal()
        .exchanges()
        .into_iter()
        .find(|e| e.request_body["method"] == "tools/call")
        .expect("tools/call recorded");
    assert!(call.request_body["params"]["_meta"]["progressToken"].is_string());
    assert!(!call.sse_events.is_empty(), "the answer was an SSE stream");
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_fails_is_an_outcome_with_is_error() {
    let mock = MockServer::builder().start().await.expect("mock starts");
    let outcome = McpClient::new()
        .call_tool(
            &mock_server(&mock),
            "read_thread",
            &json!({"thread_id": "no-such-thread"}),
        )
        .await
        .expect("the call produced a result");
    assert!(outcome.is_error, "{}", outcome.output);
    assert!(
        outcome.output.contains("no-such-thread"),
        "{}",
        outcome.output
    );
}

#[tokio::test(start_paused = true)]
async fn a_json_rpc_error_names_the_code_and_the_servers_message() {
    let mock = MockServer::builder().start().await.expect("mock starts");
    let error = McpClient::new()
        .call_tool(&mock_server(&mock), "no_such_tool", &json!({}))
        .await
        .expect_err("unknown tool");
    let McpClientError::Rpc { code, message, .. } = &error else {
        panic!("expected a JSON-RPC error, got {error:?}");
    };
    assert_eq!(*code, -32602);
    assert!(message.contains("no_such_tool"), "{message}");
    let text = error.to_string();
    assert!(
        text.contains(&mock.mcp_url()) && text.contains("tools/call"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_missing_token_is_a_401_that_says_so() {
    let mock = MockServer::builder().start().await.expect("mock starts");
    let mut server = mock_server(&mock);
    server.authorization = None;
    let error = McpClient::new().list_tools(&server).await.expect_err("401");
    assert!(
        matches!(error, McpClientError::HttpStatus { status: 401, .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(text.contains(&mock.mcp_url()), "{text}");
    assert!(text.contains("unauthorized"), "{text}");
    assert!(text.contains("WWW-Authenticate"), "{text}");

    server.authorization = Some("not-a-token".to_owned());
    let error = McpClient::new().list_tools(&server).await.expect_err("401");
    assert!(
        matches!(error, McpClientError::HttpStatus { status: 401, .. }),
        "{error:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_refused_connection_is_unreachable() {
    // A port that was free a moment ago and has nobody listening now.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let error = McpClient::new()
        .list_tools(&server(&url))
        .await
        .expect_err("refused");
    assert!(
        matches!(error, McpClientError::Unreachable { .. }),
        "{error:?}"
    );
    let text = error.to_string();
    assert!(
        text.starts_with(&format!(
            "could not reach the MCP server at {url} (initialize)"
        )),
        "{text}"
    );
    assert!(text.contains("connection failed"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_web_page_is_not_an_mcp_server() {
    let (url, _) = stub(|_| {
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!doctype html>\n<html><body><h1>Welcome</h1></body></html>",
        )
            .into_response()
    })
    .await;
    let error = McpClient::new()
        .list_tools(&server(&url))
        .await
        .expect_err("html");
    assert!(matches!(error, McpClientError::NotMcp { .. }), "{error:?}");
    let text = error.to_string();
    assert!(text.contains("text/html"), "{text}");
    assert!(text.contains("<h1>Welcome</h1>"), "{text}");
    assert!(text.contains(&url), "{text}");
}

#[tokio::test(start_paused = true)]
async fn pages_are_followed_sse_answers_parsed_and_headers_sent() {
    let (url, seen) = stub(|body| {
        if let Some(response) = handshake(body) {
            return response;
        }
        let id = &body["id"];
        match body["params"]["cursor"].as_str() {
            // First page: an SSE stream with a priming event and a notification first.
            None => {
                let response = json!({"jsonrpc": "2.0", "id": id, "result": {
                    "tools": [
                        {"name": "echo", "description": "Echoes.", "inputSchema": {"type": "object"},
                         "annotations": {"readOnlyHint": true}},
                        {"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}}},
                    ],
                    "nextCursor": "page-2",
                }});
                sse(&format!(
                    ": keep-alive\r\n\r\nid: 0\r\ndata: \r\n\r\nevent: message\r\ndata: \
                     {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{}}}}\r\n\r\n\
                     event: message\r\nid: 1\r\ndata: {response}\r\n\r\n"
                ))
            }
            Some("page-2") => json_reply(
                body,
                json!({"tools": [{"name": "delete_everything", "inputSchema": {"type": "object"},
                                  "annotations": {"readOnlyHint": false, "destructiveHint": true}}],
                       "nextCursor": ""}),
            ),
            Some(_) => StatusCode::BAD_REQUEST.into_response(),
        }
    })
    .await;
    let remote = RemoteServer {
        url: url.clone(),
        authorization: Some("tok-123".to_owned()),
        headers: vec![("X-Tenant".to_owned(), "acme".to_owned())],
    };
    let tools = McpClient::new().list_tools(&remote).await.expect("listed");
    assert_eq!(
        tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["echo", "add", "delete_everything"]
    );
    assert_eq!(tools[0].read_only, Some(true));
    assert_eq!(tools[0].description.as_deref(), Some("Echoes."));
    assert_eq!(tools[1].read_only, None);
    assert_eq!(tools[2].read_only, Some(false));
    assert_eq!(
        serde_json::to_value(tools[0].listed()).expect("the entry renders"),
        json!({"name": "echo", "description": "Echoes.", "input_schema": {"type": "object"},
               "annotations": {"read_only": true}})
    );

    let seen = seen.lock().expect("lock").clone();
    let kinds: Vec<String> = seen
        .iter()
        .map(|(verb, body, _)| format!("{verb} {}", method(body)))
        .collect();
    assert_eq!(
        kinds,
        [
            "POST initialize",
            "POST notifications/initialized",
            "POST tools/list",
            "POST tools/list",
            "DELETE "
        ]
    );
    for (i, (_, body, headers)) in seen.iter().enumerate() {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
        };
        assert_eq!(header("authorization"), "Bearer tok-123", "request {i}");
        assert_eq!(header("x-tenant"), "acme", "request {i}");
        if i == 0 {
            assert_eq!(body["params"]["protocolVersion"], PROTOCOL_VERSION);
            assert_eq!(header("mcp-session-id"), "");
            assert_eq!(header("mcp-protocol-version"), "");
        } else {
            assert_eq!(header("mcp-session-id"), "sess-1", "request {i}");
            // The version the server chose, not the one offered.
            assert_eq!(header("mcp-protocol-version"), "2025-06-18", "request {i}");
        }
        if !body.is_null() {
            assert!(header("accept").contains("application/json"), "request {i}");
            assert!(
                header("accept").contains("text/event-stream"),
                "request {i}"
            );
            assert_eq!(header("content-type"), "application/json");
        }
    }
    assert_eq!(seen[3].1["params"]["cursor"], "page-2");
}

#[tokio::test(start_paused = true)]
async fn call_results_join_text_and_keep_other_blocks_as_json() {
    let (url, _) = stub(|body| {
        if let Some(response) = handshake(body) {
            return response;
        }
        match body["params"]["name"].as_str() {
            Some("mixed") => json_reply(
                body,
                json!({"content": [
                    {"type": "text", "text": "line one"},
                    {"type": "image", "data": "iVBOR", "mimeType": "image/png"},
                    {"type": "text", "text": "line two"},
                ], "isError": true}),
            ),
            _ => json_reply(
                body,
                json!({"content": [], "structuredContent": {"sum": 3}}),
            ),
        }
    })
    .await;
    let client = McpClient::new();
    let outcome = client
        .call_tool(&server(&url), "mixed", &json!({"x": 1}))
        .await
        .expect("result");
    assert!(outcome.is_error);
    assert_eq!(
        outcome.output,
        "line one\n{\"type\":\"image\",\"data\":\"iVBOR\",\"mimeType\":\"image/png\"}\nline two"
    );
    let outcome = client
        .call_tool(&server(&url), "add", &Value::Null)
        .await
        .expect("result");
    assert!(!outcome.is_error);
    assert_eq!(outcome.output, "{\"sum\":3}");
}

#[tokio::test(start_paused = true)]
async fn a_server_choosing_an_unknown_version_is_refused() {
    let (url, _) = stub(|body| {
        json_reply(
            body,
            json!({"protocolVersion": "1999-01-01", "capabilities": {}, "serverInfo": {"name": "old", "version": "0"}}),
        )
    })
    .await;
    let error = McpClient::new()
        .list_tools(&server(&url))
        .await
        .expect_err("version");
    assert!(
        matches!(error, McpClientError::UnsupportedVersion { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("`1999-01-01`"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn an_answer_for_another_request_or_without_result_is_a_protocol_error() {
    let (url, _) = stub(|body| {
        if let Some(response) = handshake(body) {
            return response;
        }
        axum::Json(json!({"jsonrpc": "2.0", "id": 999, "result": {}})).into_response()
    })
    .await;
    let error = McpClient::new()
        .list_tools(&server(&url))
        .await
        .expect_err("wrong id");
    assert!(
        matches!(error, McpClientError::Protocol { .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("not the response to request"),
        "{error}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_that_never_answers_times_out_on_the_wall_clock() {
    // The limit is wall-clock by design (the mock's own clock may be paused), so this test
    // waits the 50 ms it sets.
    let hang = Router::new().route("/mcp", post(std::future::pending::<StatusCode>));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, hang).await;
    });
    let client = McpClient::with_timeouts(Timeouts {
        exchange: Duration::from_millis(50),
        call: Duration::from_millis(50),
    });
    let url = format!("http://{address}/mcp");
    let error = client.list_tools(&server(&url)).await.expect_err("timeout");
    assert!(
        matches!(error, McpClientError::TimedOut { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!("the MCP server at {url} did not answer initialize within 0.05 s")
    );
}

#[tokio::test]
async fn unusable_urls_and_headers_are_refused_before_connecting() {
    let client = McpClient::new();
    for (url, expected) in [
        ("https://mcp.deepwiki.com/mcp", "plain http only"),
        ("ftp://example.com/mcp", "scheme `ftp`"),
        ("not a url", "cannot be used"),
    ] {
        let error = client.list_tools(&server(url)).await.expect_err("bad url");
        assert!(
            matches!(error, McpClientError::InvalidUrl { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains(expected), "{url}: {error}");
    }
    let remote = RemoteServer {
        url: "http://127.0.0.1:9/mcp".to_owned(),
        authorization: None,
        headers: vec![("bad header".to_owned(), "x".to_owned())],
    };
    let error = client.list_tools(&remote).await.expect_err("bad header");
    assert!(error.to_string().contains("`bad header`"), "{error}");
    let remote = RemoteServer {
        authorization: Some("line\nbreak".to_owned()),
        headers: Vec::new(),
        ..remote
    };
    let error = client.list_tools(&remote).await.expect_err("bad token");
    assert!(
        matches!(error, McpClientError::InvalidHeader { .. }),
        "{error:?}"
    );
}

#[test]
fn an_authorization_with_a_scheme_is_not_prefixed_twice() {
    let remote = RemoteServer {
        url: "http://h/mcp".to_owned(),
        authorization: Some("Bearer abc".to_owned()),
        headers: vec![("Authorization".to_owned(), "Basic ignored".to_owned())],
    };
    let headers = base_headers(&remote).expect("headers");
    assert_eq!(headers.get_all(header::AUTHORIZATION).iter().count(), 1);
    assert_eq!(headers[header::AUTHORIZATION], "Bearer abc");
}

#[tokio::test(start_paused = true)]
async fn same_origin_redirects_are_followed_and_others_reported() {
    let (url, seen) =
        stub(|body| handshake(body).unwrap_or_else(|| json_reply(body, json!({"tools": []}))))
            .await;
    // `/old` on the stub itself redirects to `/mcp` (same origin).
    let moved = url.replace("/mcp", "/old");
    let tools = McpClient::new()
        .list_tools(&server(&moved))
        .await
        .expect("followed");
    assert!(tools.is_empty());
    assert!(seen.lock().expect("lock").len() >= 3);

    let away = Router::new().route(
        "/mcp",
        post(|| async {
            (
                StatusCode::TEMPORARY_REDIRECT,
                [(header::LOCATION, "http://elsewhere.example/mcp")],
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, away).await;
    });
    let error = McpClient::new()
        .list_tools(&server(&format!("http://{address}/mcp")))
        .await
        .expect_err("cross-origin redirect");
    assert!(
        matches!(error, McpClientError::HttpStatus { status: 307, .. }),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("http://elsewhere.example/mcp"),
        "{error}"
    );
}

/// A server on the legacy HTTP+SSE transport: GET `/sse` opens the stream and announces
/// `endpoint`; POSTs there are answered 202 and their responses go out on the stream. A POST
/// to `/sse` is refused 405, as such servers do.
async fn legacy_stub(endpoint: &'static str) -> (String, Seen) {
    use axum::response::sse::{Event, Sse};
    use axum::routing::get;
    use futures::StreamExt;
    use tokio::sync::mpsc;

    type Outbox = Arc<Mutex<Option<mpsc::UnboundedSender<Event>>>>;
    let outbox: Outbox = Arc::default();
    let seen: Seen = Arc::default();
    let (on_get, on_post) = (outbox.clone(), outbox);
    let (get_seen, post_seen) = (seen.clone(), seen.clone());
    let router = Router::new()
        .route(
            "/sse",
            get(move |headers: HeaderMap| {
                let (sender, receiver) = mpsc::unbounded_channel();
                let _ = sender.send(Event::default().event("endpoint").data(endpoint));
                if let Ok(mut outbox) = on_get.lock() {
                    *outbox = Some(sender);
                }
                if let Ok(mut seen) = get_seen.lock() {
                    seen.push(("GET".to_owned(), Value::Null, headers));
                }
                let stream = tokio_stream::wrappers::UnboundedReceiverStream::new(receiver)
                    .map(Ok::<_, std::convert::Infallible>);
                async move { Sse::new(stream) }
            }),
        )
        .route(
            "/messages",
            post(move |headers: HeaderMap, body: Bytes| {
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if let Ok(mut seen) = post_seen.lock() {
                    seen.push(("POST".to_owned(), body.clone(), headers));
                }
                let reply = match method(&body) {
                    "initialize" => Some(json!({"protocolVersion": "2024-11-05", "capabilities": {},
                                                "serverInfo": {"name": "legacy", "version": "1"}})),
                    "tools/list" => Some(json!({"tools": [{"name": "ping_host", "inputSchema": {"type": "object"}}]})),
                    "tools/call" => Some(json!({"content": [{"type": "text", "text": "pong"}]})),
                    _ => None,
                };
                if let (Some(result), Ok(outbox)) = (reply, on_post.lock())
                    && let Some(sender) = outbox.as_ref()
                {
                    let message = json!({"jsonrpc": "2.0", "id": body["id"], "result": result});
                    let _ = sender.send(Event::default().event("message").data(message.to_string()));
                }
                async { StatusCode::ACCEPTED }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (format!("http://{address}/sse"), seen)
}

#[tokio::test(start_paused = true)]
async fn a_client_allowing_legacy_sse_falls_back_to_it() {
    let (url, seen) = legacy_stub("/messages?sessionId=s-1").await;
    let client = McpClient::new().allowing_legacy_sse();
    let mut remote = server(&url);
    remote.authorization = Some("tok".to_owned());
    let tools = client
        .list_tools(&remote)
        .await
        .expect("listed over HTTP+SSE");
    assert_eq!(tools[0].name, "ping_host");
    let outcome = client
        .call_tool(&remote, "ping_host", &json!({}))
        .await
        .expect("called over HTTP+SSE");
    assert_eq!(outcome.output, "pong");
    let seen = seen.lock().expect("lock").clone();
    let kinds: Vec<String> = seen
        .iter()
        .map(|(verb, body, _)| format!("{verb} {}", method(body)))
        .collect();
    assert_eq!(
        kinds[..4],
        [
            "GET ",
            "POST initialize",
            "POST notifications/initialized",
            "POST tools/list"
        ]
    );
    for (_, _, headers) in &seen {
        assert_eq!(headers["authorization"], "Bearer tok");
    }
}

#[tokio::test(start_paused = true)]
async fn the_mcp_tools_client_does_not_fall_back_and_says_why() {
    let (url, seen) = legacy_stub("/messages").await;
    let error = McpClient::new()
        .list_tools(&server(&url))
        .await
        .expect_err("Streamable HTTP only");
    assert!(
        matches!(error, McpClientError::HttpStatus { status: 405, .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("legacy HTTP+SSE"), "{error}");
    assert!(
        seen.lock().expect("lock").is_empty(),
        "no GET stream was opened"
    );
}

#[tokio::test(start_paused = true)]
async fn a_legacy_endpoint_on_another_origin_is_refused() {
    let (url, _) = legacy_stub("http://elsewhere.example/messages").await;
    let error = McpClient::new()
        .allowing_legacy_sse()
        .list_tools(&server(&url))
        .await
        .expect_err("another origin");
    assert!(
        matches!(error, McpClientError::Protocol { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("another origin"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn requests_the_server_sends_during_a_call_are_answered() {
    let (url, seen) = stub(|body| {
        if let Some(response) = handshake(body) {
            return response;
        }
        if body.get("method").is_none() {
            // The client's answers to the server's requests.
            return StatusCode::ACCEPTED.into_response();
        }
        let result = json!({"jsonrpc": "2.0", "id": body["id"],
                            "result": {"content": [{"type": "text", "text": "done"}]}});
        sse(&format!(
            "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}}\n\n\
             event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"sampling/createMessage\",\"params\":{{}}}}\n\n\
             event: message\ndata: {result}\n\n"
        ))
    })
    .await;
    let outcome = McpClient::new()
        .call_tool(&server(&url), "slow", &json!({}))
        .await
        .expect("result");
    assert_eq!(outcome.output, "done");
    let seen = seen.lock().expect("lock").clone();
    let answers: Vec<&Value> = seen
        .iter()
        .map(|(_, body, _)| body)
        .filter(|b| b.get("method").is_none() && !b.is_null())
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert_eq!(
        *answers[0],
        json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    );
    assert_eq!(answers[1]["id"], 7);
    assert_eq!(answers[1]["error"]["code"], -32601);
    // They went to the same session.
    for (_, body, headers) in &seen {
        if body.get("method").is_none() && !body.is_null() {
            assert_eq!(headers["mcp-session-id"], "sess-1");
        }
    }
}
