//! What every paid Sonar request passes before it is answered, in order: the documented rate
//! limit (a 429 with `Retry-After`), a refusal its scenario scripts before the call, the
//! account's credits (a 402 naming the billing page), and its scenario's faults (kept to each
//! account's requests of it). Then what it
//! spends, and the line the dashboard shows for it.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use http::StatusCode;

use super::state::SonarState;
use super::store::Call;
use super::wire::error::SonarError;
use crate::faults::spec::StatusFault;
use crate::faults::store::Conversation;
use crate::fixtures::{BeforeCall, LoadedSonarScenario};
use crate::world::{Account, CreditRefusal};

/// A rate limit: so many requests per window, counted per account in a bucket.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limit {
    /// The bucket (a model's name, `search`, `embeddings`, `async`).
    pub(crate) bucket: &'static str,
    /// Requests allowed in the window.
    pub(crate) requests: usize,
    /// The window.
    pub(crate) window: TimeDelta,
}

impl Limit {
    /// `requests` a minute.
    pub(crate) fn per_minute(bucket: &'static str, requests: usize) -> Self {
        Self {
            bucket,
            requests,
            window: TimeDelta::minutes(1),
        }
    }

    /// `requests` a second.
    pub(crate) fn per_second(bucket: &'static str, requests: usize) -> Self {
        Self {
            bucket,
            requests,
            window: TimeDelta::seconds(1),
        }
    }
}

/// Lets a request through, or refuses it with the answer the API gives.
pub(crate) fn admit(
    app: &SonarState,
    account: &Account,
    scenario: &LoadedSonarScenario,
    limit: Limit,
    now: DateTime<Utc>,
) -> Result<(), SonarError> {
    app.store()
        .admit(&account.id, limit.bucket, limit.requests, limit.window, now)
        .map_err(|wait| rate_limited(limit, wait, now))?;
    let script = &scenario.script;
    // A scripted refusal strikes once per account; after a top-up the resend goes through.
    if script.before_call == Some(BeforeCall::InsufficientCredits)
        && app
            .world()
            .apply_once(&format!("sonar:{}:{}", scenario.name, account.id))
    {
        app.world().drain(&account.id);
    }
    if let Some(refusal) = app.world().check_before_send(&account.id, now) {
        let billing = format!("{}/_mock/billing/{}", app.base_url(), account.id);
        return Err(credit_refusal(&refusal, &billing, &account.id));
    }
    let conversation = Conversation {
        surface: "Sonar",
        scenario: &scenario.name,
        account: &account.id,
        faults: &script.faults,
    };
    if let Some(fault) = app.faults().in_conversation(&conversation, now) {
        return Err(fault_error(&fault, now));
    }
    Ok(())
}

/// Takes what an answered request costs.
pub(crate) fn spend(app: &SonarState, account: &Account, credits: i64) {
    if credits > 0 {
        app.world().spend(&account.id, credits);
    }
}

/// `Retry-After` in whole seconds, rounded up (at least one for any wait).
fn seconds(wait: Duration) -> u64 {
    let whole = wait.as_secs();
    if wait.subsec_nanos() > 0 {
        whole + 1
    } else {
        whole.max(u64::from(!wait.is_zero()))
    }
}

fn rate_limited(limit: Limit, wait: Duration, now: DateTime<Utc>) -> SonarError {
    let retry = seconds(wait).max(1);
    let per = if limit.window == TimeDelta::seconds(1) {
        "second"
    } else {
        "minute"
    };
    SonarError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "rate_limit_exceeded",
        format!(
            "rate limit exceeded: {} requests per {per} for {} (usage tier 0); wait {retry} s \
             (Retry-After) and send the request again",
            limit.requests, limit.bucket
        ),
    )
    .header("retry-after", retry)
    .header("x-ratelimit-limit", limit.requests)
    .header("x-ratelimit-remaining", 0)
    .header("x-ratelimit-reset", now.timestamp() + retry as i64)
}

fn credit_refusal(refusal: &CreditRefusal, billing: &str, account: &str) -> SonarError {
    let top_up = format!(
        "add credits at {billing} (or POST /_mock/accounts/{account}/top-up), then send it again"
    );
    let (kind, message) = match refusal {
        CreditRefusal::InsufficientCredits => (
            "insufficient_credits",
            format!("your account has no credits left, so this request was not run: {top_up}"),
        ),
        CreditRefusal::SpendingLimit { limit } => (
            "spending_limit_reached",
            format!(
                "your account reached its spending limit of {limit} credits, so this request \
                 was not run: raise the limit or {top_up}"
            ),
        ),
        CreditRefusal::QuotaExhausted { reset } => (
            "quota_exhausted",
            format!(
                "your account's quota is used up until {} (virtual time), so this request was \
                 not run: wait until then, or {top_up}",
                crate::clock::iso(*reset)
            ),
        ),
    };
    SonarError::new(StatusCode::PAYMENT_REQUIRED, kind, message)
}

/// The answer a scenario's status fault gives: the type and message the live API gives the
/// status unless the fault says otherwise, and the delay (a held 429's: the time left).
fn fault_error(fault: &StatusFault, now: DateTime<Utc>) -> SonarError {
    let status = fault.status;
    let (kind, message) = match status.as_u16() {
        429 => (
            "rate_limit_exceeded",
            "rate limit exceeded: wait for the Retry-After seconds, then send the request again",
        ),
        400 => ("invalid_request", "invalid request"),
        401 => ("authentication_error", "invalid API key"),
        402 => (
            "insufficient_credits",
            "your account has no credits left: add credits, then send the request again",
        ),
        403 => ("permission_denied", "this API key may not use this model"),
        404 => ("not_found", "resource not found"),
        502 => (
            "bad_gateway",
            "bad gateway: the model did not answer; retry the request",
        ),
        503 => (
            "service_unavailable",
            "the service is overloaded; retry the request in a moment",
        ),
        504 => (
            "gateway_timeout",
            "gateway timeout: the model took too long; retry the request",
        ),
        _ => (
            "internal_error",
            "internal error: the model did not answer; retry the request",
        ),
    };
    let mut error = SonarError::new(
        status,
        fault.error_type.as_deref().unwrap_or(kind),
        fault.message.clone().unwrap_or_else(|| message.to_owned()),
    );
    if let Some(wait) = fault.retry_after {
        error = error.header("retry-after", seconds(wait));
        if status == StatusCode::TOO_MANY_REQUESTS {
            error = error
                .header("x-ratelimit-remaining", 0)
                .header("x-ratelimit-reset", now.timestamp() + seconds(wait) as i64);
        }
    }
    if let Some(retry) = fault.should_retry {
        error = error.header("x-should-retry", retry);
    }
    error
}

/// The dashboard's line for one request, filled in as the request is understood.
#[derive(Debug)]
pub(crate) struct Log {
    call: Call,
}

impl Log {
    /// A line for a request of `account` on `route`, arriving at `now`.
    pub(crate) fn new(account: &Account, route: &'static str, now: DateTime<Utc>) -> Self {
        Self {
            call: Call {
                at: crate::clock::iso(now),
                account: account.id.clone(),
                route,
                model: String::new(),
                scenario: String::new(),
                status: 200,
                credits: 0,
                id: None,
            },
        }
    }

    /// The model it asked for.
    pub(crate) fn model(&mut self, model: &str) {
        model.clone_into(&mut self.call.model);
    }

    /// The scenario it follows.
    pub(crate) fn scenario(&mut self, scenario: &str) {
        scenario.clone_into(&mut self.call.scenario);
    }

    /// It was answered under `id`, costing `credits`.
    pub(crate) fn answered(&mut self, id: &str, credits: i64) {
        self.call.id = Some(id.to_owned());
        self.call.credits = credits;
    }

    /// It was answered, costing `credits`, with no id of its own.
    pub(crate) fn spent(&mut self, credits: i64) {
        self.call.credits = credits;
    }

    /// Writes the line, with the status the request got.
    pub(crate) fn finish<T>(mut self, app: &SonarState, result: &Result<T, SonarError>) {
        if let Err(error) = result {
            self.call.status = error.status.as_u16();
            self.call.credits = 0;
        }
        app.store().record(self.call);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_is_whole_seconds_rounded_up() {
        assert_eq!(seconds(Duration::from_millis(1)), 1);
        assert_eq!(seconds(Duration::from_secs(2)), 2);
        assert_eq!(seconds(Duration::from_millis(2500)), 3);
        assert_eq!(seconds(Duration::ZERO), 0);
    }
}
