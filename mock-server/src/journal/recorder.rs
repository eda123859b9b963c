//! The middleware that records every exchange (except reads of the journal itself) and
//! enforces the body limits, answering a refused body in its surface's own error shape.
//!
//! It costs a call no parse: the request body is read once (it has to be, to enforce the
//! limit), its first bytes copied for the journal, and the response captured as it goes out.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use chrono::Utc;
use futures::future::BoxFuture;
use http::StatusCode;
use http_body_util::BodyExt;
use serde_json::json;
use tower::{Layer, Service};

use super::capture::Open;
use super::endpoint::JOURNAL_PATH;
use super::redact::Secrets;
use super::store::Journal;
use super::stored::{Record, StoredBody};
use crate::clock::Clock;
use crate::serve::BodyReadTimeout;

/// Largest request body the mock accepts (uploads have their own, larger limit).
pub const BODY_LIMIT: usize = 4 * 1024 * 1024;

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
    let upload = rules.streamed_bodies.contains(&path);
    let surface = Surface::of(path);
    let capturing = journal.capturing();
    if !capturing {
        journal.count_unkept();
    }
    let (parts, body) = request.into_parts();
    let secrets = (rules.secrets)(parts.uri.path());
    let mut record = capturing.then(|| Record::arrived(&parts, secrets, clock.now(), Utc::now()));
    let declared = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if upload {
        let open = record.map(|mut record| {
            record.request_body = StoredBody::Upload { declared };
            Open::new(journal.clone(), clock.clone(), record)
        });
        let response = run(inner, Request::from_parts(parts, body)).await;
        return respond(open, response).await;
    }
    let cap = journal.config().max_body_bytes;
    match read_body(body, surface.limit(), declared).await {
        Ok(bytes) => {
            let open = record.map(|mut record| {
                record.request_body = StoredBody::capture(&bytes, cap);
                Open::new(journal.clone(), clock.clone(), record)
            });
            let response = run(inner, Request::from_parts(parts, Body::from(bytes))).await;
            respond(open, response).await
        }
        Err(refused) => {
            if let Some(record) = &mut record {
                record.request_body = match &refused.kept {
                    kept if kept.is_empty() => StoredBody::Empty,
                    kept => StoredBody::Bytes {
                        kept: Bytes::copy_from_slice(&kept[..kept.len().min(cap)]),
                        length: refused.read,
                    },
                };
            }
            let open = record.map(|record| Open::new(journal.clone(), clock.clone(), record));
            let refusal = surface.refuse(parts.uri.path(), &refused.why, declared);
            respond(open, refusal).await
        }
    }
}

async fn respond(open: Option<Open>, response: Response) -> Response {
    match open {
        Some(open) => open.respond(response).await,
        None => response,
    }
}

/// Why a request body was not accepted.
#[derive(Debug)]
enum Why {
    /// Longer than the endpoint's limit (declared or sent).
    TooLarge { limit: usize },
    /// The client stalled.
    Stalled(BodyReadTimeout),
    /// The body ended early, or could not be read.
    Broken { read: u64, error: String },
}

/// A refused body: why, what was read (at most the limit), and how much.
struct Refused {
    why: Why,
    kept: Bytes,
    read: u64,
}

/// Reads the whole body, never holding more than `limit` bytes of it.
async fn read_body(mut body: Body, limit: usize, declared: Option<u64>) -> Result<Bytes, Refused> {
    let too_large = |kept: Bytes, read: u64| Refused {
        why: Why::TooLarge { limit },
        kept,
        read,
    };
    if declared.is_some_and(|d| d > u64::try_from(limit).unwrap_or(u64::MAX)) {
        return Err(too_large(Bytes::new(), 0));
    }
    let mut chunks = Chunks::default();
    let mut length = 0usize;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                length += data.len();
                chunks.push(data);
                if length > limit {
                    return Err(too_large(chunks.concat(), as_u64(length)));
                }
            }
            Err(error) => {
                let why = match find::<BodyReadTimeout>(&error) {
                    Some(stalled) => Why::Stalled(*stalled),
                    None => Why::Broken {
                        read: as_u64(length),
                        error: error.to_string(),
                    },
                };
                return Err(Refused {
                    why,
                    kept: chunks.concat(),
                    read: as_u64(length),
                });
            }
        }
    }
    let body = chunks.concat();
    match declared {
        Some(declared) if as_u64(body.len()) < declared => Err(Refused {
            why: Why::Broken {
                read: as_u64(body.len()),
                error: "the connection ended".into(),
            },
            read: as_u64(body.len()),
            kept: body,
        }),
        _ => Ok(body),
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

/// Which surface a path belongs to, for its limit and its error shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Surface {
    /// The Agent API: its error envelope, a 32 MiB limit.
    Agent,
    /// The OAuth endpoints: RFC 6749 error bodies.
    OAuth,
    /// The control API: `{"error": sentence}`.
    Control,
    /// The MCP endpoint and anything else: JSON-RPC errors.
    Mcp,
}

impl Surface {
    fn of(path: &str) -> Self {
        if crate::agent::is_agent_path(path) {
            Self::Agent
        } else if path.starts_with("/oauth/") {
            Self::OAuth
        } else if path.starts_with("/_mock") {
            Self::Control
        } else {
            Self::Mcp
        }
    }

    fn limit(self) -> usize {
        match self {
            Self::Agent => crate::agent::BODY_LIMIT,
            Self::OAuth | Self::Control | Self::Mcp => BODY_LIMIT,
        }
    }

    /// The answer to a refused body.
    fn refuse(self, path: &str, why: &Why, declared: Option<u64>) -> Response {
        let (status, sentence) = match why {
            Why::TooLarge { limit } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                match self {
                    Self::Agent => "The request body is larger than the 32 MiB the Agent API \
                                    accepts: send large files by URL (input_file.file_url) \
                                    instead of inline."
                        .to_owned(),
                    _ if path == crate::oauth::MCP_PATH => format!(
                        "The request body is larger than the {} MiB this endpoint accepts. \
                         Send files with create_attachment_upload and pass their \
                         attachment_urls instead of putting their content in a message.",
                        limit / (1024 * 1024)
                    ),
                    _ => format!(
                        "The request body is larger than the {} MiB this endpoint accepts.",
                        limit / (1024 * 1024)
                    ),
                },
            ),
            Why::Stalled(stalled) => (
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "The request body stalled: {stalled} (--body-read-timeout). Send the \
                     body without pausing."
                ),
            ),
            Why::Broken { read, error } => (
                StatusCode::BAD_REQUEST,
                match declared {
                    Some(declared) => format!(
                        "The request body ended after {read} of the {declared} bytes its \
                         Content-Length declared ({error}). Send the whole body."
                    ),
                    None => format!("The request body could not be read to its end: {error}."),
                },
            ),
        };
        match self {
            Self::Agent => {
                let kind = match status {
                    StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
                    StatusCode::REQUEST_TIMEOUT => "request_timeout",
                    _ => "invalid_request",
                };
                // The Agent API's own messages start in lower case and end without a period.
                let sentence = sentence.trim_end_matches('.');
                let mut letters = sentence.chars();
                let sentence: String = letters
                    .next()
                    .map(|first| first.to_lowercase().chain(letters).collect())
                    .unwrap_or_default();
                crate::agent::with_fresh_request_id(
                    crate::agent::ApiError::new(status, kind, sentence).into_response(),
                )
            }
            Self::OAuth => (
                status,
                axum::Json(json!({"error": "invalid_request", "error_description": sentence})),
            )
                .into_response(),
            Self::Control => (status, axum::Json(json!({"error": sentence}))).into_response(),
            Self::Mcp => {
                let kind = match status {
                    StatusCode::BAD_REQUEST => "Parse error",
                    _ => "Invalid Request",
                };
                crate::computer::ErrorData::refused_body(status, format!("{kind}: {sentence}"))
                    .into_response()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
