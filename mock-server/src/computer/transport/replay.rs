//! The resumable streams of a handshake session, as the MCP transport's "Resumability and
//! Redelivery" describes them.
//!
//! Every event a POSTed request's stream sends carries an id unique in the session that names
//! its stream (`{stream}-{n}`: the session's stream number, then the event's from 1). The
//! stream's messages are kept while its call runs, and a while after (the session's last
//! [`MAX_STREAMS`] streams); a `GET` with `Last-Event-ID` replays the ones after that id, from
//! that stream only, then carries on with the live ones until the response, which ends it. A
//! client that goes away is not taken to cancel its call ("Disconnection SHOULD NOT be
//! interpreted as the client cancelling its request"): the call runs on until the session ends.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::response::Response;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use parking_lot::Mutex;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio_stream::wrappers::UnboundedReceiverStream;

use crate::computer::model::error::ErrorData;
use crate::http::sse;

/// How many streams a session keeps to resume; past it the oldest finished one is forgotten.
pub(crate) const MAX_STREAMS: usize = 16;
/// How many messages a stream keeps to replay; past it the oldest are forgotten.
pub(crate) const MAX_EVENTS: usize = 1024;

/// A session's streams.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    next: AtomicU64,
    logs: Mutex<VecDeque<Arc<Log>>>,
}

impl Streams {
    /// A new stream of the session, numbered after the others.
    pub(crate) fn open(&self) -> Arc<Log> {
        let stream = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let log = Arc::new(Log {
            stream,
            state: Mutex::new(State::default()),
        });
        let mut logs = self.logs.lock();
        if logs.len() >= MAX_STREAMS
            && let Some(oldest_done) = logs.iter().position(|log| log.state.lock().done)
        {
            logs.remove(oldest_done);
        }
        logs.push_back(log.clone());
        log
    }

    /// The session ended: its calls stop and its streams close.
    pub(crate) fn close(&self) {
        for log in self.logs.lock().drain(..) {
            let mut state = log.state.lock();
            if let Some(call) = state.call.take() {
                call.abort();
            }
            state.live = None;
            state.done = true;
        }
    }

    /// `GET` with `Last-Event-ID: last`: what its stream sent after it, then the rest live.
    pub(crate) fn resume(&self, last: &str) -> Result<Response, ErrorData> {
        let unknown = || {
            ErrorData::bad_request(format!(
                "Bad Request: Last-Event-ID `{last}` names no stream of this session. Send the \
                 id of the last event received on the stream that dropped (this server's ids \
                 look like `3-2`); a stream is kept for the session's last {MAX_STREAMS} \
                 streams."
            ))
        };
        let (stream, seen) = last.split_once('-').ok_or_else(unknown)?;
        let (Ok(stream), Ok(seen)) = (stream.parse::<u64>(), seen.parse::<u64>()) else {
            return Err(unknown());
        };
        let log = self
            .logs
            .lock()
            .iter()
            .find(|log| log.stream == stream)
            .cloned()
            .ok_or_else(unknown)?;
        log.follow(seen).map_err(|first| {
            ErrorData::bad_request(format!(
                "Bad Request: Last-Event-ID `{last}` is older than what this stream kept: it \
                 keeps its last {MAX_EVENTS} events, from `{stream}-{first}`."
            ))
        })
    }
}

/// One stream's messages, and the connection following it.
#[derive(Debug)]
pub(crate) struct Log {
    stream: u64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The messages kept, the first of them numbered `dropped + 1`.
    messages: VecDeque<String>,
    /// How many early messages were forgotten to stay under [`MAX_EVENTS`].
    dropped: u64,
    /// The call has answered (or the session ended): nothing more will come.
    done: bool,
    /// The connection that gets each new message: the POST's, or the last GET that resumed.
    live: Option<mpsc::UnboundedSender<Bytes>>,
    /// The call feeding the stream, stopped when the session ends.
    call: Option<AbortHandle>,
}

impl Log {
    /// Ties the call that feeds the stream to it, so that ending the session stops it.
    pub(crate) fn feeds(&self, call: AbortHandle) {
        self.state.lock().call = Some(call);
    }

    /// Sends `message` as the stream's next event, and keeps it to replay.
    pub(crate) fn push(&self, message: String) {
        let mut state = self.state.lock();
        let number = state.dropped + state.messages.len() as u64 + 1;
        let event = self.encode(number, &message);
        if let Some(live) = &state.live
            && live.send(event).is_err()
        {
            state.live = None;
        }
        state.messages.push_back(message);
        if state.messages.len() > MAX_EVENTS {
            state.messages.pop_front();
            state.dropped += 1;
        }
    }

    /// The call answered: the response was the last event, and the live connection ends.
    pub(crate) fn finish(&self) {
        let mut state = self.state.lock();
        state.done = true;
        state.live = None;
        state.call = None;
    }

    /// The stream from its first event: the POST's answer, before anything was sent.
    pub(crate) fn follow_from_start(&self) -> Response {
        // Nothing is forgotten before the first event, so this cannot be too old.
        self.follow(0)
            .unwrap_or_else(|_| sse::response(futures::stream::empty(), sse::KEEP_ALIVE_INTERVAL))
    }

    /// The stream from the event after number `seen` on: the kept ones at once, then the live
    /// ones until the call answers. A connection that followed it before is let go. `Err`
    /// carries the first number kept, when `seen` is older than that.
    pub(crate) fn follow(&self, seen: u64) -> Result<Response, u64> {
        let mut state = self.state.lock();
        if seen < state.dropped {
            return Err(state.dropped + 1);
        }
        let skip = usize::try_from(seen - state.dropped).unwrap_or(usize::MAX);
        let kept: Vec<Bytes> = state
            .messages
            .iter()
            .enumerate()
            .skip(skip)
            .map(|(index, message)| self.encode(state.dropped + index as u64 + 1, message))
            .collect();
        let rest: Box<dyn Stream<Item = Bytes> + Send + Unpin> = if state.done {
            Box::new(futures::stream::empty())
        } else {
            let (live, receiver) = mpsc::unbounded_channel();
            state.live = Some(live);
            Box::new(UnboundedReceiverStream::new(receiver))
        };
        Ok(sse::response(
            futures::stream::iter(kept).chain(rest),
            sse::KEEP_ALIVE_INTERVAL,
        ))
    }

    fn encode(&self, number: u64, message: &str) -> Bytes {
        sse::Event {
            name: Some("message"),
            id: Some(&format!("{}-{number}", self.stream)),
            data: message,
        }
        .encode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    async fn body(response: Response) -> String {
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("an SSE body is readable")
            .to_bytes();
        String::from_utf8(bytes.to_vec()).expect("SSE is UTF-8")
    }

    #[tokio::test]
    async fn event_ids_name_the_stream_and_are_unique_in_the_session() {
        let streams = Streams::default();
        let (first, second) = (streams.open(), streams.open());
        for log in [&first, &second] {
            log.push("{\"a\":1}".into());
            log.push("{\"b\":2}".into());
            log.finish();
        }
        let first = body(first.follow(0).expect("nothing dropped yet")).await;
        let second = body(second.follow(0).expect("nothing dropped yet")).await;
        assert!(
            first.contains("id: 1-1\n") && first.contains("id: 1-2\n"),
            "{first}"
        );
        assert!(
            second.contains("id: 2-1\n") && second.contains("id: 2-2\n"),
            "{second}"
        );
    }

    #[tokio::test]
    async fn a_resume_replays_only_what_came_after_the_last_id_then_goes_on_live() {
        let streams = Streams::default();
        let log = streams.open();
        log.push("one".into());
        log.push("two".into());
        let resumed = streams.resume("1-1").expect("1-1 was sent");
        log.push("three".into());
        log.finish();
        let text = body(resumed).await;
        assert!(!text.contains("data: one"), "{text}");
        assert!(text.contains("id: 1-2\ndata: two\n"), "{text}");
        assert!(text.contains("id: 1-3\ndata: three\n"), "{text}");
    }

    #[test]
    fn an_id_of_no_stream_or_not_of_this_form_is_refused_with_what_to_send() {
        let streams = Streams::default();
        streams.open();
        for last in ["7-1", "nonsense", "1-x"] {
            let error = streams.resume(last).expect_err("the id is not resumable");
            assert!(error.message.contains("names no stream"), "{last}");
            let response = axum::response::IntoResponse::into_response(error);
            assert_eq!(response.status(), axum::http::StatusCode::BAD_REQUEST);
        }
    }

    #[test]
    fn a_full_session_forgets_its_oldest_finished_stream_and_keeps_live_ones() {
        let streams = Streams::default();
        let live = streams.open();
        let finished = streams.open();
        finished.finish();
        for _ in 2..MAX_STREAMS {
            streams.open();
        }
        streams.open();
        assert!(
            streams.resume("2-0").is_err(),
            "the finished stream is gone"
        );
        assert!(streams.resume("1-0").is_ok(), "the live stream is kept");
        drop(live);
    }

    #[test]
    fn a_long_stream_keeps_its_last_events_and_says_so_for_an_older_id() {
        let streams = Streams::default();
        let log = streams.open();
        for n in 0..MAX_EVENTS + 2 {
            log.push(n.to_string());
        }
        let error = streams.resume("1-1").expect_err("the stream is gone");
        assert!(error.message.contains("from `1-3`"), "{}", error.message);
        assert!(streams.resume("1-2").is_ok());
    }

    #[tokio::test]
    async fn ending_the_session_stops_the_call_and_closes_the_stream() {
        let streams = Streams::default();
        let log = streams.open();
        let call = tokio::spawn(std::future::pending::<()>());
        log.feeds(call.abort_handle());
        let following = log.follow(0).expect("nothing dropped yet");
        streams.close();
        assert!(call.await.expect_err("the call was aborted").is_cancelled());
        assert_eq!(body(following).await, "");
    }
}
