//! A 429's `Retry-After` runs on the client's real time: the client waits it out on its own
//! clock, which a driven virtual clock does not follow (the client's time between requests
//! does not count). So in a Sonar scenario, when the mock refuses a request with 429 and a
//! `Retry-After` of N seconds, this layer moves the mock's driven clock on by N seconds once N
//! seconds (less a margin) of real time have passed: a client that waited is answered, one
//! that did not is refused again. The rule `sonar.rate-limit.retry-after` judges the wait
//! itself, in real time, against what the mock announced.

use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use mock_server::Clock;

/// How much sooner than `Retry-After` the clock moves: a client that waits exactly that long
/// from the moment it read the answer must find the clock moved, even on a busy machine.
const MARGIN: Duration = Duration::from_millis(200);

/// `router`, whose driven `clock` moves on by each 429's `Retry-After` once it has passed.
pub(super) fn apply(router: Router, clock: Clock) -> Router {
    router.layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            let clock = clock.clone();
            async move {
                let response = next.run(request).await;
                let wait = (response.status() == axum::http::StatusCode::TOO_MANY_REQUESTS)
                    .then(|| response.headers().get(axum::http::header::RETRY_AFTER))
                    .flatten()
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                if let Some(wait) = wait
                    && matches!(clock.mode(), mock_server::ClockMode::Driven { .. })
                {
                    tokio::spawn(async move {
                        tokio::time::sleep(wait.saturating_sub(MARGIN)).await;
                        clock.pass(wait).await;
                    });
                }
                response
            }
        },
    ))
}
