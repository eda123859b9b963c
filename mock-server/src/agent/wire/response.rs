//! The response object, every field as recorded from the live API and in its order: the
//! request's options echoed, and the run's status, output, usage and error.
//!
//! A run holds its response as this value and changes it field by field; it becomes JSON only
//! when `GET`, a create answer or a stream event writes it.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::items::OutputItem;
use super::usage::Usage;

/// The response object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Response {
    /// Submitted with `background: true`.
    pub(crate) background: bool,
    /// Unix seconds of completion (null until `completed`).
    pub(crate) completed_at: Option<i64>,
    /// Unix seconds of creation.
    pub(crate) created_at: i64,
    /// Why the run failed or was cancelled, or what a scripted status shows.
    pub(crate) error: Option<ResponseError>,
    /// Always 0.
    pub(crate) frequency_penalty: u8,
    /// `resp_<uuid>`.
    pub(crate) id: String,
    /// Why the run is `incomplete` or `cancelled`.
    pub(crate) incomplete_details: Option<IncompleteDetails>,
    /// The request's `instructions`.
    pub(crate) instructions: Option<String>,
    /// The request's `max_output_tokens`.
    pub(crate) max_output_tokens: Option<i64>,
    /// The request's `max_tool_calls`.
    pub(crate) max_tool_calls: Option<i64>,
    /// The request's `metadata` (`{}` when it sent none).
    pub(crate) metadata: Map<String, Value>,
    /// The model, or a preset's name until a preset run completes.
    pub(crate) model: String,
    /// Always `response`.
    pub(crate) object: &'static str,
    /// The items written so far.
    pub(crate) output: Vec<OutputItem>,
    /// Always true.
    pub(crate) parallel_tool_calls: bool,
    /// Always 0.
    pub(crate) presence_penalty: u8,
    /// The request's `previous_response_id`.
    pub(crate) previous_response_id: Option<String>,
    /// The request's `prompt_cache_key`.
    pub(crate) prompt_cache_key: Option<String>,
    /// The request's `reasoning`, as sent.
    pub(crate) reasoning: Option<Value>,
    /// Always null.
    pub(crate) safety_identifier: Option<String>,
    /// The request's `service_tier` (`default` when it sent none).
    pub(crate) service_tier: String,
    /// Where the run is.
    pub(crate) status: Status,
    /// Whether `GET` may show the response later.
    pub(crate) store: bool,
    /// The request's `temperature` (1 when it sent none).
    pub(crate) temperature: Sampling,
    /// The answer's format.
    pub(crate) text: TextConfig,
    /// The request's `tool_choice`, as sent (`auto` when it sent none).
    pub(crate) tool_choice: Value,
    /// The request's tools as sent, without the credentials sent for servers.
    pub(crate) tools: Vec<Map<String, Value>>,
    /// Always 0.
    pub(crate) top_logprobs: u8,
    /// The request's `top_p` (1 when it sent none).
    pub(crate) top_p: Sampling,
    /// The request's `truncation` (`""` when it sent none, as recorded).
    pub(crate) truncation: String,
    /// What the run consumed, once it ends (null for a run no model ran).
    pub(crate) usage: Option<Usage>,
    /// Always null.
    pub(crate) user: Option<String>,
    /// The request's deprecated `preset`, when it sent one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) preset: Option<String>,
    /// The request's `effort`, when it sent one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) effort: Option<String>,
}

/// A run's `status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Status {
    /// A background run waiting to start.
    Queued,
    /// Running.
    InProgress,
    /// Done (also when its turn paused on a function call or approval requests).
    Completed,
    /// Cut by the output cap.
    Incomplete,
    /// Failed, with an `error`.
    Failed,
    /// Cancelled.
    Cancelled,
    /// Another word a scenario's `status` step shows for a while (`paused`, ...).
    Scripted(String),
}

impl Status {
    /// The status a scenario's `status` step names (a documented word reads as its status).
    pub(crate) fn from_word(word: &str) -> Self {
        match word {
            "queued" => Self::Queued,
            "in_progress" => Self::InProgress,
            "completed" => Self::Completed,
            "incomplete" => Self::Incomplete,
            "failed" => Self::Failed,
            "cancelled" => Self::Cancelled,
            other => Self::Scripted(other.to_owned()),
        }
    }

    /// The word the API writes.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Queued => "queued",
            Self::InProgress => "in_progress",
            Self::Completed => "completed",
            Self::Incomplete => "incomplete",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Scripted(word) => word,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A response's `error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub(crate) enum ResponseError {
    /// Why the run failed or was cancelled.
    Run(RunError),
    /// What a scenario's `status` step shows on an unfinished run.
    Shown(ShownError),
}

/// Why a run failed or was cancelled: `{code, message, type}`, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RunError {
    /// `discovery_failed`, `model_error`, `cancelled`, ...
    pub(crate) code: String,
    /// A sentence.
    pub(crate) message: String,
    /// `external_connector_error`, `internal_error`, `invalid_request`, `cancelled`, ...
    #[serde(rename = "type")]
    pub(crate) kind: String,
}

impl RunError {
    /// An error with this code, message and type.
    pub(crate) fn new(code: &str, message: impl Into<String>, kind: &str) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            kind: kind.to_owned(),
        }
    }
}

impl RunError {
    /// The mock could not measure what the run wrote (a bug, said in the message): the run
    /// fails rather than report a `usage` it did not count.
    pub(crate) fn unmeasured(error: &serde_json::Error) -> Self {
        Self::new(
            "internal_error",
            format!("internal error: the mock could not measure the run's output: {error}"),
            "internal_error",
        )
    }
}

/// An `error` a scenario shows on an unfinished run: `{message, type, code?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ShownError {
    /// A sentence.
    pub(crate) message: String,
    /// The error's type.
    #[serde(rename = "type")]
    pub(crate) kind: String,
    /// The error's code, when the scenario gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) code: Option<String>,
}

/// `incomplete_details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct IncompleteDetails {
    /// Why.
    pub(crate) reason: IncompleteReason,
}

/// Why a run stopped before its answer was whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum IncompleteReason {
    /// The output cap cut the answer.
    MaxOutputTokens,
    /// The run was cancelled.
    Cancelled,
}

/// A sampling option echoed: the request's number, or the integer 1 it defaults to.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Sampling(pub(crate) Option<f64>);

impl Serialize for Sampling {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(value) => serializer.serialize_f64(value),
            None => serializer.serialize_u8(1),
        }
    }
}

/// The response's `text`: the answer's format.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TextConfig {
    /// Plain text, or the request's JSON schema.
    pub(crate) format: TextFormat,
}

/// An answer's format.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum TextFormat {
    /// Plain text (no `response_format`).
    Text,
    /// The request's `response_format.json_schema` fields (`name`, `schema`, ...), flattened
    /// next to the type as sent: the OpenAI-style echo.
    JsonSchema(Map<String, Value>),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn statuses_read_and_write_the_documented_words() {
        for word in [
            "queued",
            "in_progress",
            "completed",
            "incomplete",
            "failed",
            "cancelled",
            "paused",
        ] {
            assert_eq!(Status::from_word(word).as_str(), word);
        }
        assert_eq!(Status::from_word("completed"), Status::Completed);
        assert_eq!(
            serde_json::to_value(Status::Scripted("paused".into())).expect("renders"),
            json!("paused")
        );
    }

    #[test]
    fn errors_keep_their_two_recorded_field_orders() {
        let run = ResponseError::Run(RunError::new("cancelled", "cancelled", "cancelled"));
        assert_eq!(
            serde_json::to_string(&run).expect("renders"),
            r#"{"code":"cancelled","message":"cancelled","type":"cancelled"}"#
        );
        let shown = ResponseError::Shown(ShownError {
            message: "slow".into(),
            kind: "server_error".into(),
            code: Some("overloaded".into()),
        });
        assert_eq!(
            serde_json::to_string(&shown).expect("renders"),
            r#"{"message":"slow","type":"server_error","code":"overloaded"}"#
        );
    }

    #[test]
    fn sampling_defaults_to_the_integer_one_and_formats_flatten_their_schema() {
        assert_eq!(
            serde_json::to_string(&Sampling(None)).expect("renders"),
            "1"
        );
        assert_eq!(
            serde_json::to_string(&Sampling(Some(0.5))).expect("renders"),
            "0.5"
        );
        let text = TextConfig {
            format: TextFormat::Text,
        };
        assert_eq!(
            serde_json::to_string(&text).expect("renders"),
            r#"{"format":{"type":"text"}}"#
        );
        let mut schema = Map::new();
        schema.insert("name".into(), json!("answer"));
        schema.insert("schema".into(), json!({"type": "object"}));
        let text = TextConfig {
            format: TextFormat::JsonSchema(schema),
        };
        assert_eq!(
            serde_json::to_string(&text).expect("renders"),
            r#"{"format":{"type":"json_schema","name":"answer","schema":{"type":"object"}}}"#
        );
    }
}
