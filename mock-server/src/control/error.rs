//! The control API's errors: a status and a sentence a person can act on, answered as
//! `{"error": sentence}`.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::http::body::{BodyPolicy, BodyRefusal, DEFAULT_LIMIT};
use crate::http::encoding::{escape, page};
use crate::http::shape::ErrorShape;

/// A control API request refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct ControlError {
    status: StatusCode,
    message: String,
}

impl ControlError {
    /// A refusal with this status.
    pub(crate) fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// A body or path the endpoint cannot use (400).
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// Nothing by that name (404).
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// Not possible in the state it is in (409).
    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, message)
    }
}

/// The wire form: `{"error": sentence}`.
#[derive(Serialize)]
struct Body<'a> {
    error: &'a str,
}

impl IntoResponse for ControlError {
    fn into_response(self) -> Response {
        let body = Body {
            error: &self.message,
        };
        (self.status, Json(body)).into_response()
    }
}

/// How the control API (everything under `/_mock`) takes request bodies.
pub(crate) struct ControlBodies;

impl BodyPolicy for ControlBodies {
    fn limit(&self) -> usize {
        DEFAULT_LIMIT
    }

    fn refuse(&self, refusal: &BodyRefusal) -> Response {
        ControlError::new(refusal.status(), refusal.to_string()).into_response()
    }
}

/// How the human pages under `/_mock` (billing, Projects, Computer's sign-in, form, stop,
/// download and site pages) answer what their handlers never see: with a page.
pub(crate) struct PageBodies;

impl ErrorShape for PageBodies {
    fn error(&self, status: StatusCode, sentence: &str) -> Response {
        let title = match status {
            StatusCode::NOT_FOUND => "Not found",
            StatusCode::METHOD_NOT_ALLOWED => "Method not allowed",
            _ => "Cannot open this page",
        };
        (status, page(title, &format!("<p>{}</p>", escape(sentence)))).into_response()
    }
}

/// A refusal chosen outside the control routes (the origin guard), as `{"error": sentence}`.
impl ErrorShape for ControlBodies {
    fn error(&self, status: StatusCode, sentence: &str) -> Response {
        ControlError::new(status, sentence).into_response()
    }
}
