//! What the Agent API rules observe in a transcript: the create requests (`POST /v1/agent` ≡
//! `/v1/responses` ≡ `/responses`), the GETs and cancels of a run, the output items a create
//! was answered with (JSON or stream), and the approval requests and decisions among them.

use mock_server::Exchange;
use serde_json::Value;

use crate::transcript::Transcript;

/// The paths an Agent API create request is served on (the SDKs use `/v1/responses`).
pub(super) const CREATE_PATHS: &[&str] = &["/v1/agent", "/v1/responses", "/responses"];

/// Whether `e` is a create request (`POST /v1/agent`, `/v1/responses` or `/responses`).
pub(super) fn is_create(e: &Exchange) -> bool {
    e.method == "POST" && CREATE_PATHS.contains(&e.path.as_str())
}

/// The creates, in journal order.
pub(super) fn creates(t: &Transcript) -> impl Iterator<Item = &Exchange> {
    t.exchanges.iter().filter(|e| is_create(e))
}

/// The response id a GET or a cancel is about (`/v1/agent/{id}[/cancel]`), with whether it is
/// a cancel.
pub(super) fn run_path(e: &Exchange) -> Option<(&str, bool)> {
    let rest = CREATE_PATHS
        .iter()
        .find_map(|p| e.path.strip_prefix(p)?.strip_prefix('/'))?;
    match rest.split_once('/') {
        None if e.method == "GET" && !rest.is_empty() => Some((rest, false)),
        Some((id, "cancel")) if e.method == "POST" => Some((id, true)),
        _ => None,
    }
}

/// GETs of response `id` after journal position `after`.
pub(super) fn gets_of<'a>(
    t: &'a Transcript,
    id: &'a str,
    after: usize,
) -> impl Iterator<Item = &'a Exchange> {
    t.exchanges
        .iter()
        .filter(move |e| e.seq > after && run_path(e) == Some((id, false)))
}

/// A query parameter of an exchange.
pub(super) fn query_param<'a>(e: &'a Exchange, key: &str) -> Option<&'a str> {
    e.query
        .as_deref()?
        .split('&')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

/// The response id a create was answered with (JSON body, or the stream's `response.created`).
pub(super) fn response_id(e: &Exchange) -> Option<&str> {
    e.response_body
        .get("id")
        .and_then(Value::as_str)
        .or_else(|| {
            e.sse_events
                .iter()
                .find_map(|s| s.data.pointer("/response/id")?.as_str())
        })
}

/// The output items a create was answered with (JSON body, or the stream's finished items).
pub(super) fn output_items(e: &Exchange) -> Vec<Value> {
    if let Some(items) = e.response_body.get("output").and_then(Value::as_array) {
        return items.clone();
    }
    e.sse_events
        .iter()
        .filter(|s| s.data.get("type").and_then(Value::as_str) == Some("response.output_item.done"))
        .filter_map(|s| s.data.get("item").cloned())
        .collect()
}

/// The status of a JSON response body.
pub(super) fn status_of(e: &Exchange) -> Option<&str> {
    e.response_body.get("status").and_then(Value::as_str)
}

pub(super) fn items_of_type<'a>(items: &'a [Value], kind: &str) -> Vec<&'a Value> {
    items
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some(kind))
        .collect()
}

/// The `input` items of a create (an empty list when `input` is a string).
pub(super) fn input_items(e: &Exchange) -> Vec<Value> {
    e.request_body
        .get("input")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Creates answered with at least one `mcp_approval_request`, with those requests.
pub(super) fn asking(t: &Transcript) -> Vec<(&Exchange, Vec<Value>)> {
    creates(t)
        .filter_map(|e| {
            let items = output_items(e);
            let asked: Vec<Value> = items_of_type(&items, "mcp_approval_request")
                .into_iter()
                .cloned()
                .collect();
            (!asked.is_empty()).then_some((e, asked))
        })
        .collect()
}

/// Creates whose input carries an `mcp_approval_response`: the approval continuations.
pub(super) fn continuations(t: &Transcript) -> Vec<&Exchange> {
    creates(t)
        .filter(|e| {
            input_items(e)
                .iter()
                .any(|i| i.get("type").and_then(Value::as_str) == Some("mcp_approval_response"))
        })
        .collect()
}

/// The `mcp_approval_response` items of a continuation.
pub(super) fn decisions(e: &Exchange) -> Vec<Value> {
    input_items(e)
        .into_iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("mcp_approval_response"))
        .collect()
}

pub(super) fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The create whose answer held the approval request `id`, and that request.
pub(super) fn origin_of<'a>(
    asked: &'a [(&'a Exchange, Vec<Value>)],
    id: &str,
) -> Option<(&'a Exchange, &'a Value)> {
    asked.iter().find_map(|(e, requests)| {
        requests
            .iter()
            .find(|r| str_field(r, "id") == id)
            .map(|r| (*e, r))
    })
}

/// Whether `later` sends `first`'s request again as a new conversation (no
/// `previous_response_id`, the same `input`).
pub(super) fn recreated(first: &Exchange, later: &Exchange) -> bool {
    later.seq > first.seq
        && later.request_body.get("previous_response_id").is_none()
        && later.request_body.get("input") == first.request_body.get("input")
}
