//! The Sonar routes' part in reading request bodies: a 32 MiB limit (as the Agent API on the
//! same host), and a refused body answered in the API's envelope.

use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::paths::BODY_LIMIT;
use super::wire::error::SonarError;
use crate::http::body::{BodyPolicy, BodyRefusal};
use crate::http::shape::ErrorShape;

/// How the Sonar routes take request bodies.
pub(crate) struct SonarBodies;

impl BodyPolicy for SonarBodies {
    fn limit(&self) -> usize {
        BODY_LIMIT
    }

    fn refuse(&self, refusal: &BodyRefusal) -> Response {
        let kind = match refusal {
            BodyRefusal::TooLarge { .. } => "payload_too_large",
            BodyRefusal::Stalled(_) => "request_timeout",
            BodyRefusal::Broken { .. } => "invalid_request",
        };
        SonarError::new(refusal.status(), kind, refusal.to_string()).into_response()
    }
}

/// An injected fault's status in the API's envelope.
impl ErrorShape for SonarBodies {
    fn error(&self, status: StatusCode, sentence: &str) -> Response {
        let kind = match status.as_u16() {
            // The origin guard's refusals.
            403 => "forbidden",
            429 => "rate_limit_exceeded",
            502 => "bad_gateway",
            503 => "service_unavailable",
            504 => "gateway_timeout",
            _ => "internal_error",
        };
        self.typed_error(status, kind, sentence)
    }

    fn typed_error(&self, status: StatusCode, kind: &str, sentence: &str) -> Response {
        SonarError::new(status, kind, sentence).into_response()
    }

    fn takes_scenario_faults(&self) -> bool {
        true
    }
}
