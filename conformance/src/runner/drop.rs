//! A dropped connection, on purpose: the first streamed Agent API answer (`POST /v1/agent`,
//! `/v1/responses` or `/responses` answered with `text/event-stream`) is cut after a set number
//! of events, as a network drop would cut it, so a client's resume with `starting_after` can be
//! judged; or the first MCP `tasks/get` loses its answer, so a client's return to polling the
//! same task can be judged. The layer wraps the mock's router outside its journal, and stops polling the mock's
//! stream once the cut is made, so the journal records exactly the events the client received.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;

/// The paths an Agent API create request is served on.
const CREATE_PATHS: &[&str] = &["/v1/agent", "/v1/responses", "/responses"];

/// How long the cut waits for the events before it to be flushed to the client.
const FLUSH_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// `router`, with its first streamed create answer cut after `events` events.
pub(super) fn apply(router: Router, events: usize) -> Router {
    let cut_done = Arc::new(AtomicBool::new(false));
    router.layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            let cut_done = cut_done.clone();
            async move {
                let create = request.method() == axum::http::Method::POST
                    && CREATE_PATHS.contains(&request.uri().path());
                let response = next.run(request).await;
                let streamed = response
                    .headers()
                    .get(axum::http::header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("text/event-stream"));
                if !create || !streamed || cut_done.swap(true, Ordering::SeqCst) {
                    return response;
                }
                cut(response, events)
            }
        },
    ))
}

/// The response with its body ended by an error after `events` SSE frames.
fn cut(response: Response, events: usize) -> Response {
    let (parts, body) = response.into_parts();
    let frames = futures::stream::unfold(
        (body.into_data_stream(), 0usize, false),
        move |(mut inner, seen, ended)| async move {
            if ended {
                return None;
            }
            if seen >= events {
                // Hyper drops unflushed bytes when a body fails, so the events already passed on
                // get time to reach the client first (a pending body lets hyper flush). Then an
                // error ends the chunked body without its last chunk: the client sees the
                // connection drop, not a clean end of stream.
                tokio::time::sleep(FLUSH_WAIT).await;
                let error = std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "conformance: connection dropped on purpose",
                );
                return Some((Err(error), (inner, seen, true)));
            }
            match inner.next().await {
                Some(Ok(bytes)) => {
                    let seen = seen + bytes.windows(2).filter(|w| w == b"\n\n").count();
                    Some((Ok(bytes), (inner, seen, false)))
                }
                Some(Err(e)) => Some((Err(std::io::Error::other(e)), (inner, seen, true))),
                None => None,
            }
        },
    );
    Response::from_parts(parts, Body::from_stream(frames))
}

/// Requests larger than this are not looked into for `tasks/get` (a poll is a few hundred bytes).
const POLL_BODY_LIMIT: usize = 1 << 20;

/// `router`, with the answer to the first MCP `tasks/get` of a task dropped: the mock handles
/// the poll (the journal records it), but the client gets the status line and then a reset
/// connection.
pub(super) fn first_task_poll(router: Router) -> Router {
    let cut_done = Arc::new(AtomicBool::new(false));
    router.layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            let cut_done = cut_done.clone();
            async move {
                if request.method() != axum::http::Method::POST
                    || request.uri().path() != mock_server::MCP_PATH
                    || cut_done.load(Ordering::SeqCst)
                {
                    return next.run(request).await;
                }
                let (parts, body) = request.into_parts();
                let Ok(bytes) = axum::body::to_bytes(body, POLL_BODY_LIMIT).await else {
                    return axum::http::StatusCode::PAYLOAD_TOO_LARGE.into_response();
                };
                let poll = serde_json::from_slice::<serde_json::Value>(&bytes)
                    .is_ok_and(|m| m.get("method").and_then(|v| v.as_str()) == Some("tasks/get"));
                let response = next
                    .run(Request::from_parts(parts, Body::from(bytes)))
                    .await;
                if !poll {
                    return response;
                }
                // Only a poll the mock answered with a task is cut: one refused (an unknown
                // task id) changed nothing a client must recover from.
                let (parts, body) = response.into_parts();
                let Ok(answer) = axum::body::to_bytes(body, POLL_BODY_LIMIT).await else {
                    return Response::from_parts(parts, Body::empty());
                };
                let refused = serde_json::from_slice::<serde_json::Value>(&answer)
                    .is_ok_and(|m| m.get("error").is_some());
                if refused || cut_done.swap(true, Ordering::SeqCst) {
                    return Response::from_parts(parts, Body::from(answer));
                }
                let reset = futures::stream::once(async {
                    Err::<axum::body::Bytes, _>(std::io::Error::new(
                        std::io::ErrorKind::ConnectionReset,
                        "conformance: connection dropped on purpose",
                    ))
                });
                Response::from_parts(parts, Body::from_stream(reset))
            }
        },
    ))
}
