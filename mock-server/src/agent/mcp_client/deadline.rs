//! Wall-clock time limits, measured on a watchdog thread instead of tokio timers: the mock often
//! runs on a paused tokio clock (its own tests, and tests that embed it), where a tokio timer
//! fires as soon as the runtime has nothing to do but wait on the network.

use std::future::Future;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use tokio::sync::oneshot;

/// Runs `future` for at most `limit` of wall-clock time (`None` when the limit passed).
///
/// A watchdog thread measures the limit, so the deadline holds even on a paused tokio clock,
/// and the thread ends as soon as the future does.
pub(super) async fn with_deadline<F: Future>(limit: Duration, future: F) -> Option<F::Output> {
    let (expired, on_expiry) = oneshot::channel::<()>();
    let (done, on_done) = std_mpsc::channel::<()>();
    let watchdog = std::thread::Builder::new()
        .name("mcp-client-deadline".to_owned())
        .spawn(move || {
            if let Err(std_mpsc::RecvTimeoutError::Timeout) = on_done.recv_timeout(limit) {
                let _ = expired.send(());
            }
        });
    if watchdog.is_err() {
        // No thread to spare: run without a limit rather than not at all.
        return Some(future.await);
    }
    tokio::pin!(future);
    let output = tokio::select! {
        output = &mut future => Some(output),
        Ok(()) = on_expiry => None,
    };
    drop(done);
    output
}
