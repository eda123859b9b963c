//! Typed answers written once, at the edge, as HTTP responses: a create answer with its
//! request id and `x-ratelimit-*` headers, a retrieve (the response, or its stream), a file's
//! bytes.

use axum::Json;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, header};

use super::service::create::{Answer, Created, RateWindow};
use super::service::lookups::Retrieved;
use super::store::RunFile;
use super::stream;

/// The answer to a create request.
pub(crate) fn created(created: Created) -> Response {
    let Created {
        run,
        answer,
        window,
    } = created;
    let mut response = match answer {
        Answer::Stream => stream::respond(run.clone(), 0),
        Answer::Snapshot(snapshot) => Json(snapshot).into_response(),
        Answer::Refused(error) => error.into_response(),
    };
    // The run's id without its prefix, as the live API's request ids look.
    if let Ok(value) = HeaderValue::from_str(run.id.trim_start_matches("resp_")) {
        response.headers_mut().insert("x-request-id", value);
    }
    rate_limit_headers(&mut response, window);
    response
}

/// `x-ratelimit-*` headers as the live API sends them (limit, remaining, reset, used).
fn rate_limit_headers(response: &mut Response, window: RateWindow) {
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", RateWindow::LIMIT),
        ("x-ratelimit-remaining", window.remaining()),
    ] {
        headers.insert(name, HeaderValue::from(value));
    }
    headers.insert("x-ratelimit-reset", HeaderValue::from(window.reset));
    headers.insert("x-ratelimit-used", HeaderValue::from(window.used));
}

/// The answer to `GET …/{id}`.
pub(crate) fn retrieved(retrieved: Retrieved) -> Response {
    match retrieved {
        Retrieved::Snapshot(snapshot) => Json(snapshot).into_response(),
        Retrieved::Stream { run, from } => stream::respond(run, from),
    }
}

/// A shared file's bytes, as a download.
pub(crate) fn file(file: RunFile) -> Response {
    let mut response = file.content.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", file.filename))
    {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    response
}
