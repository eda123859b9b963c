//! What the recording proxy keeps of each exchange: the bytes that went over the upstream wire
//! (the request as forwarded, the answer as the upstream sent it), with wall-clock offsets from
//! the start of the recording. Nothing here is redacted yet: [`super::redact`] does that once,
//! when the recording is written, so a credential is never parsed into anything else first.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::HeaderMap;
use parking_lot::Mutex;

/// One SSE frame the upstream sent, with when it arrived.
#[derive(Debug, Clone)]
pub struct CapturedEvent {
    /// When it arrived, from the start of the recording.
    pub at: Duration,
    /// The frame's bytes, without the blank line that ended it.
    pub frame: Bytes,
}

/// One exchange as it went over the upstream wire.
#[derive(Debug, Clone)]
pub struct Captured {
    /// When the request arrived, from the start of the recording.
    pub at: Duration,
    /// When the answer ended (or the recording stopped while it was still streaming).
    pub ended: Option<Duration>,
    /// HTTP method.
    pub method: http::Method,
    /// Request path.
    pub path: String,
    /// Raw query string.
    pub query: Option<String>,
    /// The request's headers as forwarded.
    pub request_headers: HeaderMap,
    /// The request body as forwarded.
    pub request_body: Bytes,
    /// The upstream's status; 0 when it never answered.
    pub status: u16,
    /// The upstream's headers.
    pub response_headers: HeaderMap,
    /// The upstream's body, when it was not an event stream.
    pub response_body: Bytes,
    /// The frames of an event stream, in order.
    pub events: Vec<CapturedEvent>,
}

impl Captured {
    /// Whether the answer was an event stream.
    pub fn is_stream(&self) -> bool {
        self.response_headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"))
    }
}

/// Every exchange of one recording, in the order the requests arrived; shared by the proxy's
/// handlers, which fill in an exchange as its answer comes.
#[derive(Debug, Clone)]
pub(crate) struct Captures {
    started: Instant,
    exchanges: Arc<Mutex<Vec<Captured>>>,
}

impl Captures {
    /// An empty recording that starts now.
    pub(crate) fn new() -> Self {
        Self {
            started: Instant::now(),
            exchanges: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Time since the recording started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Keeps a request that is about to be forwarded; returns its index.
    pub(crate) fn arrived(&self, exchange: Captured) -> usize {
        let mut exchanges = self.exchanges.lock();
        exchanges.push(exchange);
        exchanges.len() - 1
    }

    /// Changes the exchange at `index`.
    pub(crate) fn update(&self, index: usize, change: impl FnOnce(&mut Captured)) {
        if let Some(exchange) = self.exchanges.lock().get_mut(index) {
            change(exchange);
        }
    }

    /// Every exchange so far; one still streaming ends now.
    pub(crate) fn snapshot(&self) -> Vec<Captured> {
        let now = self.elapsed();
        self.exchanges
            .lock()
            .iter()
            .cloned()
            .map(|mut e| {
                e.ended.get_or_insert(now);
                e
            })
            .collect()
    }
}
