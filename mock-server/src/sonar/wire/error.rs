//! The error envelope every Sonar refusal is answered in, the same as the Agent API's:
//! `{"error": {"message", "type", "code"}}` where `code` is the HTTP status as an integer, with
//! an optional `param` naming the offending field. The SDKs map the status to their exception
//! classes (400 `BadRequestError`, 401 `AuthenticationError`, 404 `NotFoundError`, 429
//! `RateLimitError`, 5xx `InternalServerError`, 402 `APIStatusError`).

use axum::Json;
use axum::response::{IntoResponse, Response};
use http::{HeaderName, HeaderValue, StatusCode};
use serde::Serialize;

/// A Sonar refusal.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{status} {kind}: {message}")]
pub(crate) struct SonarError {
    /// HTTP status (also the envelope's `code`).
    pub(crate) status: StatusCode,
    /// The envelope's `type` (`invalid_request`, `invalid_model`, `rate_limit_exceeded`, ...).
    pub(crate) kind: String,
    /// A sentence a person can act on.
    pub(crate) message: String,
    /// The offending field, when there is one.
    pub(crate) param: Option<String>,
    /// Extra headers (`retry-after`, `x-should-retry`, `x-ratelimit-*`, `allow`).
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    error: Body<'a>,
}

#[derive(Serialize)]
struct Body<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    code: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    param: Option<&'a str>,
}

impl SonarError {
    /// A refusal with this status, type and sentence.
    pub(crate) fn new(status: StatusCode, kind: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            kind: kind.to_owned(),
            message: message.into(),
            param: None,
            headers: Vec::new(),
        }
    }

    /// 400 `invalid_request`.
    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "invalid_request", message)
    }

    /// 400 `invalid_request` naming the offending field.
    pub(crate) fn invalid_field(field: &str, message: impl std::fmt::Display) -> Self {
        Self::invalid_request(format!("{field}: {message}")).param(field)
    }

    /// 404 `not_found`.
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    /// 401 `authentication_error`.
    pub(crate) fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "authentication_error", message)
    }

    /// Names the offending field.
    pub(crate) fn param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    /// Adds a header (one whose name or value cannot be a header is left out: they are all the
    /// mock's own).
    pub(crate) fn header(mut self, name: &'static str, value: impl std::fmt::Display) -> Self {
        if let Ok(value) = HeaderValue::from_str(&value.to_string()) {
            self.headers.push((HeaderName::from_static(name), value));
        }
        self
    }

    /// The body, as JSON text (for an SSE `error` event).
    pub(crate) fn body_text(&self) -> String {
        serde_json::to_string(&self.envelope()).unwrap_or_else(|e| {
            format!(
                "{{\"error\":{{\"message\":\"{e}\",\"type\":\"internal_error\",\"code\":500}}}}"
            )
        })
    }

    fn envelope(&self) -> Envelope<'_> {
        Envelope {
            error: Body {
                message: &self.message,
                kind: &self.kind,
                code: self.status.as_u16(),
                param: self.param.as_deref(),
            },
        }
    }
}

impl IntoResponse for SonarError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.envelope())).into_response();
        for (name, value) in self.headers {
            response.headers_mut().insert(name, value);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_carries_the_status_as_an_integer_code_and_the_param() {
        let error = SonarError::invalid_field("temperature", "must be below 2");
        let body: serde_json::Value =
            serde_json::from_str(&error.body_text()).expect("the envelope is JSON");
        assert_eq!(
            body,
            serde_json::json!({"error": {"message": "temperature: must be below 2",
                "type": "invalid_request", "code": 400, "param": "temperature"}})
        );
    }
}
