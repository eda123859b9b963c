//! An Agent API conversation as an `agent` script: each create request's final response (the
//! sync body, the stream's terminal event, or the last background poll) read back into the
//! steps that produce its output items (and, from a stream, the reasoning before them), the
//! end status into `end`, refusals into the `agent` section's `fault`, and streams that ended
//! before their terminal event into the scenario's `faults` (`end-after-events`), so the
//! replay refuses and cuts as often as the upstream did.
//!
//! Each create lands on the turn the mock plays for it: a continuation (`previous_response_id`)
//! of a response that paused on a function call or an approval resumes that response's turn,
//! any other continuation plays the next one, and a create without one plays the turn its
//! `input` history stands at (turn 0 for a fresh conversation). Two creates on the same turn
//! (a background run and a streamed one from the same opening message, a retry) are one turn of
//! the script: the one read from a stream wins, since it shows the reasoning a polled response
//! hides and its timestamps are not rounded to the polls; creates whose output differs from the
//! turn already kept are counted, and the description says so.
//!
//! The time between a response's `created_at` and `completed_at`, less the time a background
//! run stays `queued` in the replay, goes on its steps, so a replay keeps a background run
//! `in_progress` as long.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::journal::{Exchange, SseRecord};

/// How long the replay keeps a background run `queued` (the fixture format's default).
const REPLAY_QUEUED_MS: i64 = 2000;

/// One turn of the script as a create request showed it.
#[derive(Debug)]
struct Seen {
    steps: Vec<Value>,
    end: Value,
    /// Read from an event stream (reasoning included, exact timestamps).
    streamed: bool,
}

/// What an Agent API recording becomes.
#[derive(Debug)]
pub(crate) struct Script {
    /// The `agent` section.
    pub(crate) agent: Value,
    /// The scenario's `faults`, in the fault vocabulary's JSON form.
    pub(crate) faults: Vec<Value>,
    /// The first user message.
    pub(crate) first_message: Option<String>,
    /// How many creates differed from the turn kept for them.
    pub(crate) differing: usize,
}

/// The script of an Agent API recording; `None` when it made no Agent API request.
pub(crate) fn script(exchanges: &[Exchange]) -> Option<Script> {
    let mut turns: Vec<Option<Seen>> = Vec::new();
    // Each response id: the turn it played and whether it paused for the client.
    let mut played: HashMap<String, (usize, bool)> = HashMap::new();
    let mut differing = 0;
    let mut fault: Option<(Value, u32)> = None;
    // A create stream that ended before its terminal event: how many events it carried, and
    // how many creates were cut so.
    let mut cut: Option<(usize, u32)> = None;
    let mut first_message = None;
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
        if let Some(events) = cut_short(exchange) {
            cut.get_or_insert((events, 0)).1 += 1;
        }
        let Some((response, stream)) = final_response(exchanges, i) else {
            continue;
        };
        let streamed = stream.is_some();
        if served_model.is_none() {
            served_model = response
                .get("model")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        let background = request.get("background") == Some(&Value::Bool(true));
        let steps = match &stream {
            Some(events) => stream_steps(events, &response, background),
            None => steps(&response, background),
        };
        let continued = request
            .get("previous_response_id")
            .and_then(Value::as_str)
            .and_then(|id| played.get(id).copied());
        let (turn, resumes) = match continued {
            Some((turn, true)) => (turn, true),
            Some((turn, false)) => (turn + 1, false),
            None => (user_messages(request).saturating_sub(1), false),
        };
        if turns.len() <= turn {
            turns.resize_with(turn + 1, || None);
        }
        let seen = Seen {
            steps,
            end: end_of(&response),
            streamed,
        };
        match &mut turns[turn] {
            Some(kept) if resumes => {
                kept.steps.extend(seen.steps);
                kept.end = seen.end;
            }
            Some(kept) if same_output(&kept.steps, &seen.steps) => {
                if seen.streamed && !kept.streamed {
                    *kept = seen;
                }
            }
            Some(_) => differing += 1,
            slot @ None => *slot = Some(seen),
        }
        if let Some(id) = response.get("id").and_then(Value::as_str) {
            let paused = response
                .get("output")
                .and_then(Value::as_array)
                .and_then(|o| o.last())
                .and_then(|item| item.get("type").and_then(Value::as_str))
                .is_some_and(|t| matches!(t, "function_call" | "mcp_approval_request"));
            played.insert(id.to_owned(), (turn, paused));
        }
    }
    if turns.is_empty() && fault.is_none() {
        return None;
    }
    if turns.is_empty() {
        turns.push(Some(Seen {
            steps: vec![
                json!({"type": "message", "text": "(not recorded: every request was refused)"}),
            ],
            end: Value::Null,
            streamed: false,
        }));
    }
    let mut agent = Map::new();
    if let Some(model) = served_model {
        agent.insert("served_model".into(), json!(model));
    }
    // A refusal stays the `agent` section's own `fault`: it takes any status the upstream
    // answered (a 424 from a connector, say), where the fault vocabulary's are 429 and 5xx.
    if let Some((mut spec, times)) = fault {
        if times > 0 {
            spec["times"] = json!(times);
        }
        agent.insert("fault".into(), spec);
    }
    let mut faults = Vec::new();
    if let Some((events, times)) = cut {
        faults.push(json!({"end-after-events": events, "times": times}));
    }
    let turns: Vec<Value> = turns
        .into_iter()
        .map(|seen| {
            let Some(seen) = seen else {
                // A history that skipped a turn the recording never saw played.
                return json!({"steps": [{"type": "message", "text": "(not recorded)"}]});
            };
            let mut turn = json!({"steps": seen.steps});
            if !seen.end.is_null() {
                turn["end"] = seen.end;
            }
            turn
        })
        .collect();
    agent.insert("turns".into(), Value::Array(turns));
    Some(Script {
        agent: Value::Object(agent),
        faults,
        first_message,
        differing,
    })
}

/// How many events a create's stream carried when it ended before its terminal event (the
/// connection closed cleanly mid-run); `None` for a stream that finished, or no stream.
fn cut_short(exchange: &Exchange) -> Option<usize> {
    let finished = last_streamed(exchange).as_ref().is_some_and(is_over);
    (!exchange.sse_events.is_empty() && !finished).then_some(exchange.sse_events.len())
}

/// How many user messages a request's `input` holds (a string is one): the mock plays the turn
/// the last one opens.
fn user_messages(request: &Value) -> usize {
    match request.get("input") {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|item| {
                item.get("role").and_then(Value::as_str) == Some("user")
                    && item
                        .get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "message")
            })
            .count(),
        _ => 1,
    }
}

/// Whether two readings of a turn produce the same output items (reasoning and times aside).
fn same_output(kept: &[Value], seen: &[Value]) -> bool {
    let items = |steps: &[Value]| -> Vec<Value> {
        steps
            .iter()
            .filter(|s| s["type"] != "reasoning")
            .map(|s| {
                let mut s = s.clone();
                if let Value::Object(map) = &mut s {
                    map.remove("duration");
                }
                s
            })
            .collect()
    };
    items(kept) == items(seen)
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

/// The response a create request ended with (its JSON body, its stream's terminal event, or
/// the last `GET` of its id: background polling, a resumed stream), and, when streams carried
/// it to its end, their events in order (the create's own, then each resumed stream's, each
/// `sequence_number` once).
fn final_response(exchanges: &[Exchange], at: usize) -> Option<(Value, Option<Vec<&SseRecord>>)> {
    let exchange = &exchanges[at];
    let mut latest = if exchange.sse_events.is_empty() {
        Some(exchange.response_body.clone()).filter(|b| b.get("id").is_some())
    } else {
        last_streamed(exchange)
    };
    let mut events: Vec<&SseRecord> = exchange.sse_events.iter().collect();
    let mut ended_on_stream =
        !exchange.sse_events.is_empty() && latest.as_ref().is_some_and(is_over);
    let id = latest.as_ref()?.get("id")?.as_str()?.to_owned();
    for later in &exchanges[at + 1..] {
        if later.method != "GET" || !later.path.ends_with(&id) {
            continue;
        }
        let seen = if later.sse_events.is_empty() {
            Some(later.response_body.clone())
        } else {
            last_streamed(later)
        };
        if let Some(seen) = seen.filter(|s| s.get("status").is_some()) {
            ended_on_stream |= !later.sse_events.is_empty() && is_over(&seen);
            latest = Some(seen);
        }
        for event in &later.sse_events {
            let number = event.data.get("sequence_number");
            let repeated = number.is_some()
                && events
                    .iter()
                    .any(|e| e.data.get("sequence_number") == number);
            if !repeated {
                events.push(event);
            }
        }
    }
    let stream = ended_on_stream.then_some(events);
    latest.map(|response| (response, stream))
}

/// The last response object a stream carried.
fn last_streamed(exchange: &Exchange) -> Option<Value> {
    exchange
        .sse_events
        .iter()
        .rev()
        .find_map(|e| e.data.get("response").cloned())
}

/// Whether a response has reached an end status.
fn is_over(response: &Value) -> bool {
    matches!(
        response.get("status").and_then(Value::as_str),
        Some("completed" | "failed" | "incomplete" | "cancelled")
    )
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
fn steps(response: &Value, background: bool) -> Vec<Value> {
    let items = response
        .get("output")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    timed(
        items.iter().filter_map(step).collect(),
        response,
        background,
    )
}

/// The steps a stream showed, in its order: each `response.reasoning.started` thought and each
/// finished output item.
fn stream_steps(events: &[&SseRecord], response: &Value, background: bool) -> Vec<Value> {
    let steps = events
        .iter()
        .filter_map(|event| {
            let data = &event.data;
            match data.get("type").and_then(Value::as_str)? {
                "response.reasoning.started" => {
                    let thought = data.get("thought").and_then(Value::as_str)?;
                    Some(json!({"type": "reasoning", "thought": thought}))
                }
                "response.output_item.done" => step(data.get("item")?),
                _ => None,
            }
        })
        .collect();
    timed(steps, response, background)
}

/// Puts a response's run time (less the replay's queue time for a background run) on its last
/// step.
fn timed(mut steps: Vec<Value>, response: &Value, background: bool) -> Vec<Value> {
    let queued = if background { REPLAY_QUEUED_MS } else { 0 };
    let took = run_time_ms(response).map(|took| (took - queued).max(0));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::SseRecord;

    fn message(id: &str, text: &str, took_s: u64) -> Value {
        json!({"id": id, "status": "completed", "model": "m", "created_at": 100,
            "completed_at": 100 + took_s,
            "output": [{"type": "message", "content": [{"type": "output_text", "text": text}]}]})
    }

    fn create(request: Value, response: Value) -> Exchange {
        let mut exchange =
            Exchange::new(0, "POST", "/v1/responses", 200, crate::Clock::fixed_epoch());
        exchange.request_body = request;
        exchange.response_body = response;
        exchange
    }

    fn streamed(request: Value, thought: &str, response: Value) -> Exchange {
        let mut exchange = create(request, Value::Null);
        let item = response["output"][0].clone();
        exchange.sse_events = [
            json!({"type": "response.reasoning.started", "thought": thought}),
            json!({"type": "response.output_item.done", "item": item}),
            json!({"type": "response.completed", "response": response}),
        ]
        .into_iter()
        .map(|data| SseRecord {
            data,
            virtual_time: crate::Clock::fixed_epoch(),
        })
        .collect();
        exchange
    }

    #[test]
    fn a_second_fresh_create_is_the_same_turn_and_its_stream_brings_the_reasoning() {
        let exchanges = [
            create(
                json!({"input": "hi", "background": true}),
                message("resp_1", "Hello", 60),
            ),
            streamed(
                json!({"input": "hi", "stream": true}),
                "Thinking",
                message("resp_2", "Hello", 2),
            ),
        ];
        let Script {
            agent,
            first_message: first,
            differing,
            ..
        } = script(&exchanges).expect("a script");
        assert_eq!(first.as_deref(), Some("hi"));
        assert_eq!(differing, 0);
        assert_eq!(
            agent["turns"],
            json!([{"steps": [{"type": "reasoning", "thought": "Thinking"},
                {"type": "message", "text": "Hello", "duration": 2000}]}])
        );
    }

    #[test]
    fn a_stream_that_dropped_and_resumed_brings_the_reasoning_of_both_parts() {
        let done = message("resp_1", "Hello", 4);
        let events = |list: Vec<Value>| -> Vec<SseRecord> {
            list.into_iter()
                .map(|data| SseRecord {
                    data,
                    virtual_time: crate::Clock::fixed_epoch(),
                })
                .collect()
        };
        let mut cut = create(
            json!({"input": "hi", "stream": true, "background": true}),
            Value::Null,
        );
        let running = json!({"id": "resp_1", "status": "in_progress", "created_at": 100});
        cut.sse_events = events(vec![
            json!({"type": "response.created", "sequence_number": 0, "response": running}),
            json!({"type": "response.reasoning.started", "sequence_number": 1, "thought": "Thinking"}),
        ]);
        let mut resumed = Exchange::new(
            1,
            "GET",
            "/v1/responses/resp_1",
            200,
            crate::Clock::fixed_epoch(),
        );
        // A client that resumes from the start gets the first events again.
        resumed.sse_events = events(vec![
            json!({"type": "response.reasoning.started", "sequence_number": 1, "thought": "Thinking"}),
            json!({"type": "response.output_item.done", "sequence_number": 2, "item": done["output"][0]}),
            json!({"type": "response.completed", "sequence_number": 3, "response": done}),
        ]);
        let Script { agent, faults, .. } = script(&[cut, resumed]).expect("a script");
        assert_eq!(faults, vec![json!({"end-after-events": 2, "times": 1})]);
        assert_eq!(
            agent["turns"],
            json!([{"steps": [{"type": "reasoning", "thought": "Thinking"},
                {"type": "message", "text": "Hello", "duration": 2000}]}])
        );
    }

    #[test]
    fn a_fresh_create_answered_differently_is_counted_and_the_first_kept() {
        let exchanges = [
            create(json!({"input": "hi"}), message("resp_1", "Hello", 1)),
            create(json!({"input": "hi"}), message("resp_2", "Goodbye", 1)),
        ];
        let Script {
            agent, differing, ..
        } = script(&exchanges).expect("a script");
        assert_eq!(differing, 1);
        assert_eq!(
            agent["turns"],
            json!([{"steps": [{"type": "message", "text": "Hello", "duration": 1000}]}])
        );
    }

    #[test]
    fn a_continuation_of_a_finished_response_is_the_next_turn_and_a_background_run_loses_its_queue()
    {
        let exchanges = [
            create(
                json!({"input": "hi", "background": true}),
                message("resp_1", "Hello", 5),
            ),
            create(
                json!({"input": "more", "previous_response_id": "resp_1"}),
                message("resp_2", "More", 1),
            ),
            create(
                json!({"input": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello"},
                {"role": "user", "content": "more"}]}),
                message("resp_3", "More", 1),
            ),
        ];
        let Script {
            agent, differing, ..
        } = script(&exchanges).expect("a script");
        assert_eq!(
            differing, 0,
            "the history-carried create plays the second turn too"
        );
        assert_eq!(
            agent["turns"],
            json!([{"steps": [{"type": "message", "text": "Hello", "duration": 3000}]},
                {"steps": [{"type": "message", "text": "More", "duration": 1000}]}])
        );
    }

    #[test]
    fn a_continuation_of_a_paused_response_resumes_its_turn() {
        let paused = json!({"id": "resp_1", "status": "completed", "model": "m",
            "output": [{"type": "function_call", "name": "lookup", "arguments": "{\"q\":1}"}]});
        let exchanges = [
            create(json!({"input": "hi"}), paused),
            create(
                json!({"input": [{"type": "function_call_output", "output": "42"}],
                "previous_response_id": "resp_1"}),
                message("resp_2", "It is 42", 1),
            ),
        ];
        let Script { agent, .. } = script(&exchanges).expect("a script");
        assert_eq!(
            agent["turns"],
            json!([{"steps": [{"type": "function_call", "name": "lookup", "arguments": {"q": 1}},
                {"type": "message", "text": "It is 42", "duration": 1000}]}])
        );
    }
}
