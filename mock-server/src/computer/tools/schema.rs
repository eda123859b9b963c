//! What the tools' entries share: the schema building blocks of the document's parameter
//! tables, and reading arguments that passed a tool's schema into its struct.

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::computer::model::content::Reply;

/// How the document describes `thread_id` where it names the active conversation.
pub(super) const ACTIVE_THREAD: &str = "The thread ID from the active conversation.";
/// How the document describes `thread_id` where a previous call returned it.
pub(super) const RETURNED_THREAD: &str = "The thread ID returned by a previous call.";

/// The `attachment_urls` argument.
pub(super) fn attachment_urls() -> Value {
    json!({
        "type": "array",
        "items": {"type": "string"},
        "description": "URLs from `create_attachment_upload` for files to attach."
    })
}

/// The `followup_uuid` argument.
pub(super) fn followup_uuid() -> Value {
    json!({
        "type": "string",
        "description": "The `followup_uuid` from the event's `interactive` object, or \
            `request.answer_submission_uuid` from a `read_thread` form. Pass it when present \
            so the answer reaches the right question."
    })
}

/// A `thread_id` argument described as `description`.
pub(super) fn thread_id(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

/// An input schema: these properties, these required, nothing else.
pub(super) fn input(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// An output schema.
pub(super) fn output(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The output schema of the task tools that never answer the credit refusal.
pub(super) fn task_result_schema() -> Value {
    output(
        json!({
            "thread_id": {"type": "string"},
            "event": {"type": "string"},
            "text": {"type": "string"},
            "task_status": {"type": "string", "enum": ["working", "input_required", "completed", "failed", "cancelled"]},
            "error_code": {"type": "string"},
            "sources": {"type": "array", "items": {"type": "object"}},
            "files": {"type": "array", "items": {"type": "object"}},
            "wake_at": {"type": "string"},
            "interactive": {"type": "object"},
            "pending_interactions": {"type": "array", "items": {"type": "object"}},
            "optional_auth_requests": {"type": "array", "items": {"type": "object"}}
        }),
        &["event", "text"],
    )
}

/// A tool's annotations.
pub(super) fn annotations(
    title: &str,
    read_only: bool,
    destructive: bool,
    idempotent: bool,
) -> Value {
    json!({
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": true,
    })
}

/// Reads arguments that passed the tool's schema into its struct.
pub(super) fn parse<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, Reply> {
    T::deserialize(args).map_err(|e| {
        Reply::error(
            args.get("thread_id").and_then(Value::as_str),
            format!("Invalid arguments for {tool}: {e}."),
        )
    })
}
