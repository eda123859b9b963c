//! The stored form of an exchange: bytes as they came, cut at the per-body cap, never parsed
//! on the call path. [`super::view`] turns a record into the public [`super::Exchange`].

use bytes::Bytes;
use chrono::{DateTime, Utc};

use super::redact::Secrets;

/// A body as the journal keeps it.
#[derive(Debug, Clone, Default)]
pub(crate) enum StoredBody {
    /// No body.
    #[default]
    Empty,
    /// The first bytes of the body (all of it when it fits the cap) and its full length.
    Bytes {
        /// The bytes kept.
        kept: Bytes,
        /// How long the whole body was.
        length: u64,
    },
    /// An upload streamed past the journal straight to its endpoint; only its declared size
    /// is known.
    Upload {
        /// `Content-Length` of the multipart envelope, when given.
        declared: Option<u64>,
    },
}

impl StoredBody {
    /// Keeps the first `cap` bytes of `body` (copied, so the journal never holds on to a larger
    /// buffer than it counts).
    pub(crate) fn capture(body: &[u8], cap: usize) -> Self {
        if body.is_empty() {
            return Self::Empty;
        }
        Self::Bytes {
            kept: Bytes::copy_from_slice(&body[..body.len().min(cap)]),
            length: u64::try_from(body.len()).unwrap_or(u64::MAX),
        }
    }

    /// Bytes held.
    fn weight(&self) -> usize {
        match self {
            Self::Bytes { kept, .. } => kept.len(),
            Self::Empty | Self::Upload { .. } => 0,
        }
    }
}

/// Headers packed into one buffer (`name\0value\0`...): one allocation whose size is what the
/// journal counts. (Header values cannot contain NUL.)
#[derive(Debug, Clone, Default)]
pub(crate) struct StoredHeaders(Bytes);

impl StoredHeaders {
    /// Packs a header map.
    pub(crate) fn pack(headers: &http::HeaderMap) -> Self {
        let size = headers
            .iter()
            .map(|(name, value)| name.as_str().len() + value.len() + 2)
            .sum();
        let mut packed = Vec::with_capacity(size);
        for (name, value) in headers {
            packed.extend_from_slice(name.as_str().as_bytes());
            packed.push(0);
            packed.extend_from_slice(value.as_bytes());
            packed.push(0);
        }
        Self(Bytes::from(packed))
    }

    /// Packs headers given as (lower-case name, value) pairs, in order.
    pub(crate) fn from_pairs(pairs: Vec<(String, Vec<u8>)>) -> Self {
        let size = pairs
            .iter()
            .map(|(name, value)| name.len() + value.len() + 2)
            .sum();
        let mut packed = Vec::with_capacity(size);
        for (name, value) in pairs {
            packed.extend_from_slice(name.as_bytes());
            packed.push(0);
            packed.extend_from_slice(&value);
            packed.push(0);
        }
        Self(Bytes::from(packed))
    }

    /// Each header, in order: its lower-case name and its value.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let mut parts = self.0.split(|b| *b == 0);
        std::iter::from_fn(move || {
            let name = parts.next().filter(|n| !n.is_empty())?;
            let value = parts.next()?;
            // Names were packed from `HeaderName`s, which are ASCII: the fallback never runs.
            Some((std::str::from_utf8(name).unwrap_or_default(), value))
        })
    }

    /// Whether the response was an event stream.
    pub(crate) fn is_event_stream(headers: &http::HeaderMap) -> bool {
        headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"))
    }
}

/// One SSE frame as sent (its `data:` lines are parsed on read).
#[derive(Debug, Clone)]
pub(crate) struct StoredEvent {
    /// The frame's bytes, without the blank line that ended it.
    pub(crate) frame: Bytes,
    /// Virtual time when it was sent.
    pub(crate) virtual_time: DateTime<Utc>,
}

/// What the journal holds for one exchange.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) seq: usize,
    pub(crate) method: http::Method,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    /// Where its credentials are, beyond the headers (fingerprinted when it is read).
    pub(crate) secrets: Secrets,
    pub(crate) request_headers: StoredHeaders,
    pub(crate) request_body: StoredBody,
    /// 0 until the response head is ready.
    pub(crate) status: u16,
    pub(crate) response_headers: StoredHeaders,
    pub(crate) response_body: StoredBody,
    pub(crate) events: Vec<StoredEvent>,
    /// Bytes of the kept events' frames.
    pub(crate) events_bytes: usize,
    pub(crate) events_dropped: u64,
    /// Bytes of an event stream sent so far, kept or not.
    pub(crate) stream_length: u64,
    pub(crate) virtual_time: DateTime<Utc>,
    pub(crate) real_time: DateTime<Utc>,
    pub(crate) virtual_responded_at: DateTime<Utc>,
    pub(crate) real_responded_at: DateTime<Utc>,
    /// The injected fault that touched the exchange, as its id and kind.
    pub(crate) fault: Option<String>,
    /// The response ended (or the client left): nothing will change any more.
    pub(crate) finished: bool,
    /// The journal's change counter when this record last changed (waits look at changes only).
    pub(crate) revision: u64,
}

impl Record {
    /// A record for a request that just arrived.
    pub(crate) fn arrived(
        parts: &http::request::Parts,
        secrets: Secrets,
        virtual_time: DateTime<Utc>,
        real_time: DateTime<Utc>,
    ) -> Self {
        Self {
            seq: 0,
            method: parts.method.clone(),
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().map(str::to_owned),
            secrets,
            request_headers: StoredHeaders::pack(&parts.headers),
            request_body: StoredBody::Empty,
            status: 0,
            response_headers: StoredHeaders::default(),
            response_body: StoredBody::Empty,
            events: Vec::new(),
            events_bytes: 0,
            events_dropped: 0,
            stream_length: 0,
            virtual_time,
            real_time,
            virtual_responded_at: virtual_time,
            real_responded_at: real_time,
            fault: None,
            finished: false,
            revision: 0,
        }
    }

    /// What the record costs the journal's byte cap: everything it holds, plus its own size.
    pub(crate) fn weight(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.path.len()
            + self.query.as_ref().map_or(0, String::len)
            + self.fault.as_ref().map_or(0, String::len)
            + self.request_headers.0.len()
            + self.response_headers.0.len()
            + self.request_body.weight()
            + self.response_body.weight()
            + self.events_bytes
            + self.events.capacity() * std::mem::size_of::<StoredEvent>()
    }

    /// Keeps one SSE frame if it fits in what is left of `cap`; once one does not, it and every
    /// later frame are only counted, so the kept events are always the stream's beginning.
    pub(crate) fn push_event(&mut self, frame: Bytes, virtual_time: DateTime<Utc>, cap: usize) {
        if self.events_dropped == 0 && self.events_bytes + frame.len() <= cap {
            self.events_bytes += frame.len();
            self.events.push(StoredEvent {
                frame,
                virtual_time,
            });
        } else {
            self.events_dropped += 1;
        }
    }
}

/// What a layer below the recorder tells it about an exchange a fault touched, as a response
/// extension: the journal records it and does nothing else.
#[derive(Debug, Clone)]
pub(crate) struct FaultNote {
    /// The fault's id and kind (`fault-1 status=429`).
    pub(crate) fault: String,
    /// The connection is reset before the response head: the client gets no status, so the
    /// journal records none (0).
    pub(crate) no_head: bool,
}
