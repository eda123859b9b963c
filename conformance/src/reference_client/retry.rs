//! How the reference client sends a request the service may refuse for a while, as the official
//! Perplexity SDKs document it: a 429 or a 5xx is retried twice (three tries), after the wait
//! the answer announces (`retry-after-ms`, else `Retry-After`), or else after an exponential
//! backoff from half a second; then the last answer is handed back for the user to see. Each
//! surface names the rules it breaks on purpose with `--break`.

use std::time::Duration;

use super::options::breaks;
use super::pace::SendPaced;
use crate::error::ClientError;

/// Tries of one request before the client gives up (the SDKs' two retries).
pub(super) const MAX_TRIES: usize = 3;
/// Tries a client breaking the give-up rule makes: more than the rule allows.
const STUBBORN_TRIES: usize = 7;
/// The first backoff after a 5xx (the SDKs' `INITIAL_RETRY_DELAY`); it doubles on each retry.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait an answer may announce that the client honours (the Python SDK's 60 s).
const LONGEST_ANNOUNCED_WAIT: Duration = Duration::from_secs(60);

/// The rules a surface's retries follow, by id (each is broken alone with `--break`).
#[derive(Debug, Clone, Copy)]
pub(super) struct RetryRules {
    /// A 429's announced wait is waited out (broken: the first 429 is sent again at once).
    pub(super) retry_after: &'static str,
    /// A 5xx is retried after a backoff (broken: sent again at once).
    pub(super) backoff: &'static str,
    /// The client stops after [`MAX_TRIES`] (broken: it goes on to [`STUBBORN_TRIES`]).
    pub(super) give_up: &'static str,
}

/// Sends the request `build` makes until it is answered with anything but a 429 or a 5xx, or
/// the tries run out; the last answer is returned either way, with how many tries it took.
pub(super) async fn send(
    rules: RetryRules,
    break_rule: Option<&str>,
    url: &str,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<(reqwest::Response, usize), ClientError> {
    let mut tries = 0;
    let mut limit = MAX_TRIES;
    let mut rate_limited = 0;
    loop {
        let r = build()
            .send_paced()
            .await
            .map_err(|source| ClientError::Http {
                url: url.to_owned(),
                source,
            })?;
        tries += 1;
        let status = r.status();
        let refused_for_now = status == reqwest::StatusCode::TOO_MANY_REQUESTS;
        if !refused_for_now && !status.is_server_error() {
            return Ok((r, tries));
        }
        if tries >= limit {
            // Breaking the rule: a 5xx is tried again and again.
            if status.is_server_error() && limit == MAX_TRIES && breaks(break_rule, rules.give_up) {
                limit = STUBBORN_TRIES;
            } else {
                return Ok((r, tries));
            }
        }
        let wait = match announced_wait(&r) {
            Some(wait) if refused_for_now => {
                rate_limited += 1;
                // Breaking the rule: the first 429 is sent again at once.
                if rate_limited == 1 && breaks(break_rule, rules.retry_after) {
                    Duration::ZERO
                } else {
                    wait
                }
            }
            Some(wait) => wait,
            None if status.is_server_error() && breaks(break_rule, rules.backoff) => {
                // Breaking the rule: the failed request goes again at once.
                Duration::ZERO
            }
            None if limit == STUBBORN_TRIES => FIRST_BACKOFF,
            None => backoff(tries),
        };
        tokio::time::sleep(wait).await;
    }
}

/// The wait after the `tries`th try: half a second, doubling.
fn backoff(tries: usize) -> Duration {
    let doublings = u32::try_from(tries.saturating_sub(1))
        .unwrap_or(u32::MAX)
        .min(4);
    FIRST_BACKOFF * 2u32.pow(doublings)
}

/// The wait an answer announces: `retry-after-ms` (the Agent API's, which the SDKs read
/// first), else `Retry-After` in seconds; none past a minute, as the Python SDK ignores those.
fn announced_wait(r: &reqwest::Response) -> Option<Duration> {
    let header = |name: &str| {
        r.headers()
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    };
    let wait = header("retry-after-ms")
        .map(Duration::from_millis)
        .or_else(|| header("retry-after").map(Duration::from_secs))?;
    (!wait.is_zero() && wait <= LONGEST_ANNOUNCED_WAIT).then_some(wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_starts_at_half_a_second_and_doubles() {
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(3), Duration::from_secs(2));
        assert_eq!(backoff(40), Duration::from_secs(8));
    }
}
