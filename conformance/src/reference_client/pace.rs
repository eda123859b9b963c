//! `--delay-ms`: the reference client as a slow client. It waits this long (real time) before
//! every request it sends, to the mock and to the user channel alike, as a Python client on a
//! busy CI runner does; verdicts must not change (the conformance runner's driven clock does
//! not count the client's time between requests).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The delay before each request, in milliseconds (set once per run by [`set_delay`]).
static DELAY_MS: AtomicU64 = AtomicU64::new(0);

/// Sets the delay before each request of this process's reference client.
pub(super) fn set_delay(delay: Duration) {
    DELAY_MS.store(
        u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
        Ordering::Relaxed,
    );
}

/// Sends a request after the configured delay.
pub(super) trait SendPaced {
    /// `send()`, after waiting the delay.
    fn send_paced(
        self,
    ) -> impl std::future::Future<Output = reqwest::Result<reqwest::Response>> + Send;
}

impl SendPaced for reqwest::RequestBuilder {
    async fn send_paced(self) -> reqwest::Result<reqwest::Response> {
        let ms = DELAY_MS.load(Ordering::Relaxed);
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        self.send().await
    }
}
