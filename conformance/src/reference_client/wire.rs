//! Writing and reading JSON-RPC, shared by both eras: the messages are `mock_server::model`'s,
//! the same types the mock reads them into.

use mock_server::model::jsonrpc::{JsonRpcMessage, RequestId};
use mock_server::model::request::{ClientNotification, ClientRequest, JsonRpcRequest};
use serde::Serialize;
use serde_json::Value;

use crate::error::ClientError;

/// A message the client POSTs.
#[derive(Debug, Clone)]
pub(super) enum Outbound {
    /// A request, answered by the message with its id.
    Request(Box<JsonRpcRequest>),
    /// A notification, answered with 202 and nothing else.
    Notification(ClientNotification),
}

impl Outbound {
    /// Request `id` asking `request`.
    pub(super) fn request(id: impl Into<RequestId>, request: ClientRequest) -> Self {
        Self::Request(Box::new(JsonRpcRequest::new(id, request)))
    }

    /// The id of a request (a notification has none).
    pub(super) fn id(&self) -> Option<&RequestId> {
        match self {
            Self::Request(request) => Some(&request.id),
            Self::Notification(_) => None,
        }
    }

    /// Its method.
    pub(super) fn method(&self) -> &str {
        match self {
            Self::Request(request) => request.request.method(),
            Self::Notification(notification) => notification.method(),
        }
    }

    /// The body to POST.
    pub(super) fn body(&self) -> Result<String, ClientError> {
        match self {
            Self::Request(request) => body(&**request, self.method()),
            Self::Notification(notification) => body(notification, self.method()),
        }
    }
}

/// `message` as the JSON text of a POST body.
pub(super) fn body(message: &impl Serialize, what: &str) -> Result<String, ClientError> {
    // The model's types are strings, numbers and JSON values, which always serialize; a failure
    // is reported rather than sent as an empty body.
    serde_json::to_string(message).map_err(|error| ClientError::Protocol {
        what: what.to_owned(),
        detail: format!("the client could not write its request: {error}"),
    })
}

/// `value` (a tool's arguments) as JSON.
pub(super) fn to_json(value: &impl Serialize, what: &str) -> Result<Value, ClientError> {
    serde_json::to_value(value).map_err(|error| ClientError::Protocol {
        what: what.to_owned(),
        detail: format!("the client could not write its arguments: {error}"),
    })
}

/// The JSON-RPC messages of a response body, JSON or SSE (anything that is not one is skipped).
pub(super) fn jsonrpc_messages(text: &str, is_sse: bool) -> Vec<JsonRpcMessage> {
    if !is_sse {
        return serde_json::from_str(text).ok().into_iter().collect();
    }
    text.split("\n\n")
        .filter_map(|frame| {
            let data: Vec<&str> = frame
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty())
                .then(|| serde_json::from_str(&data.join("\n")).ok())
                .flatten()
        })
        .collect()
}

/// The `id:` of each event of an SSE body, in order.
pub(super) fn event_ids(text: &str) -> Vec<String> {
    text.split("\n\n")
        .filter_map(|frame| frame.lines().find_map(|l| l.strip_prefix("id:")))
        .map(|id| id.trim_start().to_owned())
        .collect()
}

/// What a message that is not a result says, for an error.
pub(super) fn describe(message: &JsonRpcMessage) -> String {
    match &message.error {
        Some(error) => format!(
            "error {}: {}{}",
            error.code.0,
            error.message,
            error
                .data
                .as_ref()
                .map_or_else(String::new, |data| format!(" ({data})"))
        ),
        None => "a response without a result".to_owned(),
    }
}

/// The task JSON of a tool result: `structuredContent`, else the first text block read as
/// JSON.
pub(super) fn task_json(result: &Value) -> Option<Value> {
    if let Some(structured) = result.get("structuredContent") {
        return Some(structured.clone());
    }
    result
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .and_then(|text| serde_json::from_str(text).ok())
}
