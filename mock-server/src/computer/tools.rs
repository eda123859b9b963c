//! The twelve Computer tools: their `tools/list` entries (schemas from the document's parameter
//! tables) and what each does.
//!
//! Arguments are validated against the tool's input schema first; a bad argument is a tool result
//! with `isError: true` naming the argument (MCP 2025-11-25, SEP-1303), never a protocol error.
//! `call_perplexity_computer` and `notify_connected` declare no `outputSchema`: they can answer
//! the out-of-credits result, which has no `structuredContent`, and strict clients (the Python
//! and TypeScript SDKs) reject a missing `structuredContent` when a schema is declared.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::model::arguments::ThreadRef;
use super::model::content::Reply;
use super::service::{Service, Wait};
use crate::world::Account;

/// Names of the tools, in `tools/list` order.
pub const TOOL_NAMES: [&str; 12] = [
    "call_perplexity_computer",
    "answer_question",
    "confirm_action_approve",
    "confirm_action_deny",
    "notify_connected",
    "cancel_task",
    "read_thread",
    "models_list",
    "list_thread_assets",
    "create_asset_download",
    "projects_list",
    "create_attachment_upload",
];

fn attachment_urls() -> Value {
    json!({
        "type": "array",
        "items": {"type": "string"},
        "description": "URLs from `create_attachment_upload` for files to attach."
    })
}

fn followup_uuid() -> Value {
    json!({
        "type": "string",
        "description": "The `followup_uuid` from the event's `interactive` object, or \
            `request.answer_submission_uuid` from a `read_thread` form. Pass it when present \
            so the answer reaches the right question."
    })
}

fn thread_id(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn input(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn output(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// The output schema of the task tools that never answer the credit refusal.
fn task_result_schema() -> Value {
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

fn annotations(title: &str, read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({
        "title": title,
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": true,
    })
}

/// The `tools/list` entries.
pub(crate) fn catalog() -> &'static [Value] {
    static CATALOG: LazyLock<Vec<Value>> = LazyLock::new(build_catalog);
    &CATALOG
}

fn build_catalog() -> Vec<Value> {
    let thread = "The thread ID from the active conversation.";
    let returned = "The thread ID returned by a previous call.";
    let mut tools = vec![
        json!({
            "name": "call_perplexity_computer",
            "title": "Call Perplexity Computer",
            "description": "Send a message to Perplexity Computer to start or continue any task. This is the primary tool you'll use for all interactions. Best for: Starting new tasks, sending follow-up instructions, and resuming paused conversations. Returns thread_id: reuse it on follow-ups. If the result is `timeout`, Computer is still working: call read_thread with the thread_id instead of calling this tool again.",
            "inputSchema": input(json!({
                "message": {"type": "string", "description": "The task description or follow-up message."},
                "thread_id": thread_id("Thread ID to continue an existing conversation. Omit to start a new one."),
                "attachment_urls": attachment_urls(),
                "project_uuid": {"type": "string", "description": "Start the new conversation inside this Project. Get it from `projects_list`. Only for new conversations; can't be combined with `thread_id`."},
                "project_visibility": {"type": "string", "enum": ["private", "project"], "description": "`private` (default) or `project`. Requires `project_uuid`."},
                "mode": {"type": "string", "enum": ["light", "standard", "high", "ultra"], "description": "Can't be combined with `model`."},
                "model": {"type": "string", "description": "A model `id` from `models_list`. Can't be combined with `mode`."},
                "effort": {"type": "string", "enum": ["none", "minimal", "low", "medium", "high", "xhigh", "max"], "description": "Requires `model`, and must be one of that model's `efforts`."}
            }), &[]),
            "annotations": annotations("Call Perplexity Computer", false, true, false),
        }),
        json!({
            "name": "answer_question",
            "title": "Answer question",
            "description": "Relays answers when Computer returns an ask_user_question event.",
            "inputSchema": input(json!({
                "thread_id": thread_id(thread),
                "answers": {"type": "object", "description": "Key-value pairs mapping each question to your answer."},
                "attachment_urls": attachment_urls(),
                "followup_uuid": followup_uuid()
            }), &["thread_id", "answers"]),
            "outputSchema": task_result_schema(),
            "annotations": annotations("Answer question", false, false, false),
        }),
        json!({
            "name": "confirm_action_approve",
            "title": "Approve action",
            "description": "Approves a pending action from a confirm_action event.",
            "inputSchema": input(json!({
                "thread_id": thread_id(thread),
                "result": {"type": "string", "description": "Reason or message for the approval."},
                "attachment_urls": attachment_urls(),
                "followup_uuid": followup_uuid()
            }), &["thread_id", "result"]),
            "outputSchema": task_result_schema(),
            "annotations": annotations("Approve action", false, true, false),
        }),
        json!({
            "name": "confirm_action_deny",
            "title": "Deny action",
            "description": "Denies a pending action from a confirm_action event.",
            "inputSchema": input(json!({
                "thread_id": thread_id(thread),
                "result": {"type": "string", "description": "Reason for denying the action."},
                "attachment_urls": attachment_urls(),
                "followup_uuid": followup_uuid()
            }), &["thread_id", "result"]),
            "outputSchema": task_result_schema(),
            "annotations": annotations("Deny action", false, false, false),
        }),
        json!({
            "name": "notify_connected",
            "title": "Notify connected",
            "description": "Tells Computer you finished signing in after an auth_required event.",
            "inputSchema": input(json!({
                "thread_id": thread_id(thread),
                "message": {"type": "string", "description": "Message about the completed connection. Only sent when the call sends a new message."},
                "connector": {"type": "string", "description": "The `connector` from the `auth_required` event, for example `slack`. The display name also works. Pass it when more than one sign-in is waiting."},
                "attachment_urls": attachment_urls()
            }), &["thread_id", "message"]),
            "annotations": annotations("Notify connected", false, false, false),
        }),
        json!({
            "name": "cancel_task",
            "title": "Cancel task",
            "description": "Requests cancellation of the current work in a Computer thread, including work paused for a question or approval.",
            "inputSchema": input(json!({"thread_id": thread_id(returned)}), &["thread_id"]),
            "outputSchema": task_result_schema(),
            "annotations": annotations("Cancel task", false, true, true),
        }),
        json!({
            "name": "read_thread",
            "title": "Read thread",
            "description": "Reads an existing thread without sending a message or resuming the agent. Use it to check on a task after a timeout, a reconnect, or a sleep.",
            "inputSchema": input(json!({"thread_id": thread_id(returned)}), &["thread_id"]),
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
            "name": "models_list",
            "title": "List modes and models",
            "description": "Lists the modes and models you can choose for a task.",
            "inputSchema": input(json!({}), &[]),
            "outputSchema": output(json!({
                "default_mode": {"type": ["string", "null"]},
                "modes": {"type": "array", "items": {"type": "object"}},
                "models": {"type": "array", "items": {"type": "object"}},
                "default_model": {"type": ["string", "null"]}
            }), &["default_mode", "modes", "models", "default_model"]),
            "annotations": annotations("List modes and models", true, false, true),
        }),
        json!({
            "name": "list_thread_assets",
            "title": "List thread assets",
            "description": "Lists durable assets from a thread you own, including generated files.",
            "inputSchema": input(json!({
                "thread_id": thread_id(returned),
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
        json!({
            "name": "projects_list",
            "title": "List Projects",
            "description": "Lists Projects you can access, 50 at a time.",
            "inputSchema": input(json!({
                "search_term": {"type": "string", "description": "Filter by a Project described in natural language."},
                "cursor": {"type": "string", "description": "`next_cursor` from a previous page."}
            }), &[]),
            "outputSchema": output(json!({
                "projects": {"type": "array", "items": {"type": "object"}},
                "next_cursor": {"type": ["string", "null"]}
            }), &["projects", "next_cursor"]),
            "annotations": annotations("List Projects", true, false, true),
        }),
        json!({
            "name": "create_attachment_upload",
            "title": "Create attachment upload",
            "description": "Request a presigned S3 POST for a single file. Returns an envelope your client uses to upload bytes directly to S3.",
            "inputSchema": input(json!({
                "filename": {"type": "string", "description": "File name including extension (e.g. `report.pdf`)."},
                "mime_type": {"type": "string", "description": "Content type of the file (e.g. `application/pdf`, `image/png`)."},
                "size_bytes": {"type": "integer", "description": "File size in bytes. Must not exceed your plan's limit (200 MB on paid plans, 25 MB on Free)."}
            }), &["filename", "mime_type", "size_bytes"]),
            "outputSchema": output(json!({
                "attachment_url": {"type": "string"},
                "upload_url": {"type": "string"},
                "upload_fields": {"type": "object"}
            }), &["attachment_url", "upload_url", "upload_fields"]),
            "annotations": annotations("Create attachment upload", false, false, false),
        }),
    ];
    // Keep TOOL_NAMES and the catalog in one order.
    tools.sort_by_key(|t| {
        TOOL_NAMES
            .iter()
            .position(|n| t["name"] == *n)
            .unwrap_or(usize::MAX)
    });
    tools
}

static VALIDATORS: LazyLock<HashMap<String, jsonschema::Validator>> = LazyLock::new(|| {
    catalog()
        .iter()
        .filter_map(|tool| {
            let name = tool["name"].as_str()?.to_owned();
            let validator = jsonschema::draft202012::new(&tool["inputSchema"]).ok()?;
            Some((name, validator))
        })
        .collect()
});

/// Whether `name` is one of the twelve tools.
pub(crate) fn is_tool(name: &str) -> bool {
    TOOL_NAMES.contains(&name)
}

/// Checks arguments against the tool's input schema; the message names the argument.
fn validate(tool: &str, args: &Value) -> Result<(), String> {
    let Some(validator) = VALIDATORS.get(tool) else {
        return Ok(());
    };
    let problems: Vec<String> = validator
        .iter_errors(args)
        .map(|error| {
            let path = error
                .instance_path()
                .as_str()
                .trim_start_matches('/')
                .to_owned();
            if path.is_empty() {
                error.to_string()
            } else {
                format!("argument `{path}`: {error}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "Invalid arguments for {tool}: {}.",
            problems.join("; ")
        ))
    }
}

/// Runs a tool call through the service. `name` must be a known tool.
pub(crate) async fn call(
    service: &Service,
    account: &Account,
    name: &str,
    args: Value,
    wait: Wait,
) -> Reply {
    if let Err(message) = validate(name, &args) {
        return Reply::error(args.get("thread_id").and_then(Value::as_str), message);
    }
    match name {
        "call_perplexity_computer" => match parse(name, &args) {
            Ok(a) => service.send(account, a, wait).await.reply,
            Err(refused) => refused,
        },
        "answer_question" => match parse(name, &args) {
            Ok(a) => service.answer(account, a, wait).await,
            Err(refused) => refused,
        },
        "confirm_action_approve" | "confirm_action_deny" => match parse(name, &args) {
            Ok(a) => {
                let approve = name == "confirm_action_approve";
                service.confirm(account, a, approve, wait).await
            }
            Err(refused) => refused,
        },
        "notify_connected" => match parse(name, &args) {
            Ok(a) => service.connected(account, a, wait).await,
            Err(refused) => refused,
        },
        "cancel_task" => parse::<ThreadRef>(name, &args)
            .map_or_else(|r| r, |a| service.cancel(account, &a.thread_id)),
        "read_thread" => parse::<ThreadRef>(name, &args)
            .map_or_else(|r| r, |a| service.read(account, &a.thread_id)),
        "models_list" => service.models(account),
        "list_thread_assets" => {
            parse(name, &args).map_or_else(|r| r, |a| service.list_assets(account, a))
        }
        "create_asset_download" => {
            parse(name, &args).map_or_else(|r| r, |a| service.create_download(account, a))
        }
        "projects_list" => parse(name, &args).map_or_else(|r| r, |a| service.projects(account, a)),
        "create_attachment_upload" => {
            parse(name, &args).map_or_else(|r| r, |a| service.create_upload(account, a))
        }
        other => Reply::error(None, format!("Unknown tool `{other}`.")),
    }
}

/// A tool's arguments, checked against its input schema and read into its struct, or the tool
/// error to answer.
pub(crate) fn arguments<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, Reply> {
    validate(tool, args)
        .map_err(|message| Reply::error(args.get("thread_id").and_then(Value::as_str), message))?;
    parse(tool, args)
}

/// Reads arguments that passed the tool's schema into its struct.
fn parse<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, Reply> {
    T::deserialize(args).map_err(|e| {
        Reply::error(
            args.get("thread_id").and_then(Value::as_str),
            format!("Invalid arguments for {tool}: {e}."),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_lists_the_twelve_documented_tools_in_order() {
        let names: Vec<&str> = catalog()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, TOOL_NAMES);
    }

    #[test]
    fn every_input_schema_compiles() {
        assert_eq!(VALIDATORS.len(), TOOL_NAMES.len());
    }

    #[test]
    fn a_wrong_type_names_the_argument() {
        let message = validate("read_thread", &json!({"thread_id": 42})).expect_err("wrong type");
        assert!(message.contains("argument `thread_id`"), "{message}");
    }

    #[test]
    fn a_missing_required_argument_is_named() {
        let message = validate("answer_question", &json!({"thread_id": "t"})).expect_err("missing");
        assert!(message.contains("\"answers\""), "{message}");
    }
}
