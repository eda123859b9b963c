//! Streamable HTTP for the handshake protocol era (2025-03-26, 2025-06-18, 2025-11-25).
//!
//! `initialize` opens a session (`Mcp-Session-Id`), later requests must carry it and a matching
//! `MCP-Protocol-Version`; a POSTed request is answered as JSON, or as an SSE stream when the
//! call asked for progress (or elicits); GET opens the standalone stream; DELETE ends the
//! session.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_stream::wrappers::WatchStream;
use uuid::Uuid;

use super::call;
use super::elicitation::{self, Asking, Elicitations};
use super::headers::{PROTOCOL_VERSION, SESSION_ID};
use super::replay::Streams;
use crate::computer::model::error::ErrorData;
use crate::computer::model::incoming::Incoming;
use crate::computer::model::jsonrpc::{RequestId, Response as Reply};
use crate::computer::model::lifecycle::{ClientCapabilities, EmptyResult, InitializeResult};
use crate::computer::model::request::{
    ClientNotification, ClientRequest, InitializeRequestParams, JsonRpcRequest,
};
use crate::computer::model::tools::ListToolsResult;
use crate::computer::model::version::{HANDSHAKE_VERSIONS, ProtocolVersion};
use crate::computer::service::Service;
use crate::computer::tools;
use crate::http::sse;
use crate::world::Account;

/// The header a reconnecting client names the last event it received with.
const LAST_EVENT_ID: &str = "last-event-id";

/// One MCP session: what `initialize` settled, which no later request changes.
#[derive(Debug)]
pub(crate) struct Session {
    account: String,
    protocol_version: ProtocolVersion,
    /// What the client declared in `initialize`.
    capabilities: ClientCapabilities,
    id: String,
    /// Flips to `true` when the session ends, closing its GET streams.
    closed: watch::Sender<bool>,
    /// The streams of its calls, kept to resume.
    streams: Arc<Streams>,
}

impl Session {
    /// The session ended: its GET streams close, its calls stop.
    fn end(&self) {
        let _ = self.closed.send(true);
        self.streams.close();
    }
}

/// A session as the table keeps it: shared with the requests in it (so naming it copies
/// nothing), and when it was last used.
#[derive(Debug)]
struct Entry {
    session: Arc<Session>,
    initialized: bool,
    /// When a request last named the session (real, monotonic time).
    last_used: Instant,
}

impl Entry {
    /// Whether the session has sat unused past `idle` at `now`; an open GET stream is use.
    fn expired(&self, now: Instant, idle: Duration) -> bool {
        self.session.closed.receiver_count() == 0
            && now.saturating_duration_since(self.last_used) >= idle
    }
}

/// All open sessions, at most `max` of them; one unused for `idle` ends.
#[derive(Debug)]
pub(crate) struct Sessions {
    sessions: Mutex<HashMap<String, Entry>>,
    idle: Duration,
    max: usize,
}

impl Sessions {
    /// No sessions yet; at most `max` open at once, each ending after `idle` unused.
    pub(crate) fn new(idle: Duration, max: usize) -> Self {
        Self {
            sessions: Mutex::default(),
            idle,
            max,
        }
    }

    /// Ends every session (`POST /_mock/reset`), closing their GET streams.
    pub(crate) fn clear(&self) {
        for (_, entry) in self.lock().drain() {
            entry.session.end();
        }
    }

    /// Ends every session unused for longer than the idle timeout.
    fn sweep(sessions: &mut HashMap<String, Entry>, now: Instant, idle: Duration) {
        sessions.retain(|_, entry| {
            let keep = !entry.expired(now, idle);
            if !keep {
                entry.session.end();
            }
            keep
        });
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.sessions.lock()
    }

    /// The session a request names, checked: it exists, belongs to `account`, and the
    /// request's `MCP-Protocol-Version` is one this server speaks.
    pub(crate) fn open(
        &self,
        headers: &HeaderMap,
        account: &str,
    ) -> Result<Arc<Session>, ErrorData> {
        let session_id = session_id(headers)?;
        let now = Instant::now();
        let session = {
            let mut sessions = self.lock();
            match sessions.get_mut(session_id) {
                Some(entry)
                    if entry.session.account == account && entry.expired(now, self.idle) =>
                {
                    if let Some(ended) = sessions.remove(session_id) {
                        ended.session.end();
                    }
                    None
                }
                Some(entry) if entry.session.account == account => {
                    entry.last_used = now;
                    Some(entry.session.clone())
                }
                _ => None,
            }
        }
        .ok_or_else(session_not_found)?;
        check_version_header(headers, &session)?;
        Ok(session)
    }

    /// `initialize` (request `id`): opens a session for `account`.
    pub(crate) fn initialize(
        &self,
        account: &str,
        id: &RequestId,
        params: &InitializeRequestParams,
    ) -> Response {
        let Some(requested) = params.protocol_version.as_deref() else {
            return ErrorData::invalid_params(
                "initialize needs params.protocolVersion, for example \"2025-11-25\"",
            )
            .with_status(StatusCode::BAD_REQUEST)
            .with_id(Some(id.clone()))
            .into_response();
        };
        // Echo a version we speak; otherwise counter-offer the newest one (MCP lifecycle rules).
        let version = ProtocolVersion::parse_handshake(requested)
            .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        let session_id = Uuid::new_v4().simple().to_string();
        let (closed, _) = watch::channel(false);
        let capabilities = params.capabilities;
        let now = Instant::now();
        {
            let mut sessions = self.lock();
            if sessions.len() >= self.max {
                Self::sweep(&mut sessions, now, self.idle);
            }
            if sessions.len() >= self.max {
                return ErrorData::unavailable(format!(
                    "Too many open sessions: this server keeps at most {} (--max-sessions). End \
                     sessions you no longer use with DELETE, or wait: a session unused for {} \
                     ends.",
                    self.max,
                    crate::limits::describe(self.idle)
                ))
                .with_id(Some(id.clone()))
                .into_response();
            }
            let session = Session {
                account: account.to_owned(),
                protocol_version: version,
                capabilities,
                id: session_id.clone(),
                closed,
                streams: Arc::default(),
            };
            sessions.insert(
                session_id.clone(),
                Entry {
                    session: Arc::new(session),
                    initialized: false,
                    last_used: now,
                },
            );
        }
        let mut response = Reply::new(id, InitializeResult::new(version)).into_response();
        if let Ok(value) = HeaderValue::from_str(&session_id) {
            response.headers_mut().insert(SESSION_ID, value);
        }
        response
    }

    /// A notification in `session` (`notifications/initialized` marks it initialized).
    pub(crate) fn notified(&self, session: &Session, notification: &ClientNotification) {
        if *notification == ClientNotification::Initialized
            && let Some(entry) = self.lock().get_mut(&session.id)
        {
            entry.initialized = true;
        }
    }

    /// Forgets session `session_id` as if it had ended (an injected `forget-session` fault):
    /// a later request in it gets 404, and a new `initialize` a new id. Whether it was open.
    pub(crate) fn forget(&self, session_id: &str) -> bool {
        match self.lock().remove(session_id) {
            Some(ended) => {
                ended.session.end();
                true
            }
            None => false,
        }
    }

    /// `DELETE`: ends the session the request names, if it is `account`'s.
    pub(crate) fn delete(&self, headers: &HeaderMap, account: &str) -> Response {
        let session_id = match session_id(headers) {
            Ok(id) => id,
            Err(error) => return error.into_response(),
        };
        let mut sessions = self.lock();
        match sessions.get(session_id) {
            Some(entry) if entry.session.account == account => {
                if let Some(ended) = sessions.remove(session_id) {
                    ended.session.end();
                }
                StatusCode::OK.into_response()
            }
            _ => session_not_found().into_response(),
        }
    }
}

/// A POSTed message of the handshake era: an `initialize` without a session opens one; anything
/// else must name an open session.
pub(crate) async fn post(
    service: Service,
    sessions: &Sessions,
    elicitations: Arc<Elicitations>,
    account: Arc<Account>,
    headers: &HeaderMap,
    message: Incoming,
) -> Response {
    // An initialize that carries a session id is aimed at that session (which is already
    // initialized, or unknown), not a request for a new one.
    if !headers.contains_key(&SESSION_ID)
        && let Incoming::Request(JsonRpcRequest {
            id,
            request: ClientRequest::Initialize(params),
        }) = &message
    {
        return sessions.initialize(&account.id, id, params);
    }
    let session = match sessions.open(headers, &account.id) {
        Ok(session) => session,
        Err(error) => return error.into_response(),
    };
    match message {
        Incoming::Notification(notification) => {
            sessions.notified(&session, &notification);
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Response { id, result } => {
            // The answer to a server request (an in-call elicitation) the client POSTed back.
            elicitation::deliver(&elicitations, &session.id, &id, result);
            StatusCode::ACCEPTED.into_response()
        }
        Incoming::Request(request) => {
            self::request(service, elicitations, account, session, request).await
        }
    }
}

/// A request in an open session.
async fn request(
    service: Service,
    elicitations: Arc<Elicitations>,
    account: Arc<Account>,
    session: Arc<Session>,
    request: JsonRpcRequest,
) -> Response {
    let JsonRpcRequest { id, request } = request;
    match request {
        ClientRequest::Ping(_) => Reply::new(&id, EmptyResult {}).into_response(),
        ClientRequest::ListTools(_) => Reply::new(
            &id,
            ListToolsResult::handshake(tools::catalog_for(session.protocol_version)),
        )
        .into_response(),
        ClientRequest::Initialize(_) => ErrorData::invalid_request(
            "Invalid Request: this session is already initialized. To start a new session, \
             send initialize without an Mcp-Session-Id header.",
        )
        .with_id(Some(id))
        .into_response(),
        ClientRequest::CallTool(params) => match session.capabilities.elicitation {
            Some(declared) => {
                let asking = Asking {
                    session_id: session.id.clone(),
                    version: session.protocol_version,
                    declared,
                    streams: session.streams.clone(),
                };
                elicitation::handshake_call(service, elicitations, account, asking, id, params)
                    .await
            }
            None => {
                let streams = Some(session.streams.clone());
                call::plain(
                    service,
                    account,
                    session.protocol_version,
                    id,
                    params,
                    streams,
                )
                .await
            }
        },
        other => ErrorData::method_not_found(format!(
            "Method not found: {}. This server offers ping, tools/list and tools/call.",
            other.method()
        ))
        .with_id(Some(id))
        .into_response(),
    }
}

/// `GET`: with `Last-Event-ID`, the rest of the stream that event was sent on (a 400 when it
/// names none of the session's); without, the standalone server-to-client stream of `session`.
/// The mock sends nothing unsolicited in this era; that stream stays open until the session
/// ends.
pub(crate) fn stream(session: &Session, headers: &HeaderMap) -> Response {
    if let Some(last) = headers.get(LAST_EVENT_ID) {
        let last = String::from_utf8_lossy(last.as_bytes());
        return match session.streams.resume(last.trim()) {
            Ok(resumed) => resumed,
            Err(error) => error.into_response(),
        };
    }
    let closed = WatchStream::new(session.closed.subscribe());
    let stream = closed
        .take_while(|closed| futures::future::ready(!closed))
        .filter_map(|_| futures::future::ready(None::<Bytes>));
    sse::response(stream, sse::KEEP_ALIVE_INTERVAL)
}

/// 404 for an unknown, ended or someone else's session, as the transport spec requires.
fn session_not_found() -> ErrorData {
    ErrorData::session_not_found(
        "Session not found: it ended or never existed. Send a new initialize request without an \
         Mcp-Session-Id header.",
    )
}

fn session_id(headers: &HeaderMap) -> Result<&str, ErrorData> {
    headers
        .get(&SESSION_ID)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            ErrorData::bad_request(
                "Bad Request: Mcp-Session-Id header is required. Send initialize first and echo \
                 the Mcp-Session-Id it returns on every later request.",
            )
        })
}

fn check_version_header(headers: &HeaderMap, session: &Session) -> Result<(), ErrorData> {
    // Absent means 2025-03-26 (transport spec). A supported version other than the negotiated
    // one is tolerated, as the official conformance runner sends 2025-03-26 on a 2025-11-25
    // session; only a value this server does not speak is refused.
    let Some(value) = headers.get(&PROTOCOL_VERSION) else {
        return Ok(());
    };
    // A value that is not visible ASCII is shown as sent (lossily), not as an empty one.
    let value = String::from_utf8_lossy(value.as_bytes());
    if ProtocolVersion::parse_handshake(&value).is_some() {
        return Ok(());
    }
    Err(ErrorData::bad_request(format!(
        "Bad Request: unsupported MCP-Protocol-Version `{value}`; this session negotiated {} \
         (supported: {})",
        session.protocol_version,
        HANDSHAKE_VERSIONS.join(", ")
    )))
}
