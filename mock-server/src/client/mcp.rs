//! [`McpSession`]: a small MCP client over Streamable HTTP, for a test that wants to call the
//! Computer tools without writing JSON-RPC by hand.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::error::{ClientError, body_value};
use super::tokens::ALICE_DEV_TOKEN;
use crate::computer::model::jsonrpc::{JsonRpcMessage, RequestId};
use crate::computer::model::lifecycle::{ClientCapabilities, Implementation};
use crate::computer::model::request::{
    ClientNotification, InitializeRequestParams, RequestMeta, StatelessEnvelope,
};
use crate::computer::{LATEST_HANDSHAKE_VERSION, MODERN_VERSION};
use crate::http::sse;

/// What a Streamable HTTP client accepts: a JSON answer or an event stream.
const ACCEPT: &str = "application/json, text/event-stream";

/// The `clientInfo` the session introduces itself with.
const CLIENT_NAME: &str = "mock-server-session";

/// Sets up a [`McpSession`]: the token it sends and the protocol version it asks for.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::start().await?;
/// let bob = mock_server::McpSession::builder(mock.mcp_url())
///     .token(mock_server::BOB_DEV_TOKEN)
///     .connect()
///     .await?;
/// assert_eq!(bob.protocol_version(), mock_server::LATEST_HANDSHAKE_VERSION);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `connect` is awaited"]
pub struct McpSessionBuilder {
    url: String,
    token: String,
    protocol_version: String,
}

impl McpSessionBuilder {
    /// Sends `token` as the bearer token (default [`ALICE_DEV_TOKEN`]); an OAuth access token
    /// the mock issued works too.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let bob = mock_server::McpSession::builder(mock.mcp_url())
    ///     .token(mock_server::BOB_DEV_TOKEN)
    ///     .connect()
    ///     .await?;
    /// let sent = &mock.journal().exchanges()[0];
    /// assert_eq!(sent.request_headers["authorization"],
    ///            format!("Bearer {}", mock_server::fingerprint(mock_server::BOB_DEV_TOKEN)));
    /// # drop(bob); Ok(()) }
    /// ```
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = token.into();
        self
    }

    /// Asks for protocol `version` (default [`LATEST_HANDSHAKE_VERSION`], 2025-11-25).
    /// [`MODERN_VERSION`] (2026-07-28) makes a stateless session: no `initialize`, no session
    /// id, every request carries the version in its `_meta` and its headers. Another version
    /// is offered in `initialize`, and the mock answers with the one it speaks.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let modern = mock_server::McpSession::builder(mock.mcp_url())
    ///     .protocol_version(mock_server::MODERN_VERSION)
    ///     .connect()
    ///     .await?;
    /// assert_eq!(modern.protocol_version(), "2026-07-28");
    /// assert_eq!(modern.session_id(), None);
    /// let old = mock_server::McpSession::builder(mock.mcp_url())
    ///     .protocol_version("2025-03-26")
    ///     .connect()
    ///     .await?;
    /// assert_eq!(old.protocol_version(), "2025-03-26");
    /// # Ok(()) }
    /// ```
    pub fn protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// Connects: `initialize` and `notifications/initialized` in the handshake era,
    /// `server/discover` in the stateless one.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock_server::McpSession::builder(mock.mcp_url()).connect().await?;
    /// let methods: Vec<String> = mock.journal().exchanges().iter()
    ///     .map(|e| e.request_body["method"].as_str().unwrap_or_default().to_owned())
    ///     .collect();
    /// assert_eq!(methods, ["initialize", "notifications/initialized"]);
    /// # drop(session); Ok(()) }
    /// ```
    pub async fn connect(self) -> Result<McpSession, ClientError> {
        let stateless = self.protocol_version == MODERN_VERSION;
        let mut session = McpSession {
            http: reqwest::Client::new(),
            url: self.url,
            token: self.token,
            protocol_version: self.protocol_version,
            session_id: None,
            stateless,
            next_id: Arc::new(AtomicU64::new(1)),
        };
        if stateless {
            session.discover().await?;
        } else {
            session.initialize().await?;
        }
        Ok(session)
    }
}

/// An MCP client session with the mock's Computer endpoint, connected (see
/// [`MockServer::mcp_session`](crate::MockServer::mcp_session)); cheap to clone, and clones
/// share the session.
///
/// It declares no client capabilities, so the mock never asks it anything in the middle of a
/// call: questions, confirmations and sign-ins come back as tool results, as the tools'
/// descriptions say. Calls wait as long as the mock makes them wait (the call-wait window, in
/// virtual time), so give the mock a [driven](crate::MockServerBuilder::driven_clock) or
/// [fast](crate::MockServerBuilder::time_scale) clock.
///
/// ```
/// # use std::time::Duration;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::builder()
///     .driven_clock(Duration::from_secs(60))
///     .start()
///     .await?;
/// let session = mock.mcp_session().await?;
/// let done = session.call_computer("#complete Summarize Hacker News").await?;
/// assert_eq!(done["event"], "complete");
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct McpSession {
    http: reqwest::Client,
    url: String,
    token: String,
    /// The version asked for, then the one negotiated.
    protocol_version: String,
    /// The `Mcp-Session-Id` of a handshake session.
    session_id: Option<String>,
    /// A 2026-07-28 session: no handshake, the envelope on every request.
    stateless: bool,
    next_id: Arc<AtomicU64>,
}

impl McpSession {
    /// A builder for a session with the MCP endpoint at `mcp_url`, as alice, on 2025-11-25.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock_server::McpSession::builder(mock.mcp_url()).connect().await?;
    /// assert!(session.session_id().is_some());
    /// # Ok(()) }
    /// ```
    pub fn builder(mcp_url: impl Into<String>) -> McpSessionBuilder {
        McpSessionBuilder {
            url: mcp_url.into(),
            token: ALICE_DEV_TOKEN.to_owned(),
            protocol_version: LATEST_HANDSHAKE_VERSION.to_owned(),
        }
    }

    /// The protocol version in use: the one `initialize` negotiated, or 2026-07-28.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock.mcp_session().await?;
    /// assert_eq!(session.protocol_version(), "2025-11-25");
    /// # Ok(()) }
    /// ```
    pub fn protocol_version(&self) -> &str {
        &self.protocol_version
    }

    /// The `Mcp-Session-Id` the mock assigned; `None` for a 2026-07-28 session.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock.mcp_session().await?;
    /// let id = session.session_id().ok_or("a session id")?;
    /// assert_eq!(mock.journal().exchanges()[0].response_headers["mcp-session-id"], id);
    /// # Ok(()) }
    /// ```
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Sends JSON-RPC request `method` with `params` and returns its `result`; a JSON-RPC
    /// error is [`ClientError::JsonRpc`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock.mcp_session().await?;
    /// assert_eq!(session.request("ping", serde_json::json!({})).await?, serde_json::json!({}));
    /// let unknown = session.request("no/such/method", serde_json::json!({})).await;
    /// assert!(matches!(unknown, Err(mock_server::ClientError::JsonRpc { code: -32601, .. })));
    /// # Ok(()) }
    /// ```
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ClientError> {
        self.exchange(method, params)
            .await
            .map(|(_, result)| result)
    }

    /// The tool definitions `tools/list` returns (`name`, `description`, `inputSchema`, ...),
    /// every page.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let tools = mock.mcp_session().await?.list_tools().await?;
    /// let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    /// assert!(names.contains(&"call_perplexity_computer"));
    /// assert!(names.contains(&"read_thread"));
    /// # Ok(()) }
    /// ```
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(cursor) => json!({ "cursor": cursor }),
                None => json!({}),
            };
            let mut page = self.request("tools/list", params).await?;
            match page.get_mut("tools").map(Value::take) {
                Some(Value::Array(listed)) => tools.extend(listed),
                _ => return Err(ClientError::protocol("tools/list", "no `tools` array")),
            }
            cursor = page["nextCursor"].as_str().map(str::to_owned);
            if cursor.is_none() {
                return Ok(tools);
            }
        }
    }

    /// Calls tool `name` with `arguments` and returns its result, whether the tool succeeded or
    /// reported an error ([`ToolResult::is_error`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock.mcp_session().await?;
    /// let models = session.call_tool("models_list", serde_json::json!({})).await?;
    /// assert!(!models.is_error);
    /// let missing = session.call_tool("read_thread", serde_json::json!({})).await?;
    /// assert!(missing.is_error, "read_thread needs a thread_id");
    /// # Ok(()) }
    /// ```
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<ToolResult, ClientError> {
        let result = self
            .request(
                "tools/call",
                json!({ "name": name, "arguments": arguments }),
            )
            .await?;
        serde_json::from_value(result).map_err(|e| {
            ClientError::protocol(
                "tools/call",
                format!("the result is no CallToolResult: {e}"),
            )
        })
    }

    /// Starts a conversation: `call_perplexity_computer` with `message` (a `#name` in it picks
    /// the scenario), returning the structured result (`thread_id`, `event`, `task_status`,
    /// `text`, ...).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let session = mock.mcp_session().await?;
    /// let asked = session.call_computer("#ask-user-question Plan a trip").await?;
    /// assert_eq!(asked["event"], "ask_user_question");
    /// assert!(asked["thread_id"].is_string());
    /// # Ok(()) }
    /// ```
    pub async fn call_computer(&self, message: &str) -> Result<Value, ClientError> {
        self.call_structured("call_perplexity_computer", json!({ "message": message }))
            .await
    }

    /// Sends a follow-up `message` on thread `thread_id` (`call_perplexity_computer` with the
    /// thread), returning the structured result.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let session = mock.mcp_session().await?;
    /// let first = session.call_computer("#follow-up Draft a post").await?;
    /// let thread = first["thread_id"].as_str().ok_or("a thread")?;
    /// let second = session.follow_up(thread, "Make it shorter").await?;
    /// assert_eq!(second["thread_id"], thread);
    /// # Ok(()) }
    /// ```
    pub async fn follow_up(&self, thread_id: &str, message: &str) -> Result<Value, ClientError> {
        let arguments = json!({ "message": message, "thread_id": thread_id });
        self.call_structured("call_perplexity_computer", arguments)
            .await
    }

    /// Reads thread `thread_id` (`read_thread`), returning the structured result; on a
    /// [driven clock](crate::MockServerBuilder::driven_clock) each read moves time on by the
    /// look step.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let session = mock.mcp_session().await?;
    /// let done = session.call_computer("#complete Summarize Hacker News").await?;
    /// let thread = done["thread_id"].as_str().ok_or("a thread")?;
    /// let read = session.read_thread(thread).await?;
    /// assert_eq!(read["event"], "transcript");
    /// assert_eq!(read["web_state"]["task_status"], "completed");
    /// # Ok(()) }
    /// ```
    pub async fn read_thread(&self, thread_id: &str) -> Result<Value, ClientError> {
        self.call_structured("read_thread", json!({ "thread_id": thread_id }))
            .await
    }

    /// Calls a tool and returns its structured result.
    async fn call_structured(&self, name: &str, arguments: Value) -> Result<Value, ClientError> {
        let result = self.call_tool(name, arguments).await?;
        result.structured().ok_or_else(|| {
            ClientError::protocol(
                "tools/call",
                format!(
                    "{name} returned no structured result: {}",
                    result.text().unwrap_or("no text")
                ),
            )
        })
    }

    /// `initialize`, then `notifications/initialized`.
    async fn initialize(&mut self) -> Result<(), ClientError> {
        let params = InitializeRequestParams::new(self.protocol_version.clone(), client_info());
        let params = to_json("initialize", &params)?;
        let (headers, result) = self.exchange("initialize", params).await?;
        let session_id = headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| ClientError::protocol("initialize", "no Mcp-Session-Id header"))?;
        self.session_id = Some(session_id.to_owned());
        if let Some(version) = result["protocolVersion"].as_str() {
            self.protocol_version = version.to_owned();
        }
        let note = to_json(
            "notifications/initialized",
            &ClientNotification::Initialized,
        )?;
        let (status, text) = self.post("notifications/initialized", &note).await?;
        if status != 202 {
            return Err(ClientError::Status {
                method: "notifications/initialized".to_owned(),
                status,
                body: body_value(&text),
            });
        }
        Ok(())
    }

    /// `server/discover`: checks that the endpoint speaks the stateless version.
    async fn discover(&self) -> Result<(), ClientError> {
        let found = self.request("server/discover", json!({})).await?;
        let speaks = found["supportedVersions"]
            .as_array()
            .is_some_and(|versions| versions.iter().any(|v| v == MODERN_VERSION));
        if speaks {
            Ok(())
        } else {
            Err(ClientError::protocol(
                "server/discover",
                format!("the server does not list {MODERN_VERSION} in supportedVersions"),
            ))
        }
    }

    /// Sends a request and returns the answer's headers and `result`.
    async fn exchange(
        &self,
        method: &str,
        mut params: Value,
    ) -> Result<(HeaderMap, Value), ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if self.stateless {
            add_envelope(method, &mut params)?;
        }
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let response = self.send(method, &body).await?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let is_stream = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let text = read_text(method, &self.url, response).await?;
        if !(200..300).contains(&status) {
            return Err(ClientError::Status {
                method: method.to_owned(),
                status,
                body: body_value(&text),
            });
        }
        let request_id = RequestId::from(id);
        let answer = if is_stream {
            answer_in_stream(&text, &request_id)
        } else {
            serde_json::from_str::<JsonRpcMessage>(&text).ok()
        };
        let answer = answer
            .filter(|answer| answer.answers(&request_id))
            .ok_or_else(|| {
                ClientError::protocol(method, format!("no answer to request {id} in: {text}"))
            })?;
        match (answer.result, answer.error) {
            (_, Some(error)) => Err(ClientError::JsonRpc {
                method: method.to_owned(),
                code: error.code.0,
                message: error.message,
                data: error.data,
            }),
            (Some(result), None) => Ok((headers, result)),
            (None, None) => Err(ClientError::protocol(
                method,
                "the answer has neither result nor error",
            )),
        }
    }

    /// POSTs a message and reads the whole answer: its status and text.
    async fn post(&self, method: &str, body: &Value) -> Result<(u16, String), ClientError> {
        let response = self.send(method, body).await?;
        let status = response.status().as_u16();
        let text = read_text(method, &self.url, response).await?;
        Ok((status, text))
    }

    /// POSTs a message with the headers its era needs.
    async fn send(&self, method: &str, body: &Value) -> Result<reqwest::Response, ClientError> {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", ACCEPT)
            .json(body);
        if let Some(session_id) = &self.session_id {
            request = request
                .header("mcp-session-id", session_id)
                .header("mcp-protocol-version", &self.protocol_version);
        }
        if self.stateless {
            request = request
                .header("mcp-protocol-version", MODERN_VERSION)
                .header("mcp-method", method);
            if let Some(name) = routing_name(method, &body["params"]) {
                request = request.header("mcp-name", name);
            }
        }
        request.send().await.map_err(|source| ClientError::Http {
            method: method.to_owned(),
            url: self.url.clone(),
            source,
        })
    }
}

/// Who the session says it is (`clientInfo`).
fn client_info() -> Implementation {
    Implementation::new(CLIENT_NAME, env!("CARGO_PKG_VERSION"))
}

/// `message` as a JSON value; the model's types always serialize, and a failure is reported
/// rather than sent.
fn to_json(method: &str, message: &impl Serialize) -> Result<Value, ClientError> {
    serde_json::to_value(message).map_err(|error| {
        ClientError::protocol(
            method,
            format!("the client could not write its request: {error}"),
        )
    })
}

/// Adds the 2026-07-28 `_meta` envelope every stateless request carries to `params`, after
/// any `_meta` keys of the caller's own.
fn add_envelope(method: &str, params: &mut Value) -> Result<(), ClientError> {
    if !params.is_object() {
        *params = json!({});
    }
    let envelope =
        StatelessEnvelope::new(MODERN_VERSION, ClientCapabilities::default(), client_info());
    let envelope = to_json(method, &RequestMeta::stateless(envelope))?;
    match params.get_mut("_meta").and_then(Value::as_object_mut) {
        Some(meta) => {
            if let Value::Object(envelope) = envelope {
                meta.extend(envelope);
            }
        }
        None => params["_meta"] = envelope,
    }
    Ok(())
}

/// The `Mcp-Name` a 2026-07-28 request carries: the tool, prompt, resource or task it names.
fn routing_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    match method {
        "tools/call" | "prompts/get" => params["name"].as_str(),
        "resources/read" => params["uri"].as_str(),
        m if m.starts_with("tasks/") => params["taskId"].as_str(),
        _ => None,
    }
}

/// The answer to request `id` among the messages of an event stream.
fn answer_in_stream(text: &str, id: &RequestId) -> Option<JsonRpcMessage> {
    sse::Parser::default()
        .push_messages(text.as_bytes())
        .into_iter()
        .filter_map(|message| serde_json::from_str::<JsonRpcMessage>(&message.data).ok())
        .find(|answer| answer.answers(id) && (answer.result.is_some() || answer.error.is_some()))
}

/// The whole body of `response`, as text.
async fn read_text(
    method: &str,
    url: &str,
    response: reqwest::Response,
) -> Result<String, ClientError> {
    response.text().await.map_err(|source| ClientError::Http {
        method: method.to_owned(),
        url: url.to_owned(),
        source,
    })
}

/// What a tool call returned (a `CallToolResult`).
///
/// ```
/// # use std::time::Duration;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::builder()
///     .driven_clock(Duration::from_secs(60))
///     .start()
///     .await?;
/// let session = mock.mcp_session().await?;
/// let result = session
///     .call_tool("call_perplexity_computer", serde_json::json!({"message": "#complete Go"}))
///     .await?;
/// assert!(!result.is_error);
/// assert_eq!(result.content[0]["type"], "text");
/// assert_eq!(result.structured_content.as_ref().map(|s| &s["event"]), Some(&"complete".into()));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResult {
    /// The content blocks (`text`, `resource_link`, ...), as JSON.
    #[serde(default)]
    pub content: Vec<Value>,
    /// The `structuredContent`, when the result has one (2025-06-18 on).
    #[serde(default)]
    pub structured_content: Option<Value>,
    /// Whether the tool reported a failure (`isError`).
    #[serde(default)]
    pub is_error: bool,
}

impl ToolResult {
    /// The structured result: `structuredContent`, or else the JSON object in the first text
    /// block (what versions before 2025-06-18 get).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let old = mock_server::McpSession::builder(mock.mcp_url())
    ///     .protocol_version("2025-03-26")
    ///     .connect()
    ///     .await?;
    /// let result = old
    ///     .call_tool("call_perplexity_computer", serde_json::json!({"message": "#complete Go"}))
    ///     .await?;
    /// assert_eq!(result.structured().ok_or("structured")?["event"], "complete");
    /// # Ok(()) }
    /// ```
    pub fn structured(&self) -> Option<Value> {
        if let Some(structured) = &self.structured_content {
            return Some(structured.clone());
        }
        self.text()
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .filter(Value::is_object)
    }

    /// The text of the first text block.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let session = mock.mcp_session().await?;
    /// let refused = session.call_tool("read_thread", serde_json::json!({})).await?;
    /// assert!(refused.text().is_some_and(|t| t.contains("thread_id")));
    /// # Ok(()) }
    /// ```
    pub fn text(&self) -> Option<&str> {
        self.content
            .iter()
            .find(|block| block["type"] == "text")
            .and_then(|block| block["text"].as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handshake_and_the_envelope_are_written_as_before_the_model_types() {
        let version = env!("CARGO_PKG_VERSION");
        let initialize = InitializeRequestParams::new("2025-11-25", client_info());
        assert_eq!(
            to_json("initialize", &initialize)
                .map(|v| v.to_string())
                .ok(),
            Some(format!(
                r#"{{"protocolVersion":"2025-11-25","capabilities":{{}},"clientInfo":{{"name":"mock-server-session","version":"{version}"}}}}"#
            ))
        );
        let mut params = json!({"name": "read_thread", "_meta": {"progressToken": "p"}});
        assert!(add_envelope("tools/call", &mut params).is_ok());
        assert_eq!(
            params["_meta"].to_string(),
            format!(
                r#"{{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"mock-server-session","version":"{version}"}}}}"#
            )
        );
        let mut bare = Value::Null;
        assert!(add_envelope("ping", &mut bare).is_ok());
        assert_eq!(
            bare["_meta"]["io.modelcontextprotocol/protocolVersion"],
            MODERN_VERSION
        );
    }
}
