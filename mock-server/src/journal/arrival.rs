//! Capturing a request as its surface reads it: the first bytes of its body up to the
//! per-body cap (and its full length), and the exchange opened in the journal once the body
//! has been read to its end or given up on. So the journal lists requests in the order they
//! were taken, before their handlers run, and a refused body is kept as far as it was read.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use hyper::body::{Frame, SizeHint};
use parking_lot::Mutex;

use super::capture::Open;
use super::store::Journal;
use super::stored::{Record, StoredBody};
use crate::clock::Clock;

/// A request on its way in: its record waits for the body to end.
pub(crate) struct Arrival {
    stage: Arc<Mutex<Stage>>,
}

#[expect(
    clippy::large_enum_variant,
    reason = "the stage lives in the request's one shared allocation; boxing would add another"
)]
enum Stage {
    /// The body is being read.
    Reading(Reading),
    /// The body ended, failed or was dropped: the exchange is open in the journal.
    Opened(Open),
    /// The recorder took the open exchange to record the response.
    Taken,
}

struct Reading {
    journal: Journal,
    clock: Clock,
    record: Record,
    kept: BytesMut,
    length: u64,
}

impl Reading {
    fn observe(&mut self, data: &Bytes) {
        self.length = self
            .length
            .saturating_add(u64::try_from(data.len()).unwrap_or(u64::MAX));
        let cap = self.journal.config().max_body_bytes;
        let room = cap.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&data[..data.len().min(room)]);
    }

    fn open(self) -> Open {
        let Self {
            journal,
            clock,
            mut record,
            kept,
            length,
        } = self;
        record.request_body = if length == 0 {
            StoredBody::Empty
        } else {
            StoredBody::Bytes {
                kept: kept.freeze(),
                length,
            }
        };
        Open::new(journal, clock, record)
    }
}

impl Stage {
    /// Opens the exchange if it is still waiting for its body.
    fn end(&mut self) {
        *self = match std::mem::replace(self, Self::Taken) {
            Self::Reading(reading) => Self::Opened(reading.open()),
            done => done,
        };
    }
}

impl Arrival {
    /// `record`, to be opened in `journal` when its body has been read.
    pub(crate) fn new(journal: Journal, clock: Clock, record: Record) -> Self {
        Self {
            stage: Arc::new(Mutex::new(Stage::Reading(Reading {
                journal,
                clock,
                record,
                kept: BytesMut::new(),
                length: 0,
            }))),
        }
    }

    /// The request's `body`, copying what passes through it for the record.
    pub(crate) fn watch(&self, body: Body) -> Body {
        Body::new(Watched {
            inner: body,
            stage: self.stage.clone(),
        })
    }

    /// The open exchange, opened now if its body was never read to its end.
    pub(crate) fn open(self) -> Option<Open> {
        let mut stage = self.stage.lock();
        stage.end();
        match std::mem::replace(&mut *stage, Stage::Taken) {
            Stage::Opened(open) => Some(open),
            Stage::Reading(_) | Stage::Taken => None,
        }
    }
}

/// A request body that records what passes through it.
struct Watched {
    inner: Body,
    stage: Arc<Mutex<Stage>>,
}

impl hyper::body::Body for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref()
                    && let Stage::Reading(reading) = &mut *this.stage.lock()
                {
                    reading.observe(data);
                }
            }
            Poll::Ready(Some(Err(_)) | None) => this.stage.lock().end(),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.stage.lock().end();
    }
}
