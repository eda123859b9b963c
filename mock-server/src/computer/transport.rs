//! Streamable HTTP for the handshake protocol era (2025-03-26, 2025-06-18, 2025-11-25).
//!
//! `initialize` opens a session (`Mcp-Session-Id`), later requests must carry it and a matching
//! `MCP-Protocol-Version`; a POSTed request is answered as JSON, or as an SSE stream when the
//! call asked for progress; GET opens the standalone stream; DELETE ends the session.
//! Session-less requests of the stateless era (2026-07-28, `server/discover` first) go to
//! `modern`.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::{UnboundedReceiverStream, WatchStream};
use uuid::Uuid;

use super::engine::ProgressSink;
use super::model::content::Reply as ToolReply;
use super::model::jsonrpc::{
    ErrorData, Incoming, Outgoing, Progress, ProgressToken, Request, RequestId, Response as Reply,
};
use super::model::lifecycle::{
    ClientCapabilities, EmptyResult, INSTRUCTIONS, InitializeResult, ListToolsResult, SERVER_INFO,
    ServerCapabilities,
};
use super::model::version::{HANDSHAKE_VERSIONS, ProtocolVersion};
use super::modern;
use super::render;
use super::service::Service;
use super::tools;
use crate::AppState;
use crate::clock::iso;
use crate::http::auth::{Audience, AuthFailure, Authenticated, Authenticator, Surface};
use crate::http::sse;
use crate::oauth;

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
/// How often an idle SSE stream sends a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The MCP endpoint as a surface that authenticates: OAuth tokens must be issued for it, and a
/// failure is a 401 with a JSON-RPC body and a challenge pointing at the resource metadata.
pub(crate) struct Mcp;

impl Surface<AppState> for Mcp {
    type Rejection = Response;

    fn authenticator(app: &AppState) -> &Authenticator {
        app.authenticator()
    }

    fn audience(app: &AppState) -> Audience<'_> {
        Audience::Resource(app.mcp_resource())
    }

    fn reject(app: &AppState, failure: AuthFailure) -> Response {
        unauthorized(
            app.base_url(),
            &refusal_reason(app.mcp_resource(), &failure),
        )
    }
}

/// The sentence a 401 from the MCP endpoint gives for `failure`.
fn refusal_reason(mcp_resource: &str, failure: &AuthFailure) -> String {
    match failure {
        AuthFailure::NoDefaultAccount => "the built-in account `alice` is missing".to_owned(),
        AuthFailure::MissingHeader => "Authorization header missing: sign in with OAuth (see the \
            resource_metadata URL), or send `Authorization: Bearer alice-dev-token` (or \
            bob-dev-token)"
            .to_owned(),
        AuthFailure::NoBearerToken | AuthFailure::UnknownToken => "the bearer token is not valid \
            for this server: sign in again, or use alice-dev-token or bob-dev-token"
            .to_owned(),
        AuthFailure::Revoked => "the access token was revoked (its authorization code or refresh \
            token was reused): sign in again"
            .to_owned(),
        AuthFailure::Expired { at } => format!(
            "the access token expired at {}: use the refresh token for a new one",
            iso(*at)
        ),
        AuthFailure::WrongResource { issued_for } => format!(
            "the access token was issued for resource {issued_for}, not for this MCP endpoint \
             ({mcp_resource})"
        ),
        AuthFailure::AccountGone => {
            "the account this token was issued for no longer exists".to_owned()
        }
    }
}

/// The 401 answer: a JSON-RPC error body and the `WWW-Authenticate` challenge.
fn unauthorized(base_url: &str, why: &str) -> Response {
    ErrorData::unauthorized(
        format!("Unauthorized: {why}"),
        oauth::challenge(base_url, why),
    )
    .into_response()
}

/// One MCP session.
#[derive(Debug, Clone)]
pub(crate) struct Session {
    pub(crate) account: String,
    pub(crate) protocol_version: ProtocolVersion,
    pub(crate) initialized: bool,
    /// The `capabilities` the client declared in `initialize`.
    pub(crate) capabilities: ClientCapabilities,
    /// This session's id (`Mcp-Session-Id`).
    pub(crate) id: String,
    /// Flips to `true` when the session ends, closing its GET streams.
    closed: watch::Sender<bool>,
}

/// All open sessions.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    sessions: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.sessions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn get(&self, id: &str) -> Option<Session> {
        self.lock().get(id).cloned()
    }
}

/// `POST /rest/computer/mcp`.
pub(crate) async fn post(
    State(app): State<AppState>,
    Authenticated { account, .. }: Authenticated<Mcp>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !content_type_is_json(&headers) {
        return ErrorData::unsupported_media_type(
            "Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json",
        )
        .into_response();
    }
    if !accepts(&headers, "application/json") || !accepts(&headers, "text/event-stream") {
        return ErrorData::not_acceptable(
            "Not Acceptable: the Accept header must list both application/json and text/event-stream",
        )
        .into_response();
    }
    let message = match Incoming::parse(&body) {
        Ok(message) => message,
        Err(error) => return error.into_response(),
    };

    if modern::is_modern(&headers, &message) {
        return modern::post(app, account, &headers, message).await;
    }
    if let Incoming::Request(request) = &message {
        // An initialize that carries a session id is aimed at that session (which is already
        // initialized, or unknown), not a request for a new one.
        if request.method == "initialize" && !headers.contains_key(SESSION_HEADER) {
            return initialize(&app, &account.id, request);
        }
    }

    let (session_id, session) = match open_session(&app, &headers, &account.id) {
        Ok(found) => found,
        Err(error) => return error.into_response(),
    };

    match message {
        Incoming::Notification { method } => {
            if method == "notifications/initialized"
                && let Some(s) = app.sessions().lock().get_mut(&session_id)
            {
                s.initialized = true;
            }
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Response { id, result } => {
            // The answer to a server request (an in-call elicitation) the client POSTed back.
            super::elicitation::deliver(&app, &session_id, &id, result);
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Request(request) => handle(app, account, session, request).await,
    }
}

fn initialize(app: &AppState, account: &str, request: &Request) -> Response {
    let requested = request
        .params
        .get("protocolVersion")
        .and_then(Value::as_str);
    let Some(requested) = requested else {
        return ErrorData::invalid_params(
            "initialize needs params.protocolVersion, for example \"2025-11-25\"",
        )
        .with_status(StatusCode::BAD_REQUEST)
        .with_id(Some(request.id.clone()))
        .into_response();
    };
    // Echo a version we speak; otherwise counter-offer the newest one (MCP lifecycle rules).
    let version =
        ProtocolVersion::parse_handshake(requested).unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
    let session_id = Uuid::new_v4().simple().to_string();
    let (closed, _) = watch::channel(false);
    let capabilities = request
        .params
        .get("capabilities")
        .map(ClientCapabilities::read)
        .unwrap_or_default();
    app.sessions().lock().insert(
        session_id.clone(),
        Session {
            account: account.to_owned(),
            protocol_version: version,
            initialized: false,
            capabilities,
            id: session_id.clone(),
            closed,
        },
    );
    let result = InitializeResult {
        protocol_version: version,
        capabilities: ServerCapabilities::HANDSHAKE,
        server_info: SERVER_INFO,
        instructions: INSTRUCTIONS,
    };
    let mut response = Reply::new(&request.id, result).into_response();
    if let Ok(value) = HeaderValue::from_str(&session_id) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

async fn handle(
    app: AppState,
    account: crate::world::Account,
    session: Session,
    request: Request,
) -> Response {
    let Request { id, method, params } = request;
    match method.as_str() {
        "ping" => Reply::new(&id, EmptyResult {}).into_response(),
        "tools/list" => {
            Reply::new(&id, ListToolsResult::handshake(tools::catalog())).into_response()
        }
        "initialize" => ErrorData::invalid_request(
            "Invalid Request: this session is already initialized. To start a new session, \
             send initialize without an Mcp-Session-Id header.",
        )
        .with_id(Some(id))
        .into_response(),
        "tools/call" => {
            if session.capabilities.elicitation.is_some() {
                return super::elicitation::handshake_call(app, account, session, id, params).await;
            }
            call_tool(app, account, session.protocol_version, id, params).await
        }
        other => ErrorData::method_not_found(format!(
            "Method not found: {other}. This server offers ping, tools/list and tools/call."
        ))
        .with_id(Some(id))
        .into_response(),
    }
}

/// The tool a `tools/call` names, or the error to answer: it names none, or an unknown one.
pub(super) fn tool_name(id: &RequestId, params: &Value) -> Result<String, ErrorData> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(
            ErrorData::invalid_params("tools/call needs params.name, the tool to call")
                .with_id(Some(id.clone())),
        );
    };
    if !tools::is_tool(name) {
        return Err(ErrorData::invalid_params(format!(
            "Unknown tool: {name}. Call tools/list for the twelve tools this server offers."
        ))
        .with_id(Some(id.clone())));
    }
    Ok(name.to_owned())
}

/// Answers `tools/call` for a client on protocol `version` (either era).
pub(super) async fn call_tool(
    app: AppState,
    account: crate::world::Account,
    version: ProtocolVersion,
    id: RequestId,
    params: Value,
) -> Response {
    let name = match tool_name(&id, &params) {
        Ok(name) => name,
        Err(error) => return error.into_response(),
    };
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    let service = Service::new(app.engine());
    let runner: Runner = Box::new(move |progress, _| {
        Box::pin(async move {
            let wait = service.call_wait(progress);
            let reply = tools::call(&service, &account, &name, arguments, wait).await;
            call_result(reply, version)
        })
    });
    run_call(id, ProgressToken::of(&params), false, runner).await
}

/// Sends server-to-client messages (requests, as JSON text) on the call's SSE stream.
pub(super) type ServerMessages = mpsc::UnboundedSender<String>;

/// Runs a call and produces its JSON-RPC `result` (whatever the era and flow make of it).
pub(super) type Runner = Box<
    dyn FnOnce(Option<ProgressSink>, Option<ServerMessages>) -> BoxFuture<'static, Value> + Send,
>;

/// Answers a call as JSON, or (with a progress token) as an SSE stream of progress
/// notifications followed by the result.
pub(super) async fn run_call(
    id: RequestId,
    progress_token: Option<ProgressToken>,
    stream: bool,
    runner: Runner,
) -> Response {
    if progress_token.is_none() && !stream {
        let result = runner(None, None).await;
        return Reply::new(&id, result).into_response();
    }

    // With a progress token (or server requests to send) the answer is an SSE stream: progress
    // notifications and server requests, then the result.
    // One task runs the call and relays its progress lines, so none can overtake the result.
    let token = progress_token;
    let (events, receiver) = mpsc::unbounded_channel::<String>();
    let (progress, mut lines) = mpsc::unbounded_channel::<String>();
    let task = tokio::spawn(async move {
        // Lines only come when the call got a sink, that is when the request sent a token.
        let notify = |count: u64, line: String| {
            token.as_ref().map(|token| {
                Outgoing::notification(
                    "notifications/progress",
                    Progress {
                        progress_token: token,
                        progress: count,
                        message: &line,
                    },
                )
                .to_json()
            })
        };
        let sink = token.is_some().then_some(progress);
        let call = runner(sink, Some(events.clone()));
        tokio::pin!(call);
        let mut count = 0u64;
        let output = loop {
            tokio::select! {
                biased;
                Some(line) = lines.recv() => {
                    count += 1;
                    if let Some(message) = notify(count, line) {
                        let _ = events.send(message);
                    }
                }
                output = &mut call => break output,
            }
        };
        while let Ok(line) = lines.try_recv() {
            count += 1;
            if let Some(message) = notify(count, line) {
                let _ = events.send(message);
            }
        }
        let _ = events.send(Reply::new(&id, output).to_json());
    });
    let guard = AbortOnDrop(task);
    let mut event_id = 0u64;
    // The channel closes after the result, which ends the stream, as the transport recommends.
    let stream = UnboundedReceiverStream::new(receiver).map(move |message| {
        let _abort_the_call_when_the_client_goes_away = &guard;
        event_id += 1;
        sse::Event {
            name: Some("message"),
            id: Some(&event_id.to_string()),
            data: &message,
        }
        .encode()
    });
    sse::response(stream, KEEP_ALIVE)
}

/// The `CallToolResult` for `version`; modern results also carry `resultType` and server info.
pub(super) fn call_result(reply: ToolReply, version: ProtocolVersion) -> Value {
    let mut result = render::call_result(reply, version);
    if version.is_stateless() {
        result = result.stateless();
    }
    serde_json::to_value(result).unwrap_or_default()
}

/// Aborts the call when the client drops the stream (Computer itself carries on).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `GET /rest/computer/mcp`: the standalone server-to-client stream.
pub(crate) async fn get(
    State(app): State<AppState>,
    Authenticated { account, .. }: Authenticated<Mcp>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = modern::refuse_non_post(&headers) {
        return refusal.into_response();
    }
    if !accepts(&headers, "text/event-stream") {
        return ErrorData::not_acceptable(
            "Not Acceptable: the GET stream needs Accept: text/event-stream",
        )
        .into_response();
    }
    let (_, session) = match open_session(&app, &headers, &account.id) {
        Ok(found) => found,
        Err(error) => return error.into_response(),
    };
    // The mock sends nothing unsolicited in this era; the stream stays open until the session ends.
    let closed = WatchStream::new(session.closed.subscribe());
    let stream = closed
        .take_while(|closed| futures::future::ready(!closed))
        .filter_map(|_| futures::future::ready(None::<Bytes>));
    sse::response(stream, KEEP_ALIVE)
}

/// `DELETE /rest/computer/mcp`: ends the session.
pub(crate) async fn delete(
    State(app): State<AppState>,
    Authenticated { account, .. }: Authenticated<Mcp>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = modern::refuse_non_post(&headers) {
        return refusal.into_response();
    }
    let session_id = match session_id(&headers) {
        Ok(id) => id,
        Err(error) => return error.into_response(),
    };
    let mut sessions = app.sessions().lock();
    match sessions.get(&session_id) {
        Some(session) if session.account == account.id => {
            if let Some(session) = sessions.remove(&session_id) {
                let _ = session.closed.send(true);
            }
            StatusCode::OK.into_response()
        }
        _ => session_not_found().into_response(),
    }
}

/// 404 for an unknown, ended or someone else's session, as the transport spec requires.
fn session_not_found() -> ErrorData {
    ErrorData::session_not_found(
        "Session not found: it ended or never existed. Send a new initialize request without an \
         Mcp-Session-Id header.",
    )
}

fn session_id(headers: &HeaderMap) -> Result<String, ErrorData> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| {
            ErrorData::bad_request(
                "Bad Request: Mcp-Session-Id header is required. Send initialize first and echo \
                 the Mcp-Session-Id it returns on every later request.",
            )
        })
}

/// The session a request names, checked: it exists, belongs to `account`, and the request's
/// `MCP-Protocol-Version` is one this server speaks.
fn open_session(
    app: &AppState,
    headers: &HeaderMap,
    account: &str,
) -> Result<(String, Session), ErrorData> {
    let session_id = session_id(headers)?;
    let session = app
        .sessions()
        .get(&session_id)
        .filter(|s| s.account == account)
        .ok_or_else(session_not_found)?;
    check_version_header(headers, &session)?;
    Ok((session_id, session))
}

fn check_version_header(headers: &HeaderMap, session: &Session) -> Result<(), ErrorData> {
    // Absent means 2025-03-26 (transport spec). A supported version other than the negotiated
    // one is tolerated, as the official conformance runner sends 2025-03-26 on a 2025-11-25
    // session; only a value this server does not speak is refused.
    let Some(value) = headers.get(VERSION_HEADER) else {
        return Ok(());
    };
    let value = value.to_str().unwrap_or_default();
    if ProtocolVersion::parse_handshake(value).is_some() {
        return Ok(());
    }
    Err(ErrorData::bad_request(format!(
        "Bad Request: unsupported MCP-Protocol-Version `{value}`; this session negotiated {} \
             (supported: {})",
        session.protocol_version,
        HANDSHAKE_VERSIONS.join(", ")
    )))
}

fn content_type_is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// Whether the Accept header lists `media` (or a wildcard that covers it), in any order.
fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (kind, _) = media.split_once('/').unwrap_or((media, ""));
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|item| {
            item.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .any(|item| item == media || item == "*/*" || item == format!("{kind}/*"))
}

impl AppState {
    fn sessions(&self) -> &Sessions {
        &self.inner.sessions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_lists_match_in_either_order() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream, application/json"),
        );
        assert!(accepts(&headers, "application/json"));
        assert!(accepts(&headers, "text/event-stream"));
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert!(!accepts(&headers, "text/event-stream"));
    }
}
