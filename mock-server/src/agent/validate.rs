//! Request validation, rule by rule as the live API applies it: the body is strict JSON with
//! no unknown fields, then each field's limits. Every refusal is a 400 in the error envelope
//! whose message names the field (and `param` points at it).

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::error::ApiError;
use super::models;
use super::wire::{CreateRequest, REQUEST_FIELDS, Tool, tool_fields};

/// Built-in tool names a `function` tool may not take (official notes).
pub(crate) const RESERVED_FUNCTION_NAMES: &[&str] = &[
    "web_search",
    "search_web",
    "people_search",
    "search_people",
    "fetch_url",
    "finance_search",
    "sandbox",
];

/// At most this many MCP servers (`mcp` and `connector` tools) per request.
pub(crate) const MAX_MCP_SERVERS: usize = 16;
/// At most this many entries in `models`.
pub(crate) const MAX_MODELS: usize = 5;

static SERVER_LABEL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new("^[a-zA-Z0-9_-]{1,64}$").ok());

/// A request that passed every rule.
#[derive(Debug, Clone)]
pub(crate) struct Validated {
    /// The request.
    pub(crate) request: CreateRequest,
    /// Its tools, typed, in request order.
    pub(crate) tools: Vec<Tool>,
    /// The request body as sent (echoed fields come from here).
    pub(crate) raw: Map<String, Value>,
}

impl Validated {
    /// A preset (or effort) run that sends no `tools` gets the preset's own, `web_search` and
    /// `fetch_url` ("Request fields override preset fields": a request's `tools` replace them).
    pub(crate) fn brings_preset_tools(&self) -> bool {
        (self.request.preset.is_some() || self.request.effort.is_some())
            && !self.raw.contains_key("tools")
    }
}

/// Parses and validates a create body.
pub(crate) fn create_request(body: &[u8]) -> Result<Validated, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        ApiError::invalid_request(format!(
            "invalid request body: {e}: send one JSON object (Content-Type: application/json)"
        ))
    })?;
    let Value::Object(raw) = value else {
        return Err(ApiError::invalid_request(
            "invalid request body: expected a JSON object with at least `input`",
        ));
    };
    for key in raw.keys() {
        if !REQUEST_FIELDS.contains(&key.as_str()) {
            return Err(unknown_field(key, key));
        }
    }
    let tool_values: Vec<Value> = match raw.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(tools)) => tools.clone(),
        Some(_) => {
            return Err(ApiError::invalid_request(
                "invalid request body: `tools` must be an array",
            )
            .param("tools"));
        }
    };
    let mut tools = Vec::with_capacity(tool_values.len());
    for (i, tool) in tool_values.iter().enumerate() {
        tools.push(typed_tool(i, tool)?);
        if matches!(tools.last(), Some(Tool::WebSearch { .. })) {
            check_web_search(i, tool)?;
        }
    }
    let request: CreateRequest = serde_json::from_value(Value::Object(raw.clone()))
        .map_err(|e| ApiError::invalid_request(format!("invalid request body: {e}")))?;
    check_fields(&request, &raw)?;
    check_tools(&tools)?;
    Ok(Validated {
        request,
        tools,
        raw,
    })
}

fn unknown_field(field: &str, param: &str) -> ApiError {
    ApiError::invalid_request(format!(
        "invalid request body: json: unknown field \"{field}\""
    ))
    .param(param)
}

fn typed_tool(i: usize, tool: &Value) -> Result<Tool, ApiError> {
    let at = format!("tools[{i}]");
    let Some(map) = tool.as_object() else {
        return Err(
            ApiError::validation(format!("{at}: a tool must be an object with a `type`")).param(at),
        );
    };
    let Some(kind) = map.get("type").and_then(Value::as_str) else {
        return Err(
            ApiError::validation(format!("{at}: `type` is required")).param(format!("{at}.type"))
        );
    };
    let Some(fields) = tool_fields(kind) else {
        return Err(ApiError::validation(format!(
            "{at}: unknown tool type \"{kind}\"; use web_search, image_search, fetch_url, \
             people_search, finance_search, sandbox, function, mcp or connector"
        ))
        .param(format!("{at}.type")));
    };
    for key in map.keys() {
        if !fields.contains(&key.as_str()) {
            return Err(unknown_field(key, &format!("{at}.{key}")));
        }
    }
    serde_json::from_value(tool.clone())
        .map_err(|e| ApiError::validation(format!("{at}: {e}")).param(at))
}

fn check_fields(request: &CreateRequest, raw: &Map<String, Value>) -> Result<(), ApiError> {
    match &request.input {
        Value::Null => {
            return Err(ApiError::validation("input is required").param("input"));
        }
        Value::String(text) if text.is_empty() => {
            return Err(ApiError::validation("input cannot be empty").param("input"));
        }
        Value::Array(items) if items.is_empty() => {
            return Err(ApiError::validation("input cannot be empty").param("input"));
        }
        Value::Array(items) => check_input_items(items)?,
        Value::String(_) => {}
        _ => {
            return Err(
                ApiError::validation("input must be a string or a list of input items")
                    .param("input"),
            );
        }
    }
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
    if let Some(format) = request.response_format.as_ref().filter(|f| !f.is_null()) {
        super::structured::text_format(format)?;
    }
    if raw.contains_key("text") {
        return Err(ApiError::new(
            http::StatusCode::BAD_REQUEST,
            "invalid_parameter",
            "text.format is not supported by the Agent API: use the top-level response_format",
        )
        .param("text"));
    }
    Ok(())
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
                return Err(unknown_field(key, &format!("reasoning.{key}")));
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
                return Err(unknown_field(key, &format!("stream_options.{key}")));
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

/// The input item types the API takes (Python SDK 0.46.1 `InputItemInput`).
const INPUT_ITEM_TYPES: &[&str] = &[
    "message",
    "function_call_output",
    "function_call",
    "reasoning",
    "mcp_approval_response",
    "mcp_approval_request",
    "mcp_call",
    "mcp_list_tools",
];

/// The string fields each history item type needs (`mcp_approval_response` is checked with
/// the approvals, which word its own errors).
fn required_strings(kind: &str) -> &'static [&'static str] {
    match kind {
        "function_call_output" => &["call_id"],
        "function_call" => &["call_id", "name", "arguments"],
        "mcp_approval_request" | "mcp_call" => &["id", "name", "server_label", "arguments"],
        _ => &[],
    }
}

/// Each input item: a known type (a bare `{role, content}` is a message), a message's role and
/// content, and the fields a history item needs. An item the SDK would refuse to send is a 400
/// naming it, not a silently ignored turn.
fn check_input_items(items: &[Value]) -> Result<(), ApiError> {
    for (i, item) in items.iter().enumerate() {
        let at = format!("input[{i}]");
        let Some(map) = item.as_object() else {
            return Err(ApiError::validation(format!(
                "{at} must be an input item object, e.g. {{\"role\": \"user\", \"content\": \"...\"}}"
            ))
            .param(at));
        };
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            None if map.contains_key("role") => "message",
            _ => {
                return Err(ApiError::validation(format!(
                    "{at}: `type` (or a message's `role`) is required"
                ))
                .param(format!("{at}.type")));
            }
        };
        if !INPUT_ITEM_TYPES.contains(&kind) {
            return Err(ApiError::validation(format!(
                "{at}: unknown input item type \"{kind}\"; use {}",
                INPUT_ITEM_TYPES.join(", ")
            ))
            .param(format!("{at}.type")));
        }
        if kind == "message" {
            check_message(&at, map)?;
        }
        for field in required_strings(kind) {
            if !map.get(*field).is_some_and(Value::is_string) {
                return Err(ApiError::validation(format!(
                    "{at}: a {kind} item needs `{field}` (a string)"
                ))
                .param(format!("{at}.{field}")));
            }
        }
        if kind == "function_call_output"
            && !map
                .get("output")
                .is_some_and(|o| o.is_string() || o.is_array())
        {
            return Err(ApiError::validation(format!(
                "{at}: a function_call_output item needs `output` (the function's result as a string)"
            ))
            .param(format!("{at}.output")));
        }
    }
    Ok(())
}

fn check_message(at: &str, map: &Map<String, Value>) -> Result<(), ApiError> {
    const ROLES: &[&str] = &["user", "assistant", "system", "developer"];
    let role = map.get("role").and_then(Value::as_str);
    if !role.is_some_and(|r| ROLES.contains(&r)) {
        return Err(ApiError::validation(format!(
            "{at}: role must be one of: {}",
            ROLES.join(" ")
        ))
        .param(format!("{at}.role")));
    }
    match map.get("content") {
        Some(Value::String(_)) => Ok(()),
        Some(Value::Array(parts)) => {
            // `output_text` too: clients send an assistant turn back as the API wrote it.
            const PARTS: &[&str] = &["input_text", "input_image", "input_file", "output_text"];
            for (j, part) in parts.iter().enumerate() {
                let kind = part.get("type").and_then(Value::as_str);
                if !kind.is_some_and(|k| PARTS.contains(&k)) {
                    return Err(ApiError::validation(format!(
                        "{at}.content[{j}]: a content part's type must be one of: {}",
                        PARTS.join(" ")
                    ))
                    .param(format!("{at}.content[{j}].type")));
                }
            }
            Ok(())
        }
        _ => Err(ApiError::validation(format!(
            "{at}: a message needs `content` (a string or a list of content parts)"
        ))
        .param(format!("{at}.content"))),
    }
}

/// The filters a `web_search` tool accepts.
const SEARCH_FILTERS: &[&str] = &[
    "search_domain_filter",
    "search_recency_filter",
    "search_after_date_filter",
    "search_before_date_filter",
    "last_updated_after_filter",
    "last_updated_before_filter",
];

/// At most this many entries in `filters.search_domain_filter` (official notes).
const MAX_SEARCH_DOMAINS: usize = 20;

static SEARCH_DATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$").ok());

/// A `web_search` tool's options: its filters (recency wording as recorded live, dates
/// `MM/DD/YYYY`, at most 20 domains, no unknown filter), `search_context_size` and
/// `search_type`.
fn check_web_search(i: usize, tool: &Value) -> Result<(), ApiError> {
    let at = format!("tools[{i}]");
    for (field, allowed) in [
        ("search_context_size", &["low", "medium", "high"][..]),
        ("search_type", &["web", "fast"][..]),
    ] {
        if let Some(value) = tool.get(field)
            && !value.as_str().is_some_and(|v| allowed.contains(&v))
        {
            return Err(ApiError::validation(format!(
                "{at}: {field} must be one of: {}",
                allowed.join(" ")
            ))
            .param(format!("{at}.{field}")));
        }
    }
    let Some(filters) = tool.get("filters").filter(|f| !f.is_null()) else {
        return Ok(());
    };
    let Some(filters) = filters.as_object() else {
        return Err(ApiError::validation(format!(
            "{at}: filters must be an object of search filters"
        ))
        .param(format!("{at}.filters")));
    };
    for key in filters.keys() {
        if !SEARCH_FILTERS.contains(&key.as_str()) {
            return Err(unknown_field(key, &format!("{at}.filters.{key}")));
        }
    }
    if let Some(recency) = filters
        .get("search_recency_filter")
        .filter(|v| !v.is_null())
        && !recency
            .as_str()
            .is_some_and(|r| ["hour", "day", "week", "month", "year"].contains(&r))
    {
        // The live API's wording, recorded.
        return Err(ApiError::validation(format!(
            "{at}: search recency filter must be one of: hour day week month year"
        ))
        .param(format!("{at}.filters.search_recency_filter")));
    }
    if let Some(domains) = filters.get("search_domain_filter").filter(|v| !v.is_null()) {
        let param = format!("{at}.filters.search_domain_filter");
        let list = domains
            .as_array()
            .filter(|l| l.iter().all(Value::is_string));
        let Some(list) = list else {
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_search_domain_filter",
                format!("{param} must be a list of domains (prefix one with - to exclude it)"),
            )
            .param(param));
        };
        if list.len() > MAX_SEARCH_DOMAINS {
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_search_domain_filter",
                format!(
                    "{param} accepts at most {MAX_SEARCH_DOMAINS} domains, got {}",
                    list.len()
                ),
            )
            .param(param));
        }
    }
    for field in &SEARCH_FILTERS[2..] {
        let Some(value) = filters.get(*field).filter(|v| !v.is_null()) else {
            continue;
        };
        let well_formed = value
            .as_str()
            .is_some_and(|d| SEARCH_DATE.as_ref().is_some_and(|re| re.is_match(d)));
        if !well_formed {
            let param = format!("{at}.filters.{field}");
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_date_format",
                format!(
                    "{param} must be a date in MM/DD/YYYY format (e.g. 03/01/2025), not {value}"
                ),
            )
            .param(param));
        }
    }
    Ok(())
}

fn check_tools(tools: &[Tool]) -> Result<(), ApiError> {
    let servers = tools
        .iter()
        .filter(|t| matches!(t, Tool::Mcp(_) | Tool::Connector(_)))
        .count();
    if servers > MAX_MCP_SERVERS {
        return Err(ApiError::validation(format!(
            "at most {MAX_MCP_SERVERS} MCP servers (mcp and connector tools) per request, got {servers}"
        ))
        .param("tools"));
    }
    let mut labels: HashMap<&str, usize> = HashMap::new();
    for (i, tool) in tools.iter().enumerate() {
        let at = format!("tools[{i}]");
        match tool {
            Tool::Function { name, .. } if RESERVED_FUNCTION_NAMES.contains(&name.as_str()) => {
                return Err(ApiError::validation(format!(
                    "{at}: function name \"{name}\" is reserved for a built-in tool; rename the function"
                ))
                .param(format!("{at}.name")));
            }
            Tool::WebSearch {
                max_results: Some(n),
            } if !(1..=50).contains(n) => {
                return Err(ApiError::validation(format!(
                    "{at}: max_results must be between 1 and 50"
                ))
                .param(format!("{at}.max_results")));
            }
            Tool::FetchUrl { max_urls: Some(n) } if !(1..=10).contains(n) => {
                return Err(ApiError::validation(format!(
                    "{at}: max_urls must be between 1 and 10"
                ))
                .param(format!("{at}.max_urls")));
            }
            Tool::Mcp(mcp) => {
                check_label(&mut labels, i, &mcp.server_label)?;
                if !(mcp.server_url.starts_with("http://")
                    || mcp.server_url.starts_with("https://"))
                {
                    return Err(ApiError::validation(format!(
                        "{at}: server_url must be an http(s) URL of a Streamable HTTP MCP server"
                    ))
                    .param(format!("{at}.server_url")));
                }
            }
            Tool::Connector(connector) => {
                check_label(&mut labels, i, &connector.server_label)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_label<'a>(
    labels: &mut HashMap<&'a str, usize>,
    i: usize,
    label: &'a str,
) -> Result<(), ApiError> {
    let at = format!("tools[{i}]");
    if !SERVER_LABEL.as_ref().is_some_and(|re| re.is_match(label)) {
        return Err(ApiError::validation(format!(
            "{at}: server_label \"{label}\" must match ^[a-zA-Z0-9_-]{{1,64}}$"
        ))
        .param(format!("{at}.server_label")));
    }
    if let Some(first) = labels.insert(label, i) {
        return Err(ApiError::validation(format!(
            "{at}: server_label \"{label}\" is already used by tools[{first}]; labels must be unique"
        ))
        .param(format!("{at}.server_label")));
    }
    Ok(())
}
