//! The one error type every refusal of the MCP endpoint is: the JSON-RPC error object, the id it
//! answers, and the HTTP status (and header) it travels with.

use axum::Json;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use serde::Serialize;
use serde::ser::SerializeStruct;
use serde_json::Value;

use super::jsonrpc::{ErrorCode, JSONRPC, RequestId};

/// What an error response says when even it could not be written.
const UNWRITABLE: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"The server could not write its error response."}}"#;

/// A refusal of the MCP endpoint: the JSON-RPC error object, the id it answers and the HTTP
/// status it travels with (plus a header where the status calls for one). Every refusal is
/// one, and it becomes the response (`IntoResponse`).
#[derive(Debug, Clone)]
pub(crate) struct ErrorData {
    /// The JSON-RPC error code.
    pub(crate) code: ErrorCode,
    /// A sentence a person can act on.
    pub(crate) message: String,
    /// Extra facts for programs (`error.data`).
    pub(crate) data: Option<Value>,
    /// The id answered: a request's id, or `null` when it could not be read.
    id: Value,
    status: StatusCode,
    header: Option<(HeaderName, HeaderValue)>,
}

impl ErrorData {
    fn new(code: ErrorCode, status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
            id: Value::Null,
            status,
            header: None,
        }
    }

    /// The body is not JSON (HTTP 400).
    pub(crate) fn parse_error(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, StatusCode::BAD_REQUEST, message)
    }

    /// The body is not a JSON-RPC message the server accepts (HTTP 400).
    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, StatusCode::BAD_REQUEST, message)
    }

    /// An unknown method (HTTP 200, the error is the answer).
    pub(crate) fn method_not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::METHOD_NOT_FOUND, StatusCode::OK, message)
    }

    /// Bad parameters (HTTP 200, the error is the answer).
    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, StatusCode::OK, message)
    }

    /// A request the server failed to answer (HTTP 200, the error is the answer).
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SERVER_ERROR, StatusCode::OK, message)
    }

    /// A transport-level refusal: a missing session id or a bad header (HTTP 400).
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SERVER_ERROR, StatusCode::BAD_REQUEST, message)
    }

    /// The body is not `application/json` (HTTP 415).
    pub(crate) fn unsupported_media_type(message: impl Into<String>) -> Self {
        Self::new(
            ErrorCode::SERVER_ERROR,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            message,
        )
    }

    /// The `Accept` header rules out what the answer would be (HTTP 406).
    pub(crate) fn not_acceptable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SERVER_ERROR, StatusCode::NOT_ACCEPTABLE, message)
    }

    /// A request without a usable token (HTTP 401), with its `WWW-Authenticate` challenge.
    pub(crate) fn unauthorized(message: impl Into<String>, challenge: Option<HeaderValue>) -> Self {
        let mut error = Self::new(ErrorCode::SERVER_ERROR, StatusCode::UNAUTHORIZED, message);
        error.header = challenge.map(|value| (header::WWW_AUTHENTICATE, value));
        error
    }

    /// A method other than POST where only POST exists (HTTP 405, `Allow: POST`).
    pub(crate) fn post_only(message: impl Into<String>) -> Self {
        let mut error = Self::new(
            ErrorCode::SERVER_ERROR,
            StatusCode::METHOD_NOT_ALLOWED,
            message,
        );
        error.header = Some((header::ALLOW, HeaderValue::from_static("POST")));
        error
    }

    /// A method the MCP URL does not take (HTTP 405, `Allow: GET, POST, DELETE`).
    pub(crate) fn method_not_allowed(message: impl Into<String>) -> Self {
        let mut error = Self::new(
            ErrorCode::SERVER_ERROR,
            StatusCode::METHOD_NOT_ALLOWED,
            message,
        );
        error.header = Some((header::ALLOW, HeaderValue::from_static("GET, POST, DELETE")));
        error
    }

    /// A body the endpoint refused before reading it as JSON-RPC: too large (413), cut short
    /// (400) or stalled (408). A body cut short is a parse error, the others invalid requests.
    pub(crate) fn refused_body(status: StatusCode, message: impl Into<String>) -> Self {
        let code = if status == StatusCode::BAD_REQUEST {
            ErrorCode::PARSE_ERROR
        } else {
            ErrorCode::INVALID_REQUEST
        };
        Self::new(code, status, message)
    }

    /// The server keeps no more of something a request would add (HTTP 503).
    pub(crate) fn unavailable(message: impl Into<String>) -> Self {
        Self::new(
            ErrorCode::SERVER_ERROR,
            StatusCode::SERVICE_UNAVAILABLE,
            message,
        )
    }

    /// A server error answered with `status` (an injected fault's 429 or 5xx).
    pub(crate) fn server_error(status: StatusCode, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SERVER_ERROR, status, message)
    }

    /// An unknown or ended session (HTTP 404).
    pub(crate) fn session_not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SESSION_NOT_FOUND, StatusCode::NOT_FOUND, message)
    }

    /// A 2026-07-28 routing header that disagrees with the body (HTTP 400).
    pub(crate) fn header_mismatch(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, StatusCode::BAD_REQUEST, message)
    }

    /// A capability the request needs but did not declare (HTTP 400).
    pub(crate) fn missing_capability(message: impl Into<String>) -> Self {
        Self::new(
            ErrorCode::MISSING_CAPABILITY,
            StatusCode::BAD_REQUEST,
            message,
        )
    }

    /// A protocol version this server does not speak (HTTP 400).
    pub(crate) fn unsupported_version(message: impl Into<String>) -> Self {
        Self::new(
            ErrorCode::UNSUPPORTED_VERSION,
            StatusCode::BAD_REQUEST,
            message,
        )
    }

    /// The same error answering request `id`.
    pub(crate) fn with_id(mut self, id: Option<RequestId>) -> Self {
        self.id = id.map_or(Value::Null, |id| match id {
            RequestId::Number(n) => Value::Number(n),
            RequestId::String(s) => Value::String(s),
        });
        self
    }

    /// The error response as one line of JSON.
    pub(crate) fn to_json(&self) -> String {
        // Strings, numbers and JSON values always serialize; the literal only stands in for the
        // impossible failure, so that a refusal is never an empty body.
        serde_json::to_string(self).unwrap_or_else(|_| UNWRITABLE.to_owned())
    }

    /// The id it answers (`null` when the request's could not be read).
    #[cfg(test)]
    pub(crate) fn id(&self) -> &Value {
        &self.id
    }

    /// The same error with another HTTP status.
    pub(crate) fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// The same error with `error.data`.
    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// The `error` member of an error response.
struct ErrorMember<'a>(&'a ErrorData);

impl Serialize for ErrorMember<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let error = self.0;
        let mut object =
            serializer.serialize_struct("ErrorMember", 2 + usize::from(error.data.is_some()))?;
        object.serialize_field("code", &error.code)?;
        object.serialize_field("message", &error.message)?;
        if let Some(data) = &error.data {
            object.serialize_field("data", data)?;
        }
        object.end()
    }
}

impl Serialize for ErrorData {
    /// The whole error response: `{"jsonrpc":"2.0","id":…,"error":{…}}`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut response = serializer.serialize_struct("ErrorResponse", 3)?;
        response.serialize_field("jsonrpc", JSONRPC)?;
        response.serialize_field("id", &self.id)?;
        response.serialize_field("error", &ErrorMember(self))?;
        response.end()
    }
}

impl IntoResponse for ErrorData {
    fn into_response(self) -> HttpResponse {
        let mut response = (self.status, Json(&self)).into_response();
        if let Some((name, value)) = self.header {
            response.headers_mut().insert(name, value);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_error_response_echoes_the_id_and_carries_data_only_when_set() {
        let id = RequestId::String("a".into());
        let plain = ErrorData::invalid_params("bad").with_id(Some(id.clone()));
        assert_eq!(
            serde_json::to_value(&plain).ok(),
            Some(json!({"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"bad"}}))
        );
        let with_data = ErrorData::unsupported_version("old").with_data(json!({"x": 1}));
        assert_eq!(
            serde_json::to_value(&with_data).ok(),
            Some(
                json!({"jsonrpc":"2.0","id":null,"error":{"code":-32022,"message":"old","data":{"x":1}}})
            )
        );
        assert_eq!(
            serde_json::from_str::<Value>(&plain.to_json()).ok(),
            serde_json::to_value(&plain).ok()
        );
    }

    #[test]
    fn the_stand_in_for_an_unwritable_error_is_an_error_response() {
        let stand_in: Value = serde_json::from_str(UNWRITABLE).expect("JSON");
        assert_eq!(stand_in["error"]["code"], json!(ErrorCode::SERVER_ERROR.0));
    }

    #[test]
    fn refusals_travel_with_their_status_and_header() {
        let response = ErrorData::post_only("POST only").into_response();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()[header::ALLOW], "POST");
        let response = ErrorData::invalid_params("x")
            .with_status(StatusCode::BAD_REQUEST)
            .into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
}
