//! A session with one server over Streamable HTTP: `initialize` (falling back to the legacy
//! transport when allowed and the server refuses), `notifications/initialized`, then
//! `tools/list` pages or one `tools/call`, with the session id and the negotiated protocol
//! version on every later request, and `DELETE` at the end. Answers may be plain JSON or an SSE
//! stream.

use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use reqwest::{StatusCode, Url};
use serde::Serialize;
use serde_json::{Map, Value};

use super::deadline::with_deadline;
use super::error::{McpClientError, ServerUrl, snippet};
use super::jsonrpc::{
    CallMeta, CallToolParams, InitializeParams, ListToolsParams, Notification, Request,
};
use super::legacy::{Legacy, Peer, refuses_streamable_http};
use super::model::{
    RemoteServer, RemoteTool, SUPPORTED_VERSIONS, Timeouts, ToolCallOutcome, is_response_to,
    parse_tool, render_output,
};
use super::server_request;
use crate::http::sse::{Message, Parser};

/// Pages of `tools/list` followed before the client decides a server's cursors never end.
const MAX_PAGES: usize = 100;
/// Same-origin redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;

/// An MCP client over Streamable HTTP; cheap to clone.
#[derive(Debug, Clone)]
pub(crate) struct McpClient {
    /// The HTTP client, or why it could not be built (every operation then fails with it).
    http: Result<reqwest::Client, String>,
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
    pub(crate) fn new() -> Self {
        Self::with_timeouts(Timeouts::default())
    }

    /// A client with the given wall-clock limits.
    pub(crate) fn with_timeouts(timeouts: Timeouts) -> Self {
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
            .map_err(|e| e.to_string());
        Self {
            http,
            timeouts,
            legacy_sse: false,
        }
    }

    /// The same client, falling back to the legacy HTTP+SSE transport when a server refuses
    /// Streamable HTTP (custom connectors support both; the `mcp` tool does not).
    pub(crate) fn allowing_legacy_sse(mut self) -> Self {
        self.legacy_sse = true;
        self
    }

    /// Lists every tool the server offers (all `tools/list` pages).
    pub(crate) async fn list_tools(
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
    pub(crate) async fn call_tool(
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
    /// The client: its HTTP connections, limits and transports.
    client: &'a McpClient,
    /// The server, for errors.
    at: ServerUrl<'a>,
    /// The Streamable HTTP endpoint.
    url: Url,
    /// Authorization and the request's extra headers.
    base_headers: HeaderMap,
    /// `Mcp-Session-Id`, once the server hands one out.
    session_id: Option<HeaderValue>,
    /// The negotiated protocol version.
    version: Option<String>,
    /// The next JSON-RPC request id.
    next_id: u64,
    /// Set when the server speaks the legacy HTTP+SSE transport.
    legacy: Option<Legacy>,
    /// The client's HTTP connections.
    http: &'a reqwest::Client,
}

impl<'a> Session<'a> {
    /// Connects: `initialize`, then `notifications/initialized`.
    async fn open(client: &'a McpClient, server: &'a RemoteServer) -> Result<Self, McpClientError> {
        let url = parse_url(&server.url)?;
        let base_headers = base_headers(server)?;
        let http = client
            .http
            .as_ref()
            .map_err(|detail| McpClientError::NoClient {
                url: server.url.clone(),
                detail: detail.clone(),
            })?;
        let mut session = Self {
            http,
            client,
            at: ServerUrl(&server.url),
            url,
            base_headers,
            session_id: None,
            version: None,
            next_id: 1,
            legacy: None,
        };
        let params = InitializeParams::mock();
        let result = match session.request("initialize", &params).await {
            Err(McpClientError::HttpStatus { status, .. })
                if client.legacy_sse && refuses_streamable_http(status) =>
            {
                session.legacy = Some(
                    Legacy::connect(
                        http,
                        &session.url,
                        &session.base_headers,
                        session.at,
                        client.timeouts.exchange,
                        session.session_id.is_some(),
                    )
                    .await?,
                );
                session.request("initialize", &params).await?
            }
            other => other?,
        };
        let version = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                session
                    .at
                    .protocol("initialize", "the result has no protocolVersion")
            })?;
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
            let params = ListToolsParams {
                cursor: cursor.as_deref(),
            };
            let result = self.request("tools/list", &params).await?;
            let Some(page) = result.get("tools").and_then(Value::as_array) else {
                return Err(self
                    .at
                    .protocol("tools/list", "the result has no `tools` array"));
            };
            for (index, tool) in page.iter().enumerate() {
                tools.push(parse_tool(tool).map_err(|why| {
                    self.at
                        .protocol("tools/list", &format!("tool {index} of a page {why}"))
                })?);
            }
            match result.get("nextCursor") {
                // Absent, null or empty: the last page (some servers send "" for none).
                None | Some(Value::Null) => return Ok(tools),
                Some(Value::String(next)) if next.is_empty() => return Ok(tools),
                Some(Value::String(next)) => {
                    if seen.contains(next) {
                        let why = format!("the cursor `{next}` came back twice, so paging loops");
                        return Err(self.at.protocol("tools/list", &why));
                    }
                    seen.push(next.clone());
                    cursor = Some(next.clone());
                }
                Some(_) => {
                    return Err(self
                        .at
                        .protocol("tools/list", "`nextCursor` is not a string"));
                }
            }
        }
        let why = format!("it still had more pages after {MAX_PAGES}");
        Err(self.at.protocol("tools/list", &why))
    }

    async fn call_tool(
        &mut self,
        name: &str,
        arguments: &Value,
    ) -> Result<ToolCallOutcome, McpClientError> {
        // No arguments are an empty object: `arguments` is an object in the protocol.
        let none = Value::Object(Map::new());
        let arguments = if arguments.is_null() {
            &none
        } else {
            arguments
        };
        // A progress token lets a slow server stream progress on an SSE answer, which keeps
        // the connection visibly alive; the notifications themselves are not needed.
        let params = CallToolParams {
            name,
            arguments,
            meta: CallMeta {
                progress_token: format!("agent-mock-{}", self.next_id),
            },
        };
        let result = self.request("tools/call", &params).await?;
        let Some(result) = result.as_object() else {
            return Err(self
                .at
                .protocol("tools/call", "the result is not an object"));
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
        let send = self.http.delete(self.url.clone()).headers(headers).send();
        // Nothing depends on the answer; a server that ignores it keeps a stale session.
        let _ = with_deadline(self.client.timeouts.exchange, send).await;
    }

    /// Sends a request and returns its `result`.
    async fn request(
        &mut self,
        method: &str,
        params: &impl Serialize,
    ) -> Result<Value, McpClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let body = self.written(method, &Request::new(id, method, params))?;
        let limit = if method == "tools/call" {
            self.client.timeouts.call
        } else {
            self.client.timeouts.exchange
        };
        let message = match with_deadline(limit, self.exchange(method, &body, Some(id))).await {
            Some(answer) => answer?,
            None => return Err(self.at.timed_out(method, limit)),
        };
        let Some(message) = message else {
            let why = "it accepted the request without answering it (HTTP 202)";
            return Err(self.at.protocol(method, why));
        };
        if let Some(error) = message.get("error") {
            return Err(McpClientError::Rpc {
                url: self.at.0.to_owned(),
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
            None => Err(self
                .at
                .protocol(method, "the response has neither `result` nor `error`")),
        }
    }

    /// Sends a notification (answered 202 with no body).
    async fn notify(&mut self, method: &str) -> Result<(), McpClientError> {
        let body = self.written(method, &Notification::new(method))?;
        let limit = self.client.timeouts.exchange;
        match with_deadline(limit, self.exchange(method, &body, None)).await {
            Some(answer) => answer.map(|_| ()),
            None => Err(self.at.timed_out(method, limit)),
        }
    }

    /// A message as the JSON sent for `method`.
    fn written(&self, method: &str, message: &impl Serialize) -> Result<String, McpClientError> {
        serde_json::to_string(message).map_err(|e| McpClientError::Unwritable {
            url: self.at.0.to_owned(),
            method: method.to_owned(),
            detail: e.to_string(),
        })
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
        body: &str,
        id: Option<u64>,
    ) -> Result<Option<Value>, McpClientError> {
        if let Some(mut legacy) = self.legacy.take() {
            let peer = Peer {
                http: self.http,
                at: self.at,
                headers: self.headers(),
                answer_headers: self.post_headers(),
                answer_limit: self.client.timeouts.exchange,
                session_known: self.session_id.is_some(),
            };
            // A failed exchange ends the legacy stream with it.
            let answer = legacy.exchange(&peer, method, body, id).await?;
            self.legacy = Some(legacy);
            return Ok(answer);
        }
        let headers = self.post_headers();
        let mut response = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(body.to_owned())
            .send()
            .await
            .map_err(|e| self.at.unreachable(method, &e))?;
        let status = response.status();
        if method == "initialize"
            && let Some(session_id) = response.headers().get("mcp-session-id")
        {
            self.session_id = Some(session_id.clone());
        }
        if !status.is_success() {
            return Err(self
                .at
                .http_status(method, response, self.session_id.is_some())
                .await);
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
        let id = Value::from(id);
        if content_type.starts_with("text/event-stream") {
            let mut parser = Parser::default();
            loop {
                let chunk = response
                    .chunk()
                    .await
                    .map_err(|e| self.at.unreachable(method, &e))?;
                let Some(chunk) = chunk else {
                    let why = "the SSE stream ended before the response arrived";
                    return Err(self.at.protocol(method, why));
                };
                for Message { data, .. } in parser.push_messages(&chunk) {
                    let Ok(message) = serde_json::from_str::<Value>(&data) else {
                        let why = format!("an SSE event is not JSON: {}", snippet(&data));
                        return Err(self.at.protocol(method, &why));
                    };
                    // Progress and other notifications share the stream; only the response to
                    // this request ends it.
                    if is_response_to(&message, &id) {
                        return Ok(Some(message));
                    }
                    server_request::answer(
                        self.http,
                        self.post_headers(),
                        self.url.clone(),
                        self.client.timeouts.exchange,
                        &message,
                    )
                    .await;
                }
            }
        }
        let bytes = response
            .bytes()
            .await
            .map_err(|e| self.at.unreachable(method, &e))?;
        let text = String::from_utf8_lossy(&bytes);
        if !content_type.starts_with("application/json") {
            let content_type = if content_type.is_empty() {
                "no Content-Type".to_owned()
            } else {
                content_type
            };
            return Err(self.at.not_mcp(method, content_type, &text));
        }
        let message: Value = serde_json::from_str(&text).map_err(|e| {
            self.at.protocol(
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
                Err(self.at.protocol(method, &why))
            }
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
pub(super) fn base_headers(server: &RemoteServer) -> Result<HeaderMap, McpClientError> {
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
