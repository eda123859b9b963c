//! The middleware that records every exchange (except reads of the journal itself and those
//! the app leaves out), and nothing else: what a surface accepts, and how it refuses the rest,
//! is the surface's.
//!
//! It costs a call no parse: the request body's first bytes are copied for the journal as the
//! surface reads it, and the response is captured as it goes out.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::response::Response;
use chrono::Utc;
use futures::future::BoxFuture;
use tower::{Layer, Service};

use super::arrival::Arrival;
use super::capture::Open;
use super::endpoint::JOURNAL_PATH;
use super::redact::Secrets;
use super::store::Journal;
use super::stored::{Record, StoredBody};
use crate::clock::Clock;
use crate::http::body::declared_length;

/// What the app that mounts the recorder tells it about its paths: the journal knows no
/// surface of its own.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordingRules {
    /// GET paths left unrecorded besides the journal's own reads: a page's polling, which would
    /// otherwise fill the journal with reads of itself.
    pub(crate) unrecorded_reads: &'static [&'static str],
    /// Paths whose request bodies stream past to their endpoint (uploads): buffering them here
    /// too would hold each in memory twice, so only their declared size is recorded.
    pub(crate) streamed_bodies: &'static [&'static str],
    /// Where each path's exchanges carry credentials.
    pub(crate) secrets: fn(&str) -> Secrets,
}

/// The layer that records every exchange of the service it wraps.
#[derive(Clone)]
pub(crate) struct Recorder {
    journal: Journal,
    clock: Clock,
    rules: RecordingRules,
}

impl Recorder {
    /// Records into `journal`, stamping times from `clock`, following `rules`.
    pub(crate) fn new(journal: Journal, clock: Clock, rules: RecordingRules) -> Self {
        Self {
            journal,
            clock,
            rules,
        }
    }
}

impl<S> Layer<S> for Recorder {
    type Service = Recorded<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Recorded {
            inner,
            recorder: self.clone(),
        }
    }
}

/// A service whose exchanges are recorded. Hand-written rather than `from_fn`, which boxes the
/// inner service again on every request.
#[derive(Clone)]
pub(crate) struct Recorded<S> {
    inner: S,
    recorder: Recorder,
}

impl<S> Service<Request> for Recorded<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The clone is not ready yet; the one `poll_ready` readied is the one to call.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let recorder = self.recorder.clone();
        Box::pin(async move { Ok(record(recorder, request, inner).await) })
    }
}

/// Calls `inner`, which never fails.
async fn run<S>(mut inner: S, request: Request) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    match inner.call(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// Records one exchange around `inner`.
async fn record<S>(recorder: Recorder, request: Request, inner: S) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let Recorder {
        journal,
        clock,
        rules,
    } = recorder;
    let path = request.uri().path();
    // Reading the journal would otherwise fill it with reads of itself.
    if path == JOURNAL_PATH
        || (request.method() == http::Method::GET && rules.unrecorded_reads.contains(&path))
    {
        return run(inner, request).await;
    }
    if !journal.capturing() {
        journal.count_unkept();
        return run(inner, request).await;
    }
    let (parts, body) = request.into_parts();
    let secrets = (rules.secrets)(parts.uri.path());
    let mut record = Record::arrived(&parts, secrets, clock.now(), Utc::now());
    if rules.streamed_bodies.contains(&parts.uri.path()) {
        record.request_body = StoredBody::Upload {
            declared: declared_length(&parts.headers),
        };
        let open = Open::new(journal, clock, record);
        let response = run(inner, Request::from_parts(parts, body)).await;
        return open.respond(response).await;
    }
    let arrival = Arrival::new(journal, clock, record);
    let body = arrival.watch(body);
    let response = run(inner, Request::from_parts(parts, body)).await;
    match arrival.open() {
        Some(open) => open.respond(response).await,
        None => response,
    }
}
