//! Server-sent events exactly as the official wire format: one `data: <one-line JSON>` and a
//! blank line per event, no `event:` line and no `[DONE]` (both SDKs accept that form). A
//! stream replays the run's event log from a cursor and follows it live until the terminal
//! event, so a dropped stream resumes with `starting_after`.

use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;

use super::store::Run;
use crate::http::sse;

/// How long a stream may stay silent before a keep-alive comment (`:`, which both SDKs skip)
/// tells proxies it is still open: a background-length step can leave a stream quiet for a while.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

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
                    let data = event.to_string();
                    let frame: Bytes = sse::Event {
                        data: &data,
                        ..sse::Event::default()
                    }
                    .encode();
                    return Some((frame, (run, next + 1, changes)));
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
    sse::response(frames, KEEP_ALIVE)
}
