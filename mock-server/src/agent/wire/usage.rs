//! A response's `usage` and a price, in the shape the live API was recorded writing.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

/// A price or cost in USD, written as the live API writes them: whole numbers without a
/// fraction (`2`, `0`, as recorded in `pricing` and `usage.cost`), others as decimals (`2.5`).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub(crate) struct Price(pub(crate) f64);

impl Serialize for Price {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let x = self.0;
        // Prices and costs are small and non-negative; anything else stays a float.
        if x.fract() == 0.0 && (0.0..9.0e15).contains(&x) {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let whole = x as u64;
            serializer.serialize_u64(whole)
        } else {
            serializer.serialize_f64(x)
        }
    }
}

/// A response's `usage`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Usage {
    /// What the run cost.
    pub(crate) cost: Cost,
    /// Tokens read.
    pub(crate) input_tokens: u64,
    /// How the tokens read were cached.
    pub(crate) input_tokens_details: InputTokensDetails,
    /// Tokens written.
    pub(crate) output_tokens: u64,
    /// What the tokens written were.
    pub(crate) output_tokens_details: OutputTokensDetails,
    /// Each billable tool: its cost and how often it ran.
    pub(crate) tool_calls_details: BTreeMap<&'static str, ToolCallDetail>,
    /// Tokens read and written.
    pub(crate) total_tokens: u64,
}

/// `usage.cost`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Cost {
    /// Writing the prompt cache.
    pub(crate) cache_creation_cost: Price,
    /// Reading the prompt cache (the mock never hits it).
    pub(crate) cache_read_cost: u64,
    /// Always `USD`.
    pub(crate) currency: &'static str,
    /// Input tokens not cached.
    pub(crate) input_cost: Price,
    /// Output tokens.
    pub(crate) output_cost: Price,
    /// Every billable tool invocation.
    pub(crate) tool_calls_cost: Price,
    /// Per billable tool.
    pub(crate) tool_calls_cost_details: BTreeMap<&'static str, Price>,
    /// Everything.
    pub(crate) total_cost: Price,
}

/// `usage.input_tokens_details`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct InputTokensDetails {
    /// Tokens written to the prompt cache.
    pub(crate) cache_creation_input_tokens: u64,
    /// Tokens read from it.
    pub(crate) cache_read_input_tokens: u64,
    /// Tokens served from cache.
    pub(crate) cached_tokens: u64,
}

/// `usage.output_tokens_details`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct OutputTokensDetails {
    /// Tokens spent reasoning.
    pub(crate) reasoning_tokens: u64,
}

/// One billable tool in `usage.tool_calls_details`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ToolCallDetail {
    /// Its cost.
    pub(crate) cost_usd: Price,
    /// How many times it ran.
    pub(crate) invocation: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(x: f64) -> String {
        serde_json::to_string(&Price(x)).expect("a price renders")
    }

    #[test]
    fn whole_prices_are_written_without_a_fraction_as_recorded() {
        assert_eq!(written(2.0), "2");
        assert_eq!(written(0.0), "0");
        assert_eq!(written(2.5), "2.5");
        assert_eq!(written(0.00125), "0.00125");
        assert_eq!(written(-1.0), "-1.0");
    }

    #[test]
    fn usage_renders_its_fields_in_the_recorded_order() {
        let usage = Usage {
            cost: Cost {
                cache_creation_cost: Price(0.5),
                cache_read_cost: 0,
                currency: "USD",
                input_cost: Price(1.0),
                output_cost: Price(0.25),
                tool_calls_cost: Price(0.001),
                tool_calls_cost_details: BTreeMap::from([("search_web", Price(0.001))]),
                total_cost: Price(1.751),
            },
            input_tokens: 1300,
            input_tokens_details: InputTokensDetails {
                cache_creation_input_tokens: 650,
                cache_read_input_tokens: 0,
                cached_tokens: 0,
            },
            output_tokens: 40,
            output_tokens_details: OutputTokensDetails {
                reasoning_tokens: 0,
            },
            tool_calls_details: BTreeMap::from([(
                "search_web",
                ToolCallDetail {
                    cost_usd: Price(0.001),
                    invocation: 1,
                },
            )]),
            total_tokens: 1340,
        };
        assert_eq!(
            serde_json::to_string(&usage).expect("usage renders"),
            r#"{"cost":{"cache_creation_cost":0.5,"cache_read_cost":0,"currency":"USD","input_cost":1,"output_cost":0.25,"tool_calls_cost":0.001,"tool_calls_cost_details":{"search_web":0.001},"total_cost":1.751},"input_tokens":1300,"input_tokens_details":{"cache_creation_input_tokens":650,"cache_read_input_tokens":0,"cached_tokens":0},"output_tokens":40,"output_tokens_details":{"reasoning_tokens":0},"tool_calls_details":{"search_web":{"cost_usd":0.001,"invocation":1}},"total_tokens":1340}"#
        );
    }
}
