//! Reading a request body up to a limit, the one way every surface does it: whole before the
//! handler runs, never holding more than the limit, with a typed [`BodyRefusal`] when the body
//! is declared or sent too large, stalls, or ends early.
//!
//! This module knows no wire shape. A surface implements [`BodyPolicy`] to say how much it
//! reads and how it answers a refusal (the MCP endpoint: a JSON-RPC error; the Agent API: its
//! envelope; ...); the app puts [`LimitBodies`] in front of its surfaces with the policy of
//! each path.

use std::convert::Infallible;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures::future::{BoxFuture, Either};
use http::{HeaderMap, Method, StatusCode, header};
use http_body_util::BodyExt;
use tower::{Layer, Service};

/// The most a surface reads of a request body unless it says otherwise (4 MiB).
pub(crate) const DEFAULT_LIMIT: usize = 4 * 1024 * 1024;

/// The error a request body read ends with when the client is too slow: it paused longer than
/// `--body-read-timeout`, or the whole body took longer than `--body-total-timeout` (so a
/// trickle of one byte every few seconds cannot hold a connection forever).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BodyReadTimeout {
    /// No part of the body came for this long.
    #[error(
        "The request body stalled: no part of the request body arrived for {} \
         (--body-read-timeout). Send the body without pausing.",
        seconds(*.0)
    )]
    Paused(Duration),
    /// The body was still not whole this long after its request's headers.
    #[error(
        "The request body took too long: it was not all there {} after the request's headers \
         (--body-total-timeout). Send the whole body at once, or start the mock with a longer \
         --body-total-timeout.",
        seconds(*.0)
    )]
    TooLong(Duration),
}

/// A duration as a person reads it (`30 s`, `50 ms`).
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} ms", d.as_millis())
    }
}

/// Why a request body was not taken. Its `Display` is the sentence a surface answers with
/// unless it has a better one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BodyRefusal {
    /// Longer than the limit, as declared by `Content-Length` or as sent.
    #[error(
        "The request body is larger than the {} MiB this endpoint accepts.",
        limit / (1024 * 1024)
    )]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The client stopped sending part-way, or sent too slowly.
    #[error("{0}")]
    Stalled(BodyReadTimeout),
    /// The body ended before its declared length, or could not be read.
    #[error("{}", broken(*read, *declared, error))]
    Broken {
        /// Bytes read before it ended.
        read: u64,
        /// Its `Content-Length`, when it declared one.
        declared: Option<u64>,
        /// What ended it.
        error: String,
    },
}

fn broken(read: u64, declared: Option<u64>, error: &str) -> String {
    match declared {
        Some(declared) => format!(
            "The request body ended after {read} of the {declared} bytes its Content-Length \
             declared ({error}). Send the whole body."
        ),
        None => format!("The request body could not be read to its end: {error}."),
    }
}

impl BodyRefusal {
    /// The HTTP status that says it: 413, 408 or 400.
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Self::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Stalled(_) => StatusCode::REQUEST_TIMEOUT,
            Self::Broken { .. } => StatusCode::BAD_REQUEST,
        }
    }
}

/// How a surface takes request bodies: the most it reads, and its answer to one it refused.
pub(crate) trait BodyPolicy: Send + Sync + 'static {
    /// The most bytes of a body it reads.
    fn limit(&self) -> usize;

    /// Its answer to a body it refused, in its own error shape.
    fn refuse(&self, refusal: &BodyRefusal) -> Response;
}

/// The `Content-Length` a request declared, if it declared a readable one.
pub(crate) fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok())
}

/// Reads the whole body, never holding more than `limit` bytes of it; a body declared larger
/// is refused before a byte of it is read.
pub(crate) async fn read(
    mut body: Body,
    limit: usize,
    declared: Option<u64>,
) -> Result<Bytes, BodyRefusal> {
    if declared.is_some_and(|d| d > as_u64(limit)) {
        return Err(BodyRefusal::TooLarge { limit });
    }
    let mut chunks = Chunks::default();
    let mut length = 0usize;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => {
                let Ok(data) = frame.into_data() else {
                    continue; // trailers
                };
                length += data.len();
                chunks.push(data);
                if length > limit {
                    return Err(BodyRefusal::TooLarge { limit });
                }
            }
            Err(error) => {
                return Err(match find::<BodyReadTimeout>(&error) {
                    Some(stalled) => BodyRefusal::Stalled(*stalled),
                    None => BodyRefusal::Broken {
                        read: as_u64(length),
                        declared,
                        error: error.to_string(),
                    },
                });
            }
        }
    }
    match declared {
        Some(declared) if as_u64(length) < declared => Err(BodyRefusal::Broken {
            read: as_u64(length),
            declared: Some(declared),
            error: "the connection ended".into(),
        }),
        _ => Ok(chunks.concat()),
    }
}

fn as_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The frames of a body as they came. Most bodies are one frame, kept without a list.
#[derive(Default)]
struct Chunks {
    first: Option<Bytes>,
    rest: Vec<Bytes>,
}

impl Chunks {
    fn push(&mut self, data: Bytes) {
        if self.first.is_none() {
            self.first = Some(data);
        } else {
            self.rest.push(data);
        }
    }

    /// One buffer (the only frame itself when there was one).
    fn concat(self) -> Bytes {
        let Some(first) = self.first else {
            return Bytes::new();
        };
        if self.rest.is_empty() {
            return first;
        }
        let total = first.len() + self.rest.iter().map(Bytes::len).sum::<usize>();
        let mut joined = BytesMut::with_capacity(total);
        joined.extend_from_slice(&first);
        for chunk in self.rest {
            joined.extend_from_slice(&chunk);
        }
        joined.freeze()
    }
}

/// The first error of type `E` in `error`'s chain of sources.
fn find<'a, E: std::error::Error + 'static>(
    error: &'a (dyn std::error::Error + 'static),
) -> Option<&'a E> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<E>() {
            return Some(found);
        }
        current = e.source();
    }
    None
}

/// The policy for a request (by method and path), or `None` to pass its body on unread.
pub(crate) type PolicyFor = fn(&Method, &str) -> Option<&'static dyn BodyPolicy>;

/// The layer that reads each request's body under its path's policy before the service it
/// wraps sees the request, and answers a refused body with the policy's refusal.
#[derive(Clone, Copy)]
pub(crate) struct LimitBodies {
    policy: PolicyFor,
}

impl LimitBodies {
    /// Reads bodies under the policy `policy` gives each request.
    pub(crate) fn new(policy: PolicyFor) -> Self {
        Self { policy }
    }
}

impl<S> Layer<S> for LimitBodies {
    type Service = Limited<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Limited {
            inner,
            policy: self.policy,
        }
    }
}

/// A service whose requests arrive with their bodies read (or refused).
#[derive(Clone)]
pub(crate) struct Limited<S> {
    inner: S,
    policy: PolicyFor,
}

impl<S> Service<Request> for Limited<S>
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
        let Some(policy) = (self.policy)(request.method(), request.uri().path()) else {
            return Either::Left(self.inner.call(request));
        };
        // The clone is not ready yet; the one `poll_ready` readied is the one to call.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Either::Right(Box::pin(async move {
            let (parts, body) = request.into_parts();
            let declared = declared_length(&parts.headers);
            match read(body, policy.limit(), declared).await {
                Ok(bytes) => {
                    inner
                        .call(Request::from_parts(parts, Body::from(bytes)))
                        .await
                }
                Err(refusal) => Ok(policy.refuse(&refusal)),
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(chunks: Vec<Result<&'static str, std::io::Error>>) -> Body {
        Body::from_stream(futures::stream::iter(
            chunks
                .into_iter()
                .map(|chunk| chunk.map(|text| Bytes::from_static(text.as_bytes()))),
        ))
    }

    #[test]
    fn one_frame_is_kept_as_it_came_and_several_are_joined_in_order() {
        let none = Chunks::default();
        assert!(none.concat().is_empty());

        let frame = Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}");
        let mut one = Chunks::default();
        one.push(frame.clone());
        let kept = one.concat();
        assert_eq!(kept, frame);
        assert_eq!(kept.as_ptr(), frame.as_ptr(), "no copy of a single frame");

        let mut three = Chunks::default();
        for part in ["ab", "", "cde"] {
            three.push(Bytes::from_static(part.as_bytes()));
        }
        assert_eq!(three.concat(), Bytes::from_static(b"abcde"));
    }

    #[tokio::test]
    async fn a_body_within_the_limit_is_read_whole() {
        let body = body_of(vec![Ok("ab"), Ok("cd")]);
        assert_eq!(
            read(body, 4, Some(4)).await,
            Ok(Bytes::from_static(b"abcd"))
        );
        assert_eq!(read(Body::empty(), 0, None).await, Ok(Bytes::new()));
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_too_large_whether_declared_or_sent() {
        let too_large = Err(BodyRefusal::TooLarge { limit: 3 });
        assert_eq!(read(Body::empty(), 3, Some(4)).await, too_large);
        assert_eq!(
            read(body_of(vec![Ok("ab"), Ok("cd")]), 3, None).await,
            too_large
        );
    }

    #[tokio::test]
    async fn a_body_that_ends_early_says_how_much_came() {
        let short = read(Body::from("ab"), 10, Some(5)).await;
        let Err(refusal) = short else {
            panic!("a short body is refused: {short:?}");
        };
        assert_eq!(refusal.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            refusal.to_string(),
            "The request body ended after 2 of the 5 bytes its Content-Length declared (the \
             connection ended). Send the whole body."
        );
        let broken = body_of(vec![Ok("ab"), Err(std::io::Error::other("gone"))]);
        let refusal = read(broken, 10, None).await.err().map(|r| r.to_string());
        assert_eq!(
            refusal.as_deref(),
            Some("The request body could not be read to its end: gone.")
        );
    }

    #[test]
    fn each_refusal_has_its_status_and_sentence() {
        let large = BodyRefusal::TooLarge {
            limit: DEFAULT_LIMIT,
        };
        assert_eq!(large.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            large.to_string(),
            "The request body is larger than the 4 MiB this endpoint accepts."
        );
        let stalled = BodyRefusal::Stalled(BodyReadTimeout::Paused(Duration::from_millis(50)));
        assert_eq!(stalled.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(
            stalled.to_string(),
            "The request body stalled: no part of the request body arrived for 50 ms \
             (--body-read-timeout). Send the body without pausing."
        );
        let too_long = BodyRefusal::Stalled(BodyReadTimeout::TooLong(Duration::from_secs(60)));
        assert_eq!(too_long.status(), StatusCode::REQUEST_TIMEOUT);
        assert!(
            too_long.to_string().contains("not all there 60 s after"),
            "{too_long}"
        );
    }
}
