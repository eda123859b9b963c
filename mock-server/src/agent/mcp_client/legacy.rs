//! The legacy HTTP+SSE transport, which custom connectors may speak: a GET opens an SSE stream
//! whose first `endpoint` event says where to POST messages, and the answers arrive on that
//! stream. A client falls back to it, as the MCP backwards-compatibility rules say, when POSTing
//! `initialize` fails with a 4xx that is no sign of auth or rate limits.

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::Url;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::Value;

use super::deadline::with_deadline;
use super::error::{McpClientError, ServerUrl, snippet};
use super::model::is_response_to;
use super::server_request;
use crate::http::sse::{Message, Parser};

/// What a legacy GET stream is called in error messages.
pub(super) const LEGACY_STREAM: &str = "GET (legacy SSE stream)";

/// Whether an HTTP status answering `initialize` means "not a Streamable HTTP endpoint" (the
/// MCP backwards-compatibility rule says any 4xx; auth and rate limits are no such sign).
pub(super) fn refuses_streamable_http(status: u16) -> bool {
    (400..500).contains(&status) && !matches!(status, 401 | 403 | 408 | 429)
}

/// What a legacy exchange borrows from its session.
pub(super) struct Peer<'a> {
    /// The HTTP client.
    pub(super) http: &'a reqwest::Client,
    /// The server, for errors.
    pub(super) at: ServerUrl<'a>,
    /// The session's headers: the request's own, then the negotiated protocol version.
    pub(super) headers: HeaderMap,
    /// Headers for answering a request of the server's.
    pub(super) answer_headers: HeaderMap,
    /// How long answering one may take.
    pub(super) answer_limit: Duration,
    /// The server handed out a session id (a 404 then means it forgot the session).
    pub(super) session_known: bool,
}

/// The open GET stream of a legacy HTTP+SSE server, and where to POST messages.
pub(super) struct Legacy {
    stream: reqwest::Response,
    parser: Parser,
    queued: VecDeque<Message>,
    endpoint: Url,
}

impl Legacy {
    /// Opens the GET stream at `url` and waits, at most `limit`, for its `endpoint` event.
    pub(super) async fn connect(
        http: &reqwest::Client,
        url: &Url,
        base_headers: &HeaderMap,
        at: ServerUrl<'_>,
        limit: Duration,
        session_known: bool,
    ) -> Result<Self, McpClientError> {
        let open = Self::open(http, url, base_headers, at, session_known);
        match with_deadline(limit, open).await {
            Some(opened) => opened,
            None => Err(at.timed_out(LEGACY_STREAM, limit)),
        }
    }

    async fn open(
        http: &reqwest::Client,
        url: &Url,
        base_headers: &HeaderMap,
        at: ServerUrl<'_>,
        session_known: bool,
    ) -> Result<Self, McpClientError> {
        let mut headers = base_headers.clone();
        headers.insert(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        let response = http
            .get(url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(|e| at.unreachable(LEGACY_STREAM, &e))?;
        if !response.status().is_success() {
            return Err(at.http_status(LEGACY_STREAM, response, session_known).await);
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if !content_type.starts_with("text/event-stream") {
            // A body that cannot be read is quoted as nothing: the content type is the error.
            let body = response.text().await.unwrap_or_default();
            return Err(at.not_mcp(LEGACY_STREAM, content_type, &body));
        }
        let mut legacy = Self {
            stream: response,
            parser: Parser::default(),
            queued: VecDeque::new(),
            endpoint: url.clone(),
        };
        loop {
            let event = legacy
                .next_event()
                .await
                .map_err(|e| at.unreachable(LEGACY_STREAM, &e))?;
            let Some(event) = event else {
                let why = "the stream ended before its `endpoint` event";
                return Err(at.protocol(LEGACY_STREAM, why));
            };
            if event.name.as_deref() != Some("endpoint") {
                continue;
            }
            let endpoint = url.join(event.data.trim()).map_err(|e| {
                let why = format!("the endpoint `{}` is not a URL ({e})", event.data.trim());
                at.protocol(LEGACY_STREAM, &why)
            })?;
            // Messages carry the token, so they may only go where the stream came from.
            if endpoint.origin() != url.origin() {
                let why = format!("the endpoint `{endpoint}` is on another origin");
                return Err(at.protocol(LEGACY_STREAM, &why));
            }
            legacy.endpoint = endpoint;
            return Ok(legacy);
        }
    }

    /// The next event on the stream (`None` when it ends).
    async fn next_event(&mut self) -> Result<Option<Message>, reqwest::Error> {
        loop {
            if let Some(event) = self.queued.pop_front() {
                return Ok(Some(event));
            }
            match self.stream.chunk().await? {
                Some(chunk) => self.queued.extend(self.parser.push_messages(&chunk)),
                None => return Ok(None),
            }
        }
    }

    /// POSTs one message to the endpoint; a request's response (with `id`) arrives on the
    /// stream, and requests of the server's met on the way are answered.
    pub(super) async fn exchange(
        &mut self,
        peer: &Peer<'_>,
        method: &str,
        body: &str,
        id: Option<u64>,
    ) -> Result<Option<Value>, McpClientError> {
        let at = peer.at;
        let mut headers = peer.headers.clone();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let response = peer
            .http
            .post(self.endpoint.clone())
            .headers(headers)
            .body(body.to_owned())
            .send()
            .await
            .map_err(|e| at.unreachable(method, &e))?;
        if !response.status().is_success() {
            return Err(at.http_status(method, response, peer.session_known).await);
        }
        let Some(id) = id else {
            return Ok(None);
        };
        let id = Value::from(id);
        loop {
            let event = self
                .next_event()
                .await
                .map_err(|e| at.unreachable(method, &e))?;
            let Some(event) = event else {
                let why = "the legacy SSE stream ended before the response arrived";
                return Err(at.protocol(method, why));
            };
            if event.name.as_deref().is_some_and(|e| e != "message") {
                continue;
            }
            let Ok(message) = serde_json::from_str::<Value>(&event.data) else {
                let why = format!("an SSE event is not JSON: {}", snippet(&event.data));
                return Err(at.protocol(method, &why));
            };
            if is_response_to(&message, &id) {
                return Ok(Some(message));
            }
            server_request::answer(
                peer.http,
                peer.answer_headers.clone(),
                self.endpoint.clone(),
                peer.answer_limit,
                &message,
            )
            .await;
        }
    }
}
