//! The handshake-era connection of the reference client: one MCP session (initialize, the
//! session id and protocol version headers, JSON or SSE answers) and the user channel.

use std::time::Duration;

use futures::future::BoxFuture;
use mock_server::model::jsonrpc::JsonRpcMessage;
use mock_server::model::lifecycle::Implementation;
use mock_server::model::request::{
    CallToolRequestParams, ClientNotification, ClientRequest, InitializeRequestParams, RequestMeta,
    RequestParams,
};
use mock_server::model::tools::ToolName;
use reqwest::header::HeaderValue;
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::ClientError;
use crate::rules::ids;

use super::oauth::{Authorizer, authorize_headers};
use super::options::ClientOptions;
use super::pace::SendPaced;
use super::wire::{self, Outbound, jsonrpc_messages};

/// Who the reference client says it is.
pub(super) fn client_info() -> Implementation {
    Implementation::new("conformance-reference-client", env!("CARGO_PKG_VERSION"))
}

/// The MCP session and the user channel, as one client holds them.
pub(super) struct Session {
    pub(super) http: reqwest::Client,
    pub(super) options: ClientOptions,
    /// The sign-in, when the runner gave no token.
    auth: Option<Authorizer>,
    session: Option<String>,
    version: String,
    next_id: u64,
    /// Progress messages received on the last response stream, not shown yet.
    progress: Vec<String>,
    /// How many times the server forgot the session and a new one was initialized.
    session_renewals: u8,
}

impl Session {
    pub(super) fn new(options: ClientOptions) -> Result<Self, ClientError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|source| ClientError::Http {
                url: options.url.clone(),
                source,
            })?;
        let version = options.protocol_version.clone();
        let auth = Authorizer::for_options(&options, http.clone());
        Ok(Self {
            http,
            options,
            auth,
            session: None,
            version,
            next_id: 1,
            progress: Vec::new(),
            session_renewals: 0,
        })
    }

    pub(super) fn breaks(&self, rule: &str) -> bool {
        super::options::breaks(self.options.break_rule.as_deref(), rule)
    }

    pub(super) fn http_error(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
        move |source| ClientError::Http {
            url: url.to_owned(),
            source,
        }
    }

    /// POSTs one JSON-RPC message; returns the response to a request (JSON or SSE), or `None`
    /// for a notification.
    pub(super) async fn post(
        &mut self,
        message: &Outbound,
        initializing: bool,
    ) -> Result<Option<JsonRpcMessage>, ClientError> {
        let url = self.options.url.clone();
        let body = message.body()?;
        // A 401 means signing in (or refreshing) and sending the request again, at most twice;
        // a 404 in a session means the server forgot it: a new one, and the request again.
        let mut attempts = 0;
        let response = loop {
            let response = loop {
                let headers = self.headers(message, initializing);
                let target = match &mut self.auth {
                    Some(auth) => auth.request_url(&url),
                    None => url.clone(),
                };
                let response = self
                    .http
                    .post(&target)
                    .headers(headers)
                    .body(body.clone())
                    .send_paced()
                    .await
                    .map_err(Self::http_error(&url))?;
                let Some(auth) = self.auth.as_mut().filter(|_| {
                    response.status() == reqwest::StatusCode::UNAUTHORIZED && attempts < 2
                }) else {
                    break response;
                };
                attempts += 1;
                let challenge = response
                    .headers()
                    .get("www-authenticate")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                auth.unauthorized(challenge.as_deref()).await?;
            };
            if !self.session_forgotten(&response, initializing) {
                break response;
            }
            self.renew_session().await?;
        };
        if initializing && let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_owned);
        }
        if self
            .auth
            .as_mut()
            .is_some_and(Authorizer::take_bare_request)
        {
            // Breaking `oauth.bearer-every-request`: one ping without the header.
            let mut headers = self.headers(message, false);
            headers.remove("authorization");
            let ping =
                Outbound::request("bare-ping", ClientRequest::Ping(RequestParams::default()));
            let _ = self
                .http
                .post(&url)
                .headers(headers)
                .body(ping.body()?)
                .send_paced()
                .await;
        }
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let status = response.status();
        let mut text = response.text().await.map_err(Self::http_error(&url))?;
        let Some(id) = message.id() else {
            return Ok(None);
        };
        let mut messages = jsonrpc_messages(&text, is_sse);
        if is_sse && !messages.iter().any(|m| m.answers(id)) {
            // The stream ended before its response: resume it where it dropped.
            let resumed = self.resume(message, &text).await?;
            messages.extend(jsonrpc_messages(&resumed, true));
            text.push_str(&resumed);
        }
        self.progress.extend(messages.iter().filter_map(|m| {
            (m.method.as_deref() == Some("notifications/progress"))
                .then(|| m.params.as_ref()?.get("message")?.as_str())
                .flatten()
                .map(str::to_owned)
        }));
        messages
            .into_iter()
            .find(|m| m.answers(id))
            .map(Some)
            .ok_or_else(|| ClientError::Protocol {
                what: message.method().to_owned(),
                detail: format!(
                    "HTTP {status}: {}",
                    text.chars().take(300).collect::<String>()
                ),
            })
    }

    /// The headers of one JSON-RPC POST: JSON in, JSON or SSE back, the token, and after
    /// `initialize` the session and protocol version.
    fn headers(&self, message: &Outbound, initializing: bool) -> reqwest::header::HeaderMap {
        let mut headers = self.options.post_headers();
        authorize_headers(&mut headers, self.auth.as_ref());
        if !initializing {
            // Breaking the session rule on the one request whose answer the client never needs
            // (the mock refuses it), so the rest of the scenario still runs.
            let notification = message.id().is_none();
            if let Some(session) = &self.session
                && !(notification && self.breaks(ids::MCP_TRANSPORT_SESSION_ID))
                && let Ok(v) = HeaderValue::from_str(session)
            {
                headers.insert("mcp-session-id", v);
            }
            if !self.breaks(ids::MCP_TRANSPORT_PROTOCOL_VERSION_HEADER)
                && let Ok(v) = HeaderValue::from_str(&self.version)
            {
                headers.insert("mcp-protocol-version", v);
            }
        }
        headers
    }

    /// Whether `response` says the server forgot the session the request was sent in (404 to a
    /// request carrying its id), so that a new one must be initialized; at most twice a run.
    fn session_forgotten(&self, response: &reqwest::Response, initializing: bool) -> bool {
        !initializing
            && response.status() == reqwest::StatusCode::NOT_FOUND
            && self.session.is_some()
            && self.session_renewals < 2
    }

    /// Starts a new session after the server forgot the old one, as the transport requires: a
    /// new `initialize` without the forgotten id (boxed: it POSTs, and `post` calls it).
    fn renew_session(&mut self) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            self.session_renewals += 1;
            if self.breaks(ids::MCP_TRANSPORT_SESSION_NOT_FOUND_REINITIALIZE) {
                // Breaking the rule: one more request in the forgotten session before the new one.
                let ping =
                    Outbound::request("stale-ping", ClientRequest::Ping(RequestParams::default()));
                self.post_and_forget(&ping).await?;
            }
            self.session = None;
            self.initialize().await
        })
    }

    /// Resumes the stream of `message` that ended before its response (`text`: what came):
    /// `GET` with `Last-Event-ID` naming the last event received, again while more come and no
    /// response, at most three times. Returns the events of the resumed streams.
    async fn resume(&mut self, message: &Outbound, text: &str) -> Result<String, ClientError> {
        let ids = wire::event_ids(text);
        // Breaking the rule: the first id kept instead of the last, so the replay repeats events.
        let mut last = if self.breaks(ids::MCP_TRANSPORT_RESUME_DROPPED_STREAM) {
            ids.first().cloned()
        } else {
            ids.last().cloned()
        };
        let mut resumed = String::new();
        for _ in 0..3 {
            let Some(from) = last.take() else { break };
            let mut headers = self.headers(message, false);
            headers.remove("content-type");
            headers.insert("accept", HeaderValue::from_static("text/event-stream"));
            if let Ok(v) = HeaderValue::from_str(&from) {
                headers.insert("last-event-id", v);
            }
            let url = self.options.url.clone();
            let response = self
                .http
                .get(&url)
                .headers(headers)
                .send_paced()
                .await
                .map_err(Self::http_error(&url))?;
            let more = response.text().await.map_err(Self::http_error(&url))?;
            last = wire::event_ids(&more).last().cloned();
            resumed.push_str(&more);
            let answered = message
                .id()
                .is_some_and(|id| jsonrpc_messages(&more, true).iter().any(|m| m.answers(id)));
            if answered {
                break;
            }
        }
        if self.breaks(ids::COMPUTER_DISCONNECT_NO_RESEND)
            && let Outbound::Request(request) = message
            && let ClientRequest::CallTool(params) = &request.request
        {
            // Breaking the rule: the call sent again as well, as a retry loop would (with its
            // own id and progress token, so that only this rule is broken).
            let token = RequestMeta::progress(format!("progress-resent-{}", self.next_id));
            let again = Outbound::request(
                format!("resent-{}", self.next_id),
                ClientRequest::CallTool(params.clone().with_meta(token)),
            );
            self.post_and_forget(&again).await?;
        }
        Ok(resumed)
    }

    /// POSTs `message` for a broken rule's sake and reads whatever comes back, ignoring it: the
    /// extra request is the point, its answer is not.
    async fn post_and_forget(&self, message: &Outbound) -> Result<(), ClientError> {
        let sent = self
            .http
            .post(&self.options.url)
            .headers(self.headers(message, false))
            .body(message.body()?)
            .send_paced()
            .await;
        if let Ok(answer) = sent {
            let _ = answer.text().await;
        }
        Ok(())
    }

    /// Sends `request` and returns its result.
    pub(super) async fn request(&mut self, request: ClientRequest) -> Result<Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let initializing = matches!(request, ClientRequest::Initialize(_));
        let message = Outbound::request(id, request);
        let response = self.post(&message, initializing).await?;
        match response {
            Some(JsonRpcMessage {
                result: Some(result),
                ..
            }) => Ok(result),
            other => Err(ClientError::Protocol {
                what: message.method().to_owned(),
                detail: other.map_or_else(|| "no response".to_owned(), |m| wire::describe(&m)),
            }),
        }
    }

    pub(super) async fn initialize(&mut self) -> Result<(), ClientError> {
        let params =
            InitializeRequestParams::new(self.options.protocol_version.clone(), client_info());
        let result = self.request(ClientRequest::Initialize(params)).await?;
        if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
            self.version = v.to_owned();
        }
        if !self.breaks(ids::MCP_LIFECYCLE_INITIALIZED) {
            let initialized = Outbound::Notification(ClientNotification::Initialized);
            self.post(&initialized, false).await?;
        }
        Ok(())
    }

    /// Calls `tool` with `arguments` and returns its task JSON (structuredContent, else the
    /// first text block).
    pub(super) async fn call(
        &mut self,
        tool: ToolName,
        arguments: &impl Serialize,
    ) -> Result<Value, ClientError> {
        let arguments = wire::to_json(arguments, tool.as_str())?;
        let mut params = CallToolRequestParams::new(tool, arguments);
        if !self.breaks(ids::COMPUTER_PROGRESS_TOKEN) {
            params = params.with_meta(RequestMeta::progress(format!("progress-{}", self.next_id)));
        }
        let result = self.request(ClientRequest::CallTool(params)).await?;
        // The statuses the call streamed, shown before its result (the body is read whole).
        for message in std::mem::take(&mut self.progress) {
            if !self.breaks(ids::COMPUTER_PROGRESS_SHOWN) {
                self.show("status", &json!({"text": message})).await?;
            }
        }
        if let Some(s) = result.get("structuredContent") {
            return Ok(s.clone());
        }
        // A plain-text answer (an error such as a refused upload) keeps its text.
        let text = result.pointer("/content/0/text").and_then(Value::as_str);
        Ok(text
            .and_then(|t| serde_json::from_str(t).ok())
            .or_else(|| text.map(|t| json!({"text": t})))
            .unwrap_or(Value::Null))
    }

    // ---- the user channel ----

    pub(super) async fn user_get(&self, what: &str) -> Result<Option<Value>, ClientError> {
        let url = format!("{}/{what}", self.options.user_url);
        let response = self
            .http
            .get(&url)
            .send_paced()
            .await
            .map_err(Self::http_error(&url))?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(None);
        }
        Ok(Some(response.json().await.map_err(Self::http_error(&url))?))
    }

    pub(super) async fn user_post(&self, what: &str, body: Value) -> Result<Value, ClientError> {
        let url = format!("{}/{what}", self.options.user_url);
        let response = self
            .http
            .post(&url)
            .json(&body)
            .send_paced()
            .await
            .map_err(Self::http_error(&url))?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(Value::Null);
        }
        response.json().await.map_err(Self::http_error(&url))
    }

    pub(super) async fn show(&self, kind: &str, result: &Value) -> Result<(), ClientError> {
        self.user_post(
            "show",
            json!({"kind": kind, "text": result.get("text"), "files": result.get("files"), "thread_id": result.get("thread_id")}),
        )
        .await
        .map(|_| ())
    }

    pub(super) async fn ask_url(&self, url: &str, message: &str) -> Result<bool, ClientError> {
        let answer = self
            .user_post(
                "ask",
                json!({"kind": "url", "url": url, "message": message}),
            )
            .await?;
        Ok(answer.get("action").and_then(Value::as_str) == Some("accept"))
    }
}
