//! Usage and cost in the recorded shape. Token counts are derived from what the run read and
//! wrote (about four characters a token), so they are stable for a given script; costs follow
//! the served model's prices and a fixed price per billable tool invocation.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::agent::models;
use crate::agent::validate::Validated;
use crate::agent::wire::items::OutputItem;
use crate::agent::wire::usage::{
    Cost, InputTokensDetails, OutputTokensDetails, Price, ToolCallDetail, Usage,
};

/// What a run read and wrote, for its `usage`.
pub(super) struct Consumed<'a> {
    /// The request.
    pub(super) validated: &'a Validated,
    /// The model that served the run (prices are looked up by it).
    pub(super) served_model: &'a str,
    /// Characters of tool output the model read (they count as input tokens).
    pub(super) tool_chars: usize,
    /// The output items written.
    pub(super) output: &'a [OutputItem],
    /// Billable tool invocations (`search_web`, `fetch_url`, `sandbox`).
    pub(super) billing: &'a BTreeMap<&'static str, u64>,
}

/// The `usage` of a run that consumed this much (output is counted as the JSON it is written
/// as, so measuring it fails only if writing it would).
pub(super) fn usage(consumed: &Consumed<'_>) -> Result<Usage, serde_json::Error> {
    let input_tokens = (1200 + (consumed.validated.read_chars + consumed.tool_chars) / 4) as u64;
    let mut output_chars = 0;
    for item in consumed.output {
        output_chars += written_len(item)?;
    }
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
    let mut details = BTreeMap::new();
    let mut cost_details = BTreeMap::new();
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
            *key,
            ToolCallDetail {
                cost_usd: Price(cost),
                invocation: *count,
            },
        );
        cost_details.insert(*key, Price(cost));
    }
    let tool_cost = round(tool_cost);
    Ok(Usage {
        cost: Cost {
            cache_creation_cost: Price(cache_creation_cost),
            cache_read_cost: 0,
            currency: "USD",
            input_cost: Price(input_cost),
            output_cost: Price(output_cost),
            tool_calls_cost: Price(tool_cost),
            tool_calls_cost_details: cost_details,
            total_cost: Price(round(
                input_cost + cache_creation_cost + output_cost + tool_cost,
            )),
        },
        input_tokens,
        input_tokens_details: InputTokensDetails {
            cache_creation_input_tokens: cache_creation,
            cache_read_input_tokens: 0,
            cached_tokens: 0,
        },
        output_tokens,
        output_tokens_details: OutputTokensDetails {
            reasoning_tokens: 0,
        },
        tool_calls_details: details,
        total_tokens: input_tokens + output_tokens,
    })
}

/// How long `value` is as written JSON (what the model read or wrote, in characters).
pub(super) fn written_len<T: Serialize>(value: &T) -> Result<usize, serde_json::Error> {
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value)?;
    Ok(counter.0)
}

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
