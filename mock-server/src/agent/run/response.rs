//! The response object: how it first appears, and the `model` it shows (a preset's name until
//! the run completes, then the model that served it), with every field as recorded from the
//! live API.

use serde_json::{Value, json};

use crate::agent::validate::Validated;
use crate::agent::{models, structured};

/// The response object as it first appears (fields as recorded from the live API).
/// `stored` is what `store` reports: false when the request said so or the account keeps no
/// data (zero data retention).
pub(super) fn initial_response(
    id: &str,
    v: &Validated,
    created_at: i64,
    status: &str,
    stored: bool,
) -> Value {
    let r = &v.request;
    let tools: Vec<Value> = v
        .raw
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    // Credentials the client sent for a server are never echoed back.
                    let mut t = t.clone();
                    if let Some(map) = t.as_object_mut() {
                        map.remove("authorization");
                        map.remove("headers");
                    }
                    t
                })
                .collect()
        })
        .unwrap_or_default();
    let mut response = json!({
        "background": r.background.unwrap_or(false),
        "completed_at": null,
        "created_at": created_at,
        "error": null,
        "frequency_penalty": 0,
        "id": id,
        "incomplete_details": null,
        "instructions": r.instructions,
        "max_output_tokens": r.max_output_tokens,
        "max_tool_calls": r.max_tool_calls,
        "metadata": r.metadata.clone().unwrap_or_default(),
        "model": shown_model(v, false, None),
        "object": "response",
        "output": [],
        "parallel_tool_calls": true,
        "presence_penalty": 0,
        "previous_response_id": r.previous_response_id,
        "prompt_cache_key": r.prompt_cache_key,
        "reasoning": r.reasoning,
        "safety_identifier": null,
        "service_tier": r.service_tier.clone().unwrap_or_else(|| "default".into()),
        "status": status,
        "store": stored,
        "temperature": r.temperature.map_or(json!(1), |t| json!(t)),
        "text": r
            .response_format
            .as_ref()
            .filter(|f| !f.is_null())
            .and_then(|f| structured::text_format(f).ok())
            .unwrap_or_else(|| json!({"format": {"type": "text"}})),
        "tool_choice": r.tool_choice.clone().unwrap_or_else(|| json!("auto")),
        "tools": tools,
        "top_logprobs": 0,
        "top_p": r.top_p.map_or(json!(1), |t| json!(t)),
        // As sent (`auto` or `disabled`); the recorded echo of a request without it is "".
        "truncation": v.raw.get("truncation").and_then(Value::as_str).unwrap_or(""),
        "usage": null,
        "user": null,
    });
    if let Some(map) = response.as_object_mut() {
        if let Some(preset) = &r.preset {
            map.insert("preset".into(), json!(preset));
        }
        if let Some(effort) = &r.effort {
            map.insert("effort".into(), json!(effort));
        }
    }
    response
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
