//! The accept loop: HTTP/1.1 on hyper directly (axum's own `serve` has no timeouts), with a
//! header read timeout, a body read timeout and total deadline, a cap on open connections at
//! which the oldest connection not being served gives way (`open.rs`), and graceful shutdown.

mod open;

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
use tokio::time::{Instant, Sleep};
use tower::ServiceExt;

use crate::http::body::BodyReadTimeout;
use open::{Activity, OpenConnections};

/// How long a client may take, and how many may be connected at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Longest wait for a request's headers once a connection is open or idle between requests
    /// (default 30 s); the connection is closed after it. Zero turns it off.
    pub header_read_timeout: Duration,
    /// Longest wait for the next piece of a request body (default 30 s); the request is then
    /// answered 408. Zero turns it off.
    pub body_read_timeout: Duration,
    /// Longest a whole request body may take after the request's headers (default 60 s),
    /// however steadily it trickles in; the request is then answered 408. Zero turns it off.
    pub body_total_timeout: Duration,
    /// Most connections open at once (default 512). At the cap a new connection makes room by
    /// closing the oldest one that is not being served (idle, part-way through its headers, or
    /// still sending its body); when every one is busy, it waits until one closes, and the
    /// first time that happens a line on stderr says so.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(30),
            body_read_timeout: Duration::from_secs(30),
            body_total_timeout: Duration::from_secs(60),
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
    let timeouts = BodyTimeouts {
        pause: nonzero(limits.body_read_timeout),
        total: nonzero(limits.body_total_timeout),
    };
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let open = Arc::new(OpenConnections::default());
    let graceful = GracefulShutdown::new();
    let mut all_busy = false;
    tokio::pin!(stop);
    loop {
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
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => {
                all_busy = false;
                permit
            }
            Err(_) => {
                if !open.shed_oldest_unserved() && !all_busy {
                    all_busy = true;
                    eprintln!(
                        "mock-server: {} connections are open and every one is being served, \
                         the most --max-connections allows; new ones wait until one closes",
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
        let _ = stream.set_nodelay(true);
        let (id, activity) = open.opened();
        let (requests, responses) = (activity.clone(), activity.clone());
        let service = TowerToHyperService::new(
            app.clone()
                .map_request(move |request: http::Request<Incoming>| {
                    requests.request_started(!request.body().is_end_stream());
                    let activity = requests.clone();
                    request.map(|body| {
                        axum::body::Body::new(TimeoutBody::new(body, timeouts, activity))
                    })
                })
                .map_response(move |response: axum::response::Response| {
                    let activity = responses.clone();
                    response.map(|body| axum::body::Body::new(SentBody { body, activity }))
                }),
        );
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        let open = open.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = connection => {}
                // Dropping the connection closes its socket.
                () = activity.shed() => {}
            }
            open.closed(id);
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

fn nonzero(d: Duration) -> Option<Duration> {
    (!d.is_zero()).then_some(d)
}

/// How long a request body may pause, and take in all; `None` is no limit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyTimeouts {
    pub(crate) pause: Option<Duration>,
    pub(crate) total: Option<Duration>,
}

/// A request body that fails with [`BodyReadTimeout`] when no frame comes for too long, or
/// when the whole body is not there in time; it tells its connection's [`Activity`] when it
/// is done, so a connection still sending its body counts as not yet served.
pub(crate) struct TimeoutBody<B> {
    inner: B,
    timeouts: BodyTimeouts,
    /// When the whole body must be in, from the request's headers.
    deadline: Option<Instant>,
    /// Armed while the body waits for its next frame.
    pause: Option<Pin<Box<Sleep>>>,
    /// Armed on the first wait, for the total deadline.
    total: Option<Pin<Box<Sleep>>>,
    activity: Arc<Activity>,
}

impl<B> TimeoutBody<B> {
    /// Wraps `inner`, whose request's headers just came.
    pub(crate) fn new(inner: B, timeouts: BodyTimeouts, activity: Arc<Activity>) -> Self {
        Self {
            inner,
            timeouts,
            deadline: timeouts.total.map(|total| Instant::now() + total),
            pause: None,
            total: None,
            activity,
        }
    }

    /// Which timeout, if any, has run out while the body waits (`cx` is woken by both).
    fn timed_out(&mut self, cx: &mut Context<'_>) -> Option<BodyReadTimeout> {
        if let (Some(deadline), Some(total)) = (self.deadline, self.timeouts.total) {
            let sleep = self
                .total
                .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
            if sleep.as_mut().poll(cx).is_ready() {
                return Some(BodyReadTimeout::TooLong(total));
            }
        }
        let pause = self.timeouts.pause?;
        let sleep = self
            .pause
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(pause)));
        if sleep.as_mut().poll(cx).is_ready() {
            self.pause = None;
            return Some(BodyReadTimeout::Paused(pause));
        }
        None
    }
}

impl<B> Drop for TimeoutBody<B> {
    fn drop(&mut self) {
        self.activity.body_done();
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
                this.pause = None;
                if frame.is_none() || this.inner.is_end_stream() {
                    this.activity.body_done();
                }
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => match this.timed_out(cx) {
                Some(timeout) => {
                    this.activity.body_done();
                    Poll::Ready(Some(Err(Box::new(timeout))))
                }
                None => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body that tells its connection's [`Activity`] what it sends (an SSE keep-alive
/// or a message) and when it has been sent (hyper drops it then, or when the client goes
/// away), so a connection streaming an answer counts as busy until the last byte.
struct SentBody {
    body: axum::body::Body,
    activity: Arc<Activity>,
}

impl Drop for SentBody {
    fn drop(&mut self) {
        self.activity.response_done();
    }
}

impl Body for SentBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let frame = Pin::new(&mut self.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &frame
            && let Some(data) = frame.data_ref()
        {
            // http::sse writes a keep-alive as a comment line, `:` first.
            self.activity.response_sent(data.first() == Some(&b':'));
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use http_body_util::BodyExt;
    use tokio::sync::mpsc;
    use tokio_stream::wrappers::ReceiverStream;

    use super::*;

    /// A body fed one byte at a time from a channel, as a trickling client sends it.
    fn trickle(timeouts: BodyTimeouts) -> (mpsc::Sender<Bytes>, impl Body<Error = axum::BoxError>) {
        let (sender, receiver) = mpsc::channel::<Bytes>(1);
        let frames = ReceiverStream::new(receiver).map(|b| Ok::<_, Infallible>(Frame::data(b)));
        let inner = http_body_util::StreamBody::new(frames);
        let body = TimeoutBody::new(inner, timeouts, Arc::new(Activity::default()));
        (sender, body)
    }

    #[tokio::test(start_paused = true)]
    async fn a_steady_trickle_is_cut_at_the_total_deadline_though_it_never_pauses() {
        let (sender, mut body) = trickle(BodyTimeouts {
            pause: Some(Duration::from_secs(29)),
            total: Some(Duration::from_secs(60)),
        });
        let started = Instant::now();
        tokio::spawn(async move {
            // A byte every 28 s: under the pause timeout every time.
            while sender.send(Bytes::from_static(b"x")).await.is_ok() {
                tokio::time::sleep(Duration::from_secs(28)).await;
            }
        });
        let mut bytes = 0;
        let error = loop {
            match body.frame().await {
                Some(Ok(_)) => bytes += 1,
                Some(Err(error)) => break error,
                None => panic!("the trickle ended by itself"),
            }
        };
        let timeout = error.downcast_ref::<BodyReadTimeout>().copied();
        assert_eq!(
            timeout,
            Some(BodyReadTimeout::TooLong(Duration::from_secs(60)))
        );
        assert_eq!(Instant::now() - started, Duration::from_secs(60));
        assert_eq!(bytes, 3, "the bytes at 0, 28 and 56 s came in");
    }

    #[tokio::test(start_paused = true)]
    async fn a_pause_longer_than_the_read_timeout_ends_the_body_before_the_deadline() {
        let (sender, mut body) = trickle(BodyTimeouts {
            pause: Some(Duration::from_secs(5)),
            total: Some(Duration::from_secs(60)),
        });
        let error = body.frame().await.and_then(Result::err).expect("an error");
        drop(sender);
        let timeout = error.downcast_ref::<BodyReadTimeout>().copied();
        assert_eq!(
            timeout,
            Some(BodyReadTimeout::Paused(Duration::from_secs(5)))
        );
    }
}
