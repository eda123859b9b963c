//! The Agent API's part in reading request bodies: its 32 MiB limit, and a refused body
//! answered in its envelope (with a fresh `x-request-id`, as every answer has).

use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::error::ApiError;
use super::paths::BODY_LIMIT;
use super::routes::with_fresh_request_id;
use crate::http::body::{BodyPolicy, BodyRefusal};
use crate::http::shape::ErrorShape;

/// How the Agent API takes request bodies.
pub(crate) struct AgentBodies;

impl BodyPolicy for AgentBodies {
    fn limit(&self) -> usize {
        BODY_LIMIT
    }

    fn refuse(&self, refusal: &BodyRefusal) -> Response {
        let (kind, sentence) = match refusal {
            BodyRefusal::TooLarge { .. } => (
                "payload_too_large",
                "The request body is larger than the 32 MiB the Agent API accepts: send large \
                 files by URL (input_file.file_url) instead of inline."
                    .to_owned(),
            ),
            BodyRefusal::Stalled(_) => ("request_timeout", refusal.to_string()),
            BodyRefusal::Broken { .. } => ("invalid_request", refusal.to_string()),
        };
        let error = ApiError::new(refusal.status(), kind, api_sentence(&sentence));
        with_fresh_request_id(error.into_response())
    }
}

/// A sentence as the Agent API's own messages read: starting in lower case, without a period.
fn api_sentence(sentence: &str) -> String {
    let sentence = sentence.trim_end_matches('.');
    let mut letters = sentence.chars();
    match letters.next() {
        Some(first) => first.to_lowercase().chain(letters).collect(),
        None => String::new(),
    }
}

/// An injected fault's status in the API's envelope, with the `type` the live API gives it.
impl ErrorShape for AgentBodies {
    fn error(&self, status: StatusCode, sentence: &str) -> Response {
        let kind = match status.as_u16() {
            // The origin guard's refusals.
            403 => "forbidden",
            429 => "request_rate_limit_exceeded",
            502 => "bad_gateway",
            503 => "service_unavailable",
            504 => "gateway_timeout",
            _ => "internal_error",
        };
        self.typed_error(status, kind, sentence)
    }

    fn typed_error(&self, status: StatusCode, kind: &str, sentence: &str) -> Response {
        let error = ApiError::new(status, kind, api_sentence(sentence));
        with_fresh_request_id(error.into_response())
    }

    fn says_retry_after_ms(&self) -> bool {
        true
    }

    fn takes_scenario_faults(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_reads_as_the_apis_own_messages() {
        assert_eq!(api_sentence("The body stalled."), "the body stalled");
        assert_eq!(api_sentence(""), "");
    }
}
