//! Requests a server sends on a stream while the client waits for its own answer.

use std::time::Duration;

use reqwest::Url;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use super::deadline::with_deadline;

/// Answers a request the server sent on a stream while a call waits: `ping` with an empty
/// result, anything else (sampling, elicitation, roots: capabilities this client never
/// declared) with "method not found", so the server is not left waiting until the limit.
/// `message` that is no request (a notification, a stray response) gets no answer.
pub(super) async fn answer(
    http: &reqwest::Client,
    headers: HeaderMap,
    endpoint: Url,
    limit: Duration,
    message: &Value,
) {
    let (Some(id), Some(method)) = (message.get("id"), message.get("method")) else {
        return;
    };
    let answer = if method == "ping" {
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    } else {
        json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32601,
            "message": format!("Method not found: this client declared no capabilities for {method}"),
        }})
    };
    let send = http
        .post(endpoint)
        .headers(headers)
        .body(answer.to_string())
        .send();
    // The answer is a courtesy; the call's own limit still bounds the wait.
    let _ = with_deadline(limit, send).await;
}
