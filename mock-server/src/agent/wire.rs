//! Agent API wire types: the create request (`ResponsesRequestInput`), its tools, and the
//! output items the mock writes, field by field as the Python SDK 0.46.1 types them.

// The typed answers; the surface moves onto them in the next step.
#[allow(dead_code)]
pub(crate) mod events;
#[allow(dead_code)]
pub(crate) mod items;
#[allow(dead_code)]
pub(crate) mod lists;
#[allow(dead_code)]
pub(crate) mod response;
#[allow(dead_code)]
pub(crate) mod usage;

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

/// Top-level request fields the API accepts; anything else is refused, as the live API does.
pub(crate) const REQUEST_FIELDS: &[&str] = &[
    "input",
    "background",
    "effort",
    "instructions",
    "language_preference",
    "max_output_tokens",
    "max_steps",
    "max_tool_calls",
    "metadata",
    "model",
    "models",
    "preset",
    "previous_response_id",
    "profile",
    "prompt_cache_key",
    "reasoning",
    "response_format",
    "service_tier",
    "skills",
    "step_budget_reminder",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_p",
    "truncation",
];

/// The fields each tool type accepts.
pub(crate) fn tool_fields(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "web_search" => &[
            "type",
            "filters",
            "max_tokens",
            "max_tokens_per_page",
            "max_results",
            "search_context_size",
            "search_type",
            "user_location",
        ],
        "image_search" => &["type", "filters", "max_results"],
        "fetch_url" => &["type", "max_urls"],
        "people_search" | "finance_search" | "sandbox" => &["type"],
        "function" => &["type", "name", "description", "parameters", "strict"],
        "mcp" => &[
            "type",
            "server_label",
            "server_url",
            "allowed_tools",
            "authorization",
            "defer_loading",
            "headers",
            "require_approval",
        ],
        "connector" => &[
            "type",
            "id",
            "server_label",
            "allowed_tools",
            "server_description",
            "require_approval",
        ],
        _ => return None,
    })
}

/// A create request, after the unknown-field check.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CreateRequest {
    /// A string or a list of input items (`null` when missing: validation names it).
    #[serde(default)]
    pub(crate) input: Value,
    /// Run in the background.
    #[serde(default)]
    pub(crate) background: Option<bool>,
    /// Effort (supersedes `preset`).
    #[serde(default)]
    pub(crate) effort: Option<String>,
    /// System instructions.
    #[serde(default)]
    pub(crate) instructions: Option<String>,
    /// Output token cap.
    #[serde(default)]
    pub(crate) max_output_tokens: Option<i64>,
    /// Step cap, 1..100.
    #[serde(default)]
    pub(crate) max_steps: Option<i64>,
    /// Tool-call cap; 0 disables every tool.
    #[serde(default)]
    pub(crate) max_tool_calls: Option<i64>,
    /// Request metadata (at most 16 keys).
    #[serde(default)]
    pub(crate) metadata: Option<Map<String, Value>>,
    /// `provider/model`.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Fallback chain, at most 5; takes precedence over `model`.
    #[serde(default)]
    pub(crate) models: Option<Vec<String>>,
    /// Deprecated preset name.
    #[serde(default)]
    pub(crate) preset: Option<String>,
    /// The response this one continues.
    #[serde(default)]
    pub(crate) previous_response_id: Option<String>,
    /// Prompt cache key, echoed.
    #[serde(default)]
    pub(crate) prompt_cache_key: Option<String>,
    /// Structured output (`{type: "json_schema", json_schema: {name, schema}}`).
    #[serde(default)]
    pub(crate) response_format: Option<Value>,
    /// Reasoning options, echoed.
    #[serde(default)]
    pub(crate) reasoning: Option<Value>,
    /// Service tier, echoed.
    #[serde(default)]
    pub(crate) service_tier: Option<String>,
    /// Skills; any skill enables the sandbox.
    #[serde(default)]
    pub(crate) skills: Option<Vec<Value>>,
    /// Keep the response retrievable (default true).
    #[serde(default)]
    pub(crate) store: Option<bool>,
    /// Answer as an SSE stream.
    #[serde(default)]
    pub(crate) stream: Option<bool>,
    /// Sampling temperature, echoed.
    #[serde(default)]
    pub(crate) temperature: Option<f64>,
    /// Tool choice, echoed.
    #[serde(default)]
    pub(crate) tool_choice: Option<Value>,
    /// Nucleus sampling, echoed.
    #[serde(default)]
    pub(crate) top_p: Option<f64>,
}

/// A tool of the request, typed.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Tool {
    /// Web search.
    WebSearch {
        /// 1..50.
        #[serde(default)]
        max_results: Option<i64>,
    },
    /// Image search.
    ImageSearch {},
    /// Reading pages.
    FetchUrl {
        /// 1..10.
        #[serde(default)]
        max_urls: Option<i64>,
    },
    /// People search.
    PeopleSearch {},
    /// Finance search.
    FinanceSearch {},
    /// The code sandbox.
    Sandbox {},
    /// A client-side function.
    Function {
        /// Function name.
        name: String,
        /// The JSON Schema of its arguments.
        #[serde(default)]
        parameters: Option<Value>,
    },
    /// A remote MCP server.
    Mcp(McpTool),
    /// A managed or custom connector.
    Connector(ConnectorTool),
}

/// A `{"type":"mcp"}` tool.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct McpTool {
    /// `^[a-zA-Z0-9_-]{1,64}$`, unique.
    pub(crate) server_label: String,
    /// Streamable HTTP URL.
    pub(crate) server_url: String,
    /// Tools the model may use (empty or omitted: all).
    #[serde(default)]
    pub(crate) allowed_tools: Option<Vec<String>>,
    /// `Authorization` header value for the server.
    #[serde(default)]
    pub(crate) authorization: Option<String>,
    /// Deferred discovery (`tool_search_output` before calls).
    #[serde(default)]
    pub(crate) defer_loading: Option<bool>,
    /// Extra headers for the server.
    #[serde(default)]
    pub(crate) headers: Option<BTreeMap<String, String>>,
    /// Approval policy.
    #[serde(default)]
    pub(crate) require_approval: Option<Value>,
}

/// A `{"type":"connector"}` tool.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ConnectorTool {
    /// `connector_slack`, or a custom connector's id.
    pub(crate) id: String,
    /// `^[a-zA-Z0-9_-]{1,64}$`, unique.
    pub(crate) server_label: String,
    /// Tools the model may use (empty or omitted: all).
    #[serde(default)]
    pub(crate) allowed_tools: Option<Vec<String>>,
    /// Model-facing description of the namespace.
    #[serde(default)]
    pub(crate) server_description: Option<String>,
    /// Approval policy.
    #[serde(default)]
    pub(crate) require_approval: Option<Value>,
}

/// A fresh id with a prefix, shaped like the live ones (`resp_<uuid>`, `msg_<uuid>`).
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4())
}

/// A call id shaped like the live `call_DUjlg6jMJoU92GMfrmD8SVcS` (24 alphanumerics).
pub(crate) fn call_token() -> String {
    uuid::Uuid::new_v4()
        .simple()
        .to_string()
        .chars()
        .take(24)
        .collect()
}

/// The text of the user's latest message in `input` (a string, or the last user message).
pub(crate) fn user_text(input: &Value) -> String {
    match input {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .rev()
            .filter(|item| item.get("role").and_then(Value::as_str) == Some("user"))
            .find_map(|item| content_text(item.get("content")?))
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// The text of the first user message in `input` (what routes a conversation to a scenario).
pub(crate) fn first_user_text(input: &Value) -> String {
    match input {
        Value::Array(items) => items
            .iter()
            .filter(|item| item.get("role").and_then(Value::as_str) == Some("user"))
            .find_map(|item| content_text(item.get("content")?))
            .unwrap_or_default(),
        other => user_text(other),
    }
}

fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}
