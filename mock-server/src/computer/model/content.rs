//! A tool's answer as MCP carries it: the typed `Reply` a tool produced (crate-internal), and the
//! `CallToolResult` it travels in (the reply as JSON text, again as `structuredContent`,
//! files as `resource_link` blocks, facts beyond the documented fields in `_meta`).

use std::sync::Arc;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::value::RawValue;

use super::lifecycle::{ResultType, SERVER_META};
use super::listings::{AssetPage, DownloadLink, ProjectPage, Transcript, UploadEnvelope};
use super::results::{AccessDenied, Ack, Checkpoint, NotSent, ToolError};
use crate::world::{ModelsList, TaskSettings};

/// What a tool answered, before it is wrapped as a `CallToolResult`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum Reply {
    /// A task result: a checkpoint, a timeout, a cancellation.
    Checkpoint(Box<Checkpoint>),
    /// `notify_connected`'s acknowledgement.
    Ack(Ack),
    /// `read_thread`'s transcript.
    Transcript(Box<Transcript>),
    /// `models_list`, as the world writes it.
    Models(ModelsList),
    /// `list_thread_assets`.
    Assets(AssetPage),
    /// `create_asset_download`.
    Download(DownloadLink),
    /// `projects_list`.
    Projects(ProjectPage),
    /// `create_attachment_upload`.
    Upload(UploadEnvelope),
    /// A message refused before it was sent (credits, quota).
    NotSent(NotSent),
    /// Computer is not available to the account.
    AccessDenied(AccessDenied),
    /// A tool error from the MCP server itself.
    Error(ToolError),
}

impl Reply {
    /// A tool error about `thread_id` (if any) saying `text`.
    pub(crate) fn error(thread_id: Option<&str>, text: impl Into<String>) -> Self {
        Self::Error(ToolError::new(thread_id, text))
    }

    /// The checkpoint, if this is a task result.
    pub(crate) fn checkpoint(&self) -> Option<&Checkpoint> {
        match self {
            Self::Checkpoint(checkpoint) => Some(checkpoint),
            _ => None,
        }
    }
}

impl From<Checkpoint> for Reply {
    fn from(checkpoint: Checkpoint) -> Self {
        Self::Checkpoint(Box::new(checkpoint))
    }
}

/// A content block of a tool result.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Content {
    /// Text (the reply as JSON).
    Text {
        /// The text.
        text: Text,
    },
    /// A file the client may fetch.
    ResourceLink {
        /// Its URL.
        uri: String,
        /// Its name.
        name: String,
        /// Its content type, when known.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Its size, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
    },
}

/// The text of a text block, which is always a reply's JSON.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Text {
    /// The JSON, escaped into a JSON string as the answer is written.
    Json(Arc<RawValue>),
    /// The JSON already escaped as a JSON string literal: a reply that never changes
    /// (`models_list`) is escaped once, not on every call.
    Literal(Arc<RawValue>),
}

impl Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Json(json) => serializer.serialize_str(json.get()),
            Self::Literal(literal) => literal.serialize(serializer),
        }
    }
}

/// `_meta` of a tool result: the settings the request ran with, under a vendor key. The
/// documented fields of `read_thread` and of task results are exact sets, so the settings travel
/// beside them, as the service's own `_meta["ai.perplexity/threadId"]` does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SettingsMeta {
    #[serde(rename = "ai.perplexity/settings")]
    settings: TaskSettings,
}

impl SettingsMeta {
    /// The `_meta` for `settings`.
    pub(crate) fn new(settings: TaskSettings) -> Self {
        Self { settings }
    }
}

/// MCP's `CallToolResult`, as the server writes it.
#[derive(Debug, Clone)]
pub struct CallToolResult {
    /// The reply as text, then its files as links.
    pub(crate) content: Vec<Content>,
    /// The MCP `isError` flag.
    pub(crate) is_error: bool,
    /// The reply again, as `structuredContent` (`None` for a message not sent): the JSON the
    /// text block holds, rendered once and written as it stands.
    pub(crate) structured_content: Option<Arc<RawValue>>,
    /// Facts beyond the documented fields.
    pub(crate) meta: Option<SettingsMeta>,
    /// Set for a stateless (2026-07-28) answer, which also carries the server info.
    pub(crate) result_type: Option<ResultType>,
}

impl CallToolResult {
    /// The reply as text, then its files as links.
    pub fn content(&self) -> &[Content] {
        &self.content
    }

    /// The MCP `isError` flag.
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// `structuredContent`, the JSON the text block holds (`None` for a message not sent).
    pub fn structured_content(&self) -> Option<&RawValue> {
        self.structured_content.as_deref()
    }

    /// `resultType`, set on a stateless (2026-07-28) answer.
    pub fn result_type(&self) -> Option<ResultType> {
        self.result_type
    }

    /// The same result answered to a stateless request.
    pub(crate) fn stateless(mut self) -> Self {
        self.result_type = Some(ResultType::Complete);
        self
    }
}

impl Serialize for CallToolResult {
    /// `content`, `isError`, `structuredContent`, then `_meta` and `resultType`. A stateless
    /// result adds the server info to `_meta`; when the tool gave no `_meta`, `resultType` comes
    /// first and `_meta` holds the server info alone.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("content", &self.content)?;
        map.serialize_entry("isError", &self.is_error)?;
        if let Some(structured) = &self.structured_content {
            map.serialize_entry("structuredContent", &**structured)?;
        }
        match (&self.meta, self.result_type) {
            (Some(meta), Some(result_type)) => {
                map.serialize_entry("_meta", &StatelessMeta(meta))?;
                map.serialize_entry("resultType", &result_type)?;
            }
            (Some(meta), None) => map.serialize_entry("_meta", meta)?,
            (None, Some(result_type)) => {
                map.serialize_entry("resultType", &result_type)?;
                map.serialize_entry("_meta", &SERVER_META)?;
            }
            (None, None) => {}
        }
        map.end()
    }
}

/// A tool's `_meta` followed by the server info.
struct StatelessMeta<'a>(&'a SettingsMeta);

impl Serialize for StatelessMeta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Both<'a> {
            #[serde(flatten)]
            tool: &'a SettingsMeta,
            #[serde(flatten)]
            server: &'a super::lifecycle::ServerMeta,
        }
        Both {
            tool: self.0,
            server: &SERVER_META,
        }
        .serialize(serializer)
    }
}
