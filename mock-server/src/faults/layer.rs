//! The one layer every surface's requests pass through on their way in (after their body was
//! read, before the surface sees them): when a fault in force touches a request, it answers
//! for the surface (a status in the surface's envelope, a reset), holds the request (latency),
//! forgets its session, or reshapes the surface's answer on its way out. An exchange a fault
//! touched carries a [`FaultNote`] for the journal.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use futures::future::{BoxFuture, Either};
use http_body_util::BodyExt;
use tower::{Layer, Service};

use super::body::{Shape, reset_at_once, reshape};
use super::spec::Kind;
use super::store::{Facts, Faults, Hit};
use crate::clock::{Clock, after, to_chrono};
use crate::http::shape::ErrorShape;
use crate::journal::FaultNote;

/// The error envelope of the surface that owns a path, or `None` for paths faults never touch
/// (the control API and the pages, so a fault can always be removed).
pub(crate) type ShapeFor = fn(&Method, &str) -> Option<&'static dyn ErrorShape>;

/// Forgets an MCP session by id (the transport's handshake sessions); whether it was open.
pub(crate) type ForgetSession = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The layer that applies the faults in force.
#[derive(Clone)]
pub(crate) struct InjectFaults {
    faults: Faults,
    clock: Clock,
    shapes: ShapeFor,
    forget: ForgetSession,
}

impl InjectFaults {
    /// Applies `faults` on `clock`, answering in the envelope `shapes` gives each path.
    pub(crate) fn new(
        faults: Faults,
        clock: Clock,
        shapes: ShapeFor,
        forget: ForgetSession,
    ) -> Self {
        Self {
            faults,
            clock,
            shapes,
            forget,
        }
    }
}

impl<S> Layer<S> for InjectFaults {
    type Service = Faulted<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Faulted {
            inner,
            injector: self.clone(),
        }
    }
}

/// A service whose requests meet the faults in force.
#[derive(Clone)]
pub(crate) struct Faulted<S> {
    inner: S,
    injector: InjectFaults,
}

impl<S> Service<Request> for Faulted<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<S::Future, BoxFuture<'static, Result<Response, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The fast path: no fault in force costs one atomic read.
        if !self.injector.faults.any() {
            return Either::Left(self.inner.call(request));
        }
        let Some(shape) = (self.injector.shapes)(request.method(), request.uri().path()) else {
            return Either::Left(self.inner.call(request));
        };
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let injector = self.injector.clone();
        Either::Right(Box::pin(async move {
            Ok(inject(injector, shape, inner, request).await)
        }))
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

async fn inject<S>(
    injector: InjectFaults,
    shape: &'static dyn ErrorShape,
    inner: S,
    request: Request,
) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let (parts, body) = request.into_parts();
    // The body was read whole by the body limit: collecting it again costs no copy.
    let (bytes, body) = if injector.faults.reads_bodies() {
        let bytes = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        (bytes.clone(), Body::from(bytes))
    } else {
        (bytes::Bytes::new(), body)
    };
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let key = header("authorization").and_then(|v| {
        v.strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
    });
    let facts = Facts {
        method: parts.method.as_str(),
        path: parts.uri.path(),
        session: header("mcp-session-id"),
        key,
        body: &bytes,
    };
    let hit = injector.faults.take(&facts);
    let request = Request::from_parts(parts, body);
    let Some(hit) = hit else {
        return run(inner, request).await;
    };
    let mut response = apply(&injector, shape, &hit, inner, request).await;
    response.extensions_mut().insert(FaultNote {
        fault: hit.note(),
        no_head: matches!(hit.kind, Kind::ResetBeforeHeaders),
    });
    response
}

async fn apply<S>(
    injector: &InjectFaults,
    shape: &'static dyn ErrorShape,
    hit: &Hit,
    inner: S,
    request: Request,
) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let reshaped = |response: Response, body_shape: Shape| {
        let (mut parts, body) = response.into_parts();
        if !matches!(body_shape, Shape::Dribble { .. } | Shape::ResetAfter { .. }) {
            // The events change the body's length; a cut declares the whole one itself.
            parts.headers.remove(header::CONTENT_LENGTH);
        }
        Response::from_parts(parts, reshape(body, body_shape, injector.clock.clone()))
    };
    match &hit.kind {
        Kind::Status {
            status,
            retry_after,
        } => status_answer(shape, hit, *status, *retry_after),
        Kind::ResetBeforeHeaders => Response::new(reset_at_once()),
        Kind::Latency(delay) => {
            let deadline = after(injector.clock.now(), to_chrono(*delay));
            injector.clock.block_until(deadline).await;
            run(inner, request).await
        }
        Kind::ForgetSession => {
            if let Some(session) = request
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
            {
                (injector.forget)(session);
            }
            // The transport answers for itself: the session is unknown to it now.
            run(inner, request).await
        }
        Kind::ResetMidBody { after_bytes } => {
            let response = run(inner, request).await;
            reshaped(
                response,
                Shape::ResetAfter {
                    after_bytes: *after_bytes,
                },
            )
        }
        Kind::EndAfterEvents { events, strip_ids } => {
            let response = run(inner, request).await;
            reshaped(
                response,
                Shape::EndAfterEvents {
                    events: *events,
                    strip_ids: *strip_ids,
                },
            )
        }
        Kind::MalformedEvent { event } => {
            let response = run(inner, request).await;
            reshaped(response, Shape::MalformedEvent { event: *event })
        }
        Kind::Dribble { bytes, every } => {
            let response = run(inner, request).await;
            reshaped(
                response,
                Shape::Dribble {
                    bytes: *bytes,
                    every: *every,
                },
            )
        }
        Kind::CutBody { bytes } => {
            let response = run(inner, request).await;
            cut(response, *bytes, injector.clock.clone()).await
        }
    }
}

/// The answer a status fault gives: the surface's envelope, with the delay to wait.
fn status_answer(
    shape: &dyn ErrorShape,
    hit: &Hit,
    status: StatusCode,
    retry_after: Option<std::time::Duration>,
) -> Response {
    let wait = retry_after.map(|d| {
        let seconds = d.as_secs() + u64::from(d.subsec_nanos() > 0);
        format!("retry after {seconds} s (Retry-After)")
    });
    let advice = match (status, wait) {
        (_, Some(wait)) => wait,
        (StatusCode::TOO_MANY_REQUESTS, None) => "slow down, then retry".to_owned(),
        _ => "retry the request; an answered non-idempotent call must not be resent".to_owned(),
    };
    let reason = status.canonical_reason().unwrap_or("Error");
    let sentence = format!(
        "{reason} (the mock's injected fault {}): {advice}. DELETE /_mock/faults removes it.",
        hit.id
    );
    let mut response = shape.error(status, &sentence);
    if let Some(delay) = retry_after {
        let seconds = delay.as_secs() + u64::from(delay.subsec_nanos() > 0);
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        if shape.says_retry_after_ms() {
            let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            response
                .headers_mut()
                .insert("retry-after-ms", HeaderValue::from(ms));
        }
    }
    response
}

/// The answer with its whole length declared but only its first `bytes` bytes sent.
async fn cut(response: Response, bytes: u64, clock: Clock) -> Response {
    let (mut parts, body) = response.into_parts();
    if is_event_stream(&parts.headers) {
        // A stream has no length to declare (and may never end): it is reset after the bytes.
        let body = reshape(body, Shape::ResetAfter { after_bytes: bytes }, clock);
        return Response::from_parts(parts, body);
    }
    let whole = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(whole.len()));
    let body = reshape(Body::from(whole), Shape::EndAfter { bytes }, clock);
    Response::from_parts(parts, body)
}

fn is_event_stream(headers: &http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}
