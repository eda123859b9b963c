//! The create request (`ResponsesRequestInput`) as the mock reads it: the top-level fields it
//! accepts, its options, its tools and its input items, field by field as the Python SDK
//! 0.46.1 types them. Validation (`validate.rs`) reads a body into these types once; nothing
//! reads the body's JSON after it.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::approval::{ApprovalDecision, ApprovalPolicy};

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

/// A create request's options, after the unknown-field check (`input` and `tools` are read on
/// their own: [`Input`], [`Tool`]). Fields whose values the validation rules word their own
/// refusals for stay as sent until those rules have run.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CreateRequest {
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

impl CreateRequest {
    /// `tool_choice: "none"`: the model stays off its tools, as with `max_tool_calls: 0`.
    pub(crate) fn tools_off(&self) -> bool {
        matches!(&self.tool_choice, Some(Value::String(choice)) if choice == "none")
    }
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
    /// Approval policy, as sent; validation parses it into `approval`.
    #[serde(default)]
    pub(crate) require_approval: Option<Value>,
    /// The approval policy, parsed (never, until validation parses `require_approval`).
    #[serde(skip)]
    pub(crate) approval: ApprovalPolicy,
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
    /// Approval policy, as sent; validation parses it into `approval`.
    #[serde(default)]
    pub(crate) require_approval: Option<Value>,
    /// The approval policy, parsed (never, until validation parses `require_approval`).
    #[serde(skip)]
    pub(crate) approval: ApprovalPolicy,
}

/// The request's `input`: a string, or a list of input items.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Input {
    /// One user message.
    Text(String),
    /// Messages and the history items a client sends back.
    Items(Vec<InputItem>),
}

impl Input {
    /// The items (none for a string input).
    pub(crate) fn items(&self) -> &[InputItem] {
        match self {
            Self::Text(_) => &[],
            Self::Items(items) => items,
        }
    }

    /// The text of the user's latest message (the string, or the last user message's text).
    pub(crate) fn user_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            // History without a user message (only function outputs, say) says nothing.
            Self::Items(items) => items
                .iter()
                .rev()
                .find_map(InputItem::user_text)
                .unwrap_or_default(),
        }
    }

    /// The text of the first user message (what routes a conversation to a scenario).
    pub(crate) fn first_user_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            // Without a user message there is nothing to route by: the default scenario.
            Self::Items(items) => items
                .iter()
                .find_map(InputItem::user_text)
                .unwrap_or_default(),
        }
    }
}

/// One input item (Python SDK 0.46.1 `InputItemInput`), with the fields the mock reads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum InputItem {
    /// A message (a typed `message`, or a bare `{role, content}`).
    Message(InputMessage),
    /// A function's result, sent back for a `function_call`.
    FunctionCallOutput(FunctionCallOutputItem),
    /// A `function_call` the model wrote, sent back as history.
    FunctionCall(FunctionCallItem),
    /// An `mcp_approval_request` the model wrote, sent back as history.
    McpApprovalRequest(ApprovalRequestItem),
    /// The client's decision on an approval request.
    McpApprovalResponse(ApprovalDecision),
    /// An `mcp_call` the model made, sent back as history.
    McpCall(McpCallItem),
    /// A `reasoning` item: history nothing reads again.
    Reasoning,
    /// An `mcp_list_tools` item: history nothing reads again.
    McpListTools,
}

impl InputItem {
    /// True for a message from the user.
    pub(crate) fn is_user_message(&self) -> bool {
        matches!(self, Self::Message(message) if message.role == Role::User)
    }

    /// The text of a user message that has some.
    fn user_text(&self) -> Option<String> {
        match self {
            Self::Message(message) if message.role == Role::User => message.content.text(),
            _ => None,
        }
    }
}

/// A message's author.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    /// The user.
    User,
    /// The model (history).
    Assistant,
    /// System instructions.
    System,
    /// Developer instructions.
    Developer,
}

/// A message input item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct InputMessage {
    /// Who wrote it.
    pub(crate) role: Role,
    /// What it says.
    pub(crate) content: TextContent,
}

/// A message's `content`, or a function's `output`: a string, or a list of content parts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum TextContent {
    /// Plain text.
    Text(String),
    /// Content parts (`input_text`, `input_image`, `output_text`, ...).
    Parts(Vec<TextPart>),
}

impl TextContent {
    /// The text: the string, or the parts' texts one per line (`None` when no part has one).
    pub(crate) fn text(&self) -> Option<String> {
        match self {
            Self::Text(text) => Some(text.clone()),
            Self::Parts(parts) => {
                let texts: Vec<&str> = parts.iter().filter_map(TextPart::text).collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
        }
    }

    /// The text, empty parts included (a function's output of parts without text is "").
    pub(crate) fn all_text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Parts(parts) => parts
                .iter()
                .filter_map(TextPart::text)
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// One content part, reduced to its `text` (a part without a string `text`, such as an image,
/// or anything that is not an object, has none).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextPart(Option<String>);

impl TextPart {
    fn text(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl<'de> Deserialize<'de> for TextPart {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let part = Value::deserialize(deserializer)?;
        Ok(Self(match part {
            Value::Object(mut fields) => match fields.remove("text") {
                Some(Value::String(text)) => Some(text),
                _ => None,
            },
            _ => None,
        }))
    }
}

/// A `function_call_output` input item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct FunctionCallOutputItem {
    /// The `function_call` it answers.
    pub(crate) call_id: String,
    /// The function's result.
    pub(crate) output: TextContent,
}

/// A `function_call` input item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct FunctionCallItem {
    /// The call's id, which its output names.
    pub(crate) call_id: String,
    /// The function.
    pub(crate) name: String,
    /// Its arguments, a JSON string.
    pub(crate) arguments: String,
}

/// An `mcp_approval_request` input item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct ApprovalRequestItem {
    /// The request id a decision names.
    pub(crate) id: String,
    /// The tool.
    pub(crate) name: String,
    /// The server.
    pub(crate) server_label: String,
    /// The proposed arguments, a JSON string.
    pub(crate) arguments: String,
    /// The connector, when the server is one.
    #[serde(default, deserialize_with = "string_or_none")]
    pub(crate) connector_id: Option<String>,
}

/// An `mcp_call` input item.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct McpCallItem {
    /// The call's id.
    pub(crate) id: String,
    /// The tool.
    pub(crate) name: String,
    /// The server.
    pub(crate) server_label: String,
    /// Its arguments, a JSON string.
    pub(crate) arguments: String,
    /// The approval request it ran for, if any.
    #[serde(default, deserialize_with = "string_or_none")]
    pub(crate) approval_request_id: Option<String>,
    /// What the tool returned.
    #[serde(default, deserialize_with = "string_or_none")]
    pub(crate) output: Option<String>,
}

/// A field the mock reads only when it is a string; any other value reads as absent, as
/// history items carry fields the mock does not check.
fn string_or_none<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::String(text) => Some(text),
        _ => None,
    })
}
