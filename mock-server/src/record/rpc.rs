//! The MCP traffic of a recording, read as JSON-RPC: each request the client sent with the
//! answer it got (from a JSON body or from the event stream of the same POST), and what the
//! stream carried before the answer (progress notifications, server requests such as an
//! elicitation). A client's answer to a server request (a POST of a `result` with no `method`)
//! is kept too, as a message of its own.

use serde_json::Value;

use crate::journal::Exchange;

/// One request of the client and what came back.
#[derive(Debug, Clone)]
pub(crate) struct Rpc {
    /// `tools/call`, `tasks/get`, ...; empty for the client's answer to a server request.
    pub(crate) method: String,
    /// Its params (for an answer to a server request: the `result` it sent).
    pub(crate) params: Value,
    /// The `result` (or, for an error, `{"error": ...}`), when one came.
    pub(crate) answer: Option<Value>,
    /// Notifications and server requests sent on the same stream before the answer.
    pub(crate) stream: Vec<Value>,
    /// The HTTP status of the POST that carried it (a 401 never reached the server).
    pub(crate) http_status: u16,
}

impl Rpc {
    /// The tool a `tools/call` names.
    pub(crate) fn tool(&self) -> Option<&str> {
        (self.method == "tools/call")
            .then(|| self.params.get("name").and_then(Value::as_str))
            .flatten()
    }

    /// A tool call's arguments.
    pub(crate) fn arguments(&self) -> &Value {
        self.params.get("arguments").unwrap_or(&Value::Null)
    }
}

/// Every JSON-RPC request in the recording, in order.
pub(crate) fn calls(exchanges: &[Exchange]) -> Vec<Rpc> {
    let mut out = Vec::new();
    for exchange in exchanges {
        if exchange.method != "POST" {
            continue;
        }
        let messages = match &exchange.request_body {
            Value::Array(batch) => batch.clone(),
            message @ Value::Object(_) => vec![message.clone()],
            _ => continue,
        };
        let answers: Vec<&Value> = if exchange.sse_events.is_empty() {
            match &exchange.response_body {
                Value::Array(batch) => batch.iter().collect(),
                other => vec![other],
            }
        } else {
            exchange.sse_events.iter().map(|e| &e.data).collect()
        };
        for message in messages {
            if message.get("jsonrpc").is_none() {
                continue;
            }
            let Some(method) = message.get("method").and_then(Value::as_str) else {
                // The client's answer to a server request (an elicitation's `result`).
                if let Some(result) = message.get("result") {
                    out.push(Rpc {
                        method: String::new(),
                        params: result.clone(),
                        answer: None,
                        stream: Vec::new(),
                        http_status: exchange.status,
                    });
                }
                continue;
            };
            let id = message.get("id");
            let mut stream = Vec::new();
            let mut answer = None;
            for reply in &answers {
                let same_id =
                    id.is_some() && reply.get("id") == id && reply.get("method").is_none();
                if same_id {
                    answer = reply
                        .get("result")
                        .cloned()
                        .or_else(|| reply.get("error").map(|e| serde_json::json!({"error": e})));
                    break;
                }
                if reply.get("method").is_some() {
                    stream.push((*reply).clone());
                }
            }
            out.push(Rpc {
                method: method.to_owned(),
                params: message.get("params").cloned().unwrap_or(Value::Null),
                answer,
                stream,
                http_status: exchange.status,
            });
        }
    }
    out
}

/// The Computer result in a `CallToolResult`: its `structuredContent`, else its first text block
/// parsed as JSON.
pub(crate) fn tool_payload(result: &Value) -> Option<Value> {
    if let Some(structured) = result.get("structuredContent").filter(|v| v.is_object()) {
        return Some(structured.clone());
    }
    result
        .get("content")?
        .as_array()?
        .iter()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .find_map(|block| serde_json::from_str::<Value>(block.get("text")?.as_str()?).ok())
        .filter(Value::is_object)
}
