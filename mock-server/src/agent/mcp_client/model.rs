//! What the client works with: the protocol versions it speaks, a remote server as a request
//! describes it, the tools it lists, what a call produced, the time limits, and reading those
//! out of JSON-RPC messages.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::agent::wire::items::{FunctionTool, ListedTool, ToolAnnotations};

/// The protocol version offered in `initialize`.
pub(crate) const PROTOCOL_VERSION: &str = "2025-11-25";
/// Versions the client accepts when a server counter-offers: all share the tool messages used
/// here.
pub(crate) const SUPPORTED_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// A remote MCP server as one Agent API request describes it (`server_url`, `authorization`,
/// `headers`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct RemoteServer {
    /// The Streamable HTTP endpoint.
    pub(crate) url: String,
    /// The access token, sent as `Authorization: Bearer <token>`.
    pub(crate) authorization: Option<String>,
    /// Extra request headers, sent on every request to the server.
    pub(crate) headers: Vec<(String, String)>,
}

/// One tool a server lists.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RemoteTool {
    /// Tool name, as the model calls it.
    pub(crate) name: String,
    /// What the tool does, if the server says.
    pub(crate) description: Option<String>,
    /// JSON Schema of the arguments (`inputSchema`).
    pub(crate) input_schema: Value,
    /// `annotations.readOnlyHint`, if the server set it.
    pub(crate) read_only: Option<bool>,
}

impl RemoteTool {
    /// The entry for `mcp_list_tools.tools[]`.
    pub(crate) fn listed(&self) -> ListedTool {
        ListedTool {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
            annotations: self
                .read_only
                .map(|read_only| ToolAnnotations { read_only }),
        }
    }

    /// The entry for a `tool_search_output` namespace's `tools[]`.
    pub(crate) fn function_tool(&self) -> FunctionTool {
        FunctionTool {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.input_schema.clone(),
        }
    }
}

/// What a `tools/call` produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolCallOutcome {
    /// The result's content as the Agent API shows it on `mcp_call.output`: text blocks'
    /// text, other blocks as their JSON, one per line (`structuredContent` when there is no
    /// content).
    pub(crate) output: String,
    /// The server's `isError`: the tool ran and reported a failure.
    pub(crate) is_error: bool,
}

/// Wall-clock limits for one exchange with a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Timeouts {
    /// Each handshake, `tools/list` page and session end: request sent and answer read.
    pub(crate) exchange: Duration,
    /// One `tools/call`, which may legitimately take a while.
    pub(crate) call: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            exchange: Duration::from_secs(30),
            call: Duration::from_secs(120),
        }
    }
}

/// A `Tool` from `tools/list`, or why it is unusable (completing "tool N of a page ...").
pub(super) fn parse_tool(tool: &Value) -> Result<RemoteTool, String> {
    let Some(name) = tool.get("name").and_then(Value::as_str) else {
        return Err("has no `name`".to_owned());
    };
    let input_schema = match tool.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        // Required by the protocol; an absent schema is read as "no arguments" rather than
        // failing the whole discovery over it.
        None | Some(Value::Null) => no_arguments(),
        Some(_) => {
            return Err(format!(
                "(`{name}`) has an `inputSchema` that is not an object"
            ));
        }
    };
    Ok(RemoteTool {
        name: name.to_owned(),
        description: tool
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned),
        input_schema,
        read_only: tool
            .pointer("/annotations/readOnlyHint")
            .and_then(Value::as_bool),
    })
}

/// The schema of a tool that takes no arguments: `{"type": "object", "properties": {}}`.
fn no_arguments() -> Value {
    Value::Object(Map::from_iter([
        ("type".to_owned(), Value::from("object")),
        ("properties".to_owned(), Value::Object(Map::new())),
    ]))
}

/// `mcp_call.output` from a `CallToolResult`.
pub(super) fn render_output(result: &Map<String, Value>) -> String {
    // A result without content (or without either) returned nothing: the output is empty.
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if blocks.is_empty() {
        return result
            .get("structuredContent")
            .map(Value::to_string)
            .unwrap_or_default();
    }
    blocks
        .iter()
        .map(|block| match (block.get("type"), block.get("text")) {
            (Some(Value::String(kind)), Some(Value::String(text))) if kind == "text" => {
                text.clone()
            }
            _ => block.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `message` is the JSON-RPC response (result or error) to the request `id`.
pub(super) fn is_response_to(message: &Value, id: &Value) -> bool {
    message.get("id") == Some(id)
        && message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
}
