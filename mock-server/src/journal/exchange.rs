//! The public view of an exchange: what tests, the conformance rules and `GET /_mock/journal`
//! read. The journal stores bytes ([`super::stored`]); this is built from them on read, with
//! credentials already replaced by fingerprints.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

/// One request and what the mock answered.
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    /// Sequence number, from 0 (since the start or the last `POST /_mock/reset`); exchanges
    /// dropped from a full journal keep theirs, so the first one kept may not be 0.
    pub seq: usize,
    /// HTTP method.
    pub method: String,
    /// Request path.
    pub path: String,
    /// Raw query string, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Request headers, lower-cased, with credentials replaced by fingerprints.
    pub request_headers: serde_json::Map<String, Value>,
    /// The request body: JSON when it parsed, else the text, else null.
    pub request_body: Value,
    /// How many bytes the request body had, kept or not.
    pub request_body_length: u64,
    /// Only the first bytes of the request body were kept (the per-body cap).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub request_body_truncated: bool,
    /// HTTP status of the response; 0 while the mock is still working on it (or, once the
    /// exchange is finished, when the client left before the answer).
    pub status: u16,
    /// Response headers, lower-cased, with credentials replaced by fingerprints.
    pub response_headers: serde_json::Map<String, Value>,
    /// The response body when it was not a stream: JSON when it parsed, else the text.
    pub response_body: Value,
    /// How many bytes the response body (or the event stream so far) had, kept or not.
    pub response_body_length: u64,
    /// Only the first bytes of the response body were kept (the per-body cap).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub response_body_truncated: bool,
    /// Each event of a `text/event-stream` response, in order, as far as the per-body cap
    /// allowed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sse_events: Vec<SseRecord>,
    /// Events sent after the per-body cap was reached, counted but not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub sse_events_dropped: u64,
    /// Virtual time when the request arrived.
    pub virtual_time: DateTime<Utc>,
    /// Wall-clock time when the request arrived.
    pub real_time: DateTime<Utc>,
    /// Virtual time when the response head was ready.
    pub virtual_responded_at: DateTime<Utc>,
    /// Wall-clock time when the response head was ready: what a client waiting after an
    /// answer (a poll interval) waits from.
    pub real_responded_at: DateTime<Utc>,
    /// The injected fault that touched this exchange (`POST /_mock/faults`, `--fault`), as
    /// its id and kind: `"fault-1 status=429,retry-after=2s"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
            request_body_length: 0,
            request_body_truncated: false,
            status,
            response_headers: serde_json::Map::new(),
            response_body: Value::Null,
            response_body_length: 0,
            response_body_truncated: false,
            sse_events: Vec::new(),
            sse_events_dropped: 0,
            virtual_time: at,
            real_time: at,
            virtual_responded_at: at,
            real_responded_at: at,
            fault: None,
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
