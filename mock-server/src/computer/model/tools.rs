//! The tools as `tools/list` describes them: each tool's name (one enum, so a call is dispatched
//! by one match), its title and description, its input and output schemas, and its annotations.
//!
//! A schema is data, not a JSON tree: the catalog is a static table, written to the wire in the
//! order its fields are declared here, which is the order clients have always received.

use std::fmt;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize};

use super::lifecycle::{CACHE_SCOPE, LIST_TTL_MS, ResultType, SERVER_META, ServerMeta};

/// One of the twelve Computer tools, in `tools/list` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolName {
    /// `call_perplexity_computer`: start or continue a task.
    CallPerplexityComputer,
    /// `answer_question`: answer an `ask_user_question` event.
    AnswerQuestion,
    /// `confirm_action_approve`: approve a `confirm_action` event.
    ConfirmActionApprove,
    /// `confirm_action_deny`: deny a `confirm_action` event.
    ConfirmActionDeny,
    /// `notify_connected`: say a sign-in is done.
    NotifyConnected,
    /// `cancel_task`: stop the current work on a thread.
    CancelTask,
    /// `read_thread`: read a thread without resuming it.
    ReadThread,
    /// `models_list`: the modes and models the account may choose.
    ModelsList,
    /// `list_thread_assets`: a thread's durable assets.
    ListThreadAssets,
    /// `create_asset_download`: a fresh download URL for an asset.
    CreateAssetDownload,
    /// `projects_list`: the Projects the account can access.
    ProjectsList,
    /// `create_attachment_upload`: a presigned upload for one file.
    CreateAttachmentUpload,
}

impl ToolName {
    /// Every tool, in `tools/list` order.
    pub const ALL: [Self; 12] = [
        Self::CallPerplexityComputer,
        Self::AnswerQuestion,
        Self::ConfirmActionApprove,
        Self::ConfirmActionDeny,
        Self::NotifyConnected,
        Self::CancelTask,
        Self::ReadThread,
        Self::ModelsList,
        Self::ListThreadAssets,
        Self::CreateAssetDownload,
        Self::ProjectsList,
        Self::CreateAttachmentUpload,
    ];

    /// The tool's name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::CallPerplexityComputer => "call_perplexity_computer",
            Self::AnswerQuestion => "answer_question",
            Self::ConfirmActionApprove => "confirm_action_approve",
            Self::ConfirmActionDeny => "confirm_action_deny",
            Self::NotifyConnected => "notify_connected",
            Self::CancelTask => "cancel_task",
            Self::ReadThread => "read_thread",
            Self::ModelsList => "models_list",
            Self::ListThreadAssets => "list_thread_assets",
            Self::CreateAssetDownload => "create_asset_download",
            Self::ProjectsList => "projects_list",
            Self::CreateAttachmentUpload => "create_attachment_upload",
        }
    }

    /// The tool a wire name names, if it is one of the twelve.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|tool| tool.as_str() == name)
    }

    /// The tool's place in `tools/list` (and in [`ToolName::ALL`]).
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for ToolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tool as `tools/list` lists it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// Its name.
    pub name: ToolName,
    /// A title for people (empty, and left out, for 2025-03-26 sessions: tools have no title
    /// before 2025-06-18; `annotations.title` stays).
    #[serde(skip_serializing_if = "str::is_empty")]
    pub title: &'static str,
    /// What it does and when to call it.
    pub description: &'static str,
    /// The arguments it takes.
    pub input_schema: ObjectSchema,
    /// What its `structuredContent` holds, when it declares it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<ObjectSchema>,
    /// Hints for hosts.
    pub annotations: ToolAnnotations,
}

/// A tool's annotations (every tool reaches the outside world).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// The tool's title again.
    pub title: &'static str,
    /// It changes nothing.
    pub read_only_hint: bool,
    /// It may change or lose something the user cares about.
    pub destructive_hint: bool,
    /// Calling it twice with the same arguments does what calling it once does.
    pub idempotent_hint: bool,
    /// It reaches beyond the server (always true here).
    pub open_world_hint: bool,
}

impl ToolAnnotations {
    /// The annotations of a tool titled `title`.
    pub(crate) const fn new(
        title: &'static str,
        read_only: bool,
        destructive: bool,
        idempotent: bool,
    ) -> Self {
        Self {
            title,
            read_only_hint: read_only,
            destructive_hint: destructive,
            idempotent_hint: idempotent,
            open_world_hint: true,
        }
    }
}

/// The JSON Schema of an object: `{"type": "object", "properties": …, "required": …}`, closed to
/// other members (`"additionalProperties": false`) for a tool's input.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ObjectSchema {
    /// Its members' schemas, in order.
    pub properties: &'static [(&'static str, Schema)],
    /// The members it must have.
    pub required: &'static [&'static str],
    /// Whether members beyond `properties` are refused.
    pub closed: bool,
}

impl ObjectSchema {
    /// An input schema: these properties, these required, nothing else.
    pub(crate) const fn input(
        properties: &'static [(&'static str, Schema)],
        required: &'static [&'static str],
    ) -> Self {
        Self {
            properties,
            required,
            closed: true,
        }
    }

    /// An output schema: these properties, these required.
    pub(crate) const fn output(
        properties: &'static [(&'static str, Schema)],
        required: &'static [&'static str],
    ) -> Self {
        Self {
            properties,
            required,
            closed: false,
        }
    }
}

impl Serialize for ObjectSchema {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry("properties", &Members(self.properties))?;
        map.serialize_entry("required", self.required)?;
        if self.closed {
            map.serialize_entry("additionalProperties", &false)?;
        }
        map.end()
    }
}

/// `properties`: the members' schemas as one object, in order.
struct Members(&'static [(&'static str, Schema)]);

impl Serialize for Members {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, schema) in self.0 {
            map.serialize_entry(name, schema)?;
        }
        map.end()
    }
}

/// A JSON type, as a schema's `type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// A string.
    String,
    /// An integer.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An object.
    Object,
    /// An array.
    Array,
}

/// The JSON Schema of one member: `type` (one JSON type, or it or `null`), then `const`, `enum`,
/// `items` and `description` where set.
#[derive(Debug, Clone, Copy, Serialize)]
#[non_exhaustive]
pub struct Schema {
    /// The member's type.
    #[serde(rename = "type")]
    pub kind: SchemaType,
    /// The one value it may have.
    #[serde(rename = "const", skip_serializing_if = "Option::is_none")]
    pub constant: Option<&'static str>,
    /// The values it may have (none listed: any of its type).
    #[serde(rename = "enum", skip_serializing_if = "<[_]>::is_empty")]
    pub choices: &'static [&'static str],
    /// The schema of an array's items.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<&'static Schema>,
    /// What the member is, for the model choosing the arguments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'static str>,
}

impl Schema {
    /// A member of type `kind`, and nothing more said.
    pub(crate) const fn of(kind: JsonType) -> Self {
        Self {
            kind: SchemaType {
                kind,
                nullable: false,
            },
            constant: None,
            choices: &[],
            items: None,
            description: None,
        }
    }

    /// A member of type `kind` described as `description`.
    pub(crate) const fn described(kind: JsonType, description: &'static str) -> Self {
        Self::of(kind).description(description)
    }

    /// A member of type `kind` or `null`.
    pub(crate) const fn nullable(kind: JsonType) -> Self {
        Self {
            kind: SchemaType {
                kind,
                nullable: true,
            },
            ..Self::of(kind)
        }
    }

    /// An array of `items`.
    pub(crate) const fn array(items: &'static Schema) -> Self {
        Self {
            items: Some(items),
            ..Self::of(JsonType::Array)
        }
    }

    /// The same member described as `description`.
    pub(crate) const fn description(self, description: &'static str) -> Self {
        Self {
            description: Some(description),
            ..self
        }
    }

    /// The same member, restricted to `choices`.
    pub(crate) const fn choices(self, choices: &'static [&'static str]) -> Self {
        Self { choices, ..self }
    }

    /// The same member, which always holds `value`.
    pub(crate) const fn constant(self, value: &'static str) -> Self {
        Self {
            constant: Some(value),
            ..self
        }
    }
}

/// A member's `type`: one JSON type (`"string"`), or it or `null` (`["string", "null"]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaType {
    /// The JSON type.
    pub kind: JsonType,
    /// Whether `null` is allowed too.
    pub nullable: bool,
}

impl Serialize for SchemaType {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !self.nullable {
            return self.kind.serialize(serializer);
        }
        let mut types = serializer.serialize_seq(Some(2))?;
        types.serialize_element(&self.kind)?;
        types.serialize_element("null")?;
        types.end()
    }
}

/// The `tools/list` result; a stateless one also says how long it may be cached.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListToolsResult<'a> {
    /// The tools.
    pub tools: &'a [Tool],
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<ResultType>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ServerMeta>,
}

impl<'a> ListToolsResult<'a> {
    /// The list for a handshake session.
    pub(crate) fn handshake(tools: &'a [Tool]) -> Self {
        Self {
            tools,
            ttl_ms: None,
            cache_scope: None,
            result_type: None,
            meta: None,
        }
    }

    /// The list for a stateless request.
    pub(crate) fn stateless(tools: &'a [Tool]) -> Self {
        Self {
            tools,
            ttl_ms: Some(LIST_TTL_MS),
            cache_scope: Some(CACHE_SCOPE),
            result_type: Some(ResultType::Complete),
            meta: Some(SERVER_META),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_read_back_and_keep_their_place() {
        for (place, tool) in ToolName::ALL.into_iter().enumerate() {
            assert_eq!(ToolName::parse(tool.as_str()), Some(tool));
            assert_eq!(tool.index(), place);
            assert_eq!(serde_json::to_value(tool).ok(), Some(json!(tool.as_str())));
        }
        assert_eq!(ToolName::parse("read_threads"), None);
    }

    #[test]
    fn schemas_write_their_members_in_the_wire_order() {
        static ITEM: Schema = Schema::of(JsonType::String);
        static PROPERTIES: [(&str, Schema); 3] = [
            (
                "mode",
                Schema::of(JsonType::String)
                    .choices(&["light", "high"])
                    .description("A mode."),
            ),
            ("urls", Schema::array(&ITEM).description("URLs.")),
            ("state", Schema::nullable(JsonType::Object)),
        ];
        let schema = ObjectSchema::input(&PROPERTIES, &["mode"]);
        assert_eq!(
            serde_json::to_string(&schema).ok().as_deref(),
            Some(concat!(
                r#"{"type":"object","properties":{"#,
                r#""mode":{"type":"string","enum":["light","high"],"description":"A mode."},"#,
                r#""urls":{"type":"array","items":{"type":"string"},"description":"URLs."},"#,
                r#""state":{"type":["object","null"]}},"#,
                r#""required":["mode"],"additionalProperties":false}"#
            ))
        );
    }
}
