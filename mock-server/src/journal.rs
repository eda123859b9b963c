//! The journal: every HTTP exchange the mock served, in order, as structured records.
//!
//! An exchange is recorded as soon as its request has arrived (with `status` 0), so a test can
//! wait for a call that is still in progress; it is completed when the response head is ready,
//! and a streamed (SSE) body keeps adding its events to the same record as they are sent, so a
//! test or the conformance suite can see what a client received and when, in virtual and real
//! time.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::Notify;

/// One request and what the mock answered.
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    /// Position in the journal, from 0.
    pub seq: usize,
    /// HTTP method.
    pub method: String,
    /// Request path.
    pub path: String,
    /// Raw query string, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Request headers, lower-cased, with credentials redacted.
    pub request_headers: serde_json::Map<String, Value>,
    /// The request body: JSON when it parsed, else the text, else null.
    pub request_body: Value,
    /// HTTP status of the response; 0 while the mock is still working on it.
    pub status: u16,
    /// Response headers, lower-cased.
    pub response_headers: serde_json::Map<String, Value>,
    /// The response body when it was not a stream: JSON when it parsed, else the text.
    pub response_body: Value,
    /// Each event of a `text/event-stream` response, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sse_events: Vec<SseRecord>,
    /// Virtual time when the request arrived.
    pub virtual_time: DateTime<Utc>,
    /// Wall-clock time when the request arrived.
    pub real_time: DateTime<Utc>,
    /// Virtual time when the response head was ready.
    pub virtual_responded_at: DateTime<Utc>,
}

impl Exchange {
    /// An exchange with only its method, path and status, at `at` on both clocks: the start of a
    /// hand-made journal for testing checks over the journal (set the other fields as needed).
    pub fn new(seq: usize, method: &str, path: &str, status: u16, at: DateTime<Utc>) -> Self {
        Self {
            seq,
            method: method.into(),
            path: path.into(),
            query: None,
            request_headers: serde_json::Map::new(),
            request_body: Value::Null,
            status,
            response_headers: serde_json::Map::new(),
            response_body: Value::Null,
            sse_events: Vec::new(),
            virtual_time: at,
            real_time: at,
            virtual_responded_at: at,
        }
    }
}

/// One SSE event sent on a streamed response.
#[derive(Debug, Clone, Serialize)]
pub struct SseRecord {
    /// The `data:` payload, parsed as JSON when possible.
    pub data: Value,
    /// Virtual time when it was sent.
    pub virtual_time: DateTime<Utc>,
}

/// The shared journal; cheap to clone.
#[derive(Clone, Default)]
pub struct Journal {
    inner: Arc<JournalInner>,
}

#[derive(Default)]
struct JournalInner {
    exchanges: Mutex<Vec<Exchange>>,
    /// Bumped by [`Journal::clear`], so a response finishing after a reset is not written over
    /// an exchange recorded since.
    generation: std::sync::atomic::AtomicU64,
    changed: Notify,
}

/// Where an in-flight exchange was recorded.
#[derive(Debug, Clone, Copy)]
struct Ticket {
    seq: usize,
    generation: u64,
}

impl Journal {
    /// An empty journal.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Exchange>> {
        // A panic while holding the lock cannot leave a half-written record behind (every
        // mutation is a single push or field update), so a poisoned lock is still consistent.
        self.inner
            .exchanges
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends an exchange and returns its sequence number.
    pub fn record(&self, mut exchange: Exchange) -> usize {
        let seq = {
            let mut exchanges = self.lock();
            exchange.seq = exchanges.len();
            exchanges.push(exchange);
            exchanges.len() - 1
        };
        self.inner.changed.notify_waiters();
        seq
    }

    fn generation(&self) -> u64 {
        self.inner
            .generation
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Records an exchange whose response is still to come.
    fn open(&self, mut exchange: Exchange) -> Ticket {
        let ticket = {
            let mut exchanges = self.lock();
            exchange.seq = exchanges.len();
            exchanges.push(exchange);
            Ticket {
                seq: exchanges.len() - 1,
                generation: self.generation(),
            }
        };
        self.inner.changed.notify_waiters();
        ticket
    }

    /// The slot of an open exchange, unless the journal was cleared since.
    fn with_slot(&self, ticket: Ticket, update: impl FnOnce(&mut Exchange)) {
        {
            let mut exchanges = self.lock();
            if self.generation() == ticket.generation
                && let Some(slot) = exchanges.get_mut(ticket.seq)
            {
                update(slot);
            }
        }
        self.inner.changed.notify_waiters();
    }

    /// Replaces an open exchange (keeping its sequence number) once its response is ready.
    fn complete(&self, ticket: Ticket, mut exchange: Exchange) {
        self.with_slot(ticket, |slot| {
            exchange.seq = ticket.seq;
            *slot = exchange;
        });
    }

    /// Adds an SSE event to a recorded exchange.
    pub fn push_sse_event(&self, seq: usize, record: SseRecord) {
        if let Some(exchange) = self.lock().get_mut(seq) {
            exchange.sse_events.push(record);
        }
        self.inner.changed.notify_waiters();
    }

    /// A copy of every exchange so far.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.lock().clone()
    }

    /// The journal as JSON lines, one exchange per line.
    pub fn to_json_lines(&self) -> String {
        self.lock()
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .map(|line| line + "\n")
            .collect()
    }

    /// Forgets every exchange.
    pub fn clear(&self) {
        {
            let mut exchanges = self.lock();
            self.inner
                .generation
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            exchanges.clear();
        }
        self.inner.changed.notify_waiters();
    }

    /// Waits until some exchange satisfies `predicate`, and returns a copy of it.
    ///
    /// There is no default timeout: wrap the call in `tokio::time::timeout`.
    pub async fn wait_for(&self, predicate: impl Fn(&Exchange) -> bool) -> Exchange {
        loop {
            let notified = self.inner.changed.notified();
            if let Some(found) = self.lock().iter().find(|e| predicate(e)) {
                return found.clone();
            }
            notified.await;
        }
    }

    /// Like [`Journal::wait_for`], giving up after `limit` of real time.
    pub async fn wait_for_within(
        &self,
        limit: Duration,
        predicate: impl Fn(&Exchange) -> bool,
    ) -> Option<Exchange> {
        tokio::time::timeout(limit, self.wait_for(predicate))
            .await
            .ok()
    }
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("exchanges", &self.lock().len())
            .finish()
    }
}

/// Largest request body the mock accepts (uploads have their own, larger limit).
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// Middleware that records every exchange except reads of the journal itself.
pub(crate) async fn record_exchange(
    axum::extract::State(app): axum::extract::State<crate::AppState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::body::Body;
    use axum::response::IntoResponse;
    use http_body_util::BodyExt;

    let path = request.uri().path().to_owned();
    if path == "/_mock/journal" {
        return next.run(request).await;
    }
    let journal = app.journal().clone();
    let clock = app.clock().clone();
    let virtual_time = clock.now();
    let real_time = Utc::now();
    let (parts, body) = request.into_parts();
    // Upload bodies (up to 200 MB) stream straight to the upload endpoint, which checks their
    // size as it reads: buffering them here too would hold every upload in memory twice.
    let is_upload = path == "/_mock/uploads";
    let mut exchange = Exchange {
        seq: 0,
        method: parts.method.to_string(),
        path: path.clone(),
        query: parts.uri.query().map(str::to_owned),
        request_headers: headers_json(&parts.headers),
        request_body: Value::Null,
        status: 0,
        response_headers: serde_json::Map::new(),
        response_body: Value::Null,
        sse_events: Vec::new(),
        virtual_time,
        real_time,
        virtual_responded_at: virtual_time,
    };
    if is_upload {
        let length = parts
            .headers
            .get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        exchange.request_body = serde_json::json!({"multipart_bytes": length});
        let ticket = journal.open(exchange.clone());
        let response = next
            .run(axum::extract::Request::from_parts(parts, body))
            .await;
        return finish(journal, clock, ticket, exchange, response).await;
    }
    let agent = crate::agent::is_agent_path(&path);
    let limit = if agent {
        crate::agent::BODY_LIMIT
    } else {
        BODY_LIMIT
    };
    let bytes = match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) if agent => {
            let error = crate::agent::ApiError::new(
                http::StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "the request body is larger than the 32 MiB the Agent API accepts: send large \
                 files by URL (input_file.file_url) instead of inline",
            );
            exchange.status = 413;
            exchange.response_body = error.body();
            journal.record(exchange);
            return crate::agent::with_fresh_request_id(error.into_response());
        }
        Err(_) => {
            let mut message = format!(
                "The request body is larger than the {} MiB this endpoint accepts.",
                limit / (1024 * 1024)
            );
            if path == crate::MCP_PATH {
                message.push_str(
                    " Send files with create_attachment_upload and pass their attachment_urls \
                     instead of putting their content in a message.",
                );
            }
            let body = serde_json::json!({
                "jsonrpc": "2.0", "id": null,
                "error": {"code": -32600, "message": format!("Invalid Request: {message}")},
            });
            exchange.status = 413;
            exchange.response_body = body.clone();
            journal.record(exchange);
            return (http::StatusCode::PAYLOAD_TOO_LARGE, axum::Json(body)).into_response();
        }
    };
    exchange.request_body = body_value(&bytes);
    let ticket = journal.open(exchange.clone());
    let response = next
        .run(axum::extract::Request::from_parts(parts, Body::from(bytes)))
        .await;
    finish(journal, clock, ticket, exchange, response).await
}

/// Records the response head, then the body (or each SSE event as it is sent).
async fn finish(
    journal: Journal,
    clock: crate::Clock,
    ticket: Ticket,
    mut exchange: Exchange,
    response: axum::response::Response,
) -> axum::response::Response {
    use axum::body::Body;
    use futures::StreamExt;
    use http_body_util::BodyExt;

    let (parts, body) = response.into_parts();
    exchange.status = parts.status.as_u16();
    exchange.response_headers = headers_json(&parts.headers);
    exchange.virtual_responded_at = clock.now();
    let streaming = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streaming {
        let bytes = body
            .collect()
            .await
            .map(|c| c.to_bytes())
            .unwrap_or_default();
        exchange.response_body = body_value(&bytes);
        journal.complete(ticket, exchange);
        return axum::response::Response::from_parts(parts, Body::from(bytes));
    }
    journal.complete(ticket, exchange);
    let mut pending = String::new();
    let stream = body.into_data_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            pending.push_str(&String::from_utf8_lossy(bytes));
            while let Some(end) = pending.find("\n\n") {
                let frame: String = pending.drain(..end + 2).collect();
                let data: Vec<&str> = frame
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                if !data.is_empty() {
                    let record = SseRecord {
                        data: body_value(data.join("\n").as_bytes()),
                        virtual_time: clock.now(),
                    };
                    journal.with_slot(ticket, |exchange| exchange.sse_events.push(record));
                }
            }
        }
        chunk
    });
    axum::response::Response::from_parts(parts, Body::from_stream(stream))
}

/// JSON when the bytes parse, else the text, else null.
fn body_value(bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned()))
}

/// Headers as a JSON object, lower-cased, with credentials redacted.
fn headers_json(headers: &http::HeaderMap) -> serde_json::Map<String, Value> {
    let mut map = serde_json::Map::new();
    for (name, value) in headers {
        let shown = if name == http::header::AUTHORIZATION {
            // Keep the scheme so a test can tell a bearer token was sent.
            let scheme = value
                .to_str()
                .ok()
                .and_then(|v| v.split_whitespace().next())
                .unwrap_or("");
            format!("{scheme} [redacted]")
        } else {
            String::from_utf8_lossy(value.as_bytes()).into_owned()
        };
        map.insert(name.as_str().to_owned(), Value::String(shown));
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(path: &str, status: u16) -> Exchange {
        Exchange::new(0, "POST", path, status, Utc::now())
    }

    #[test]
    fn an_open_exchange_is_visible_then_completed_in_place() {
        let journal = Journal::new();
        let ticket = journal.open(exchange("/slow", 0));
        journal.record(exchange("/fast", 200));
        assert_eq!(journal.exchanges()[0].status, 0);
        journal.complete(ticket, exchange("/slow", 200));
        let paths: Vec<(String, u16)> = journal
            .exchanges()
            .into_iter()
            .map(|e| (e.path, e.status))
            .collect();
        assert_eq!(paths, [("/slow".into(), 200), ("/fast".into(), 200)]);
    }

    #[test]
    fn a_response_finishing_after_a_clear_does_not_overwrite_newer_exchanges() {
        let journal = Journal::new();
        let ticket = journal.open(exchange("/before-reset", 0));
        journal.clear();
        journal.record(exchange("/after-reset", 200));
        journal.complete(ticket, exchange("/before-reset", 200));
        let exchanges = journal.exchanges();
        assert_eq!(exchanges.len(), 1);
        assert_eq!(exchanges[0].path, "/after-reset");
    }
}
