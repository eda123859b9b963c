//! JSON-RPC 2.0 as MCP uses it: request ids, error codes and the error object, the success
//! response, and a message as a client reads it off the wire.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

/// The protocol version every message carries.
pub const JSONRPC: &str = "2.0";

/// A request id: a string or an integer (MCP allows no other kind, not even `null`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(Number),
    /// A string id.
    String(String),
}

impl RequestId {
    /// The id a JSON value is, if it is a string or an integer.
    pub fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::String(s) => Some(Self::String(s)),
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(Self::Number(n)),
            _ => None,
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Number(n) => Value::Number(n.clone()),
            Self::String(s) => Value::String(s.clone()),
        }
    }
}

impl From<u64> for RequestId {
    fn from(id: u64) -> Self {
        Self::Number(id.into())
    }
}

impl From<i64> for RequestId {
    fn from(id: i64) -> Self {
        Self::Number(id.into())
    }
}

impl From<String> for RequestId {
    fn from(id: String) -> Self {
        Self::String(id)
    }
}

impl From<&str> for RequestId {
    fn from(id: &str) -> Self {
        Self::String(id.to_owned())
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Self::from_value(value)
            .ok_or_else(|| serde::de::Error::custom("a request id is a string or an integer"))
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// Invalid JSON.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// Not a valid JSON-RPC message.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// Unknown method.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Bad parameters (including an unknown tool).
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Transport-level problems (missing session id, bad headers, authentication), as the
    /// TypeScript SDK answers them.
    pub const SERVER_ERROR: Self = Self(-32000);
    /// Unknown or ended session (as the TypeScript SDK answers).
    pub const SESSION_NOT_FOUND: Self = Self(-32001);
    /// A 2026-07-28 header that disagrees with the body (or is missing).
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// The request needs a client capability the client did not declare on it.
    pub const MISSING_CAPABILITY: Self = Self(-32021);
    /// The request's protocol version is not one this server speaks.
    pub const UNSUPPORTED_VERSION: Self = Self(-32022);
}

/// The `error` member of an error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorObject {
    /// What kind of error.
    pub code: ErrorCode,
    /// A sentence a person can act on.
    pub message: String,
    /// Extra facts for programs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A success response, `{"jsonrpc":"2.0","id":…,"result":…}`: the server's answers, and a
/// client's answer to a request the server sent (an elicitation).
#[derive(Debug, Serialize)]
pub struct Response<'a, T> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: T,
}

impl<'a, T: Serialize> Response<'a, T> {
    /// The response to request `id`.
    pub fn new(id: &'a RequestId, result: T) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id,
            result,
        }
    }

    /// The request it answers.
    pub fn id(&self) -> &RequestId {
        self.id
    }
}

/// A message as a client reads it from a response body or an SSE event: a response (its `result`
/// or its `error`), or a notification or request the server sent (its `method` and `params`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct JsonRpcMessage {
    /// The id: of the request answered, or of the server's own request; `None` for a
    /// notification (and for an error that could not name the request).
    #[serde(default, deserialize_with = "any_id")]
    pub id: Option<RequestId>,
    /// The server's method, for a notification or request it sent.
    #[serde(default)]
    pub method: Option<String>,
    /// Its params.
    #[serde(default)]
    pub params: Option<Value>,
    /// A success response's result.
    #[serde(default)]
    pub result: Option<Value>,
    /// An error response's error.
    #[serde(default)]
    pub error: Option<ErrorObject>,
}

/// A message's `id`, read as `None` when it is `null` or not an id at all.
fn any_id<'de, D: serde::Deserializer<'de>>(id: D) -> Result<Option<RequestId>, D::Error> {
    Ok(RequestId::from_value(Value::deserialize(id)?))
}

impl JsonRpcMessage {
    /// Whether it answers request `id`.
    pub fn answers(&self, id: &RequestId) -> bool {
        self.method.is_none() && self.id.as_ref() == Some(id)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integer_and_string_ids_are_echoed_as_sent() {
        let id = RequestId::from_value(json!(7));
        assert_eq!(
            id.as_ref()
                .and_then(|id| serde_json::to_string(&Response::new(id, json!({}))).ok()),
            Some(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.to_owned())
        );
        assert_eq!(RequestId::from_value(json!(1.5)), None);
        assert_eq!(
            RequestId::from_value(json!("a")),
            Some(RequestId::from("a"))
        );
    }

    #[test]
    fn a_client_reads_responses_errors_and_server_messages_apart() {
        let read = |text: &str| serde_json::from_str::<JsonRpcMessage>(text).expect("a message");
        let answer = read(r#"{"jsonrpc":"2.0","id":3,"result":{"x":1}}"#);
        assert!(answer.answers(&RequestId::from(3u64)));
        assert_eq!(answer.result, Some(json!({"x": 1})));
        let refused = read(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"no"}}"#);
        assert_eq!(refused.id, None);
        assert_eq!(
            refused.error.map(|e| e.code),
            Some(ErrorCode::INVALID_REQUEST)
        );
        let asked = read(r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create"}"#);
        assert!(!asked.answers(&RequestId::from("e1")));
    }
}
