//! The recording proxy: every request to it goes to the upstream as it came (its URL rewritten
//! from the proxy's base to the upstream's), every answer comes back as the upstream sent it
//! (an event stream frame by frame, as it arrives), and both are kept in [`Captures`].
//!
//! The proxy knows no route: the Computer MCP endpoint (both eras, SSE), OAuth discovery and
//! sign-in, the Agent API (sync, streams, background polling) and any other route pass through
//! the same handler. Only what the upstream's answers say is rewritten: a URL under the
//! upstream's base (a sign-in page, a download link, OAuth metadata, a redirect) points at the
//! proxy instead, so a client that follows it stays on the recording.

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use http_body_util::BodyExt;

use super::capture::{Captured, CapturedEvent, Captures};
use super::error::RecordError;

/// The largest request body the proxy forwards (uploads included).
const MAX_REQUEST_BODY: usize = 256 * 1024 * 1024;

/// Headers that belong to one hop, never forwarded (RFC 9110 section 7.6.1), plus the ones the
/// proxy sets itself.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
    // The proxy reads bodies to record and rewrite them: it asks for them uncompressed.
    "accept-encoding",
];

/// A running recording proxy.
#[derive(Debug)]
pub struct Proxy {
    base_url: String,
    upstream: String,
    captures: Captures,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: tokio::task::JoinHandle<()>,
}

/// What the handler shares.
#[derive(Clone)]
struct Forwarder {
    client: reqwest::Client,
    upstream: String,
    base_url: String,
    captures: Captures,
}

impl Proxy {
    /// Starts a proxy for `upstream` (a base URL such as `https://www.perplexity.ai`) listening
    /// on `listen` (`127.0.0.1:0` picks a free port).
    pub async fn start(upstream: &str, listen: &str) -> Result<Self, RecordError> {
        let upstream = upstream.trim_end_matches('/').to_owned();
        if !(upstream.starts_with("http://") || upstream.starts_with("https://")) {
            return Err(RecordError::Upstream(format!(
                "`{upstream}` is not an http:// or https:// URL: give the service's base URL, \
                 for example https://www.perplexity.ai"
            )));
        }
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| RecordError::Listen(listen.to_owned(), e))?;
        let address: SocketAddr = listener
            .local_addr()
            .map_err(|e| RecordError::Listen(listen.to_owned(), e))?;
        let base_url = format!("http://{address}");
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| RecordError::Upstream(e.to_string()))?;
        let captures = Captures::new();
        let forwarder = Forwarder {
            client,
            upstream: upstream.clone(),
            base_url: base_url.clone(),
            captures: captures.clone(),
        };
        let app = axum::Router::new().fallback(forward).with_state(forwarder);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Ok(Self {
            base_url,
            upstream,
            captures,
            stop: Some(stop),
            server,
        })
    }

    /// `http://HOST:PORT` of the proxy.
    pub fn uri(&self) -> &str {
        &self.base_url
    }

    /// The upstream's base URL.
    pub fn upstream(&self) -> &str {
        &self.upstream
    }

    /// Stops listening and returns every exchange recorded; answers still streaming end here.
    pub async fn stop(mut self) -> Vec<Captured> {
        let exchanges = self.captures.snapshot();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // Open streams would hold a graceful shutdown forever: a short grace, then away.
        let _ = tokio::time::timeout(Duration::from_millis(200), &mut self.server).await;
        self.server.abort();
        exchanges
    }
}

/// Forwards one request and streams its answer back, recording both.
async fn forward(State(f): State<Forwarder>, request: Request) -> Response {
    let at = f.captures.elapsed();
    let (parts, body) = request.into_parts();
    let body = match http_body_util::Limited::new(body, MAX_REQUEST_BODY)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("mock-server record: could not read the request body: {error}"),
            );
        }
    };
    let body = rewrite_bytes(body, &f.base_url, &f.upstream);
    let path = parts.uri.path().to_owned();
    let query = parts
        .uri
        .query()
        .map(|q| rewrite_text(q, &f.base_url, &f.upstream));
    let mut headers = HeaderMap::new();
    for (name, value) in &parts.headers {
        if HOP_BY_HOP.contains(&name.as_str()) {
            continue;
        }
        headers.append(
            name.clone(),
            rewrite_header(value, &f.base_url, &f.upstream),
        );
    }
    let url = match &query {
        Some(q) => format!("{}{path}?{q}", f.upstream),
        None => format!("{}{path}", f.upstream),
    };
    let index = f.captures.arrived(Captured {
        at,
        ended: None,
        method: parts.method.clone(),
        path,
        query,
        request_headers: headers.clone(),
        request_body: body.clone(),
        status: 0,
        response_headers: HeaderMap::new(),
        response_body: Bytes::new(),
        events: Vec::new(),
    });
    let sent = f
        .client
        .request(parts.method, &url)
        .headers(headers)
        .body(body)
        .send()
        .await;
    let upstream = match sent {
        Ok(upstream) => upstream,
        Err(error) => {
            f.captures
                .update(index, |e| e.ended = Some(f.captures.elapsed()));
            return plain(
                StatusCode::BAD_GATEWAY,
                format!(
                    "mock-server record: the upstream {} did not answer: {}",
                    f.upstream,
                    super::error::describe(&error)
                ),
            );
        }
    };
    let status = upstream.status();
    let mut response_headers = HeaderMap::new();
    for (name, value) in upstream.headers() {
        if !HOP_BY_HOP.contains(&name.as_str()) {
            response_headers.append(name.clone(), value.clone());
        }
    }
    f.captures.update(index, |e| {
        e.status = status.as_u16();
        e.response_headers = response_headers.clone();
    });
    let client_headers: HeaderMap = response_headers
        .iter()
        .map(|(name, value)| {
            (
                name.clone(),
                rewrite_header(value, &f.upstream, &f.base_url),
            )
        })
        .collect();
    let streaming = response_headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let body = if streaming {
        Body::from_stream(relay_stream(f, index, upstream))
    } else {
        let bytes = match read_all(upstream).await {
            Ok(bytes) => bytes,
            Err(error) => {
                f.captures
                    .update(index, |e| e.ended = Some(f.captures.elapsed()));
                return plain(
                    StatusCode::BAD_GATEWAY,
                    format!(
                        "mock-server record: the upstream's answer broke off: {}",
                        super::error::describe(&error)
                    ),
                );
            }
        };
        let ended = f.captures.elapsed();
        f.captures.update(index, |e| {
            e.response_body = bytes.clone();
            e.ended = Some(ended);
        });
        Body::from(rewrite_bytes(bytes, &f.upstream, &f.base_url))
    };
    let mut response = Response::new(body);
    *response.status_mut() = status;
    *response.headers_mut() = client_headers;
    response
}

/// Reads a whole (non-stream) answer.
async fn read_all(mut upstream: reqwest::Response) -> Result<Bytes, reqwest::Error> {
    let mut body = BytesMut::new();
    while let Some(chunk) = upstream.chunk().await? {
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

/// Relays an event stream frame by frame: each complete frame is recorded with its arrival time
/// and sent on with its URLs rewritten (a frame cut between two chunks waits for its end).
fn relay_stream(
    f: Forwarder,
    index: usize,
    upstream: reqwest::Response,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> {
    futures::stream::unfold(
        (Some(upstream), BytesMut::new()),
        move |(upstream, mut pending)| {
            let f = f.clone();
            async move {
                let mut upstream = upstream?;
                loop {
                    if let Some(end) = crate::http::sse::event_end(&pending) {
                        let frame = pending.split_to(end.0).freeze();
                        let _blank_line = pending.split_to(end.1);
                        let at = f.captures.elapsed();
                        f.captures.update(index, |e| {
                            e.events.push(CapturedEvent {
                                at,
                                frame: frame.clone(),
                            });
                        });
                        let mut out =
                            BytesMut::from(&rewrite_bytes(frame, &f.upstream, &f.base_url)[..]);
                        out.extend_from_slice(b"\n\n");
                        return Some((Ok(out.freeze()), (Some(upstream), pending)));
                    }
                    match upstream.chunk().await {
                        Ok(Some(chunk)) => pending.extend_from_slice(&chunk),
                        Ok(None) | Err(_) => {
                            let ended = f.captures.elapsed();
                            let rest = pending.split().freeze();
                            f.captures.update(index, |e| {
                                if !rest.iter().all(u8::is_ascii_whitespace) {
                                    e.events.push(CapturedEvent {
                                        at: ended,
                                        frame: rest.clone(),
                                    });
                                }
                                e.ended = Some(ended);
                            });
                            if rest.is_empty() {
                                return None;
                            }
                            let out = rewrite_bytes(rest, &f.upstream, &f.base_url);
                            return Some((Ok(out), (None, BytesMut::new())));
                        }
                    }
                }
            }
        },
    )
    .boxed()
}

/// `text` with every occurrence of the base URL `from` replaced by `to`.
fn rewrite_text(text: &str, from: &str, to: &str) -> String {
    text.replace(from, to)
        .replace(&crate::percent_encode(from), &crate::percent_encode(to))
}

/// A body with URLs rewritten, when it is text (binary bodies pass as they are).
fn rewrite_bytes(body: Bytes, from: &str, to: &str) -> Bytes {
    match std::str::from_utf8(&body) {
        Ok(text) if text.contains(from) || text.contains(&crate::percent_encode(from)) => {
            Bytes::from(rewrite_text(text, from, to))
        }
        _ => body,
    }
}

/// A header value with URLs rewritten (a redirect to the client's own callback carries the
/// issuer only percent-encoded, in `iss`).
fn rewrite_header(value: &HeaderValue, from: &str, to: &str) -> HeaderValue {
    match value.to_str() {
        Ok(text) if text.contains(from) || text.contains(&crate::percent_encode(from)) => {
            HeaderValue::from_str(&rewrite_text(text, from, to)).unwrap_or_else(|_| value.clone())
        }
        _ => value.clone(),
    }
}

/// A plain-text answer of the proxy itself.
fn plain(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        HeaderName::from_static("content-type"),
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_rewritten_plain_and_percent_encoded() {
        let text = "see https://up.example/a and redirect_uri=https%3A%2F%2Fup.example%2Fcb";
        assert_eq!(
            rewrite_text(text, "https://up.example", "http://127.0.0.1:9"),
            "see http://127.0.0.1:9/a and redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb"
        );
    }

    #[test]
    fn a_redirect_to_the_clients_callback_names_the_proxy_as_issuer() {
        let location =
            HeaderValue::from_static("http://127.0.0.1:5/cb?code=c&iss=https%3A%2F%2Fup.example");
        let rewritten = rewrite_header(&location, "https://up.example", "http://127.0.0.1:9");
        assert_eq!(
            rewritten.to_str().ok(),
            Some("http://127.0.0.1:5/cb?code=c&iss=http%3A%2F%2F127.0.0.1%3A9")
        );
    }
}
