//! The scripted model: what the "model" does for an Agent API request, step by step on the
//! virtual clock. This is the `agent` section of a scenario fixture (its JSON shape is
//! `$defs/agent` in `fixtures/scenario.schema.json`); these types mirror it.
//!
//! A script is a list of turns. The first request of a conversation plays turn 0; a request
//! continuing it with `previous_response_id` resumes a turn that paused (on a function call or
//! an approval) or else plays the next turn (the last one repeats).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::world::ConnectorState;

/// The `agent` section of a scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentScript {
    /// The model a preset resolves to, reported once the run completes.
    #[serde(default)]
    pub served_model: Option<String>,
    /// How long a background run stays `queued` before it starts.
    #[serde(deserialize_with = "duration", default = "default_queued")]
    pub queued: Duration,
    /// Connector states for this scenario, overriding the account's world fixture.
    #[serde(default)]
    pub connectors: BTreeMap<String, ConnectorState>,
    /// Fail tool discovery of the request's first MCP server (or custom connector) with this
    /// message, as if it were unreachable.
    #[serde(default)]
    pub discovery_failure: Option<String>,
    /// Answer the create request with this HTTP error instead of running.
    #[serde(default)]
    pub fault: Option<Fault>,
    /// What the model does for the first, second, ... request of a conversation.
    pub turns: Vec<AgentTurn>,
}

fn default_queued() -> Duration {
    Duration::from_secs(2)
}

/// An HTTP error injected into the create request.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// HTTP status (429, 500, 502, 503, 504, ...).
    pub status: u16,
    /// Envelope `type`; defaults by status.
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    /// Envelope message; defaults by status.
    #[serde(default)]
    pub message: Option<String>,
    /// `retry-after-ms` header value.
    #[serde(default)]
    pub retry_after_ms: Option<u64>,
    /// `x-should-retry` header value.
    #[serde(default)]
    pub should_retry: Option<bool>,
    /// How many create requests fail before the next one runs (default: every one).
    #[serde(default)]
    pub times: Option<u32>,
}

/// One request's worth of model work.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentTurn {
    /// Steps in order; each starts when the previous one ends.
    #[serde(default)]
    pub steps: Vec<AgentStep>,
    /// How the run ends after the last step.
    #[serde(default)]
    pub end: TurnEnd,
}

/// How a turn ends.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnEnd {
    /// Final status.
    #[serde(default)]
    pub status: EndStatus,
    /// `error.type` of a failed run (default `internal_error`).
    #[serde(default)]
    pub error_type: Option<String>,
    /// `error.code` of a failed run.
    #[serde(default)]
    pub error_code: Option<String>,
    /// `error.message` of a failed run.
    #[serde(default)]
    pub error_message: Option<String>,
}

/// A terminal status a script can choose.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndStatus {
    /// `completed`.
    #[default]
    Completed,
    /// `failed`, with an `error` object (HTTP 200).
    Failed,
    /// `incomplete` with `incomplete_details.reason: "max_output_tokens"` (seen live; Python's
    /// strict mode rejects it, so only scenarios that ask for it emit it).
    Incomplete,
}

/// A search result a step finds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultSpec {
    /// Page title.
    pub title: String,
    /// Page URL.
    pub url: String,
    /// Snippet.
    #[serde(default)]
    pub snippet: String,
    /// Publication date (`2026-10-01`).
    #[serde(default)]
    pub date: Option<String>,
}

/// One thing the model does.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum AgentStep {
    /// Thinks: `response.reasoning.started` / `.stopped` (there are no reasoning output items).
    Reasoning {
        /// The thought streamed with the events.
        thought: String,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Searches the web (needs the `web_search` tool): a `search_results` item.
    WebSearch {
        /// Queries the model sends.
        queries: Vec<String>,
        /// What it finds.
        #[serde(default)]
        results: Vec<ResultSpec>,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Reads pages (needs the `fetch_url` tool): a `fetch_url_results` item.
    FetchUrl {
        /// The pages read.
        contents: Vec<ResultSpec>,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Searches a deferred server's catalog: a `tool_search_output` item.
    ToolSearch {
        /// Server label or connector id (default: the first deferred server of the request).
        #[serde(default)]
        server: Option<String>,
        /// Search words; a tool matches when its name or description contains one.
        queries: Vec<String>,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Calls a tool of an MCP server or connector: an `mcp_call` item (or an
    /// `mcp_approval_request` when the call needs approval, which pauses the turn).
    McpCall {
        /// Server label or connector id (default: the request's first MCP server, else its
        /// first connector).
        #[serde(default)]
        server: Option<String>,
        /// Tool name (default, or when the server does not list it: the first listed tool).
        #[serde(default)]
        tool: Option<String>,
        /// Arguments (default: built from the tool's input schema).
        #[serde(default)]
        arguments: Option<Value>,
        /// What a managed connector returns (real MCP servers answer for themselves).
        #[serde(default)]
        output: Option<String>,
        /// An in-band error (`INVALID_ARGUMENTS`, `POLICY_DENIED`, `CONNECTOR_UNAVAILABLE`,
        /// `CONNECTOR_INTERNAL_ERROR`, `TOOL_ERROR`, `AUTH_REQUIRED`).
        #[serde(default)]
        error: Option<String>,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Calls one of the request's `function` tools: a `function_call` item; the turn pauses
    /// until a continuation sends the `function_call_output`.
    FunctionCall {
        /// Function name (default: the request's first function).
        #[serde(default)]
        name: Option<String>,
        /// Arguments.
        #[serde(default)]
        arguments: Option<Value>,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Runs code in the sandbox (needs the `sandbox` tool): a `sandbox_results` item.
    Sandbox {
        /// The command or program.
        code: String,
        /// `python` or `bash`.
        #[serde(default = "default_language")]
        language: String,
        /// What it printed.
        #[serde(default)]
        stdout: String,
        /// What it printed on stderr.
        #[serde(default)]
        stderr: String,
        /// Exit code (non-zero marks the run `failed`).
        #[serde(default)]
        exit_code: i64,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Shares a file (needs the `sandbox` tool): a `share_file` item; the file is listed by
    /// `GET …/{id}/files`.
    ShareFile {
        /// File name.
        filename: String,
        /// Its content.
        content: String,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
    /// Writes the answer: a `message` item, streamed as text deltas.
    Message {
        /// The text; `{input}` is replaced by the user's message and `{tool_output}` by the
        /// last tool output of the run.
        text: String,
        /// Written instead when the turn's approval request was denied; `{reason}` is the
        /// denial's reason.
        #[serde(default)]
        denied_text: Option<String>,
        /// Virtual time it takes.
        #[serde(deserialize_with = "duration", default)]
        duration: Duration,
    },
}

fn default_language() -> String {
    "python".into()
}

impl AgentStep {
    /// How long the step takes on the virtual clock.
    pub fn duration(&self) -> Duration {
        match self {
            Self::Reasoning { duration, .. }
            | Self::WebSearch { duration, .. }
            | Self::FetchUrl { duration, .. }
            | Self::ToolSearch { duration, .. }
            | Self::McpCall { duration, .. }
            | Self::FunctionCall { duration, .. }
            | Self::Sandbox { duration, .. }
            | Self::ShareFile { duration, .. }
            | Self::Message { duration, .. } => *duration,
        }
    }
}

fn duration<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Millis(u64),
        Text(String),
    }
    match Raw::deserialize(d)? {
        Raw::Millis(ms) => Ok(Duration::from_millis(ms)),
        Raw::Text(text) => crate::scenario::parse_duration(&text).map_err(serde::de::Error::custom),
    }
}

/// An Agent API scenario file: a name, how it is selected, and the script.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentScenario {
    /// Editor hint pointing at the schema; ignored.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// Unique name; a first user message containing `#name` selects it.
    pub name: String,
    /// What it shows, for `GET /_mock/scenarios` and the README.
    pub description: String,
    /// A regular expression matched against the first user message.
    #[serde(rename = "match", default)]
    pub match_pattern: Option<String>,
    /// The script.
    pub agent: AgentScript,
}

/// A loaded Agent API scenario.
#[derive(Debug)]
pub struct LoadedAgentScenario {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The script, shared with running runs.
    pub script: std::sync::Arc<AgentScript>,
    /// Where it came from.
    pub source: std::path::PathBuf,
    /// Compiled `match`.
    pub pattern: Option<regex::Regex>,
}

/// True when a fixture file is an Agent API scenario (it has an `agent` section).
pub fn is_agent_scenario(value: &Value) -> bool {
    value.get("agent").is_some()
}

static AGENT_VALIDATOR: std::sync::LazyLock<Option<jsonschema::Validator>> =
    std::sync::LazyLock::new(|| {
        let mut schema: Value = serde_json::from_str(crate::scenario::SCENARIO_SCHEMA).ok()?;
        let defs = schema.get_mut("$defs")?.take();
        let root = serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": defs,
            "$ref": "#/$defs/agent_scenario",
        });
        jsonschema::draft202012::new(&root).ok()
    });

/// Validates and loads an Agent API scenario (`$defs/agent_scenario` of the scenario schema).
pub fn parse_agent(
    path: &std::path::Path,
    value: Value,
) -> Result<LoadedAgentScenario, crate::error::FixtureError> {
    use crate::error::{FixtureError, FixtureErrorKind};
    let fail = |kind| FixtureError::new(path, kind);
    if let Some(validator) = AGENT_VALIDATOR.as_ref()
        && let Some(error) = validator.iter_errors(&value).next()
    {
        let pointer = error.instance_path().as_str().to_owned();
        let mut message = error.to_string();
        if let Err(serde_error) = serde_json::from_value::<AgentScenario>(value.clone()) {
            message = serde_error.to_string();
        }
        return Err(fail(FixtureErrorKind::Schema { pointer, message }));
    }
    let scenario: AgentScenario = serde_json::from_value(value).map_err(|e| {
        fail(FixtureErrorKind::Schema {
            pointer: String::new(),
            message: e.to_string(),
        })
    })?;
    if scenario.agent.turns.is_empty() {
        return Err(fail(FixtureErrorKind::Invalid {
            pointer: "/agent/turns".into(),
            message: "an agent script needs at least one turn".into(),
        }));
    }
    let pattern = match &scenario.match_pattern {
        Some(p) => Some(regex::Regex::new(p).map_err(|e| {
            fail(FixtureErrorKind::Invalid {
                pointer: "/match".into(),
                message: format!("not a valid regular expression: {e}"),
            })
        })?),
        None => None,
    };
    Ok(LoadedAgentScenario {
        name: scenario.name,
        description: scenario.description,
        script: std::sync::Arc::new(scenario.agent),
        source: path.to_owned(),
        pattern,
    })
}
