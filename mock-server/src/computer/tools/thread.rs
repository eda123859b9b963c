//! The reading tools of a thread: its transcript and state, its assets, their downloads.

use super::schema::{OBJECTS, RETURNED_THREAD, STRING, thread_id};
use crate::computer::model::tools::{
    JsonType, ObjectSchema, Schema, Tool, ToolAnnotations, ToolName,
};

/// `read_thread`.
pub(super) const READ_THREAD: Tool = Tool {
    name: ToolName::ReadThread,
    title: "Read thread",
    description: "Reads an existing thread without sending a message or resuming the agent. Use \
        it to check on a task after a timeout, a reconnect, or a sleep.",
    input_schema: ObjectSchema::input(&[("thread_id", RETURNED_THREAD)], &["thread_id"]),
    output_schema: Some(ObjectSchema::output(
        &[
            ("thread_id", STRING),
            ("event", STRING.constant("transcript")),
            ("status", STRING),
            ("text", STRING),
            ("truncated", Schema::of(JsonType::Boolean)),
            ("web_state", Schema::nullable(JsonType::Object)),
            ("web_state_error", STRING),
        ],
        &["thread_id", "event", "status", "text", "web_state"],
    )),
    annotations: ToolAnnotations::new("Read thread", true, false, true),
};

/// `list_thread_assets`.
pub(super) const LIST_THREAD_ASSETS: Tool = Tool {
    name: ToolName::ListThreadAssets,
    title: "List thread assets",
    description: "Lists durable assets from a thread you own, including generated files.",
    input_schema: ObjectSchema::input(
        &[
            ("thread_id", RETURNED_THREAD),
            (
                "entry_id",
                STRING.description("Only list assets from this turn."),
            ),
            (
                "cursor",
                STRING.description("`next_cursor` from a previous page."),
            ),
        ],
        &["thread_id"],
    ),
    output_schema: Some(ObjectSchema::output(
        &[
            ("assets", OBJECTS),
            ("next_cursor", Schema::nullable(JsonType::String)),
        ],
        &["assets", "next_cursor"],
    )),
    annotations: ToolAnnotations::new("List thread assets", true, false, true),
};

/// `create_asset_download`.
pub(super) const CREATE_ASSET_DOWNLOAD: Tool = Tool {
    name: ToolName::CreateAssetDownload,
    title: "Create asset download",
    description: "Creates a fresh HTTPS download URL for an asset in a thread you own.",
    input_schema: ObjectSchema::input(
        &[
            ("thread_id", thread_id("The thread the asset belongs to.")),
            (
                "asset_id",
                STRING.description("An `asset_id` from `list_thread_assets`."),
            ),
        ],
        &["thread_id", "asset_id"],
    ),
    output_schema: Some(ObjectSchema::output(
        &[
            ("asset_id", STRING),
            ("url", STRING),
            ("expires_in_seconds", Schema::nullable(JsonType::Integer)),
        ],
        &["asset_id", "url", "expires_in_seconds"],
    )),
    annotations: ToolAnnotations::new("Create asset download", true, false, false),
};
