//! The one layer every surface's requests pass through on their way in (after their body was
//! read, before the surface sees them): when a fault in force touches a request, it answers
//! for the surface (a status in the surface's envelope, a reset), holds the request (latency),
//! forgets its session, or reshapes the surface's answer on its way out. A scenario's faults
//! are taken by the surface itself ([`checkpoint`](super::checkpoint)); the layer finishes
//! them on the way out. An exchange a fault touched carries a [`FaultNote`] for the journal.

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
use super::checkpoint::collecting;
use super::spec::{FaultSpec, Kind, StatusFault};
use super::store::{Conversation, Facts, Faults, Hit};
use crate::clock::{Clock, after, to_chrono};
use crate::http::shape::ErrorShape;
use crate::journal::FaultNote;

/// The error envelope of the surface that owns a path, or `None` for paths faults never touch
/// (the control API and the pages, so a fault can always be removed).
pub(crate) type ShapeFor = fn(&Method, &str) -> Option<&'static dyn ErrorShape>;

/// Forgets an MCP session by id (the transport's handshake sessions); whether it was open.
pub(crate) type ForgetSession = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// The account a request acts as, however it authenticates (a dev token, an OAuth access
/// token, an API key), or `None` when it does not.
pub(crate) type AccountOf = Arc<dyn Fn(&http::HeaderMap) -> Option<String> + Send + Sync>;

/// A request of a conversation whose scenario declares faults, as a surface that leaves its
/// scenarios' faults to the layer (the MCP endpoint) routes it.
pub(crate) struct Routed {
    /// The scenario it follows.
    pub(crate) scenario: String,
    /// The account it acts as.
    pub(crate) account: String,
    /// The scenario's faults.
    pub(crate) faults: Vec<FaultSpec>,
}

/// Which conversation a request belongs to, for a surface whose scenarios' faults the layer
/// takes (`None`: the request starts or names none whose scenario has faults).
pub(crate) type ConversationOf =
    Arc<dyn Fn(&http::HeaderMap, &[u8]) -> Option<Routed> + Send + Sync>;

/// What the layer stands on besides the faults: the clock their waits run on, and the
/// surfaces' parts it calls.
#[derive(Clone)]
pub(crate) struct Hooks {
    /// Virtual time.
    pub(crate) clock: Clock,
    /// The envelope each path answers in.
    pub(crate) shapes: ShapeFor,
    /// Forgets an MCP session.
    pub(crate) forget: ForgetSession,
    /// Who a request acts as.
    pub(crate) accounts: AccountOf,
    /// The conversation of a request to the MCP endpoint; `None` when no Computer scenario
    /// declares faults, which keeps the endpoint on the fast path.
    pub(crate) conversations: Option<ConversationOf>,
}

/// The layer that applies the faults in force.
#[derive(Clone)]
pub(crate) struct InjectFaults {
    faults: Faults,
    hooks: Hooks,
}

impl InjectFaults {
    /// Applies `faults` with `hooks`.
    pub(crate) fn new(faults: Faults, hooks: Hooks) -> Self {
        Self { faults, hooks }
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
        let Some(shape) = (self.injector.hooks.shapes)(request.method(), request.uri().path())
        else {
            return Either::Left(self.inner.call(request));
        };
        // The fast path: no fault in force costs one atomic read, on a surface that takes no
        // scenario's faults itself, while no scenario of the others declares any.
        if !self.injector.faults.any()
            && !shape.takes_scenario_faults()
            && self.injector.hooks.conversations.is_none()
        {
            return Either::Left(self.inner.call(request));
        }
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
    let routes = !shape.takes_scenario_faults() && injector.hooks.conversations.is_some();
    let (hit, request) = if injector.faults.any() || routes {
        take(&injector, request, routes).await
    } else {
        (None, request)
    };
    let (mut response, hit) = match hit {
        Some(hit) => (apply(&injector, shape, &hit, inner, request).await, hit),
        None if shape.takes_scenario_faults() => {
            let (response, taken) = collecting(run(inner, request)).await;
            let Some(hit) = taken else {
                return response;
            };
            (finish(&injector, &hit.kind, response).await, hit)
        }
        None => return run(inner, request).await,
    };
    response.extensions_mut().insert(FaultNote {
        fault: hit.note(),
        no_head: matches!(hit.kind, Kind::ResetBeforeHeaders),
    });
    response
}

/// The fault the layer applies that touches `request`, if any (with `routes`, also one of its
/// conversation's scenario), and the request to go on with.
async fn take(injector: &InjectFaults, request: Request, routes: bool) -> (Option<Hit>, Request) {
    let (parts, body) = request.into_parts();
    // The body was read whole by the body limit: collecting it again costs no copy.
    let (bytes, body) = if routes || injector.faults.reads_bodies() {
        let bytes = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        (bytes.clone(), Body::from(bytes))
    } else {
        (bytes::Bytes::new(), body)
    };
    let account = if injector.faults.reads_accounts() {
        (injector.hooks.accounts)(&parts.headers)
    } else {
        None
    };
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok());
    let facts = Facts {
        method: parts.method.as_str(),
        path: parts.uri.path(),
        session: header("mcp-session-id"),
        key: crate::http::auth::bearer_token(&parts.headers),
        account: account.as_deref(),
        body: &bytes,
    };
    let now = injector.hooks.clock.now();
    let hit = injector.faults.take(&facts, now).or_else(|| {
        let routed = (injector.hooks.conversations.as_ref()?)(&parts.headers, &bytes)?;
        let conversation = Conversation {
            surface: "Computer",
            scenario: &routed.scenario,
            account: &routed.account,
            faults: &routed.faults,
        };
        injector.faults.take_in(&conversation, now)
    });
    (hit, Request::from_parts(parts, body))
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
    let clock = &injector.hooks.clock;
    match &hit.kind {
        Kind::Status(status) => status_answer(shape, hit, status),
        Kind::ResetBeforeHeaders => Response::new(reset_at_once()),
        Kind::Latency(delay) => {
            clock
                .block_until(after(clock.now(), to_chrono(*delay)))
                .await;
            run(inner, request).await
        }
        Kind::ForgetSession => {
            if let Some(session) = request
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
            {
                (injector.hooks.forget)(session);
            }
            // The transport answers for itself: the session is unknown to it now.
            run(inner, request).await
        }
        kind => {
            let response = run(inner, request).await;
            finish(injector, kind, response).await
        }
    }
}

/// What a fault does to an answer the surface gave: the body reshaped, or (for a scenario's
/// fault, which the surface took) the answer held for its latency or replaced by a reset.
async fn finish(injector: &InjectFaults, kind: &Kind, response: Response) -> Response {
    let clock = injector.hooks.clock.clone();
    let reshaped = |response: Response, body_shape: Shape| {
        let (mut parts, body) = response.into_parts();
        if !matches!(body_shape, Shape::Dribble { .. } | Shape::ResetAfter { .. }) {
            // The events change the body's length; a cut declares the whole one itself.
            parts.headers.remove(header::CONTENT_LENGTH);
        }
        Response::from_parts(parts, reshape(body, body_shape, clock.clone()))
    };
    match kind {
        // The surface answered in its own envelope.
        Kind::Status(_) | Kind::ForgetSession => response,
        Kind::ResetBeforeHeaders => Response::new(reset_at_once()),
        Kind::Latency(delay) => {
            clock
                .block_until(after(clock.now(), to_chrono(*delay)))
                .await;
            response
        }
        Kind::ResetMidBody { after_bytes } => reshaped(
            response,
            Shape::ResetAfter {
                after_bytes: *after_bytes,
            },
        ),
        Kind::EndAfterEvents { events, strip_ids } => reshaped(
            response,
            Shape::EndAfterEvents {
                events: *events,
                strip_ids: *strip_ids,
            },
        ),
        Kind::MalformedEvent { event } => {
            reshaped(response, Shape::MalformedEvent { event: *event })
        }
        Kind::Dribble { bytes, every } => reshaped(
            response,
            Shape::Dribble {
                bytes: *bytes,
                every: *every,
            },
        ),
        Kind::CutBody { bytes } => cut(response, *bytes, clock.clone()).await,
    }
}

/// The answer a status fault the layer applies gives: the surface's envelope, with the delay
/// to wait, and a message saying it is the mock's injected fault (unless the spec gives one).
fn status_answer(shape: &dyn ErrorShape, hit: &Hit, fault: &StatusFault) -> Response {
    let status = fault.status;
    let wait = fault
        .retry_after
        .map(|d| format!("retry after {} s (Retry-After)", whole_seconds(d)));
    let advice = match (status, wait) {
        (_, Some(wait)) => wait,
        (StatusCode::TOO_MANY_REQUESTS, None) => "slow down, then retry".to_owned(),
        _ => "retry the request; an answered non-idempotent call must not be resent".to_owned(),
    };
    let reason = status.canonical_reason().unwrap_or("Error");
    let sentence = fault.message.clone().unwrap_or_else(|| {
        format!(
            "{reason} (the mock's injected fault {}): {advice}. DELETE /_mock/faults removes it.",
            hit.id
        )
    });
    let mut response = match &fault.error_type {
        Some(kind) => shape.typed_error(status, kind, &sentence),
        None => shape.error(status, &sentence),
    };
    let headers = response.headers_mut();
    if let Some(delay) = fault.retry_after {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(whole_seconds(delay)));
        if shape.says_retry_after_ms() {
            let ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            headers.insert("retry-after-ms", HeaderValue::from(ms));
        }
    }
    if let Some(ms) = fault.retry_after_ms
        && shape.says_retry_after_ms()
    {
        headers.insert("retry-after-ms", HeaderValue::from(ms));
    }
    if let Some(retry) = fault.should_retry {
        headers.insert(
            "x-should-retry",
            HeaderValue::from_static(if retry { "true" } else { "false" }),
        );
    }
    response
}

/// A delay in whole seconds, rounded up, as `Retry-After` says it.
fn whole_seconds(delay: std::time::Duration) -> u64 {
    delay.as_secs() + u64::from(delay.subsec_nanos() > 0)
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
