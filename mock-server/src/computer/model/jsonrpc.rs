//! JSON-RPC 2.0 as MCP uses it: the messages a client POSTs, the one error type every refusal of
//! the MCP endpoint is, and the envelopes the mock answers with.

use std::fmt;

use axum::Json;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

use super::params::Params;

/// A request id: a string or an integer (MCP allows no other kind, not even `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub(crate) enum RequestId {
    /// An integer id.
    Number(Number),
    /// A string id.
    String(String),
}

impl RequestId {
    fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(Self::String(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(Self::Number(n)),
            _ => None,
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => f.write_str(s),
        }
    }
}

/// A JSON-RPC error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub(crate) struct ErrorCode(pub(crate) i64);

impl ErrorCode {
    /// Invalid JSON.
    pub(crate) const PARSE_ERROR: Self = Self(-32700);
    /// Not a valid JSON-RPC message.
    pub(crate) const INVALID_REQUEST: Self = Self(-32600);
    /// Unknown method.
    pub(crate) const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Bad parameters (including an unknown tool).
    pub(crate) const INVALID_PARAMS: Self = Self(-32602);
    /// Transport-level problems (missing session id, bad headers, authentication), as the
    /// TypeScript SDK answers them.
    pub(crate) const SERVER_ERROR: Self = Self(-32000);
    /// Unknown or ended session (as the TypeScript SDK answers).
    pub(crate) const SESSION_NOT_FOUND: Self = Self(-32001);
    /// A 2026-07-28 header that disagrees with the body (or is missing).
    pub(crate) const HEADER_MISMATCH: Self = Self(-32020);
    /// The request needs a client capability the client did not declare on it.
    pub(crate) const MISSING_CAPABILITY: Self = Self(-32021);
    /// The request's protocol version is not one this server speaks.
    pub(crate) const UNSUPPORTED_VERSION: Self = Self(-32022);
}

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

    /// A request from a foreign host or origin (HTTP 403).
    pub(crate) fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SERVER_ERROR, StatusCode::FORBIDDEN, message)
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
struct ErrorObject<'a>(&'a ErrorData);

impl Serialize for ErrorObject<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let error = self.0;
        let mut object =
            serializer.serialize_struct("ErrorObject", 2 + usize::from(error.data.is_some()))?;
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
        response.serialize_field("error", &ErrorObject(self))?;
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

/// The protocol version every message carries.
pub(crate) const JSONRPC: &str = "2.0";

/// A success response, `{"jsonrpc":"2.0","id":…,"result":…}`.
#[derive(Debug, Serialize)]
pub(crate) struct Response<'a, T> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: T,
}

impl<'a, T: Serialize> Response<'a, T> {
    /// The response to request `id`.
    pub(crate) fn new(id: &'a RequestId, result: T) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id,
            result,
        }
    }

    /// The response as one line of JSON.
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl<T: Serialize> IntoResponse for Response<'_, T> {
    /// As axum's `Json`, but written into a buffer sized for a typical tool result: `Json`
    /// starts at 128 bytes and copies the answer over each time it doubles.
    fn into_response(self) -> HttpResponse {
        let mut body = Vec::with_capacity(RESPONSE_CAPACITY);
        match serde_json::to_writer(&mut body, &self) {
            Ok(()) => {
                // Built by hand: `(headers, Vec)` sets an octet-stream content type first and
                // then replaces it.
                let mut response = HttpResponse::new(axum::body::Body::from(body));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
            Err(error) => ErrorData::internal(format!("the answer could not be written: {error}"))
                .with_id(Some(self.id.clone()))
                .into_response(),
        }
    }
}

/// Bytes first set aside for a response body (a `models_list` answer is about 2 KiB).
const RESPONSE_CAPACITY: usize = 4096;

/// A notification or a request the server sends, `{"jsonrpc":"2.0",["id":…,]"method":…,"params":…}`.
#[derive(Debug, Serialize)]
pub(crate) struct Outgoing<'a, P> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    method: &'a str,
    params: P,
}

impl<'a, P: Serialize> Outgoing<'a, P> {
    /// A notification (no id, no answer expected).
    pub(crate) fn notification(method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id: None,
            method,
            params,
        }
    }

    /// A request the client answers by POSTing a response with `id`.
    pub(crate) fn request(id: &'a str, method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id: Some(id),
            method,
            params,
        }
    }

    /// The message as one line of JSON.
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A progress token a request sent in `_meta.progressToken` (a string or a number).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub(crate) struct ProgressToken(Value);

impl ProgressToken {
    /// The token in `params._meta.progressToken`, if it is a usable one.
    pub(crate) fn of(params: &Params) -> Option<Self> {
        params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_number())
            .cloned()
            .map(Self)
    }
}

/// `notifications/progress` params.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Progress<'a> {
    /// The request's token.
    pub(crate) progress_token: &'a ProgressToken,
    /// How many lines so far, counting this one.
    pub(crate) progress: u64,
    /// The line.
    pub(crate) message: &'a str,
}

/// A request a client POSTed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    /// Its id.
    pub(crate) id: RequestId,
    /// Its method.
    pub(crate) method: String,
    /// Its params' members (none when it sent `null` or no `params`).
    pub(crate) params: Params,
}

/// A message a client POSTed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request, answered with a response.
    Request(Request),
    /// A notification, answered with 202.
    Notification {
        /// Its method.
        method: String,
    },
    /// A response to a request the server sent, answered with 202.
    Response {
        /// The id of the server's request.
        id: RequestId,
        /// Its `result` (`None` for an error response).
        result: Option<Value>,
    },
}

impl Incoming {
    /// Parses a POSTed body, or says why it is not a JSON-RPC message.
    pub(crate) fn parse(body: &[u8]) -> Result<Self, ErrorData> {
        let not_json = |e: serde_json::Error| {
            ErrorData::parse_error(format!("Parse error: the body is not valid JSON ({e})"))
        };
        if body.trim_ascii_start().first() == Some(&b'{') {
            // The usual case: the members read straight into their fields, with no map in
            // between. A member given twice is a data error here; the general path below
            // reads it as any JSON parser does (the last one counts).
            match serde_json::from_slice::<Envelope>(body) {
                Ok(envelope) => return envelope.classify(),
                Err(e) if e.is_data() => {}
                Err(e) => return Err(not_json(e)),
            }
        }
        let value: Value = serde_json::from_slice(body).map_err(not_json)?;
        Self::classify(value)
    }

    /// Classifies a parsed body, or says why it is not a JSON-RPC message.
    pub(crate) fn classify(body: Value) -> Result<Self, ErrorData> {
        match body {
            Value::Object(mut object) => Envelope {
                jsonrpc: object.remove("jsonrpc").as_ref().map(Version::of),
                id: object.remove("id"),
                method: object.remove("method"),
                params: object.remove("params").map(ParamsMember::of),
                result: object.remove("result"),
                error: object.remove("error"),
            }
            .classify(),
            Value::Array(_) => Err(invalid_request(
                None,
                "JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one \
                 message per POST",
            )),
            _ => Err(invalid_request(None, "the body must be a JSON-RPC object")),
        }
    }
}

fn invalid_request(id: Option<RequestId>, why: &str) -> ErrorData {
    ErrorData::invalid_request(format!("Invalid Request: {why}")).with_id(id)
}

/// The members of a JSON-RPC message object that decide what it is; each is `Some` when the
/// member is present, `null` included (an `"id": null` is a bad id, not a missing one).
#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Version>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "members")]
    params: Option<ParamsMember>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    member: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(member).map(Some)
}

/// `params` read straight into its members; a value that is neither an object nor `null` is a
/// data error here, and the general path answers it.
fn members<'de, D: serde::Deserializer<'de>>(member: D) -> Result<Option<ParamsMember>, D::Error> {
    Params::deserialize(member).map(|params| Some(ParamsMember::Members(params)))
}

/// The `params` member: the members of an object (or of `null`), or a value of another type.
enum ParamsMember {
    Members(Params),
    NotAnObject,
}

impl ParamsMember {
    fn of(value: Value) -> Self {
        match value {
            Value::Object(map) => Self::Members(Params::from(map)),
            Value::Null => Self::Members(Params::default()),
            _ => Self::NotAnObject,
        }
    }
}

/// The `jsonrpc` member, read without keeping it: whether it is exactly `"2.0"`. Any other JSON
/// value is read past (and is a bad version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    is_2_0: bool,
}

impl Version {
    fn of(value: &Value) -> Self {
        Self {
            is_2_0: value.as_str() == Some(JSONRPC),
        }
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Version;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<Version, E> {
                Ok(Version {
                    is_2_0: v == JSONRPC,
                })
            }
            fn visit_bool<E>(self, _: bool) -> Result<Version, E> {
                Ok(Version { is_2_0: false })
            }
            fn visit_i64<E>(self, _: i64) -> Result<Version, E> {
                Ok(Version { is_2_0: false })
            }
            fn visit_u64<E>(self, _: u64) -> Result<Version, E> {
                Ok(Version { is_2_0: false })
            }
            fn visit_f64<E>(self, _: f64) -> Result<Version, E> {
                Ok(Version { is_2_0: false })
            }
            fn visit_unit<E>(self) -> Result<Version, E> {
                Ok(Version { is_2_0: false })
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Version, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Version { is_2_0: false })
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Version, A::Error> {
                while map
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Version { is_2_0: false })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Envelope {
    fn classify(self) -> Result<Incoming, ErrorData> {
        let id = self.id.clone().and_then(RequestId::from_value);
        if !self.jsonrpc.is_some_and(|version| version.is_2_0) {
            // A readable id is echoed; one that is not a string or an integer is answered
            // with `null`, as JSON-RPC 2.0 says for an id that could not be read.
            return Err(invalid_request(id, "`jsonrpc` must be \"2.0\""));
        }
        if self.id.is_some() && id.is_none() {
            return Err(invalid_request(None, "`id` must be a string or an integer"));
        }
        match (self.method, id) {
            (Some(Value::String(method)), Some(id)) => {
                let params = match self.params {
                    None => Params::default(),
                    Some(ParamsMember::Members(params)) => params,
                    Some(ParamsMember::NotAnObject) => {
                        return Err(invalid_request(Some(id), "`params` must be an object"));
                    }
                };
                Ok(Incoming::Request(Request { id, method, params }))
            }
            (Some(Value::String(method)), None) => Ok(Incoming::Notification { method }),
            (Some(_), id) => Err(invalid_request(id, "`method` must be a string")),
            (None, Some(id)) if self.result.is_some() || self.error.is_some() => {
                Ok(Incoming::Response {
                    id,
                    result: self.result,
                })
            }
            (None, id) => Err(invalid_request(id, "a request needs `method` (and `id`)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Through the wire: objects take the envelope's fast path, anything else the JSON tree.
    fn classify(body: Value) -> Result<Incoming, ErrorData> {
        let parsed = Incoming::parse(body.to_string().as_bytes());
        let tree = Incoming::classify(body);
        match (&parsed, &tree) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => {
                assert_eq!((a.code, &a.message, &a.id), (b.code, &b.message, &b.id))
            }
            _ => panic!("the two paths disagree: {parsed:?} and {tree:?}"),
        }
        parsed
    }

    #[test]
    fn a_member_given_twice_counts_once_the_last_time_and_a_null_id_is_a_bad_id() {
        let twice = br#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#;
        let Ok(Incoming::Request(request)) = Incoming::parse(twice) else {
            panic!("a request");
        };
        assert_eq!(request.id, RequestId::Number(2.into()));
        let null_id = Incoming::parse(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!(
            null_id.err().map(|e| e.code),
            Some(ErrorCode::INVALID_REQUEST)
        );
        for broken in [&b"{\"jsonrpc\":"[..], b"{]", b"[1,", b" "] {
            let error = Incoming::parse(broken).expect_err("not JSON");
            assert_eq!(error.code, ErrorCode::PARSE_ERROR);
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Ok(Incoming::Request(_))
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            Ok(Incoming::Notification { .. })
        ));
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}})),
            Ok(Incoming::Response {
                result: Some(_),
                ..
            })
        ));
    }

    /// JSON-RPC 2.0, Response object: "If there was an error in detecting the id in the
    /// Request object (e.g. Parse error/Invalid Request), it MUST be Null."
    #[test]
    fn an_id_that_cannot_be_read_is_answered_with_null() {
        for body in [
            json!({"jsonrpc":"1.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":[1],"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1.5,"method":"ping"}),
        ] {
            let error = classify(body.clone()).expect_err("invalid");
            assert_eq!(error.id, Value::Null, "{body}");
        }
        let readable = classify(json!({"jsonrpc":"1.0","id":"a","method":"ping"}));
        assert_eq!(readable.err().map(|e| e.id), Some(json!("a")));
    }

    #[test]
    fn malformed_envelopes_are_invalid_requests() {
        for body in [
            json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]),
            json!("ping"),
            json!({"jsonrpc":"1.0","id":1,"method":"ping"}),
            // A version that is not the string "2.0", of every JSON type.
            json!({"jsonrpc":2.0,"id":1,"method":"ping"}),
            json!({"jsonrpc":2,"id":1,"method":"ping"}),
            json!({"jsonrpc":-2,"id":1,"method":"ping"}),
            json!({"jsonrpc":true,"id":1,"method":"ping"}),
            json!({"jsonrpc":null,"id":1,"method":"ping"}),
            json!({"jsonrpc":["2.0"],"id":1,"method":"ping"}),
            json!({"jsonrpc":{"version":"2.0"},"id":1,"method":"ping"}),
            json!({"id":1,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1,"method":7}),
            json!({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}),
            json!({"jsonrpc":"2.0","id":1}),
        ] {
            let error = classify(body.clone()).expect_err("invalid");
            assert_eq!(error.code, ErrorCode::INVALID_REQUEST, "{body}");
        }
    }

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

    #[test]
    fn integer_and_string_ids_are_echoed_as_sent() {
        let id = RequestId::from_value(json!(7));
        assert_eq!(
            id.as_ref().map(|id| Response::new(id, json!({})).to_json()),
            Some(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.to_owned())
        );
        assert_eq!(RequestId::from_value(json!(1.5)), None);
    }
}
