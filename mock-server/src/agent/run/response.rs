//! The response object: how it first appears, and the `model` it shows (a preset's name until
//! the run completes, then the model that served it), with every field as recorded from the
//! live API.

use serde_json::Value;

use crate::agent::models;
use crate::agent::validate::Validated;
use crate::agent::wire::response::{Response, Sampling, Status};

/// The response object as it first appears (fields as recorded from the live API).
/// `stored` is what `store` reports: false when the request said so or the account keeps no
/// data (zero data retention).
pub(super) fn initial_response(
    id: String,
    v: &Validated,
    created_at: i64,
    status: Status,
    stored: bool,
) -> Response {
    let r = &v.request;
    Response {
        background: r.background.unwrap_or(false),
        completed_at: None,
        created_at,
        error: None,
        frequency_penalty: 0,
        id,
        incomplete_details: None,
        instructions: r.instructions.clone(),
        max_output_tokens: r.max_output_tokens,
        max_tool_calls: r.max_tool_calls,
        metadata: r.metadata.clone().unwrap_or_default(),
        model: shown_model(v, false, None),
        object: "response",
        output: Vec::new(),
        parallel_tool_calls: true,
        presence_penalty: 0,
        previous_response_id: r.previous_response_id.clone(),
        prompt_cache_key: r.prompt_cache_key.clone(),
        reasoning: r.reasoning.clone(),
        safety_identifier: None,
        service_tier: r.service_tier.clone().unwrap_or_else(|| "default".into()),
        status,
        store: stored,
        temperature: Sampling(r.temperature),
        text: v.echo.text.clone(),
        tool_choice: r
            .tool_choice
            .clone()
            .unwrap_or_else(|| Value::String("auto".into())),
        // Credentials the client sent for a server are never echoed back.
        tools: v.echo.tools.clone(),
        top_logprobs: 0,
        top_p: Sampling(r.top_p),
        // As sent (`auto` or `disabled`); the recorded echo of a request without it is "".
        truncation: v.echo.truncation.clone(),
        usage: None,
        user: None,
        preset: r.preset.clone(),
        effort: r.effort.clone(),
    }
}

/// `model` as the live API shows it: the preset name until a preset run completes, then the
/// model it was served by.
pub(super) fn shown_model(v: &Validated, completed: bool, served: Option<&str>) -> String {
    let r = &v.request;
    if let Some(first) = r.models.as_ref().and_then(|m| m.first()) {
        return first.clone();
    }
    if let Some(model) = &r.model {
        return model.clone();
    }
    let preset = r
        .effort
        .clone()
        .or_else(|| r.preset.clone())
        .unwrap_or_else(|| "fast".into());
    if completed {
        served
            .map(str::to_owned)
            .or_else(|| models::preset_model(&preset).map(str::to_owned))
            .unwrap_or(preset)
    } else {
        preset
    }
}
