//! Requests a server sends on a stream while the client waits for its own answer.

use std::time::Duration;

use reqwest::Url;
use reqwest::header::HeaderMap;
use serde_json::Value;

use super::deadline::with_deadline;
use super::jsonrpc::Answer;

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
        Answer::empty(id)
    } else {
        Answer::method_not_found(
            id,
            format!("Method not found: this client declared no capabilities for {method}"),
        )
    };
    // Ids and strings only, so writing it does not fail; were it ever to, the server's
    // request goes unanswered and the call's own limit bounds the wait.
    let Ok(answer) = serde_json::to_string(&answer) else {
        return;
    };
    let send = http.post(endpoint).headers(headers).body(answer).send();
    // The answer is a courtesy; the call's own limit still bounds the wait.
    let _ = with_deadline(limit, send).await;
}
