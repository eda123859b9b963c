//! The reading tools of a thread: its transcript and state, its assets, their downloads.

use serde_json::{Value, json};

use super::schema::{RETURNED_THREAD, annotations, input, output, parse, thread_id};
use crate::computer::model::arguments::ThreadRef;
use crate::computer::model::content::Reply;
use crate::computer::service::Service;
use crate::world::Account;

/// The thread tools' `tools/list` entries.
pub(super) fn entries() -> Vec<Value> {
    vec![
        json!({
            "name": "read_thread",
            "title": "Read thread",
            "description": "Reads an existing thread without sending a message or resuming the agent. Use it to check on a task after a timeout, a reconnect, or a sleep.",
            "inputSchema": input(json!({"thread_id": thread_id(RETURNED_THREAD)}), &["thread_id"]),
            "outputSchema": output(json!({
                "thread_id": {"type": "string"},
                "event": {"type": "string", "const": "transcript"},
                "status": {"type": "string"},
                "text": {"type": "string"},
                "truncated": {"type": "boolean"},
                "web_state": {"type": ["object", "null"]},
                "web_state_error": {"type": "string"}
            }), &["thread_id", "event", "status", "text", "web_state"]),
            "annotations": annotations("Read thread", true, false, true),
        }),
        json!({
            "name": "list_thread_assets",
            "title": "List thread assets",
            "description": "Lists durable assets from a thread you own, including generated files.",
            "inputSchema": input(json!({
                "thread_id": thread_id(RETURNED_THREAD),
                "entry_id": {"type": "string", "description": "Only list assets from this turn."},
                "cursor": {"type": "string", "description": "`next_cursor` from a previous page."}
            }), &["thread_id"]),
            "outputSchema": output(json!({
                "assets": {"type": "array", "items": {"type": "object"}},
                "next_cursor": {"type": ["string", "null"]}
            }), &["assets", "next_cursor"]),
            "annotations": annotations("List thread assets", true, false, true),
        }),
        json!({
            "name": "create_asset_download",
            "title": "Create asset download",
            "description": "Creates a fresh HTTPS download URL for an asset in a thread you own.",
            "inputSchema": input(json!({
                "thread_id": thread_id("The thread the asset belongs to."),
                "asset_id": {"type": "string", "description": "An `asset_id` from `list_thread_assets`."}
            }), &["thread_id", "asset_id"]),
            "outputSchema": output(json!({
                "asset_id": {"type": "string"},
                "url": {"type": "string"},
                "expires_in_seconds": {"type": ["integer", "null"]}
            }), &["asset_id", "url", "expires_in_seconds"]),
            "annotations": annotations("Create asset download", true, false, false),
        }),
    ]
}

/// Runs thread tool `name` with `args` (already checked against its schema).
pub(super) fn call(service: &Service, account: &Account, name: &str, args: &Value) -> Reply {
    match name {
        "read_thread" => parse::<ThreadRef>(name, args)
            .map_or_else(|r| r, |a| service.read(account, &a.thread_id)),
        "list_thread_assets" => {
            parse(name, args).map_or_else(|r| r, |a| service.list_assets(account, a))
        }
        "create_asset_download" => {
            parse(name, args).map_or_else(|r| r, |a| service.create_download(account, a))
        }
        other => Reply::error(None, format!("Unknown tool `{other}`.")),
    }
}
