//! Server-sent events exactly as the official wire format: one `data: <one-line JSON>` and a
//! blank line per event, no `event:` line and no `[DONE]` (both SDKs accept that form). A
//! stream replays the run's event log from a cursor and follows it live until the terminal
//! event, so a dropped stream resumes with `starting_after`.

use std::sync::Arc;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{HeaderValue, header};

use super::store::Run;

/// An SSE response replaying `run`'s events from index `from` and following it to its end.
pub(crate) fn respond(run: Arc<Run>, from: usize) -> Response {
    let changes = run.subscribe();
    let frames = futures::stream::unfold(
        (run, from, changes),
        |(run, next, mut changes)| async move {
            loop {
                let (event, terminal, len) = {
                    let state = run.state();
                    (
                        state.events.get(next).cloned(),
                        state.terminal,
                        state.events.len(),
                    )
                };
                if let Some(event) = event {
                    let frame = format!("data: {event}\n\n");
                    return Some((
                        Ok::<Bytes, std::convert::Infallible>(Bytes::from(frame)),
                        (run, next + 1, changes),
                    ));
                }
                if terminal && next >= len {
                    return None;
                }
                if changes.changed().await.is_err() {
                    return None;
                }
            }
        },
    );
    let mut response = Body::from_stream(frames).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}
