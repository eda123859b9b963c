//! Request validation, rule by rule as the live API applies it: the body is strict JSON with
//! no unknown fields, then each field's limits, then the tools (`tools.rs`) and the input
//! (`input.rs`), then what the account may use. Every refusal is a 400 in the error envelope
//! whose message names the field (and `param` points at it).
//!
//! The body is read once: what passes is a [`Validated`] request of typed values, and nothing
//! reads the body's JSON after it.

mod input;
mod tools;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::error::ApiError;
use super::models;
use super::structured;
use super::wire::request::{CreateRequest, Input, REQUEST_FIELDS, Tool};
use super::wire::response::{TextConfig, TextFormat};
use crate::world::Account;

#[cfg(test)]
pub(crate) use input::read_input;

/// At most this many entries in `models`.
pub(crate) const MAX_MODELS: usize = 5;

/// A request that passed every rule.
#[derive(Debug, Clone)]
pub(crate) struct Validated {
    /// The request's options.
    pub(crate) request: CreateRequest,
    /// Its input.
    pub(crate) input: Input,
    /// Its tools, typed, in request order, with their approval policies parsed.
    pub(crate) tools: Vec<Tool>,
    /// What the response echoes of the request beyond its options.
    pub(crate) echo: Echo,
    /// The schema a structured answer must fit (`response_format.json_schema.schema`).
    pub(crate) answer_schema: Option<Value>,
    /// The request sent `tools` (even an empty list): a preset's own tools do not apply.
    pub(crate) sent_tools: bool,
    /// Characters of the request the model reads: `input`, `instructions` and `tools` as sent.
    pub(crate) read_chars: usize,
}

/// What the response echoes of a request beyond its options.
#[derive(Debug, Clone)]
pub(crate) struct Echo {
    /// The tools as sent, without the credentials sent for servers.
    pub(crate) tools: Vec<Map<String, Value>>,
    /// `truncation` as sent (`""` when absent, as recorded).
    pub(crate) truncation: String,
    /// The answer's format.
    pub(crate) text: TextConfig,
}

impl Validated {
    /// A preset (or effort) run that sends no `tools` gets the preset's own, `web_search` and
    /// `fetch_url` ("Request fields override preset fields": a request's `tools` replace them).
    pub(crate) fn brings_preset_tools(&self) -> bool {
        (self.request.preset.is_some() || self.request.effort.is_some()) && !self.sent_tools
    }
}

/// Parses and validates a create body sent by `account`.
pub(crate) fn create_request(body: &[u8], account: &Account) -> Result<Validated, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::invalid_request(format!(
            "invalid request body: {e}: send one JSON object (Content-Type: application/json)"
        ))
    })?;
    let Value::Object(raw) = &value else {
        return Err(ApiError::invalid_request(
            "invalid request body: expected a JSON object with at least `input`",
        ));
    };
    for key in raw.keys() {
        if !REQUEST_FIELDS.contains(&key.as_str()) {
            return Err(ApiError::unknown_field(key, key));
        }
    }
    let mut tools = tools::read_tools(raw)?;
    let request = CreateRequest::deserialize(&value)
        .map_err(|e| ApiError::invalid_request(format!("invalid request body: {e}")))?;
    let sent_input = raw.get("input").unwrap_or(&Value::Null);
    let (input, malformed_decision) = input::read_input(sent_input)?;
    let text = check_fields(&request, raw)?;
    tools::check_tools(&tools)?;
    tools::check_for_account(&mut tools, account)?;
    if let Some(error) = malformed_decision {
        return Err(ApiError::invalid_request(error.to_string()).param(error.param()));
    }
    let sent_tools = raw.get("tools");
    let read_chars = sent_input.to_string().len()
        + request.instructions.as_ref().map_or(0, String::len)
        + sent_tools.map_or(0, |t| t.to_string().len());
    let echo = Echo {
        tools: tools::echoed(raw),
        // The recorded echo of a request without it is "".
        truncation: raw
            .get("truncation")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        text,
    };
    let answer_schema = request
        .response_format
        .as_ref()
        .and_then(|f| f.pointer("/json_schema/schema"))
        .cloned();
    Ok(Validated {
        sent_tools: sent_tools.is_some(),
        request,
        input,
        tools,
        echo,
        answer_schema,
        read_chars,
    })
}

/// The rules on the request's options; returns the answer's format (`text` in the response).
fn check_fields(request: &CreateRequest, raw: &Map<String, Value>) -> Result<TextConfig, ApiError> {
    if let Some(steps) = request.max_steps {
        if steps < 1 {
            return Err(ApiError::validation("max steps must be at least 1").param("max_steps"));
        }
        if steps > 100 {
            return Err(ApiError::validation("max steps must be at most 100").param("max_steps"));
        }
    }
    if let Some(list) = &request.models {
        if list.len() > MAX_MODELS {
            return Err(ApiError::validation(format!(
                "models accepts at most {MAX_MODELS} entries, got {}",
                list.len()
            ))
            .param("models"));
        }
        if list.is_empty() {
            return Err(ApiError::validation("models cannot be an empty list").param("models"));
        }
    }
    let chosen: Vec<(&str, &String)> = match (&request.models, &request.model) {
        (Some(list), _) => list.iter().map(|m| ("models", m)).collect(),
        (None, Some(model)) => vec![("model", model)],
        (None, None) => Vec::new(),
    };
    for (param, id) in &chosen {
        if models::find(id).is_none() {
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_model",
                format!(
                    "model \"{id}\" is not supported: use a provider/model id listed by GET /v1/models"
                ),
            )
            .param(*param));
        }
    }
    // `effort` supersedes `preset` and takes the same names.
    for (param, value) in [("preset", &request.preset), ("effort", &request.effort)] {
        if let Some(preset) = value
            && models::preset_model(preset).is_none()
        {
            return Err(ApiError::validation(format!(
                "unknown {param} \"{preset}\"; use fast, low, medium, high or xhigh"
            ))
            .param(param));
        }
    }
    // A third-party recording: `wide-research` runs only as a background run.
    let preset = request.effort.as_ref().or(request.preset.as_ref());
    if preset.is_some_and(|p| p == "wide-research") && request.background != Some(true) {
        let param = if request.effort.is_some() {
            "effort"
        } else {
            "preset"
        };
        return Err(ApiError::validation(
            "the wide-research preset runs only in the background: set background: true \
             (with store: true) and poll GET /v1/agent/{id}",
        )
        .param(param));
    }
    if chosen.is_empty() && request.preset.is_none() && request.effort.is_none() {
        return Err(
            ApiError::validation("one of model, models, preset or effort is required")
                .param("model"),
        );
    }
    if chosen.iter().any(|(_, id)| id.starts_with("anthropic/"))
        && request.max_output_tokens.is_none()
    {
        return Err(ApiError::validation(
            "max_output_tokens is required when using Anthropic models",
        )
        .param("max_output_tokens"));
    }
    if let Some(tokens) = request.max_output_tokens
        && tokens < 16
    {
        return Err(
            ApiError::validation("max_output_tokens must be at least 16")
                .param("max_output_tokens"),
        );
    }
    check_options(raw)?;
    if let Some(calls) = request.max_tool_calls
        && calls < 0
    {
        return Err(ApiError::validation(
            "max_tool_calls must be at least 0 (0 turns every tool off)",
        )
        .param("max_tool_calls"));
    }
    if let Some(truncation) = raw.get("truncation").filter(|v| !v.is_null())
        && !truncation
            .as_str()
            .is_some_and(|t| t == "auto" || t == "disabled")
    {
        return Err(ApiError::validation(format!(
            "truncation must be auto or disabled, not {truncation}"
        ))
        .param("truncation"));
    }
    if let Some(metadata) = &request.metadata
        && metadata.len() > 16
    {
        return Err(ApiError::validation("metadata accepts at most 16 keys").param("metadata"));
    }
    let text = match request.response_format.as_ref().filter(|f| !f.is_null()) {
        Some(format) => structured::text_format(format)?,
        None => TextConfig {
            format: TextFormat::Text,
        },
    };
    if raw.contains_key("text") {
        return Err(ApiError::new(
            http::StatusCode::BAD_REQUEST,
            "invalid_parameter",
            "text.format is not supported by the Agent API: use the top-level response_format",
        )
        .param("text"));
    }
    Ok(text)
}

/// The enumerated options: `service_tier`, `tool_choice`, `reasoning.effort` (the union of
/// the docs' and the SDKs' values, which disagree) and `stream_options`, each with no unknown
/// key, as the strict live API parses them.
fn check_options(raw: &Map<String, Value>) -> Result<(), ApiError> {
    let one_of = |param: &str, value: &Value, allowed: &[&str]| {
        if value.as_str().is_some_and(|v| allowed.contains(&v)) {
            Ok(())
        } else {
            Err(ApiError::validation(format!(
                "{param} must be one of: {}, not {value}",
                allowed.join(" ")
            ))
            .param(param))
        }
    };
    if let Some(tier) = raw.get("service_tier").filter(|v| !v.is_null()) {
        one_of(
            "service_tier",
            tier,
            &["auto", "default", "flex", "priority", "fast"],
        )?;
    }
    if let Some(choice) = raw.get("tool_choice").filter(|v| !v.is_null())
        && !choice.is_object()
    {
        one_of("tool_choice", choice, &["none", "auto", "required"])?;
    }
    if let Some(reasoning) = raw.get("reasoning").filter(|v| !v.is_null()) {
        let Some(map) = reasoning.as_object() else {
            return Err(ApiError::validation(
                "reasoning must be an object like {\"effort\": \"low\"}",
            )
            .param("reasoning"));
        };
        for (key, value) in map {
            if key != "effort" {
                return Err(ApiError::unknown_field(key, &format!("reasoning.{key}")));
            }
            one_of(
                "reasoning.effort",
                value,
                &["none", "minimal", "low", "medium", "high", "xhigh", "max"],
            )?;
        }
    }
    if let Some(options) = raw.get("stream_options").filter(|v| !v.is_null()) {
        let Some(map) = options.as_object() else {
            return Err(ApiError::validation(
                "stream_options must be an object like {\"include_usage\": true}",
            )
            .param("stream_options"));
        };
        for (key, value) in map {
            if key != "include_usage" {
                return Err(ApiError::unknown_field(
                    key,
                    &format!("stream_options.{key}"),
                ));
            }
            if !value.is_boolean() {
                return Err(ApiError::validation(
                    "stream_options.include_usage must be true or false",
                )
                .param("stream_options.include_usage"));
            }
        }
    }
    Ok(())
}
