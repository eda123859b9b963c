//! Capturing a response as it goes out: its head at once, its body as it is sent (the first
//! bytes up to the per-body cap, every SSE frame that fits), and the record finished when the
//! body ends or the client leaves.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use chrono::Utc;
use http_body_util::BodyExt;
use hyper::body::{Body as _, Frame, SizeHint};

use super::store::{Journal, Ticket};
use super::stored::{FaultNote, Record, StoredBody, StoredHeaders};
use crate::clock::Clock;
use crate::http::sse;

/// An exchange still open in the journal; finishes it (as it stands) when dropped, so a
/// request whose client left still reaches the journal file.
pub(crate) struct Open {
    journal: Journal,
    clock: Clock,
    ticket: Option<Ticket>,
}

impl Open {
    /// Opens `record` in the journal.
    pub(crate) fn new(journal: Journal, clock: Clock, record: Record) -> Self {
        let ticket = Some(journal.open(record));
        Self {
            journal,
            clock,
            ticket,
        }
    }

    fn update(&self, change: impl FnOnce(&mut Record)) {
        if let Some(ticket) = self.ticket {
            self.journal.update(ticket, change);
        }
    }

    fn finish(mut self, change: impl FnOnce(&mut Record)) {
        if let Some(ticket) = self.ticket.take() {
            self.journal.finish(ticket, change);
        }
    }

    /// Records `response` and hands it on: a body of known size at once, a stream as it goes.
    pub(crate) async fn respond(self, response: Response) -> Response {
        let (parts, body) = response.into_parts();
        let note = parts.extensions.get::<FaultNote>().cloned();
        let no_head = note.as_ref().is_some_and(|note| note.no_head);
        let status = if no_head { 0 } else { parts.status.as_u16() };
        let headers = if no_head {
            StoredHeaders::default()
        } else {
            StoredHeaders::pack(&parts.headers)
        };
        let responded_at = self.clock.now();
        let real_responded_at = Utc::now();
        let fault = note.map(|note| note.fault);
        let head = move |record: &mut Record| {
            record.status = status;
            record.response_headers = headers;
            record.virtual_responded_at = responded_at;
            record.real_responded_at = real_responded_at;
            record.fault = fault;
        };
        let cap = self.journal.config().max_body_bytes;
        let events = StoredHeaders::is_event_stream(&parts.headers);
        if !events && body.size_hint().exact().is_some() {
            // A body of known size is already in memory: keep it with the head in one change,
            // so a reader never sees the status without the body.
            let bytes = whole(body).await;
            self.finish(|record| {
                head(record);
                record.response_body = StoredBody::capture(&bytes, cap);
            });
            return Response::from_parts(parts, Body::from(bytes));
        }
        self.update(head);
        let capture = if events {
            Capture::Events {
                pending: BytesMut::new(),
                budget: cap,
                counting: false,
                last_newline: false,
            }
        } else {
            Capture::Bytes {
                kept: BytesMut::new(),
                length: 0,
            }
        };
        let tee = Tee {
            inner: body,
            open: Some(self),
            capture,
            cap,
        };
        Response::from_parts(parts, Body::new(tee))
    }
}

/// A body of known size, read whole: its one frame as it is (the usual case), or its frames
/// joined. A body that fails to read is recorded, and sent on, as empty.
async fn whole(mut body: Body) -> Bytes {
    let mut first = None;
    let mut joined: Option<BytesMut> = None;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Bytes::new();
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        match (&mut first, &mut joined) {
            (None, _) => first = Some(data),
            (Some(earlier), None) => {
                let mut both = BytesMut::with_capacity(earlier.len() + data.len());
                both.extend_from_slice(earlier);
                both.extend_from_slice(&data);
                joined = Some(both);
            }
            (Some(_), Some(both)) => both.extend_from_slice(&data),
        }
    }
    match joined {
        Some(both) => both.freeze(),
        None => first.unwrap_or_default(),
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        if let Some(ticket) = self.ticket.take() {
            self.journal.finish(ticket, |_| {});
        }
    }
}

/// What a streamed body has given so far.
enum Capture {
    /// SSE: frames not yet ended by a blank line, and how much of the cap is left.
    Events {
        pending: BytesMut,
        budget: usize,
        /// The cap was reached: frames are only counted now.
        counting: bool,
        last_newline: bool,
    },
    /// Anything else: the first bytes and the full length.
    Bytes { kept: BytesMut, length: u64 },
}

/// A response body that records what passes through it.
struct Tee {
    inner: Body,
    open: Option<Open>,
    capture: Capture,
    cap: usize,
}

impl Tee {
    fn observe(&mut self, data: &Bytes) {
        let Some(open) = &self.open else {
            return;
        };
        let sent = u64::try_from(data.len()).unwrap_or(u64::MAX);
        match &mut self.capture {
            Capture::Bytes { kept, length } => {
                *length = length.saturating_add(sent);
                let room = self.cap.saturating_sub(kept.len());
                kept.extend_from_slice(&data[..data.len().min(room)]);
            }
            Capture::Events {
                pending,
                budget,
                counting,
                last_newline,
            } => {
                let mut frames = Vec::new();
                let mut uncounted = 0;
                if *counting {
                    uncounted = count_frame_ends(data, last_newline);
                } else {
                    pending.extend_from_slice(data);
                    while let Some((end, separator)) = sse::event_end(pending) {
                        let frame = pending.split_to(end + separator);
                        if sse::has_data(&frame[..end]) {
                            // A copy: a slice would keep the whole read buffer alive.
                            frames.push(Bytes::copy_from_slice(&frame[..end]));
                        }
                    }
                    let kept: usize = frames.iter().map(Bytes::len).sum();
                    *budget = budget.saturating_sub(kept);
                    if pending.len() > *budget {
                        // The frame in progress cannot fit any more: stop buffering and only
                        // count frame ends from here (its own end included).
                        *counting = true;
                        *last_newline = pending.last() == Some(&b'\n');
                        *pending = BytesMut::new();
                    }
                }
                let now = open.clock.now();
                let cap = self.cap;
                open.update(|record| {
                    record.stream_length = record.stream_length.saturating_add(sent);
                    for frame in frames {
                        record.push_event(frame, now, cap);
                    }
                    record.events_dropped += uncounted;
                });
            }
        }
    }

    fn end(&mut self) {
        let Some(open) = self.open.take() else {
            return;
        };
        match &mut self.capture {
            Capture::Bytes { kept, length } => {
                let kept = std::mem::take(kept).freeze();
                let length = *length;
                open.finish(|record| {
                    record.response_body = if length == 0 {
                        StoredBody::Empty
                    } else {
                        StoredBody::Bytes { kept, length }
                    };
                });
            }
            Capture::Events { .. } => open.finish(|_| {}),
        }
    }
}

/// How many frames end in `data`, given whether the bytes before it ended with a newline.
fn count_frame_ends(data: &[u8], last_newline: &mut bool) -> u64 {
    let mut ends = 0;
    for &byte in data {
        if byte == b'\n' && *last_newline {
            ends += 1;
            *last_newline = false;
        } else {
            *last_newline = byte == b'\n';
        }
    }
    ends
}

impl hyper::body::Body for Tee {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.observe(data);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(other) => {
                this.end();
                Poll::Ready(other)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Tee {
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(chunks: Vec<Result<&'static str, std::io::Error>>) -> Body {
        Body::from_stream(futures::stream::iter(
            chunks
                .into_iter()
                .map(|chunk| chunk.map(|text| Bytes::from_static(text.as_bytes()))),
        ))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_from_one_frame_or_several() {
        assert_eq!(whole(Body::from("one")).await, "one");
        assert_eq!(whole(body_of(vec![Ok("a"), Ok("b"), Ok("c")])).await, "abc");
        assert_eq!(whole(Body::empty()).await, "");
    }

    #[tokio::test]
    async fn a_body_that_fails_to_read_is_recorded_as_empty() {
        let broken = body_of(vec![Ok("a"), Err(std::io::Error::other("gone"))]);
        assert_eq!(whole(broken).await, "");
    }

    #[test]
    fn frame_ends_are_counted_across_chunks() {
        let mut last_newline = false;
        assert_eq!(count_frame_ends(b"data: 1\n", &mut last_newline), 0);
        assert_eq!(
            count_frame_ends(b"\ndata: 2\n\ndata:", &mut last_newline),
            2
        );
        assert_eq!(count_frame_ends(b" 3\n\n\n", &mut last_newline), 1);
    }
}
