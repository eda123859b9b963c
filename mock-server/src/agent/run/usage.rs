//! Usage and cost in the recorded shape. Token counts are derived from what the run read and
//! wrote (about four characters a token), so they are stable for a given script; costs follow
//! the served model's prices and a fixed price per billable tool invocation.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::agent::models;
use crate::agent::validate::Validated;

/// What a run read and wrote, for its `usage`.
pub(super) struct Consumed<'a> {
    /// The request.
    pub(super) validated: &'a Validated,
    /// The model that served the run (prices are looked up by it).
    pub(super) served_model: &'a str,
    /// Characters of tool output the model read (they count as input tokens).
    pub(super) tool_chars: usize,
    /// The output items written.
    pub(super) output: &'a [Value],
    /// Billable tool invocations (`search_web`, `fetch_url`, `sandbox`).
    pub(super) billing: &'a BTreeMap<&'static str, u64>,
}

/// The `usage` object of a run that consumed this much.
pub(super) fn usage(consumed: &Consumed<'_>) -> Value {
    let request = &consumed.validated.request;
    let input_chars = request.input.to_string().len()
        + request.instructions.as_ref().map_or(0, String::len)
        + consumed
            .validated
            .raw
            .get("tools")
            .map_or(0, |t| t.to_string().len());
    let input_tokens = (1200 + (input_chars + consumed.tool_chars) / 4) as u64;
    let output_chars: usize = consumed.output.iter().map(|i| i.to_string().len()).sum();
    let output_tokens = (output_chars / 4) as u64;
    let cache_creation = input_tokens / 2;
    let model = models::find(consumed.served_model)
        .copied()
        .unwrap_or(models::MODELS[0]);
    let per_token = |price: f64| price / 1_000_000.0;
    let round = |x: f64| (x * 1e8).round() / 1e8;
    let input_cost = round((input_tokens - cache_creation) as f64 * per_token(model.input));
    let cache_creation_cost = round(cache_creation as f64 * per_token(model.cache_write));
    let output_cost = round(output_tokens as f64 * per_token(model.output));
    let mut details = Map::new();
    let mut cost_details = Map::new();
    let mut tool_cost = 0.0;
    for (key, count) in consumed.billing {
        let unit = match *key {
            "search_web" => 0.001,
            "fetch_url" => 0.0005,
            _ => 0.0002,
        };
        let cost = round(unit * *count as f64);
        tool_cost += cost;
        details.insert(
            (*key).into(),
            json!({"cost_usd": models::number(cost), "invocation": count}),
        );
        cost_details.insert((*key).into(), models::number(cost));
    }
    let tool_cost = round(tool_cost);
    json!({
        "cost": {
            "cache_creation_cost": models::number(cache_creation_cost),
            "cache_read_cost": 0,
            "currency": "USD",
            "input_cost": models::number(input_cost),
            "output_cost": models::number(output_cost),
            "tool_calls_cost": models::number(tool_cost),
            "tool_calls_cost_details": cost_details,
            "total_cost": models::number(round(
                input_cost + cache_creation_cost + output_cost + tool_cost
            )),
        },
        "input_tokens": input_tokens,
        "input_tokens_details": {
            "cache_creation_input_tokens": cache_creation,
            "cache_read_input_tokens": 0,
            "cached_tokens": 0,
        },
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "tool_calls_details": details,
        "total_tokens": input_tokens + output_tokens,
    })
}
