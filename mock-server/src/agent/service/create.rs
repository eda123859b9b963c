//! `POST /v1/agent`: a create request, from its bytes to a run answering in its mode.
//!
//! In order: the request counts towards the account's rate-limit window (even when refused),
//! the body is validated, the continuation is checked against what it continues, a
//! scenario's fault (its `faults`, kept to each account's conversations) answers instead of
//! running, then the run starts: a stream follows it, a background request answers at once, a sync one waits
//! for the end.

use std::sync::Arc;

use http::StatusCode;

use super::Service;
use crate::agent::error::ApiError;
use crate::agent::run;
use crate::agent::store::{RATE_LIMIT, Run};
use crate::agent::validate;
use crate::agent::wire::request::Tool;
use crate::agent::wire::response::Response;
use crate::faults::spec::StatusFault;
use crate::faults::store::Conversation;
use crate::world::Account;

/// A run started by a create request, and how to answer.
pub(crate) struct Created {
    /// The run.
    pub(crate) run: Arc<Run>,
    /// What the request gets.
    pub(crate) answer: Answer,
    /// The account's rate-limit window, counting this request.
    pub(crate) window: RateWindow,
}

/// What a create request gets, by its mode.
pub(crate) enum Answer {
    /// `stream: true`: the run's events as they happen.
    Stream,
    /// The response: as it starts (background) or as it ended (sync).
    Snapshot(Box<Response>),
    /// A sync run that could not start its model (a discovery failure is a 424): the error
    /// instead of the response.
    Refused(ApiError),
}

/// The requests-per-minute window the `x-ratelimit-*` headers describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RateWindow {
    /// Requests in the window, this one included.
    pub(crate) used: usize,
    /// When the window resets, Unix seconds.
    pub(crate) reset: i64,
}

impl RateWindow {
    /// The window's size (recorded: 50).
    pub(crate) const LIMIT: usize = RATE_LIMIT;

    /// Requests left in the window.
    pub(crate) fn remaining(&self) -> usize {
        Self::LIMIT.saturating_sub(self.used)
    }
}

impl Service {
    /// Creates a response for `account` from the request `body`.
    pub(crate) async fn create(
        &self,
        account: &Arc<Account>,
        body: &[u8],
    ) -> Result<Created, ApiError> {
        let (used, reset) = self.store.count_request(&account.id, self.clock.now());
        let validated = validate::create_request(body, account)?;
        for tool in &validated.tools {
            if let Tool::Mcp(mcp) = tool {
                // Should the calls reach this mock, its journal shows these values fingerprinted.
                self.outgoing
                    .note_tool(&mcp.server_url, mcp.headers.iter().flatten());
            }
        }
        let setup = run::continuation(&self.catalog, &self.store, account, validated)?;
        let conversation = Conversation {
            surface: "Agent API",
            scenario: &setup.scenario.0,
            account: &account.id,
            faults: &setup.scenario.1.faults,
        };
        let now = self.clock.now();
        if let Some(fault) = self.faults.in_conversation(&conversation, now) {
            return Err(fault_error(&fault, now.timestamp()));
        }
        let stream = setup.validated.request.stream == Some(true);
        let background = setup.validated.request.background == Some(true);
        let run = run::start(&self.clock, &self.store, setup);
        let answer = if stream {
            Answer::Stream
        } else if background {
            Answer::Snapshot(Box::new(run.snapshot()))
        } else {
            run.wait_terminal().await;
            let sync_error = run.state().sync_error.clone();
            match sync_error {
                Some(error) => Answer::Refused(error),
                None => Answer::Snapshot(Box::new(run.snapshot())),
            }
        };
        Ok(Created {
            run,
            answer,
            window: RateWindow { used, reset },
        })
    }
}

/// The HTTP error a scenario's status fault answers with: its status, and the type, message
/// and headers the live API sends with it unless the fault says otherwise.
fn fault_error(fault: &StatusFault, reset: i64) -> ApiError {
    let status = fault.status;
    let (kind, message) = match status.as_u16() {
        429 => (
            "request_rate_limit_exceeded",
            "rate limit exceeded: slow down and retry after the delay in retry-after-ms",
        ),
        502 => (
            "bad_gateway",
            "bad gateway: the upstream model did not answer; retry",
        ),
        503 => (
            "service_unavailable",
            "service unavailable: the model is overloaded; retry",
        ),
        504 => (
            "gateway_timeout",
            "gateway timeout: the upstream model took too long; retry",
        ),
        400 => ("invalid_request", "invalid request"),
        401 | 403 => (
            "forbidden",
            "the API key is not allowed to use this endpoint",
        ),
        404 => ("not_found", "resource not found"),
        424 => (
            "external_connector_error",
            "an external connector could not be reached",
        ),
        _ => ("internal_error", "internal error: retry the request"),
    };
    let mut error = ApiError::new(
        status,
        fault.error_type.as_deref().unwrap_or(kind),
        fault.message.clone().unwrap_or_else(|| message.to_owned()),
    );
    if let Some(delay) = fault.retry_after {
        let seconds = delay.as_secs() + u64::from(delay.subsec_nanos() > 0);
        error = error
            .header("retry-after", seconds.to_string())
            .header("retry-after-ms", delay.as_millis().to_string());
    }
    if let Some(ms) = fault.retry_after_ms {
        error = error.header("retry-after-ms", ms.to_string());
    }
    if let Some(retry) = fault.should_retry {
        error = error.header("x-should-retry", retry.to_string());
    }
    if status == StatusCode::TOO_MANY_REQUESTS {
        error = error
            .header("x-ratelimit-limit", "50")
            .header("x-ratelimit-remaining", "0")
            .header("x-ratelimit-reset", reset.to_string())
            .header("x-ratelimit-used", "50");
    }
    error
}
