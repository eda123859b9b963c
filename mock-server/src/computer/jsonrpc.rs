//! JSON-RPC 2.0 envelopes as MCP uses them.

use serde_json::{Value, json};

/// Invalid JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// Not a valid JSON-RPC message.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// Unknown method.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// Bad parameters (including an unknown tool).
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// Transport-level problems such as a missing session id (as the TypeScript SDK answers).
pub(crate) const SERVER_ERROR: i64 = -32000;
/// Unknown or ended session (as the TypeScript SDK answers).
pub(crate) const SESSION_NOT_FOUND: i64 = -32001;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The error response for request `id` (`null` when the id is unknown).
    pub(crate) fn response(&self, id: Option<&Value>) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        json!({"jsonrpc": "2.0", "id": id.cloned().unwrap_or(Value::Null), "error": error})
    }
}

/// A success response.
pub(crate) fn success(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A notification.
pub(crate) fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// A message a client POSTed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request, answered with a response.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification, answered with 202.
    Notification { method: String },
    /// A response to a server request, answered with 202.
    Response,
}

/// Classifies a parsed body, or says why it is not a JSON-RPC message.
pub(crate) fn classify(body: &Value) -> Result<Incoming, (Option<Value>, RpcError)> {
    let invalid = |id: Option<Value>, why: &str| {
        Err((
            id,
            RpcError::new(INVALID_REQUEST, format!("Invalid Request: {why}")),
        ))
    };
    if body.is_array() {
        return invalid(
            None,
            "JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one message per POST",
        );
    }
    let Some(object) = body.as_object() else {
        return invalid(None, "the body must be a JSON-RPC object");
    };
    let id = object.get("id").cloned();
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id, "`jsonrpc` must be \"2.0\"");
    }
    if let Some(id) = &id
        && !(id.is_string() || id.is_i64() || id.is_u64())
    {
        return invalid(None, "`id` must be a string or an integer");
    }
    match (object.get("method"), id) {
        (Some(Value::String(method)), Some(id)) => {
            let params = object.get("params").cloned().unwrap_or(Value::Null);
            if !(params.is_null() || params.is_object()) {
                return invalid(Some(id), "`params` must be an object");
            }
            Ok(Incoming::Request {
                id,
                method: method.clone(),
                params,
            })
        }
        (Some(Value::String(method)), None) => Ok(Incoming::Notification {
            method: method.clone(),
        }),
        (Some(_), id) => invalid(id, "`method` must be a string"),
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => {
            Ok(Incoming::Response)
        }
        (None, id) => invalid(id, "a request needs `method` (and `id`)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Ok(Incoming::Request { .. })
        ));
        assert!(matches!(
            classify(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            Ok(Incoming::Notification { .. })
        ));
        assert_eq!(
            classify(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
            Ok(Incoming::Response)
        );
    }

    #[test]
    fn malformed_envelopes_are_invalid_requests() {
        for body in [
            json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]),
            json!("ping"),
            json!({"jsonrpc":"1.0","id":1,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1,"method":7}),
            json!({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}),
            json!({"jsonrpc":"2.0","id":1}),
        ] {
            let (_, error) = classify(&body).expect_err("invalid");
            assert_eq!(error.code, INVALID_REQUEST, "{body}");
        }
    }
}
