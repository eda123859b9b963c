//! What the tools' entries share: the schema building blocks of the document's parameter
//! tables, and reading arguments that passed a tool's schema into its struct.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::computer::model::content::Reply;
use crate::computer::model::tools::{JsonType, ObjectSchema, Schema, ToolName};

/// How the document describes `thread_id` where it names the active conversation.
pub(super) const ACTIVE_THREAD: Schema = thread_id("The thread ID from the active conversation.");
/// How the document describes `thread_id` where a previous call returned it.
pub(super) const RETURNED_THREAD: Schema = thread_id("The thread ID returned by a previous call.");

/// A string.
pub(super) const STRING: Schema = Schema::of(JsonType::String);
/// An object.
pub(super) const OBJECT: Schema = Schema::of(JsonType::Object);
/// An array of objects.
pub(super) const OBJECTS: Schema = Schema::array(&OBJECT);

/// The `attachment_urls` argument.
pub(super) const ATTACHMENT_URLS: Schema =
    Schema::array(&STRING).description("URLs from `create_attachment_upload` for files to attach.");

/// The `followup_uuid` argument.
pub(super) const FOLLOWUP_UUID: Schema = Schema::described(
    JsonType::String,
    "The `followup_uuid` from the event's `interactive` object, or \
     `request.answer_submission_uuid` from a `read_thread` form. Pass it when present so the \
     answer reaches the right question.",
);

/// A `thread_id` argument described as `description`.
pub(super) const fn thread_id(description: &'static str) -> Schema {
    Schema::described(JsonType::String, description)
}

/// The output schema of the task tools that never answer the credit refusal.
pub(super) const TASK_RESULT: ObjectSchema = ObjectSchema::output(
    &[
        ("thread_id", STRING),
        ("event", STRING),
        ("text", STRING),
        (
            "task_status",
            STRING.choices(&[
                "working",
                "input_required",
                "completed",
                "failed",
                "cancelled",
            ]),
        ),
        ("error_code", STRING),
        ("sources", OBJECTS),
        ("files", OBJECTS),
        ("wake_at", STRING),
        ("interactive", OBJECT),
        ("pending_interactions", OBJECTS),
        ("optional_auth_requests", OBJECTS),
    ],
    &["event", "text"],
);

/// Reads arguments that passed the tool's schema into its struct.
pub(super) fn parse<T: DeserializeOwned>(tool: ToolName, args: &Value) -> Result<T, Reply> {
    T::deserialize(args).map_err(|e| {
        Reply::error(
            args.get("thread_id").and_then(Value::as_str),
            format!("Invalid arguments for {tool}: {e}."),
        )
    })
}
