//! The faults that act on a response body, whatever the surface: a stream ended after N
//! events, one event's JSON broken, a reset after N bytes, a body cut short of its
//! `Content-Length`, bytes sent a few at a time on the virtual clock.
//!
//! Events are the `\n\n`-separated frames of `text/event-stream`; a body that is not a stream
//! has none, so the event faults leave it as it is.

use std::collections::VecDeque;
use std::time::Duration;

use axum::body::Body;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;

use crate::clock::{Clock, after, to_chrono};

/// What happens to a body.
#[derive(Debug, Clone, Copy)]
pub(super) enum Shape {
    /// Events pass until `events` were sent; then the stream ends.
    EndAfterEvents { events: u64, strip_ids: bool },
    /// The `event`th event's data is broken JSON.
    MalformedEvent { event: u64 },
    /// `after_bytes` bytes pass, then the connection is reset.
    ResetAfter { after_bytes: u64 },
    /// `bytes` bytes pass, then the body ends (short of its declared length).
    EndAfter { bytes: u64 },
    /// Pieces of `bytes` bytes, `every` apart on the virtual clock.
    Dribble { bytes: usize, every: Duration },
}

/// The error a reset body ends with: hyper closes the connection on it.
#[derive(Debug, thiserror::Error)]
#[error("the connection was reset by an injected fault")]
pub(super) struct Reset;

/// A body that fails at once: sent as the response, the connection closes before its head
/// leaves (hyper buffers the head and drops it with the connection).
pub(super) fn reset_at_once() -> Body {
    Body::from_stream(futures::stream::once(async { Err::<Bytes, Reset>(Reset) }))
}

/// `body` changed as `shape` says.
pub(super) fn reshape(body: Body, shape: Shape, clock: Clock) -> Body {
    let state = Reshaping {
        frames: StreamExt::boxed(body.into_data_stream()),
        shape,
        clock,
        sent: 0,
        events: 0,
        pending: BytesMut::new(),
        ready: VecDeque::new(),
        ending: None,
        done: false,
        first_piece: true,
    };
    Body::from_stream(futures::stream::unfold(state, next))
}

type Frames = futures::stream::BoxStream<'static, Result<Bytes, axum::Error>>;

struct Reshaping {
    frames: Frames,
    shape: Shape,
    clock: Clock,
    /// Body bytes sent so far.
    sent: u64,
    /// Events seen so far.
    events: u64,
    /// Bytes of an event not yet ended by its blank line.
    pending: BytesMut,
    /// Pieces to send before reading on.
    ready: VecDeque<Bytes>,
    /// How the body ends once `ready` is sent, when the fault has decided.
    ending: Option<Ending>,
    /// Nothing more is sent.
    done: bool,
    first_piece: bool,
}

/// How a reshaped body ends early.
#[derive(Debug, Clone, Copy)]
enum Ending {
    /// The connection is reset.
    Fail,
    /// The body ends (short of a declared length, or a stream after its last event).
    End,
}

enum Step {
    Send(Bytes),
    Stop(Ending),
}

async fn next(mut state: Reshaping) -> Option<(Result<Bytes, Reset>, Reshaping)> {
    match step(&mut state).await? {
        Step::Send(bytes) => Some((Ok(bytes), state)),
        Step::Stop(ending) => {
            state.done = true;
            // Let hyper write out what was sent before the connection goes.
            tokio::task::yield_now().await;
            match ending {
                Ending::Fail => Some((Err(Reset), state)),
                Ending::End => None,
            }
        }
    }
}

async fn step(state: &mut Reshaping) -> Option<Step> {
    loop {
        if state.done {
            return None;
        }
        if let Some(piece) = state.ready.pop_front() {
            if let Shape::Dribble { every, .. } = state.shape {
                if !state.first_piece {
                    let deadline = after(state.clock.now(), to_chrono(every));
                    state.clock.block_until(deadline).await;
                }
                state.first_piece = false;
            }
            return Some(Step::Send(piece));
        }
        if let Some(ending) = state.ending.take() {
            return Some(Step::Stop(ending));
        }
        let Some(frame) = state.frames.next().await else {
            state.done = true;
            // What was left of an unfinished event goes as it is.
            let rest = state.pending.split().freeze();
            return (!rest.is_empty()).then_some(Step::Send(rest));
        };
        let Ok(data) = frame else {
            return Some(Step::Stop(Ending::Fail));
        };
        take(state, data);
    }
}

/// Queues what `shape` makes of one frame of the inner body.
fn take(state: &mut Reshaping, data: Bytes) {
    match state.shape {
        Shape::ResetAfter { after_bytes: limit } | Shape::EndAfter { bytes: limit } => {
            let left = limit.saturating_sub(state.sent);
            let fits = usize::try_from(left).unwrap_or(usize::MAX).min(data.len());
            state.sent += fits as u64;
            if fits > 0 {
                state.ready.push_back(data.slice(..fits));
            }
            if state.sent >= limit {
                state.ending = Some(match state.shape {
                    Shape::ResetAfter { .. } => Ending::Fail,
                    _ => Ending::End,
                });
            }
        }
        Shape::Dribble { bytes, .. } => {
            let mut at = 0;
            while at < data.len() {
                let end = (at + bytes).min(data.len());
                state.ready.push_back(data.slice(at..end));
                at = end;
            }
        }
        Shape::EndAfterEvents { .. } | Shape::MalformedEvent { .. } => {
            state.pending.extend_from_slice(&data);
            while state.ending.is_none()
                && let Some(end) = find_blank_line(&state.pending)
            {
                let event = state.pending.split_to(end).freeze();
                state.events += 1;
                match state.shape {
                    Shape::EndAfterEvents { events, strip_ids } => {
                        if events == 0 {
                            state.ending = Some(Ending::End);
                            break;
                        }
                        let event = if strip_ids {
                            without_ids(&event)
                        } else {
                            event
                        };
                        state.ready.push_back(event);
                        if state.events >= events {
                            state.ending = Some(Ending::End);
                        }
                    }
                    Shape::MalformedEvent { event: which } if state.events == which => {
                        state.ready.push_back(malformed(&event));
                    }
                    _ => state.ready.push_back(event),
                }
            }
        }
    }
}

/// Where the first event in `buffer` ends (after its blank line), if it is complete.
fn find_blank_line(buffer: &[u8]) -> Option<usize> {
    buffer
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|at| at + 2)
}

/// The event without its `id:` lines.
fn without_ids(event: &Bytes) -> Bytes {
    let text = String::from_utf8_lossy(event);
    let kept: String = text
        .split_inclusive('\n')
        .filter(|line| !line.starts_with("id:"))
        .collect();
    Bytes::from(kept)
}

/// The event with its data replaced by JSON cut short (its other fields kept).
fn malformed(event: &Bytes) -> Bytes {
    let text = String::from_utf8_lossy(event);
    let mut out = String::new();
    let mut replaced = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("data:") {
            if !replaced {
                out.push_str("data: {\"malformed\": \n");
                replaced = true;
            }
        } else {
            out.push_str(line);
        }
    }
    if !replaced {
        out.insert_str(0, "data: {\"malformed\": \n");
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ClockMode;

    fn clock() -> Clock {
        Clock::new(ClockMode::Manual, Clock::fixed_epoch())
    }

    async fn pieces(body: Body) -> (Vec<Bytes>, bool) {
        let mut stream = body.into_data_stream();
        let mut out = Vec::new();
        while let Some(piece) = stream.next().await {
            match piece {
                Ok(piece) => out.push(piece),
                Err(_) => return (out, true),
            }
        }
        (out, false)
    }

    const STREAM: &str =
        "id: 1\ndata: {\"a\":1}\n\nid: 2\ndata: {\"a\":2}\n\nid: 3\ndata: {\"a\":3}\n\n";

    #[tokio::test]
    async fn a_stream_ends_after_its_events_with_or_without_their_ids() {
        let shape = Shape::EndAfterEvents {
            events: 2,
            strip_ids: false,
        };
        let (sent, failed) = pieces(reshape(Body::from(STREAM), shape, clock())).await;
        assert!(!failed);
        assert_eq!(
            sent.concat(),
            b"id: 1\ndata: {\"a\":1}\n\nid: 2\ndata: {\"a\":2}\n\n"
        );
        let stripped = Shape::EndAfterEvents {
            events: 1,
            strip_ids: true,
        };
        let (sent, _) = pieces(reshape(Body::from(STREAM), stripped, clock())).await;
        assert_eq!(sent.concat(), b"data: {\"a\":1}\n\n");
    }

    #[tokio::test]
    async fn one_event_gets_broken_json_and_the_others_pass() {
        let shape = Shape::MalformedEvent { event: 2 };
        let (sent, _) = pieces(reshape(Body::from(STREAM), shape, clock())).await;
        let text = String::from_utf8(sent.concat()).unwrap_or_default();
        assert_eq!(
            text,
            "id: 1\ndata: {\"a\":1}\n\nid: 2\ndata: {\"malformed\": \n\nid: 3\ndata: {\"a\":3}\n\n"
        );
    }

    #[tokio::test]
    async fn a_reset_sends_its_bytes_then_fails_and_a_cut_ends() {
        let reset = Shape::ResetAfter { after_bytes: 5 };
        let (sent, failed) = pieces(reshape(Body::from(STREAM), reset, clock())).await;
        assert_eq!((sent.concat(), failed), (b"id: 1".to_vec(), true));
        let cut = Shape::EndAfter { bytes: 3 };
        let (sent, failed) = pieces(reshape(Body::from("abcdef"), cut, clock())).await;
        assert_eq!((sent.concat(), failed), (b"abc".to_vec(), false));
        let at_once = Shape::ResetAfter { after_bytes: 0 };
        let (sent, failed) = pieces(reshape(Body::from("abc"), at_once, clock())).await;
        assert_eq!((sent.concat(), failed), (Vec::new(), true));
    }

    #[tokio::test]
    async fn a_dribble_waits_on_the_virtual_clock_between_pieces() {
        let clock = clock();
        let shape = Shape::Dribble {
            bytes: 2,
            every: Duration::from_secs(1),
        };
        let mut stream = reshape(Body::from("abcde"), shape, clock.clone()).into_data_stream();
        let first = stream.next().await.and_then(Result::ok);
        assert_eq!(first.as_deref(), Some(&b"ab"[..]));
        let second = tokio::spawn(async move { stream.next().await.and_then(Result::ok) });
        tokio::task::yield_now().await;
        assert!(!second.is_finished(), "a manual clock holds the next piece");
        clock.advance(Duration::from_secs(1));
        let second = second.await.ok().flatten();
        assert_eq!(second.as_deref(), Some(&b"cd"[..]));
    }
}
