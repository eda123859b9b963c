//! The accept loop: HTTP/1.1 on hyper directly (axum's own `serve` has no timeouts), with a
//! header read timeout, a body read timeout, a cap on open connections, and graceful shutdown.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, oneshot};
use tower::ServiceExt;

use crate::http::body::BodyReadTimeout;

/// How long a client may take, and how many may be connected at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Longest wait for a request's headers once a connection is open or idle between requests
    /// (default 30 s); the connection is closed after it. Zero turns it off.
    pub header_read_timeout: Duration,
    /// Longest wait for the next piece of a request body (default 30 s); the request is then
    /// answered 408. Zero turns it off.
    pub body_read_timeout: Duration,
    /// Most connections served at once (default 512); more wait to be accepted until one
    /// closes, and the first time that happens a line on stderr says so.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 512,
        }
    }
}

/// Serves `app` on `listener` until `stop` fires, then lets open requests finish.
pub(crate) async fn serve<S>(
    listener: TcpListener,
    app: S,
    limits: ConnectionLimits,
    stop: oneshot::Receiver<()>,
) where
    S: tower::Service<
            axum::extract::Request,
            Response = axum::response::Response,
            Error = Infallible,
        > + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(nonzero(limits.header_read_timeout));
    let body_timeout = nonzero(limits.body_read_timeout);
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut at_the_cap = false;
    tokio::pin!(stop);
    loop {
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => {
                at_the_cap = false;
                permit
            }
            Err(_) => {
                if !at_the_cap {
                    at_the_cap = true;
                    eprintln!(
                        "mock-server: {} connections are open, the most --max-connections \
                         allows; new ones wait until one closes",
                        limits.max_connections.max(1)
                    );
                }
                tokio::select! {
                    permit = permits.clone().acquire_owned() => match permit {
                        Ok(permit) => permit,
                        Err(_) => break,
                    },
                    _ = &mut stop => break,
                }
            }
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of file descriptors, usually: give closing connections a moment.
                    eprintln!("mock-server: could not accept a connection: {error}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone().map_request(
            move |request: http::Request<Incoming>| {
                request.map(|body| axum::body::Body::new(TimeoutBody::new(body, body_timeout)))
            },
        ));
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            let _ = connection.await;
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

fn nonzero(d: Duration) -> Option<Duration> {
    (!d.is_zero()).then_some(d)
}

/// A request body that fails with [`BodyReadTimeout`] when no frame comes for too long.
pub(crate) struct TimeoutBody<B> {
    inner: B,
    timeout: Option<Duration>,
    idle: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<B> TimeoutBody<B> {
    /// Wraps `inner`; `None` never times out.
    pub(crate) fn new(inner: B, timeout: Option<Duration>) -> Self {
        Self {
            inner,
            timeout,
            idle: None,
        }
    }
}

impl<B> Body for TimeoutBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<axum::BoxError>,
{
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.idle = None;
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                let Some(timeout) = this.timeout else {
                    return Poll::Pending;
                };
                let idle = this
                    .idle
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
                match idle.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.idle = None;
                        Poll::Ready(Some(Err(Box::new(BodyReadTimeout(timeout)))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
