//! Server-sent events exactly as the official wire format: one `data: <one-line JSON>` and a
//! blank line per event, no `event:` line and no `[DONE]` (both SDKs accept that form). A
//! stream replays the run's event log from a cursor and follows it live until the terminal
//! event, so a dropped stream resumes with `starting_after`.

use std::sync::Arc;

use axum::response::Response;
use bytes::Bytes;

use super::error::ApiError;
use super::store::Run;
use super::wire::events::StreamEvent;
use crate::http::sse;

/// An SSE response replaying `run`'s events from index `from` and following it to its end.
pub(crate) fn respond(run: Arc<Run>, from: usize) -> Response {
    let changes = run.subscribe();
    let frames = futures::stream::unfold(
        (run, Some(from), changes),
        |(run, next, mut changes)| async move {
            let next = next?;
            loop {
                let (written, terminal, len) = {
                    let state = run.state();
                    let written = state.events.get(next).map(|event| {
                        serde_json::to_string(event).map_err(|e| unwritable(event, &e))
                    });
                    (written, state.terminal, state.events.len())
                };
                match written {
                    Some(Ok(data)) => return Some((frame(&data), (run, Some(next + 1), changes))),
                    // Nothing after an event that cannot be written would make sense to the
                    // client: the stream ends with the reason, in the error envelope.
                    Some(Err(refusal)) => return Some((refusal, (run, None, changes))),
                    None => {}
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
    sse::response(frames, sse::KEEP_ALIVE_INTERVAL)
}

fn frame(data: &str) -> Bytes {
    sse::Event {
        data,
        ..sse::Event::default()
    }
    .encode()
}

/// The `error` event that ends a stream whose next event cannot be written.
fn unwritable(event: &StreamEvent, error: &serde_json::Error) -> Bytes {
    let refusal = ApiError::internal(format!(
        "the mock could not write stream event {} ({}): {error}",
        event.sequence_number,
        event.event.kind()
    ));
    frame(&refusal.body_text())
}
