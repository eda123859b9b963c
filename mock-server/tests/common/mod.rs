//! Shared test harness: a mock driven through `Router::oneshot` (no sockets) on a paused tokio
//! clock, so scripted minutes pass instantly and deterministically.
//!
//! Every test that uses it runs under `#[tokio::test(start_paused = true)]`: whenever the mock
//! waits on virtual time and nothing else is runnable, tokio jumps to the next timer.

// `pub` marks what the test modules share; the helpers live in a private module of the test crate.
#![allow(unreachable_pub)]

pub mod agent;
pub mod modern;
pub mod sonar;

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use mock_server::{MockHandle, MockServer, MockServerBuilder};
use serde_json::{Value, json};
use tower::ServiceExt;

/// Base URL the mock puts in the URLs it hands out.
pub const BASE: &str = "http://127.0.0.1:8080";
/// Path of the MCP endpoint.
pub const MCP: &str = "/rest/computer/mcp";

/// A mock without a socket.
#[derive(Clone)]
pub struct Mock {
    pub router: Router,
    pub handle: MockHandle,
}

/// A raw HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
    /// The `data:` payloads when the answer was an SSE stream.
    pub events: Vec<Value>,
}

impl Mock {
    /// The default mock (real-time factor 1 on the paused tokio clock).
    pub fn new() -> Self {
        Self::with(MockServer::builder())
    }

    /// A mock from a configured builder.
    pub fn with(builder: MockServerBuilder) -> Self {
        let (router, handle) = builder.router(BASE).expect("mock builds");
        Self { router, handle }
    }

    /// Sends a request through the router; the status, headers and body as sent, for a test
    /// that reads what [`Mock::send`] parses away (an event's `id:` line, say).
    pub async fn send_raw(&self, request: Request<Body>) -> (StatusCode, HeaderMap, String) {
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("router is infallible");
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        (
            status,
            headers,
            String::from_utf8_lossy(&bytes).into_owned(),
        )
    }

    /// Sends a request through the router and reads the whole answer.
    pub async fn send(&self, request: Request<Body>) -> Reply {
        let (status, headers, text) = self.send_raw(request).await;
        let is_sse = headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if is_sse {
            let events = text
                .split("\n\n")
                .filter_map(|frame| {
                    let data: Vec<&str> = frame
                        .lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .map(|d| d.trim_start())
                        .collect();
                    (!data.is_empty())
                        .then(|| serde_json::from_str(&data.join("\n")).unwrap_or(Value::Null))
                })
                .collect();
            return Reply {
                status,
                headers,
                body: Value::Null,
                events,
            };
        }
        let body = serde_json::from_str(&text).unwrap_or(if text.is_empty() {
            Value::Null
        } else {
            Value::String(text)
        });
        Reply {
            status,
            headers,
            body,
            events: Vec::new(),
        }
    }

    /// A GET of a path or of a full URL the mock handed out.
    pub async fn get(&self, url: &str) -> Reply {
        let path = url.strip_prefix(BASE).unwrap_or(url);
        self.send(Request::get(path).body(Body::empty()).expect("request"))
            .await
    }

    /// A POST of a JSON body to a path or URL.
    pub async fn post_json(&self, url: &str, body: Value) -> Reply {
        let path = url.strip_prefix(BASE).unwrap_or(url);
        let request = Request::post(path)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .expect("request");
        self.send(request).await
    }

    /// Moves virtual time forward.
    pub fn advance(&self, by: Duration) {
        self.handle.clock().advance(by);
    }

    /// An initialized MCP session for a built-in account's token.
    pub async fn session(&self, token: &str) -> Client {
        self.session_at(token, "2025-11-25").await
    }

    /// An initialized MCP session that offered `version`.
    pub async fn session_at(&self, token: &str, version: &str) -> Client {
        let mut client = Client {
            mock: self.clone(),
            token: Some(token.to_owned()),
            session: None,
            version: version.to_owned(),
            next_id: 1,
        };
        let init = client
            .rpc(
                "initialize",
                json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "tests", "version": "1"}}),
            )
            .await;
        assert_eq!(init.status, StatusCode::OK, "initialize: {init:?}");
        client.version = init.body["result"]["protocolVersion"]
            .as_str()
            .expect("negotiated version")
            .to_owned();
        client.session = Some(
            init.headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .expect("session id")
                .to_owned(),
        );
        let initialized = client
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        assert_eq!(initialized.status, StatusCode::ACCEPTED);
        client
    }
}

/// An MCP client session over the router.
pub struct Client {
    pub mock: Mock,
    pub token: Option<String>,
    pub session: Option<String>,
    pub version: String,
    next_id: i64,
}

impl Client {
    /// POSTs a raw JSON body with this session's headers.
    pub async fn post(&self, body: Value) -> Reply {
        self.post_raw(body.to_string(), &[]).await
    }

    /// POSTs raw bytes with this session's headers plus `extra`.
    pub async fn post_raw(&self, body: String, extra: &[(&str, &str)]) -> Reply {
        let mut request = Request::post(MCP)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(token) = &self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", &self.version);
        }
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        self.mock
            .send(request.body(Body::from(body)).expect("request"))
            .await
    }

    /// Sends a JSON-RPC request.
    pub async fn rpc(&mut self, method: &str, params: Value) -> Reply {
        let id = self.next_id;
        self.next_id += 1;
        self.post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
    }

    /// Calls a tool without a progress token and returns the `CallToolResult`.
    pub async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self
            .rpc("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        reply.body["result"].clone()
    }

    /// Calls a tool and returns the JSON object of its first text block.
    pub async fn call_json(&mut self, tool: &str, arguments: Value) -> Value {
        text_json(&self.call(tool, arguments).await)
    }

    /// Calls a tool with a progress token: the progress notifications and the result.
    pub async fn call_with_progress(
        &mut self,
        tool: &str,
        arguments: Value,
    ) -> (Vec<Value>, Value) {
        let reply = self
            .rpc(
                "tools/call",
                json!({"name": tool, "arguments": arguments, "_meta": {"progressToken": "p"}}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        let (progress, rest): (Vec<Value>, Vec<Value>) = reply
            .events
            .into_iter()
            .partition(|e| e["method"] == "notifications/progress");
        let result = rest.last().expect("a final response")["result"].clone();
        (progress, result)
    }

    /// Starts a conversation: `call_perplexity_computer` with `message`.
    pub async fn start(&mut self, message: &str) -> Value {
        self.call_json("call_perplexity_computer", json!({"message": message}))
            .await
    }

    /// `read_thread` on a thread.
    pub async fn read(&mut self, thread_id: &str) -> Value {
        self.call_json("read_thread", json!({"thread_id": thread_id}))
            .await
    }
}

/// The JSON object in a `CallToolResult`'s first text block.
pub fn text_json(result: &Value) -> Value {
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("first content block is text: {result}"));
    serde_json::from_str(text).expect("the text block holds JSON")
}

/// The thread id of a task result.
pub fn thread_id(result: &Value) -> String {
    result["thread_id"]
        .as_str()
        .unwrap_or_else(|| panic!("result has a thread_id: {result}"))
        .to_owned()
}

/// Sorted keys of a JSON object, to assert exact field sets.
pub fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

impl Mock {
    /// Sends a request and returns only the response head (for endless streams).
    pub async fn send_head(&self, request: Request<Body>) -> (StatusCode, HeaderMap) {
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("router is infallible");
        (response.status(), response.headers().clone())
    }

    /// POSTs `body` to the MCP endpoint with exactly the headers given (nothing added).
    pub async fn post_mcp(&self, headers: &[(&str, &str)], body: impl Into<String>) -> Reply {
        let mut request = Request::post(MCP);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request.body(Body::from(body.into())).expect("request"))
            .await
    }

    /// The journal as the control API serves it, one JSON value per line.
    pub async fn journal_lines(&self) -> Vec<Value> {
        let response = self
            .router
            .clone()
            .oneshot(
                Request::get("/_mock/journal")
                    .body(Body::empty())
                    .expect("request"),
            )
            .await
            .expect("router is infallible");
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        String::from_utf8_lossy(&bytes)
            .lines()
            .map(|line| serde_json::from_str(line).expect("each journal line is JSON"))
            .collect()
    }
}

/// An `initialize` request body offering `version`.
pub fn initialize_body(version: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "tests", "version": "1"},
        },
    })
}

impl Client {
    /// The first text block of a `CallToolResult`.
    pub fn text_of(result: &Value) -> String {
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

impl Mock {
    /// POSTs an empty form to a path or URL, as a button on one of the mock's pages does.
    pub async fn post_form(&self, url: &str) -> Reply {
        let path = url.strip_prefix(BASE).unwrap_or(url);
        let request = Request::post(path)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::empty())
            .expect("request");
        self.send(request).await
    }

    /// The current virtual time, as the mock writes timestamps (`2026-10-24T00:11:18.000Z`).
    pub fn now(&self) -> String {
        self.handle
            .clock()
            .now()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    }
}

/// A mock that also loads `scenario` (a scenario fixture) from a temp file.
pub fn mock_with_scenario(scenario: &Value) -> Mock {
    let name = scenario["name"].as_str().expect("scenario name");
    let dir = std::env::temp_dir().join(format!(
        "mock-server-tests-{}-{name}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, scenario.to_string()).expect("fixture written");
    Mock::with(MockServer::builder().fixtures(path))
}

/// The `text` field of a result, or an empty string.
pub fn text(result: &Value) -> &str {
    result["text"].as_str().unwrap_or_default()
}

/// The `action` of the first form on an HTML page (resolved against the page's own URL when empty).
pub fn form_action(page: &Value, page_url: &str) -> String {
    let html = page.as_str().expect("an HTML page");
    let form = html.find("<form").expect("the page has a form");
    let tag_end = html[form..].find('>').map_or(html.len(), |i| form + i);
    let tag = &html[form..tag_end];
    tag.split_once("action=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map_or_else(|| page_url.to_owned(), |(action, _)| action.to_owned())
}

/// A `multipart/form-data` body with `fields` then the file under `file`: (content type, body).
pub fn multipart(
    fields: &serde_json::Map<String, Value>,
    filename: &str,
    file: &[u8],
) -> (String, Vec<u8>) {
    let boundary = "----mock-server-test-boundary";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{}\r\n",
                value.as_str().unwrap_or_default()
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; \
             filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl Mock {
    /// A GET of a path or URL with `token` as the bearer token (the stored bytes behind an
    /// `attachment_url` go only to their owner).
    pub async fn get_as(&self, url: &str, token: &str) -> Reply {
        let path = url.strip_prefix(BASE).unwrap_or(url);
        let request = Request::get(path)
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .expect("request");
        self.send(request).await
    }

    /// POSTs a presigned upload: `fields` plus the file, to the envelope's `upload_url`.
    pub async fn upload(
        &self,
        envelope: &Value,
        fields: &serde_json::Map<String, Value>,
        file: &[u8],
    ) -> Reply {
        let (content_type, body) = multipart(fields, "upload.bin", file);
        let url = envelope["upload_url"].as_str().expect("upload_url");
        let path = url.strip_prefix(BASE).unwrap_or(url);
        self.send(
            Request::post(path)
                .header("content-type", content_type)
                .body(Body::from(body))
                .expect("request"),
        )
        .await
    }
}

impl Client {
    /// Uploads `bytes` as `filename` the documented way and returns its `attachment_url`.
    pub async fn attach(&mut self, filename: &str, bytes: &[u8]) -> String {
        let envelope = self
            .call_json(
                "create_attachment_upload",
                json!({"filename": filename, "mime_type": "text/plain", "size_bytes": bytes.len()}),
            )
            .await;
        let fields = envelope["upload_fields"]
            .as_object()
            .expect("upload_fields")
            .clone();
        let posted = self.mock.upload(&envelope, &fields, bytes).await;
        assert_eq!(posted.status, StatusCode::NO_CONTENT, "{posted:?}");
        envelope["attachment_url"]
            .as_str()
            .expect("attachment_url")
            .to_owned()
    }
}

/// A scenario that asks a question once a step has found a source: the in-call answer then
/// returns at once with `task_status: working` (see the elicitation tests).
pub fn question_after_a_source() -> Value {
    json!({
        "name": "question-after-source",
        "description": "Asks a question once a source was found.",
        "turns": [{
            "steps": [{"title": "Reading the dashboard", "duration": "20s",
                       "sources": [{"url": "https://example.com/q3", "title": "Q3 dashboard"}]}],
            "outcome": {
                "event": "ask_user_question",
                "text": "Which format should I use?",
                "interactions": [{"kind": "question", "questions": [
                    {"id": "q1", "question": "Which format should I use?", "options": ["PDF", "DOCX"]}
                ]}],
                "then": {
                    "steps": [{"title": "Writing the report", "duration": "30s"}],
                    "outcome": {"event": "complete", "text": "Done."}
                }
            }
        }]
    })
}

/// Sends a follow-up on `thread` from a second session of alice's, in the background, and returns
/// once the mock has received it: the journal records a request on arrival, and on the test's
/// single-threaded runtime the call has delivered its message by the time this resumes.
pub async fn follow_up_in_background(
    mock: &Mock,
    thread: &str,
    message: &str,
) -> tokio::task::JoinHandle<Value> {
    let mut other = mock.session("alice-dev-token").await;
    let arguments = json!({"message": message, "thread_id": thread});
    let handle =
        tokio::spawn(async move { other.call_json("call_perplexity_computer", arguments).await });
    let message = message.to_owned();
    mock.handle
        .journal()
        .wait_for_within(Duration::from_secs(5), move |e| {
            e.request_body["params"]["arguments"]["message"] == message.as_str()
        })
        .await
        .expect("the follow-up reaches the mock");
    handle
}
