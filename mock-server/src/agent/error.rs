//! The Agent API's error envelope: `{"error":{"message","type","code"}}` where `code` is the HTTP
//! status as an integer (as recorded from the live API), with an optional `param`.

use axum::Json;
use axum::extract::{FromRequestParts, Path};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use http::{HeaderName, HeaderValue, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

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

    /// The envelope body.
    pub(crate) fn body(&self) -> Value {
        let mut error = json!({
            "message": self.message,
            "type": self.kind,
            "code": self.status.as_u16(),
        });
        if let (Some(param), Some(map)) = (&self.param, error.as_object_mut()) {
            map.insert("param".into(), Value::String(param.clone()));
        }
        json!({ "error": error })
    }
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
        let body = ApiError::invalid_request("bad").param("x").body();
        assert_eq!(
            body,
            json!({"error": {"message": "bad", "type": "invalid_request", "code": 400, "param": "x"}})
        );
    }
}
