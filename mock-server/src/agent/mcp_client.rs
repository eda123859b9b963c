//! A real MCP client over Streamable HTTP, for the Agent API's `mcp` tool and custom connectors.
//!
//! The Agent API discovers a remote server's tools when a run starts and calls them when the
//! model does, so the mock connects for real: `initialize` (offering [`PROTOCOL_VERSION`]),
//! `notifications/initialized`, then `tools/list` (following `nextCursor`) or `tools/call`, with
//! the `Mcp-Session-Id` the server hands out and the negotiated `MCP-Protocol-Version` on every
//! later request. Answers may be plain JSON or an SSE stream. Each operation opens its own
//! session and ends it with `DELETE`, because an approved call must run with the credentials of
//! the request that approved it, not of the one that proposed it.
//!
//! The `mcp` tool takes Streamable HTTP only, while custom connectors also take the legacy
//! HTTP+SSE transport; a client made with [`McpClient::allowing_legacy_sse`] falls back to it
//! the way the MCP backwards-compatibility rules say: when POSTing `initialize` fails with a 4xx,
//! it GETs the URL for an SSE stream whose first `endpoint` event says where to POST messages,
//! and reads the answers from that stream.
//!
//! Time limits are wall-clock, measured on a watchdog thread instead of tokio timers: the mock
//! often runs on a paused tokio clock (its own tests, and tests that embed it), where a tokio
//! timer fires as soon as the runtime has nothing to do but wait on the network.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{StatusCode, Url};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

/// The protocol version offered in `initialize`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions the client accepts when a server counter-offers: all share the tool messages used
/// here.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Pages of `tools/list` followed before the client decides a server's cursors never end.
const MAX_PAGES: usize = 100;
/// Same-origin redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;
/// How much of an unexpected body an error quotes.
const SNIPPET_CHARS: usize = 200;

/// A remote MCP server as one Agent API request describes it (`server_url`, `authorization`,
/// `headers`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RemoteServer {
    /// The Streamable HTTP endpoint.
    pub url: String,
    /// The access token, sent as `Authorization: Bearer <token>`.
    pub authorization: Option<String>,
    /// Extra request headers, sent on every request to the server.
    pub headers: Vec<(String, String)>,
}

/// One tool a server lists.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteTool {
    /// Tool name, as the model calls it.
    pub name: String,
    /// What the tool does, if the server says.
    pub description: Option<String>,
    /// JSON Schema of the arguments (`inputSchema`).
    pub input_schema: Value,
    /// `annotations.readOnlyHint`, if the server set it.
    pub read_only: Option<bool>,
}

impl RemoteTool {
    /// The entry for `mcp_list_tools.tools[]`: `{name, description?, input_schema, annotations?}`.
    pub fn list_entry(&self) -> Value {
        let mut entry = json!({"name": self.name});
        if let Some(description) = &self.description {
            entry["description"] = json!(description);
        }
        entry["input_schema"] = self.input_schema.clone();
        if let Some(read_only) = self.read_only {
            entry["annotations"] = json!({"read_only": read_only});
        }
        entry
    }

    /// The entry for a `tool_search_output` namespace's `tools[]`:
    /// `{type: "function", name, description?, parameters}`.
    pub fn function_entry(&self) -> Value {
        let mut entry = json!({"type": "function", "name": self.name});
        if let Some(description) = &self.description {
            entry["description"] = json!(description);
        }
        entry["parameters"] = self.input_schema.clone();
        entry
    }
}

/// What a `tools/call` produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallOutcome {
    /// The result's content as the Agent API shows it on `mcp_call.output`: text blocks'
    /// text, other blocks as their JSON, one per line (`structuredContent` when there is no
    /// content).
    pub output: String,
    /// The server's `isError`: the tool ran and reported a failure.
    pub is_error: bool,
}

/// Why talking to a remote MCP server failed. Each message is a sentence naming the URL.
#[derive(Debug, thiserror::Error)]
pub enum McpClientError {
    /// The URL cannot be used.
    #[error("the MCP server URL `{url}` cannot be used: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A configured header cannot be sent.
    #[error("the header `{name}` for the MCP server at {url} cannot be sent: {reason}")]
    InvalidHeader {
        /// The server URL.
        url: String,
        /// Header name as given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No connection, or the connection broke.
    #[error("could not reach the MCP server at {url} ({method}): {detail}")]
    Unreachable {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The underlying network error.
        detail: String,
    },
    /// The server took longer than the wall-clock limit.
    #[error("the MCP server at {url} did not answer {method} within {} s", .after.as_secs_f64())]
    TimedOut {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The limit that passed.
        after: Duration,
    },
    /// The server answered with an HTTP error status.
    #[error("the MCP server at {url} answered {method} with HTTP {status}{hint}")]
    HttpStatus {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The HTTP status code.
        status: u16,
        /// What it probably means, and what the body said (starts with `: ` when present).
        hint: String,
    },
    /// The answer is not JSON or an SSE stream: not a Streamable HTTP MCP endpoint.
    #[error(
        "the server at {url} answered {method} with `{content_type}` instead of JSON or an SSE \
         stream; is it a Streamable HTTP MCP endpoint? It said: {snippet}"
    )]
    NotMcp {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The `Content-Type` it answered with.
        content_type: String,
        /// The start of the body.
        snippet: String,
    },
    /// The answer is JSON or SSE but not the JSON-RPC response expected.
    #[error("the MCP server at {url} sent an unusable answer to {method}: {detail}")]
    Protocol {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// What was wrong.
        detail: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("the MCP server at {url} refused {method} with JSON-RPC error {code}: {message}")]
    Rpc {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The JSON-RPC error code.
        code: i64,
        /// The server's message.
        message: String,
    },
    /// The server only speaks a protocol version this client does not.
    #[error(
        "the MCP server at {url} answered initialize with protocol version `{version}`, which \
         this client does not speak (it speaks {supported})",
        supported = SUPPORTED_VERSIONS.join(", ")
    )]
    UnsupportedVersion {
        /// The server URL.
        url: String,
        /// The version the server chose.
        version: String,
    },
}

/// Wall-clock limits for one exchange with a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Each handshake, `tools/list` page and session end: request sent and answer read.
    pub exchange: Duration,
    /// One `tools/call`, which may legitimately take a while.
    pub call: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            exchange: Duration::from_secs(30),
            call: Duration::from_secs(120),
        }
    }
}

/// An MCP client over Streamable HTTP; cheap to clone.
#[derive(Debug, Clone)]
pub struct McpClient {
    http: reqwest::Client,
    timeouts: Timeouts,
    /// Fall back to the legacy HTTP+SSE transport (custom connectors only).
    legacy_sse: bool,
}

impl Default for McpClient {
    fn default() -> Self {
        Self::new()
    }
}

impl McpClient {
    /// A client with the default [`Timeouts`].
    pub fn new() -> Self {
        Self::with_timeouts(Timeouts::default())
    }

    /// A client with the given wall-clock limits.
    pub fn with_timeouts(timeouts: Timeouts) -> Self {
        let http = reqwest::Client::builder()
            // Servers mounted under a path often redirect `/mcp` to `/mcp/`, so redirects on
            // the same origin are followed; one to another origin would hand it the token, so
            // it is reported instead.
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let same_origin = attempt
                    .previous()
                    .first()
                    .is_some_and(|first| first.origin() == attempt.url().origin());
                if !same_origin {
                    attempt.stop()
                } else if attempt.previous().len() > MAX_REDIRECTS {
                    attempt.error("too many redirects")
                } else {
                    attempt.follow()
                }
            }))
            // The pool's idle reaper runs on tokio timers, which a paused test clock fires at
            // once; sessions are short, so idle connections are not kept.
            .pool_max_idle_per_host(0)
            .pool_idle_timeout(None)
            .user_agent(concat!(
                "perplexity-agent-api-mock/",
                env!("CARGO_PKG_VERSION")
            ))
            .build()
            .unwrap_or_default();
        Self {
            http,
            timeouts,
            legacy_sse: false,
        }
    }

    /// The same client, falling back to the legacy HTTP+SSE transport when a server refuses
    /// Streamable HTTP (custom connectors support both; the `mcp` tool does not).
    pub fn allowing_legacy_sse(mut self) -> Self {
        self.legacy_sse = true;
        self
    }

    /// Lists every tool the server offers (all `tools/list` pages).
    pub async fn list_tools(
        &self,
        server: &RemoteServer,
    ) -> Result<Vec<RemoteTool>, McpClientError> {
        let mut session = Session::open(self, server).await?;
        let tools = session.list_tools().await;
        session.close().await;
        tools
    }

    /// Calls one tool. A tool that runs and fails is `Ok` with `is_error`; an `Err` means the
    /// call never produced a result.
    pub async fn call_tool(
        &self,
        server: &RemoteServer,
        name: &str,
        arguments: &Value,
    ) -> Result<ToolCallOutcome, McpClientError> {
        let mut session = Session::open(self, server).await?;
        let outcome = session.call_tool(name, arguments).await;
        session.close().await;
        outcome
    }
}

/// One MCP session with one server.
struct Session<'a> {
    client: &'a McpClient,
    server_url: &'a str,
    url: Url,
    /// Authorization and the request's extra headers.
    base_headers: HeaderMap,
    session_id: Option<HeaderValue>,
    version: Option<String>,
    next_id: u64,
    /// Set when the server speaks the legacy HTTP+SSE transport.
    legacy: Option<Legacy>,
}

/// The open GET stream of a legacy HTTP+SSE server, and where to POST messages.
struct Legacy {
    stream: reqwest::Response,
    parser: SseParser,
    queued: VecDeque<SseEvent>,
    endpoint: Url,
}

impl Legacy {
    /// The next event on the stream (`None` when it ends).
    async fn next_event(&mut self) -> Result<Option<SseEvent>, reqwest::Error> {
        loop {
            if let Some(event) = self.queued.pop_front() {
                return Ok(Some(event));
            }
            match self.stream.chunk().await? {
                Some(chunk) => self.queued.extend(self.parser.push(&chunk)),
                None => return Ok(None),
            }
        }
    }
}

/// What a legacy GET stream is called in error messages.
const LEGACY_STREAM: &str = "GET (legacy SSE stream)";

impl<'a> Session<'a> {
    /// Connects: `initialize`, then `notifications/initialized`.
    async fn open(client: &'a McpClient, server: &'a RemoteServer) -> Result<Self, McpClientError> {
        let url = parse_url(&server.url)?;
        let base_headers = base_headers(server)?;
        let mut session = Self {
            client,
            server_url: &server.url,
            url,
            base_headers,
            session_id: None,
            version: None,
            next_id: 1,
            legacy: None,
        };
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {
                "name": "perplexity-agent-api-mock",
                "version": env!("CARGO_PKG_VERSION"),
            },
        });
        let result = match session.request("initialize", params.clone()).await {
            Err(McpClientError::HttpStatus { status, .. })
                if client.legacy_sse && refuses_streamable_http(status) =>
            {
                session.connect_legacy().await?;
                session.request("initialize", params).await?
            }
            other => other?,
        };
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| session.protocol("initialize", "the result has no protocolVersion"))?;
        if !SUPPORTED_VERSIONS.contains(&version) {
            return Err(McpClientError::UnsupportedVersion {
                url: server.url.clone(),
                version: version.to_owned(),
            });
        }
        session.version = Some(version.to_owned());
        session.notify("notifications/initialized").await?;
        Ok(session)
    }

    /// Every tool, following `nextCursor`.
    async fn list_tools(&mut self) -> Result<Vec<RemoteTool>, McpClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = Vec::new();
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let result = self.request("tools/list", params).await?;
            let Some(page) = result.get("tools").and_then(Value::as_array) else {
                return Err(self.protocol("tools/list", "the result has no `tools` array"));
            };
            for (index, tool) in page.iter().enumerate() {
                tools.push(parse_tool(tool).map_err(|why| {
                    self.protocol("tools/list", &format!("tool {index} of a page {why}"))
                })?);
            }
            match result.get("nextCursor") {
                // Absent, null or empty: the last page (some servers send "" for none).
                None | Some(Value::Null) => return Ok(tools),
                Some(Value::String(next)) if next.is_empty() => return Ok(tools),
                Some(Value::String(next)) => {
                    if seen.contains(next) {
                        let why = format!("the cursor `{next}` came back twice, so paging loops");
                        return Err(self.protocol("tools/list", &why));
                    }
                    seen.push(next.clone());
                    cursor = Some(next.clone());
                }
                Some(_) => return Err(self.protocol("tools/list", "`nextCursor` is not a string")),
            }
        }
        let why = format!("it still had more pages after {MAX_PAGES}");
        Err(self.protocol("tools/list", &why))
    }

    async fn call_tool(
        &mut self,
        name: &str,
        arguments: &Value,
    ) -> Result<ToolCallOutcome, McpClientError> {
        let arguments = if arguments.is_null() {
            json!({})
        } else {
            arguments.clone()
        };
        // A progress token lets a slow server stream progress on an SSE answer, which keeps
        // the connection visibly alive; the notifications themselves are not needed.
        let params = json!({
            "name": name,
            "arguments": arguments,
            "_meta": {"progressToken": format!("agent-mock-{}", self.next_id)},
        });
        let result = self.request("tools/call", params).await?;
        let Some(result) = result.as_object() else {
            return Err(self.protocol("tools/call", "the result is not an object"));
        };
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(ToolCallOutcome {
            output: render_output(result),
            is_error,
        })
    }

    /// Ends the session; servers that do not support `DELETE` answer 405, which is fine.
    async fn close(&mut self) {
        // A legacy session ends when its stream closes.
        self.legacy = None;
        let Some(session_id) = self.session_id.clone() else {
            return;
        };
        let mut headers = self.headers();
        headers.insert("mcp-session-id", session_id);
        let send = self
            .client
            .http
            .delete(self.url.clone())
            .headers(headers)
            .send();
        // Nothing depends on the answer; a server that ignores it keeps a stale session.
        let _ = with_deadline(self.client.timeouts.exchange, send).await;
    }

    /// Sends a request and returns its `result`.
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, McpClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let limit = if method == "tools/call" {
            self.client.timeouts.call
        } else {
            self.client.timeouts.exchange
        };
        let message = match with_deadline(limit, self.exchange(method, &body, Some(id))).await {
            Some(answer) => answer?,
            None => return Err(self.timed_out(method, limit)),
        };
        let Some(message) = message else {
            let why = "it accepted the request without answering it (HTTP 202)";
            return Err(self.protocol(method, why));
        };
        if let Some(error) = message.get("error") {
            return Err(McpClientError::Rpc {
                url: self.server_url.to_owned(),
                method: method.to_owned(),
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)")
                    .to_owned(),
            });
        }
        match message.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(self.protocol(method, "the response has neither `result` nor `error`")),
        }
    }

    /// Sends a notification (answered 202 with no body).
    async fn notify(&mut self, method: &str) -> Result<(), McpClientError> {
        let body = json!({"jsonrpc": "2.0", "method": method});
        let limit = self.client.timeouts.exchange;
        match with_deadline(limit, self.exchange(method, &body, None)).await {
            Some(answer) => answer.map(|_| ()),
            None => Err(self.timed_out(method, limit)),
        }
    }

    /// Headers every request carries: the request's own, then the protocol's.
    fn headers(&self) -> HeaderMap {
        let mut headers = self.base_headers.clone();
        if let Some(version) = &self.version
            && let Ok(value) = HeaderValue::from_str(version)
        {
            headers.insert("mcp-protocol-version", value);
        }
        headers
    }

    /// Headers of a POST in the session: JSON in, JSON or SSE back, and the session id once known.
    fn post_headers(&self) -> HeaderMap {
        let mut headers = self.headers();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Some(session_id) = &self.session_id {
            headers.insert("mcp-session-id", session_id.clone());
        }
        headers
    }

    /// POSTs one message; for a request, returns the JSON-RPC response with `id` (from a JSON
    /// body or an SSE stream).
    async fn exchange(
        &mut self,
        method: &str,
        body: &Value,
        id: Option<u64>,
    ) -> Result<Option<Value>, McpClientError> {
        if self.legacy.is_some() {
            return self.legacy_exchange(method, body, id).await;
        }
        let headers = self.post_headers();
        let mut response = self
            .client
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| self.unreachable(method, &e))?;
        let status = response.status();
        if method == "initialize"
            && let Some(session_id) = response.headers().get("mcp-session-id")
        {
            self.session_id = Some(session_id.clone());
        }
        if !status.is_success() {
            return Err(self.http_status(method, response).await);
        }
        let Some(id) = id else {
            // A notification: 202 Accepted, nothing to read.
            return Ok(None);
        };
        if status == StatusCode::ACCEPTED {
            return Ok(None);
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let id = json!(id);
        if content_type.starts_with("text/event-stream") {
            let mut parser = SseParser::default();
            loop {
                let chunk = response
                    .chunk()
                    .await
                    .map_err(|e| self.unreachable(method, &e))?;
                let Some(chunk) = chunk else {
                    let why = "the SSE stream ended before the response arrived";
                    return Err(self.protocol(method, why));
                };
                for SseEvent { data, .. } in parser.push(&chunk) {
                    let Ok(message) = serde_json::from_str::<Value>(&data) else {
                        let why = format!("an SSE event is not JSON: {}", snippet(&data));
                        return Err(self.protocol(method, &why));
                    };
                    // Progress and other notifications share the stream; only the response to
                    // this request ends it.
                    if is_response_to(&message, &id) {
                        return Ok(Some(message));
                    }
                    self.answer_server_request(&message, self.url.clone()).await;
                }
            }
        }
        let bytes = response
            .bytes()
            .await
            .map_err(|e| self.unreachable(method, &e))?;
        let text = String::from_utf8_lossy(&bytes);
        if !content_type.starts_with("application/json") {
            return Err(McpClientError::NotMcp {
                url: self.server_url.to_owned(),
                method: method.to_owned(),
                content_type: if content_type.is_empty() {
                    "no Content-Type".to_owned()
                } else {
                    content_type
                },
                snippet: snippet(&text),
            });
        }
        let message: Value = serde_json::from_str(&text).map_err(|e| {
            self.protocol(
                method,
                &format!("the JSON body does not parse ({e}): {}", snippet(&text)),
            )
        })?;
        // A server may answer with a one-element batch.
        let found = match message {
            Value::Array(messages) => messages.into_iter().find(|m| is_response_to(m, &id)),
            message => Some(message).filter(|m| is_response_to(m, &id)),
        };
        match found {
            Some(message) => Ok(Some(message)),
            None => {
                let why = format!(
                    "the JSON body is not the response to request {id}: {}",
                    snippet(&text)
                );
                Err(self.protocol(method, &why))
            }
        }
    }

    /// Opens the legacy GET stream and waits for its `endpoint` event.
    async fn connect_legacy(&mut self) -> Result<(), McpClientError> {
        let limit = self.client.timeouts.exchange;
        match with_deadline(limit, self.open_legacy_stream()).await {
            Some(opened) => opened,
            None => Err(self.timed_out(LEGACY_STREAM, limit)),
        }
    }

    async fn open_legacy_stream(&mut self) -> Result<(), McpClientError> {
        let mut headers = self.base_headers.clone();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let response = self
            .client
            .http
            .get(self.url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(|e| self.unreachable(LEGACY_STREAM, &e))?;
        if !response.status().is_success() {
            return Err(self.http_status(LEGACY_STREAM, response).await);
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if !content_type.starts_with("text/event-stream") {
            let body = response.text().await.unwrap_or_default();
            return Err(McpClientError::NotMcp {
                url: self.server_url.to_owned(),
                method: LEGACY_STREAM.to_owned(),
                content_type,
                snippet: snippet(&body),
            });
        }
        let mut legacy = Legacy {
            stream: response,
            parser: SseParser::default(),
            queued: VecDeque::new(),
            endpoint: self.url.clone(),
        };
        loop {
            let event = legacy
                .next_event()
                .await
                .map_err(|e| self.unreachable(LEGACY_STREAM, &e))?;
            let Some(event) = event else {
                let why = "the stream ended before its `endpoint` event";
                return Err(self.protocol(LEGACY_STREAM, why));
            };
            if event.event.as_deref() != Some("endpoint") {
                continue;
            }
            let endpoint = self.url.join(event.data.trim()).map_err(|e| {
                let why = format!("the endpoint `{}` is not a URL ({e})", event.data.trim());
                self.protocol(LEGACY_STREAM, &why)
            })?;
            // Messages carry the token, so they may only go where the stream came from.
            if endpoint.origin() != self.url.origin() {
                let why = format!("the endpoint `{endpoint}` is on another origin");
                return Err(self.protocol(LEGACY_STREAM, &why));
            }
            legacy.endpoint = endpoint;
            self.legacy = Some(legacy);
            return Ok(());
        }
    }

    /// POSTs one message to the legacy endpoint; a request's response arrives on the stream.
    async fn legacy_exchange(
        &mut self,
        method: &str,
        body: &Value,
        id: Option<u64>,
    ) -> Result<Option<Value>, McpClientError> {
        let Some(mut legacy) = self.legacy.take() else {
            return Err(self.protocol(method, "the legacy SSE stream is closed"));
        };
        let mut headers = self.headers();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let response = self
            .client
            .http
            .post(legacy.endpoint.clone())
            .headers(headers)
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| self.unreachable(method, &e))?;
        if !response.status().is_success() {
            return Err(self.http_status(method, response).await);
        }
        let Some(id) = id else {
            self.legacy = Some(legacy);
            return Ok(None);
        };
        let id = json!(id);
        loop {
            let event = legacy
                .next_event()
                .await
                .map_err(|e| self.unreachable(method, &e))?;
            let Some(event) = event else {
                let why = "the legacy SSE stream ended before the response arrived";
                return Err(self.protocol(method, why));
            };
            if event.event.as_deref().is_some_and(|e| e != "message") {
                continue;
            }
            let Ok(message) = serde_json::from_str::<Value>(&event.data) else {
                let why = format!("an SSE event is not JSON: {}", snippet(&event.data));
                return Err(self.protocol(method, &why));
            };
            if is_response_to(&message, &id) {
                self.legacy = Some(legacy);
                return Ok(Some(message));
            }
            self.answer_server_request(&message, legacy.endpoint.clone())
                .await;
        }
    }

    /// Answers a request the server sent on a stream while a call waits: `ping` with an empty
    /// result, anything else (sampling, elicitation, roots: capabilities this client never
    /// declared) with "method not found", so the server is not left waiting until the limit.
    async fn answer_server_request(&self, message: &Value, endpoint: Url) {
        let (Some(id), Some(method)) = (message.get("id"), message.get("method")) else {
            return;
        };
        let answer = if method == "ping" {
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": -32601,
                "message": format!("Method not found: this client declared no capabilities for {method}"),
            }})
        };
        let headers = self.post_headers();
        let send = self
            .client
            .http
            .post(endpoint)
            .headers(headers)
            .body(answer.to_string())
            .send();
        // The answer is a courtesy; the call's own limit still bounds the wait.
        let _ = with_deadline(self.client.timeouts.exchange, send).await;
    }

    async fn http_status(&self, method: &str, response: reqwest::Response) -> McpClientError {
        let status = response.status();
        let challenge = response
            .headers()
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.text().await.unwrap_or_default();
        let mut hint = match status.as_u16() {
            401 => {
                " (unauthorized: the `authorization` token is missing, expired or wrong)".to_owned()
            }
            403 => " (forbidden: the token is not allowed to use this server)".to_owned(),
            404 if self.session_id.is_some() && method != "initialize" => {
                " (the server no longer knows this session)".to_owned()
            }
            404 => " (nothing at this URL: check the server_url path)".to_owned(),
            405 => " (POST is not allowed here; a server on the legacy HTTP+SSE transport? The \
                     `mcp` tool needs a Streamable HTTP endpoint)"
                .to_owned(),
            300..=399 => match location {
                Some(location) => {
                    format!(" (a redirect to {location}, another origin, which is not followed)")
                }
                None => " (a redirect without a Location)".to_owned(),
            },
            _ => status
                .canonical_reason()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default(),
        };
        if let Some(challenge) = challenge {
            hint.push_str(&format!("; WWW-Authenticate: {challenge}"));
        }
        let body = snippet(&body);
        if !body.is_empty() {
            hint.push_str(&format!(": {body}"));
        }
        McpClientError::HttpStatus {
            url: self.server_url.to_owned(),
            method: method.to_owned(),
            status: status.as_u16(),
            hint,
        }
    }

    fn protocol(&self, method: &str, detail: &str) -> McpClientError {
        McpClientError::Protocol {
            url: self.server_url.to_owned(),
            method: method.to_owned(),
            detail: detail.to_owned(),
        }
    }

    fn timed_out(&self, method: &str, after: Duration) -> McpClientError {
        McpClientError::TimedOut {
            url: self.server_url.to_owned(),
            method: method.to_owned(),
            after,
        }
    }

    fn unreachable(&self, method: &str, error: &reqwest::Error) -> McpClientError {
        McpClientError::Unreachable {
            url: self.server_url.to_owned(),
            method: method.to_owned(),
            detail: root_cause(error),
        }
    }
}

fn parse_url(raw: &str) -> Result<Url, McpClientError> {
    let invalid = |reason: &str| McpClientError::InvalidUrl {
        url: raw.to_owned(),
        reason: reason.to_owned(),
    };
    let url = Url::parse(raw).map_err(|e| invalid(&format!("{e}")))?;
    match url.scheme() {
        "http" => Ok(url),
        // The mock is built without a TLS stack, so it only reaches plain-HTTP servers (a local
        // server, or a TLS-terminating proxy in front of a remote one).
        "https" => Err(invalid(
            "this mock reaches MCP servers over plain http only; run the server locally (or \
             behind a local proxy) and use its http:// URL",
        )),
        other => Err(invalid(&format!(
            "the scheme `{other}` is not http; a Streamable HTTP endpoint looks like \
             http://host:port/mcp"
        ))),
    }
}

/// The request's extra headers, then its authorization as a bearer token.
fn base_headers(server: &RemoteServer) -> Result<HeaderMap, McpClientError> {
    let invalid = |name: &str, reason: &str| McpClientError::InvalidHeader {
        url: server.url.clone(),
        name: name.to_owned(),
        reason: reason.to_owned(),
    };
    let mut headers = HeaderMap::new();
    for (name, value) in &server.headers {
        let header_name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| invalid(name, "it is not a valid HTTP header name"))?;
        let header_value = HeaderValue::from_str(value)
            .map_err(|_| invalid(name, "its value holds characters HTTP headers cannot carry"))?;
        headers.append(header_name, header_value);
    }
    if let Some(token) = &server.authorization {
        let token = token.trim();
        // The documented value is the raw token; a value that already names its scheme is
        // sent as it is rather than as "Bearer Bearer ...".
        let has_scheme = token
            .split_once(' ')
            .is_some_and(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"));
        let value = if has_scheme {
            token.to_owned()
        } else {
            format!("Bearer {token}")
        };
        let mut value = HeaderValue::from_str(&value).map_err(|_| {
            invalid(
                "authorization",
                "the token holds characters HTTP headers cannot carry",
            )
        })?;
        value.set_sensitive(true);
        headers.insert(header::AUTHORIZATION, value);
    }
    Ok(headers)
}

/// A `Tool` from `tools/list`, or why it is unusable (completing "tool N of a page ...").
fn parse_tool(tool: &Value) -> Result<RemoteTool, String> {
    let Some(name) = tool.get("name").and_then(Value::as_str) else {
        return Err("has no `name`".to_owned());
    };
    let input_schema = match tool.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        // Required by the protocol; an absent schema is read as "no arguments" rather than
        // failing the whole discovery over it.
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(_) => {
            return Err(format!(
                "(`{name}`) has an `inputSchema` that is not an object"
            ));
        }
    };
    Ok(RemoteTool {
        name: name.to_owned(),
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        input_schema,
        read_only: tool
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool),
    })
}

/// `mcp_call.output` from a `CallToolResult`.
fn render_output(result: &Map<String, Value>) -> String {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if blocks.is_empty() {
        return result
            .get("structuredContent")
            .map(Value::to_string)
            .unwrap_or_default();
    }
    blocks
        .iter()
        .map(|block| match (block.get("type"), block.get("text")) {
            (Some(Value::String(kind)), Some(Value::String(text))) if kind == "text" => {
                text.clone()
            }
            _ => block.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether an HTTP status answering `initialize` means "not a Streamable HTTP endpoint" (the
/// MCP backwards-compatibility rule says any 4xx; auth and rate limits are no such sign).
fn refuses_streamable_http(status: u16) -> bool {
    (400..500).contains(&status) && !matches!(status, 401 | 403 | 408 | 429)
}

fn is_response_to(message: &Value, id: &Value) -> bool {
    message.get("id") == Some(id)
        && message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// One server-sent event: its `event:` name, if any, and its `data`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct SseEvent {
    event: Option<String>,
    data: String,
}

/// Splits an SSE byte stream into events.
#[derive(Default)]
struct SseParser {
    buffer: Vec<u8>,
}

impl SseParser {
    /// Adds bytes; returns every event they complete (events without data, such as a priming
    /// event, are skipped).
    fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some((end, separator)) = find_event_end(&self.buffer) {
            let raw: Vec<u8> = self.buffer.drain(..end + separator).take(end).collect();
            let text = String::from_utf8_lossy(&raw);
            let data: Vec<&str> = text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            let event = text
                .lines()
                .find_map(|line| line.strip_prefix("event:"))
                .map(|name| name.trim().to_owned());
            if !data.trim().is_empty() {
                events.push(SseEvent { event, data });
            }
        }
        events
    }
}

/// Where the first complete event ends, and the length of the blank line ending it.
fn find_event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    for (i, window) in buffer.windows(2).enumerate() {
        if window == b"\n\n" || window == b"\r\r" {
            return Some((i, 2));
        }
        if buffer[i..].starts_with(b"\r\n\r\n") {
            return Some((i, 4));
        }
    }
    None
}

/// The start of a body, on one line, for an error message.
fn snippet(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > SNIPPET_CHARS {
        let cut: String = flat.chars().take(SNIPPET_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// The innermost cause of a network error ("Connection refused (os error 111)"), which says
/// more than reqwest's "error sending request".
fn root_cause(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    let root = cause.to_string();
    if error.is_connect() {
        format!("connection failed: {root}")
    } else {
        root
    }
}

/// Runs `future` for at most `limit` of wall-clock time (`None` when the limit passed).
///
/// A watchdog thread measures the limit, so the deadline holds even on a paused tokio clock,
/// and the thread ends as soon as the future does.
async fn with_deadline<F: Future>(limit: Duration, future: F) -> Option<F::Output> {
    let (expired, on_expiry) = oneshot::channel::<()>();
    let (done, on_done) = std_mpsc::channel::<()>();
    let watchdog = std::thread::Builder::new()
        .name("mcp-client-deadline".to_owned())
        .spawn(move || {
            if let Err(std_mpsc::RecvTimeoutError::Timeout) = on_done.recv_timeout(limit) {
                let _ = expired.send(());
            }
        });
    if watchdog.is_err() {
        // No thread to spare: run without a limit rather than not at all.
        return Some(future.await);
    }
    tokio::pin!(future);
    let output = tokio::select! {
        output = &mut future => Some(output),
        Ok(()) = on_expiry => None,
    };
    drop(done);
    output
}

#[cfg(test)]
mod tests;
