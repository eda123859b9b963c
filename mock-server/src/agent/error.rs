//! The Agent API's error envelope: `{"error":{"message","type","code"}}` where `code` is the HTTP
//! status as an integer (as recorded from the live API), with an optional `param`.

use axum::Json;
use axum::extract::{FromRequestParts, Path};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use http::{HeaderName, HeaderValue, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// An Agent API error answered over HTTP.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{status} {kind}: {message}")]
pub(crate) struct ApiError {
    /// HTTP status (also the envelope's `code`).
    pub(crate) status: StatusCode,
    /// The envelope's `type` (`invalid_request`, `not_found`, ...).
    pub(crate) kind: String,
    /// A sentence a person can act on.
    pub(crate) message: String,
    /// The offending field, when there is one.
    pub(crate) param: Option<String>,
    /// Extra response headers (`retry-after-ms`, `x-should-retry`, ...).
    pub(crate) headers: Vec<(String, String)>,
}

impl ApiError {
    /// An error with this status, type and message.
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

    /// 400 `invalid_request` for a failed validation rule, worded like the live API
    /// (`validation failed: ...`).
    pub(crate) fn validation(message: impl std::fmt::Display) -> Self {
        Self::invalid_request(format!("validation failed: {message}"))
    }

    /// 404 `not_found`, with the live API's exact text.
    pub(crate) fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", "resource not found")
    }

    /// 401 `forbidden`: the live body was never captured, so the wording is the mock's own.
    pub(crate) fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "forbidden", message)
    }

    /// 400 `invalid_request` for a field the API does not take, worded like the live API
    /// (`json: unknown field "x"`); `param` is where it is.
    pub(crate) fn unknown_field(field: &str, param: &str) -> Self {
        Self::invalid_request(format!(
            "invalid request body: json: unknown field \"{field}\""
        ))
        .param(param)
    }

    /// Names the offending field.
    pub(crate) fn param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    /// Adds a response header.
    pub(crate) fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// 500 `internal_error`: the mock itself failed (a bug, said in the message).
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal_error", message)
    }

    /// The envelope body.
    pub(crate) fn body(&self) -> Envelope<'_> {
        Envelope {
            error: EnvelopeError {
                message: &self.message,
                kind: &self.kind,
                code: self.status.as_u16(),
                param: self.param.as_deref(),
            },
        }
    }

    /// The envelope body as JSON text.
    pub(crate) fn body_text(&self) -> String {
        // Strings and a number only, so writing them does not fail; were it ever to, the
        // client still reads an internal error in the envelope.
        serde_json::to_string(&self.body()).unwrap_or_else(|_| UNWRITABLE.to_owned())
    }
}

/// The envelope of an error that could not be written.
const UNWRITABLE: &str = r#"{"error":{"message":"internal error: the mock could not write its error; retry the request","type":"internal_error","code":500}}"#;

/// The error envelope: `{"error": {"message", "type", "code", "param"?}}`.
#[derive(Debug, Serialize)]
pub(crate) struct Envelope<'a> {
    /// The error.
    pub(crate) error: EnvelopeError<'a>,
}

/// The envelope's `error`.
#[derive(Debug, Serialize)]
pub(crate) struct EnvelopeError<'a> {
    /// A sentence a person can act on.
    pub(crate) message: &'a str,
    /// `invalid_request`, `not_found`, ...
    #[serde(rename = "type")]
    pub(crate) kind: &'a str,
    /// The HTTP status, as an integer.
    pub(crate) code: u16,
    /// The offending field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) param: Option<&'a str>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body())).into_response();
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                response.headers_mut().insert(name, value);
            }
        }
        response
    }
}

/// The ids in an Agent API path (`…/{id}`, `…/{id}/files/{file_id}/content`). An id that is not
/// valid UTF-8 once percent-decoded (`GET /v1/agent/%FF`) is refused in the API's envelope, as
/// the live API refuses a malformed id: 400 `invalid response id`.
pub(crate) struct PathIds<T>(pub(crate) T);

impl<S, T> FromRequestParts<S> for PathIds<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(ids)) => Ok(Self(ids)),
            Err(_) => Err(ApiError::invalid_request(
                "invalid response id: an id in the path is not valid UTF-8 once percent-decoded",
            )
            .param("id")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_carries_the_status_as_an_integer_code() {
        let error = ApiError::invalid_request("bad").param("x");
        assert_eq!(
            error.body_text(),
            r#"{"error":{"message":"bad","type":"invalid_request","code":400,"param":"x"}}"#
        );
        assert_eq!(
            ApiError::not_found().body_text(),
            r#"{"error":{"message":"resource not found","type":"not_found","code":404}}"#
        );
    }
}
