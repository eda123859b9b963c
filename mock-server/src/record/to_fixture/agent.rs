//! An Agent API conversation as an `agent` script: each create request's final response (the
//! sync body, the stream's terminal event, or the last background poll) read back into the
//! steps that produce its output items, refusals into a `fault`, the end status into `end`.
//!
//! A continuation (`previous_response_id`) after a response that paused on a function call or an
//! approval resumes the same turn, as the script plays it; any other starts the next turn. The
//! time between a response's `created_at` and `completed_at` goes on its steps, so a replay
//! keeps a background run `in_progress` as long.

use serde_json::{Map, Value, json};

use crate::journal::Exchange;

/// The `agent` section, or `None` when the recording made no Agent API request.
pub(crate) fn script(exchanges: &[Exchange]) -> Option<(Value, Option<String>)> {
    let mut turns: Vec<Vec<Value>> = Vec::new();
    let mut ends: Vec<Value> = Vec::new();
    let mut fault: Option<(Value, u32)> = None;
    let mut first_message = None;
    let mut paused = false;
    let mut served_model = None;
    for (i, exchange) in exchanges.iter().enumerate() {
        if exchange.method != "POST" || !crate::agent::is_agent_path(&exchange.path) {
            continue;
        }
        if exchange.path.ends_with("/cancel") {
            continue;
        }
        let request = &exchange.request_body;
        if first_message.is_none() {
            first_message = first_input(request);
        }
        if exchange.status >= 400 {
            let error = exchange
                .response_body
                .get("error")
                .cloned()
                .unwrap_or(Value::Null);
            let entry = fault.get_or_insert_with(|| {
                let mut spec = json!({"status": exchange.status});
                if let Some(kind) = error.get("type") {
                    spec["type"] = kind.clone();
                }
                if let Some(message) = error.get("message") {
                    spec["message"] = message.clone();
                }
                if let Some(after) = exchange
                    .response_headers
                    .get("retry-after-ms")
                    .and_then(Value::as_str)
                    .and_then(|v| v.parse::<u64>().ok())
                {
                    spec["retry_after_ms"] = json!(after);
                }
                (spec, 0)
            });
            if turns.is_empty() {
                entry.1 += 1;
            }
            continue;
        }
        let Some(response) = final_response(exchanges, i) else {
            continue;
        };
        if served_model.is_none() {
            served_model = response
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        let steps = steps(&response);
        let continues = request
            .get("previous_response_id")
            .is_some_and(|v| !v.is_null());
        if continues && paused && !turns.is_empty() {
            if let Some(last) = turns.last_mut() {
                last.extend(steps);
            }
        } else {
            turns.push(steps);
            ends.push(Value::Null);
        }
        paused = response
            .get("output")
            .and_then(Value::as_array)
            .and_then(|o| o.last())
            .and_then(|item| item.get("type").and_then(Value::as_str))
            .is_some_and(|t| matches!(t, "function_call" | "mcp_approval_request"));
        if let Some(end) = ends.last_mut() {
            *end = end_of(&response);
        }
    }
    if turns.is_empty() && fault.is_none() {
        return None;
    }
    if turns.is_empty() {
        turns.push(vec![
            json!({"type": "message", "text": "(not recorded: every request was refused)"}),
        ]);
        ends.push(Value::Null);
    }
    let mut agent = Map::new();
    if let Some(model) = served_model {
        agent.insert("served_model".into(), json!(model));
    }
    if let Some((mut spec, times)) = fault {
        if times > 0 {
            spec["times"] = json!(times);
        }
        agent.insert("fault".into(), spec);
    }
    let turns: Vec<Value> = turns
        .into_iter()
        .zip(ends)
        .map(|(steps, end)| {
            let mut turn = json!({"steps": steps});
            if !end.is_null() {
                turn["end"] = end;
            }
            turn
        })
        .collect();
    agent.insert("turns".into(), Value::Array(turns));
    Some((Value::Object(agent), first_message))
}

/// The user's first message in a request's `input`.
fn first_input(request: &Value) -> Option<String> {
    match request.get("input")? {
        Value::String(text) => Some(text.clone()),
        Value::Array(items) => items.iter().find_map(|item| match item.get("content")? {
            Value::String(text) => Some(text.clone()),
            Value::Array(parts) => parts
                .iter()
                .find_map(|p| p.get("text")?.as_str().map(str::to_owned)),
            _ => None,
        }),
        _ => None,
    }
}

/// The response a create request ended with: its JSON body, its stream's terminal event, or
/// the last `GET` of its id (background polling, a resumed stream).
fn final_response(exchanges: &[Exchange], at: usize) -> Option<Value> {
    let exchange = &exchanges[at];
    let mut latest = if exchange.sse_events.is_empty() {
        Some(exchange.response_body.clone()).filter(|b| b.get("id").is_some())
    } else {
        exchange
            .sse_events
            .iter()
            .rev()
            .find_map(|e| e.data.get("response").cloned())
    };
    let id = latest.as_ref()?.get("id")?.as_str()?.to_owned();
    for later in &exchanges[at + 1..] {
        if later.method != "GET" || !later.path.ends_with(&id) {
            continue;
        }
        let seen = if later.sse_events.is_empty() {
            Some(later.response_body.clone())
        } else {
            later
                .sse_events
                .iter()
                .rev()
                .find_map(|e| e.data.get("response").cloned())
        };
        if let Some(seen) = seen.filter(|s| s.get("status").is_some()) {
            latest = Some(seen);
        }
    }
    latest
}

/// How a turn ends, when not simply `completed`.
fn end_of(response: &Value) -> Value {
    match response.get("status").and_then(Value::as_str) {
        Some("failed") => {
            let error = response.get("error").unwrap_or(&Value::Null);
            let mut end = json!({"status": "failed"});
            for (from, to) in [
                ("type", "error_type"),
                ("code", "error_code"),
                ("message", "error_message"),
            ] {
                if let Some(v) = error.get(from).filter(|v| v.is_string()) {
                    end[to] = v.clone();
                }
            }
            end
        }
        Some("incomplete") => json!({"status": "incomplete"}),
        _ => Value::Null,
    }
}

/// The steps that produce a response's output items; its run time goes on the last one.
fn steps(response: &Value) -> Vec<Value> {
    let items = response
        .get("output")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut steps: Vec<Value> = items.iter().filter_map(step).collect();
    let took = run_time_ms(response);
    if let (Some(last), Some(took)) = (steps.last_mut(), took) {
        last["duration"] = json!(took);
    }
    steps
}

/// Milliseconds from `created_at` to `completed_at` (seconds or RFC 3339 times).
fn run_time_ms(response: &Value) -> Option<i64> {
    let at = |key: &str| -> Option<f64> {
        match response.get(key)? {
            Value::Number(n) => n.as_f64().map(|s| s * 1000.0),
            Value::String(t) => chrono::DateTime::parse_from_rfc3339(t)
                .ok()
                .map(|t| t.timestamp_millis() as f64),
            _ => None,
        }
    };
    let took = at("completed_at")? - at("created_at")?;
    (took >= 0.0).then_some(took as i64)
}

fn step(item: &Value) -> Option<Value> {
    let pick = |keys: &[&str], from: &Value| -> Value {
        let mut out = Map::new();
        for key in keys {
            if let Some(v) = from.get(*key).filter(|v| !v.is_null()) {
                out.insert((*key).to_owned(), v.clone());
            }
        }
        Value::Object(out)
    };
    let list = |key: &str, keys: &[&str]| -> Value {
        Value::Array(
            item.get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|r| pick(keys, r))
                .collect(),
        )
    };
    let arguments = |item: &Value| -> Option<Value> {
        let raw = item.get("arguments")?;
        Some(
            raw.as_str()
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_else(|| raw.clone()),
        )
    };
    Some(match item.get("type")?.as_str()? {
        "search_results" => json!({"type": "web_search",
            "queries": item.get("queries").cloned().unwrap_or_else(|| json!([])),
            "results": list("results", &["title", "url", "snippet", "date"])}),
        "fetch_url_results" => {
            json!({"type": "fetch_url", "contents": list("contents", &["title", "url", "snippet"])})
        }
        "mcp_call" | "mcp_approval_request" => {
            let mut out = json!({"type": "mcp_call"});
            if let Some(server) = item.get("server_label") {
                out["server"] = server.clone();
            }
            if let Some(tool) = item.get("name") {
                out["tool"] = tool.clone();
            }
            if let Some(arguments) = arguments(item) {
                out["arguments"] = arguments;
            }
            if let Some(error) = item.get("error").filter(|e| e.is_string()) {
                out["error"] = error.clone();
            }
            out
        }
        "function_call" => {
            let mut out = json!({"type": "function_call", "name": item.get("name").cloned().unwrap_or(Value::Null)});
            if let Some(arguments) = arguments(item) {
                out["arguments"] = arguments;
            }
            out
        }
        "share_file" => json!({"type": "share_file",
            "filename": item.get("filename").cloned().unwrap_or_else(|| json!("file")),
            "content": item.get("content").and_then(Value::as_str).unwrap_or("")}),
        "message" => {
            let text: String = item
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect();
            json!({"type": "message", "text": text})
        }
        _ => return None,
    })
}
