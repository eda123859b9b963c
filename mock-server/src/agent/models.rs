//! The Agent API's model catalog (`GET /v1/models`, as recorded on 2026-10-09) and presets.

use super::wire::lists::{List, ModelEntry, Pricing};
use super::wire::usage::Price;

/// A model the Agent API serves, with its recorded pricing (USD per million tokens).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Model {
    /// `provider/model`.
    pub(crate) id: &'static str,
    /// Input price.
    pub(crate) input: f64,
    /// Output price.
    pub(crate) output: f64,
    /// Cache-write price.
    pub(crate) cache_write: f64,
    /// Cache-read price.
    pub(crate) cache_read: f64,
}

/// The served models. `openai/gpt-5.6-terra`'s pricing is the recorded one; the others follow
/// its shape with the mock's own numbers.
pub(crate) const MODELS: &[Model] = &[
    model("openai/gpt-5.6-terra", 2.0, 12.0, 2.5, 0.2),
    model("openai/gpt-5.6-luna", 1.25, 10.0, 1.5, 0.125),
    model("openai/gpt-5.6-sol", 5.0, 25.0, 6.25, 0.5),
    model("openai/gpt-6-luna", 1.5, 12.0, 1.875, 0.15),
    model("openai/gpt-6-sol", 6.0, 30.0, 7.5, 0.6),
    model("openai/gpt-6-astra", 10.0, 50.0, 12.5, 1.0),
    model("anthropic/claude-sonnet-4-5", 3.0, 15.0, 3.75, 0.3),
    model("anthropic/claude-opus-4-5", 5.0, 25.0, 6.25, 0.5),
    model("google/gemini-3-pro", 2.0, 12.0, 2.5, 0.2),
    model("perplexity/sonar", 1.0, 1.0, 1.0, 0.1),
    model("xai/grok-4", 3.0, 15.0, 3.75, 0.75),
];

const fn model(
    id: &'static str,
    input: f64,
    output: f64,
    cache_write: f64,
    cache_read: f64,
) -> Model {
    Model {
        id,
        input,
        output,
        cache_write,
        cache_read,
    }
}

/// Presets and the model each resolves to (`fast` → `openai/gpt-6-luna` was recorded live).
pub(crate) const PRESETS: &[(&str, &str)] = &[
    ("fast", "openai/gpt-6-luna"),
    ("low", "openai/gpt-6-luna"),
    ("medium", "openai/gpt-6-sol"),
    ("high", "openai/gpt-6-sol"),
    ("xhigh", "openai/gpt-6-astra"),
    ("fast-search", "openai/gpt-6-luna"),
    ("pro-search", "openai/gpt-6-sol"),
    ("deep-research", "openai/gpt-6-sol"),
    ("advanced-deep-research", "openai/gpt-6-astra"),
    ("wide-research", "openai/gpt-6-astra"),
];

/// The model with this id.
pub(crate) fn find(id: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.id == id)
}

/// The model a preset resolves to.
pub(crate) fn preset_model(preset: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(p, _)| *p == preset).map(|(_, m)| *m)
}

/// `GET /v1/models`.
pub(crate) fn list() -> List<ModelEntry> {
    List::of(
        MODELS
            .iter()
            .map(|m| ModelEntry {
                id: m.id,
                object: "model",
                created: 0,
                owned_by: m.id.split('/').next().unwrap_or(m.id),
                pricing: Pricing {
                    input: Price(m.input),
                    output: Price(m.output),
                    cache_write: Price(m.cache_write),
                    cache_read: Price(m.cache_read),
                    unit: "usd_per_1m_tokens",
                },
            })
            .collect(),
    )
}
