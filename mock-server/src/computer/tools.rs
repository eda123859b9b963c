//! The twelve Computer tools: their `tools/list` entries (schemas from the document's parameter
//! tables) and what each does.
//!
//! Arguments are validated against the tool's input schema first; a bad argument is a tool result
//! with `isError: true` naming the argument (MCP 2025-11-25, SEP-1303), never a protocol error.
//! `call_perplexity_computer` and `notify_connected` declare no `outputSchema`: they can answer
//! the out-of-credits result, which has no `structuredContent`, and strict clients (the Python
//! and TypeScript SDKs) reject a missing `structuredContent` when a schema is declared.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::engine::{Engine, Follow, ProgressSink};
use super::model::arguments::{
    AnswerQuestion, CallComputer, ConfirmAction, CreateAssetDownload, CreateAttachmentUpload,
    ListThreadAssets, NotifyConnected, ProjectsList, ThreadRef,
};
use super::render::{self, ToolOutput};
use super::thread::{InputKind, Phase, ProjectContext, RequestKind, RequestState, Role, Thread};
use crate::http::encoding::base64;
use crate::scenario::{LoadedScenario, Refusal};
use crate::world::{Account, AttachmentRefusal, CreditRefusal, CursorError, TaskSettings};

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

/// Who is calling and on which protocol.
pub(crate) struct CallContext {
    pub(crate) engine: Arc<Engine>,
    pub(crate) account: Account,
}

/// Runs a tool call. `name` must be a known tool.
pub(crate) async fn call(
    ctx: &CallContext,
    name: &str,
    args: Value,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    if let Err(message) = validate(name, &args) {
        return ToolOutput::server_error(args.get("thread_id").and_then(Value::as_str), message);
    }
    match name {
        "call_perplexity_computer" => match parse(name, &args) {
            Ok(a) => call_perplexity_computer(ctx, a, progress).await,
            Err(refused) => refused,
        },
        "answer_question" => match parse(name, &args) {
            Ok(a) => answer_question(ctx, a, progress).await,
            Err(refused) => refused,
        },
        "confirm_action_approve" | "confirm_action_deny" => match parse(name, &args) {
            Ok(a) => confirm(ctx, a, name == "confirm_action_approve", progress).await,
            Err(refused) => refused,
        },
        "notify_connected" => match parse(name, &args) {
            Ok(a) => notify_connected(ctx, a, progress).await,
            Err(refused) => refused,
        },
        "cancel_task" => parse(name, &args).map_or_else(|r| r, |a| cancel_task(ctx, a)),
        "read_thread" => parse(name, &args).map_or_else(|r| r, |a| read_thread(ctx, a)),
        "models_list" => ToolOutput::ok(ctx.engine.world.models_list(&ctx.account)),
        "list_thread_assets" => {
            parse(name, &args).map_or_else(|r| r, |a| list_thread_assets(ctx, a))
        }
        "create_asset_download" => {
            parse(name, &args).map_or_else(|r| r, |a| create_asset_download(ctx, a))
        }
        "projects_list" => parse(name, &args).map_or_else(|r| r, |a| projects_list(ctx, a)),
        "create_attachment_upload" => {
            parse(name, &args).map_or_else(|r| r, |a| create_attachment_upload(ctx, a))
        }
        other => ToolOutput::server_error(None, format!("Unknown tool `{other}`.")),
    }
}

/// Reads arguments that passed the tool's schema into its struct.
fn parse<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, ToolOutput> {
    T::deserialize(args).map_err(|e| {
        ToolOutput::server_error(
            args.get("thread_id").and_then(Value::as_str),
            format!("Invalid arguments for {tool}: {e}."),
        )
    })
}

/// Attachments must be files this account uploaded through `create_attachment_upload`: Computer
/// fetches them from storage, so any other URL (or an envelope whose POST never happened) fails
/// before anything is sent.
fn check_attachments(
    ctx: &CallContext,
    urls: &[String],
    thread_id: Option<&str>,
) -> Result<(), ToolOutput> {
    let prefix = format!("{}/_mock/uploads/", ctx.engine.base_url);
    for url in urls {
        let uploaded = url
            .strip_prefix(&prefix)
            .is_some_and(|key| ctx.engine.world.owns_upload(&ctx.account.id, key));
        if !uploaded {
            return Err(ToolOutput::server_error(
                thread_id,
                format!(
                    "Argument `attachment_urls`: `{url}` is not a file you uploaded. Call \
                     create_attachment_upload, POST the file to its upload_url with every \
                     upload_fields key, then pass its attachment_url."
                ),
            ));
        }
    }
    Ok(())
}

async fn call_perplexity_computer(
    ctx: &CallContext,
    args: CallComputer,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    let engine = &ctx.engine;
    if let Err(refused) = check_attachments(ctx, &args.attachment_urls, args.thread_id.as_deref()) {
        return refused;
    }
    let message = args
        .message
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty());
    let attachments = &args.attachment_urls;
    if let Err(problem) = check_settings(ctx, &args) {
        return ToolOutput::server_error(args.thread_id.as_deref(), problem);
    }
    let Some(thread_id) = args.thread_id.as_deref() else {
        let Some(message) = message else {
            return ToolOutput::server_error(
                None,
                "Argument `message` is required to start a new conversation: say what Computer \
                 should do, or pass the thread_id of an existing conversation.",
            );
        };
        let scenario = engine.catalog.route(message);
        let key = format!("{}:{}:new", ctx.account.id, scenario.scenario.name);
        if let Some(refused) = before_send(ctx, &scenario, Some(0), key, None) {
            return refused;
        }
        let mut thread = Thread::new(&ctx.account.id, scenario, engine.clock.now());
        thread.settings = engine.world.task_settings(
            &ctx.account,
            args.mode.as_deref(),
            args.model.as_deref(),
            args.effort.as_deref(),
        );
        if let Some(project) = args
            .project_uuid
            .as_deref()
            .and_then(|uuid| ctx.account.projects.iter().find(|p| p.project_uuid == uuid))
        {
            let visibility = args.project_visibility.as_deref().unwrap_or("private");
            if visibility == "project" {
                let others = |ids: &[String]| -> Vec<String> {
                    ids.iter()
                        .filter(|m| **m != ctx.account.id)
                        .cloned()
                        .collect()
                };
                thread.viewers = others(&project.members);
                // Writes follow each member's role in the Project.
                thread.writers = others(&project.writers);
            }
            thread.project = Some(ProjectContext {
                name: project.name.clone(),
                instructions: project.instructions.clone(),
                visibility: visibility.to_owned(),
            });
        }
        let thread_id = engine.insert(thread);
        engine.world.spend(&ctx.account.id, 1);
        return engine
            .send_and_wait(&ctx.account.id, &thread_id, message, attachments, progress)
            .await;
    };
    let message = message.unwrap_or("Continue.");
    // Naming a mode or a model switches the thread; naming neither keeps its settings.
    let switch = (args.mode.is_some() || args.model.is_some())
        .then(|| {
            engine.world.task_settings(
                &ctx.account,
                args.mode.as_deref(),
                args.model.as_deref(),
                args.effort.as_deref(),
            )
        })
        .flatten();
    send_follow_up(ctx, thread_id, message, attachments, switch, progress).await
}

/// The credit check and send of a message on an existing thread.
async fn send_follow_up(
    ctx: &CallContext,
    thread_id: &str,
    message: &str,
    attachments: &[String],
    switch: Option<TaskSettings>,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    let engine = &ctx.engine;
    let facts = engine.with_thread(&ctx.account.id, thread_id, |thread, _| {
        (
            thread.scenario.clone(),
            thread.next_turn_index(),
            resumes(thread),
        )
    });
    let (scenario, next_turn, resumes) = match facts {
        Ok(facts) => facts,
        Err(e) => return e.into_output(),
    };
    let turn = if resumes { None } else { next_turn };
    let key = format!("{thread_id}:{}", turn.unwrap_or(usize::MAX));
    if let Some(refused) = before_send(ctx, &scenario, turn, key, Some(thread_id)) {
        return refused;
    }
    if let Some(settings) = switch {
        // The thread was found a moment ago; if it vanished since, send_and_wait says so.
        let _ = engine.with_thread(&ctx.account.id, thread_id, |thread, _| {
            thread.settings = Some(settings);
        });
    }
    engine.world.spend(&ctx.account.id, 1);
    engine
        .send_and_wait(&ctx.account.id, thread_id, message, attachments, progress)
        .await
}

/// Whether a message on this thread would resume the waiting request rather than start a turn.
fn resumes(thread: &Thread) -> bool {
    matches!(
        thread.latest().map(|e| &e.phase),
        Some(Phase::Input {
            kind: InputKind::Interaction { .. } | InputKind::TwoFactor | InputKind::Credits,
            ..
        }) | Some(Phase::Waiting { then: Some(_) })
    )
}

/// The check made before any message is sent; `Some` is the refusal to answer.
fn before_send(
    ctx: &CallContext,
    scenario: &LoadedScenario,
    turn: Option<usize>,
    key: String,
    thread_id: Option<&str>,
) -> Option<ToolOutput> {
    let engine = &ctx.engine;
    let account = &ctx.account.id;
    let now = engine.clock.now();
    let scripted = turn
        .and_then(|i| scenario.scenario.turns.get(i))
        .and_then(|t| t.before_send);
    match scripted {
        Some(Refusal::AccessDenied) => return Some(access_denied(thread_id)),
        // A scripted refusal strikes once; after a top-up (or the reset) the resend goes through.
        Some(Refusal::InsufficientCredits) if engine.world.apply_once(&key) => {
            engine.world.drain(account);
        }
        Some(Refusal::QuotaExhausted) if engine.world.apply_once(&key) => {
            engine.world.exhaust_quota(account, now);
        }
        Some(_) | None => {}
    }
    let refusal = engine.world.check_before_send(account, now)?;
    let billing_url = format!("{}/_mock/billing/{account}", engine.base_url);
    let (text, interactive) = match refusal {
        CreditRefusal::InsufficientCredits => (
            format!(
                "Your Perplexity account doesn't have enough credits, so this message was not \
                 sent. Top up or raise your spending limit at {billing_url}, then send the \
                 message again."
            ),
            json!({"type": "insufficient_credits", "reason": "insufficient_credits", "billing_url": billing_url}),
        ),
        CreditRefusal::SpendingLimit { limit } => (
            format!(
                "Your Perplexity account reached its spending limit of {limit} credits, so this \
                 message was not sent. Adjust your spending limit or top up at {billing_url}, \
                 then send the message again."
            ),
            json!({"type": "insufficient_credits", "reason": "insufficient_credits", "billing_url": billing_url}),
        ),
        CreditRefusal::QuotaExhausted { reset } => {
            let reset = reset.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            (
                format!(
                    "Your plan's Computer quota is used up until {reset}, so this message was \
                     not sent. Change your plan at {billing_url} or send it again after the reset."
                ),
                json!({
                    "type": "insufficient_credits",
                    "reason": "quota_exhausted",
                    "billing_url": billing_url,
                    "quota_reset_date": reset,
                }),
            )
        }
    };
    // Nothing was sent: no thread_id, no task_status and, as documented, no structuredContent.
    Some(ToolOutput {
        body: json!({"event": "insufficient_credits", "text": text, "interactive": interactive}),
        structured: false,
        is_error: false,
        links: Vec::new(),
        meta: None,
    })
}

fn access_denied(thread_id: Option<&str>) -> ToolOutput {
    let mut body = Map::new();
    if let Some(id) = thread_id {
        body.insert("thread_id".into(), id.into());
    }
    body.insert("event".into(), "access_denied".into());
    body.insert(
        "text".into(),
        "Computer isn't available for this account. If you belong to an organization, ask its \
         administrator to enable Computer access."
            .into(),
    );
    body.insert("task_status".into(), "failed".into());
    body.insert("error_code".into(), "access_denied".into());
    body.insert(
        "interactive".into(),
        json!({"type": "access_denied", "reason": "access_denied"}),
    );
    ToolOutput::error(Value::Object(body))
}

/// The mode/model/effort/project rules of `call_perplexity_computer`.
fn check_settings(ctx: &CallContext, args: &CallComputer) -> Result<(), String> {
    let world = &ctx.engine.world;
    if args.mode.is_some() && args.model.is_some() {
        return Err("`mode` and `model` can't be used together: pass one of them.".into());
    }
    if args.effort.is_some() && args.model.is_none() {
        return Err(
            "`effort` requires `model`: pick a model from models_list, then one of its efforts."
                .into(),
        );
    }
    if args.project_uuid.is_some() && args.thread_id.is_some() {
        return Err(
            "`project_uuid` is only for new conversations and can't be combined with `thread_id`."
                .into(),
        );
    }
    if args.project_visibility.is_some() && args.project_uuid.is_none() {
        return Err("`project_visibility` requires `project_uuid`.".into());
    }
    let offered = world.models_list(&ctx.account);
    if let Some(mode) = args.mode.as_deref() {
        let known = offered["modes"]
            .as_array()
            .is_some_and(|modes| modes.iter().any(|m| m["mode"] == mode));
        if !known {
            return Err(format!(
                "Argument `mode`: `{mode}` isn't available to this account; models_list shows the modes you can use."
            ));
        }
    }
    if let Some(model) = args.model.as_deref() {
        let found = offered["models"]
            .as_array()
            .and_then(|models| models.iter().find(|m| m["id"] == model).cloned());
        let Some(found) = found else {
            return Err(format!(
                "Argument `model`: `{model}` isn't available to this account; use an `id` from models_list."
            ));
        };
        if let Some(effort) = args.effort.as_deref() {
            let efforts = &found["efforts"];
            if !efforts
                .as_array()
                .is_some_and(|list| list.iter().any(|e| e == effort))
            {
                return Err(format!(
                    "Argument `effort`: `{effort}` isn't offered for model `{model}`; choose one of {efforts}."
                ));
            }
        }
    }
    if let Some(project) = args.project_uuid.as_deref()
        && !ctx
            .account
            .projects
            .iter()
            .any(|p| p.project_uuid == project)
    {
        return Err(format!(
            "Project `{project}` wasn't found among the Projects you can access; use a project_uuid from projects_list."
        ));
    }
    Ok(())
}

async fn answer_question(
    ctx: &CallContext,
    args: AnswerQuestion,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    let AnswerQuestion {
        thread_id,
        answers,
        attachment_urls: attachments,
        followup_uuid,
    } = args;
    if let Err(refused) = check_attachments(ctx, &attachments, Some(&thread_id)) {
        return refused;
    }
    let followup = followup_uuid.as_deref();
    let thread_id = thread_id.as_str();
    let now = ctx.engine.clock.now();
    let outcome = ctx
        .engine
        .with_thread(&ctx.account.id, thread_id, |thread, rctx| {
            let request = pick_request(thread, followup, Prompt::Question)?;
            let Some(entry) = thread.entries.last_mut() else {
                return Err("Nothing is waiting on this thread.".to_owned());
            };
            let questions = entry
                .open_requests()
                .find(|r| r.id == request)
                .and_then(|r| match &r.kind {
                    RequestKind::Question(q) => Some(q.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            let summary = match_answers(&questions, &answers, &attachments)?;
            entry.transcript.push((Role::User, summary));
            thread.resolve(&request, RequestState::Answered, now);
            Ok(still_waiting(thread, rctx))
        });
    finish_resolution(ctx, thread_id, outcome, progress).await
}

async fn confirm(
    ctx: &CallContext,
    args: ConfirmAction,
    approve: bool,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    let ConfirmAction {
        thread_id,
        result: reason,
        attachment_urls: attachments,
        followup_uuid,
    } = args;
    if let Err(refused) = check_attachments(ctx, &attachments, Some(&thread_id)) {
        return refused;
    }
    let followup = followup_uuid.as_deref();
    let thread_id = thread_id.as_str();
    let now = ctx.engine.clock.now();
    let outcome = ctx
        .engine
        .with_thread(&ctx.account.id, thread_id, |thread, rctx| {
            let request = pick_request(thread, followup, Prompt::Confirm)?;
            let verb = if approve { "Approved" } else { "Denied" };
            let note = if attachments.is_empty() {
                format!("{verb}: {reason}")
            } else {
                format!(
                    "{verb}: {reason}\n\nAttachments: {}",
                    attachments.join(", ")
                )
            };
            if let Some(entry) = thread.entries.last_mut() {
                entry.transcript.push((Role::User, note));
            }
            let state = if approve {
                RequestState::Answered
            } else {
                RequestState::Denied
            };
            thread.resolve(&request, state, now);
            Ok(still_waiting(thread, rctx))
        });
    finish_resolution(ctx, thread_id, outcome, progress).await
}

/// What an answer led to.
enum Resolved {
    /// Prompts are still open: the result to return at once.
    Waiting(ToolOutput),
    /// The request goes on; follow it from this point of the thread's activity.
    Continues { activity_from: usize },
}

/// After an answer: the result to return at once if prompts are still open.
fn still_waiting(thread: &Thread, rctx: &render::RenderContext<'_>) -> Resolved {
    match thread.latest() {
        Some(entry) if matches!(entry.phase, Phase::Input { .. }) => {
            Resolved::Waiting(render::checkpoint_result(thread, entry, rctx))
        }
        _ => Resolved::Continues {
            activity_from: thread.activity.len(),
        },
    }
}

async fn finish_resolution(
    ctx: &CallContext,
    thread_id: &str,
    outcome: Result<Result<Resolved, String>, super::engine::ThreadError>,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    match outcome {
        Err(e) => e.into_output(),
        Ok(Err(problem)) => ToolOutput::server_error(Some(thread_id), problem),
        Ok(Ok(Resolved::Waiting(waiting))) => waiting,
        Ok(Ok(Resolved::Continues { activity_from })) => {
            ctx.engine
                .wait(
                    &ctx.account.id,
                    thread_id,
                    Follow::Latest { activity_from },
                    progress,
                )
                .await
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Question,
    Confirm,
}

/// Finds the open request an answer is for: by `followup_uuid`, else the first of its kind.
fn pick_request(thread: &Thread, followup: Option<&str>, want: Prompt) -> Result<String, String> {
    let (tool, noun) = match want {
        Prompt::Question => ("answer_question", "question"),
        Prompt::Confirm => ("confirm_action_approve/deny", "confirmation"),
    };
    let is_kind = |kind: &RequestKind| match want {
        Prompt::Question => matches!(kind, RequestKind::Question(_)),
        Prompt::Confirm => matches!(kind, RequestKind::Confirm { .. }),
    };
    let all: Vec<_> = thread
        .entries
        .iter()
        .flat_map(|e| {
            let current = match &e.phase {
                Phase::Input { requests, .. } => requests.clone(),
                _ => Vec::new(),
            };
            current.into_iter().chain(e.past_requests.iter().cloned())
        })
        .collect();
    let open: Vec<_> = thread
        .latest()
        .map_or_else(Vec::new, |e| e.open_requests().cloned().collect::<Vec<_>>());
    match followup {
        Some(id) => {
            if let Some(request) = open.iter().find(|r| r.id == id) {
                if is_kind(&request.kind) {
                    return Ok(request.id.clone());
                }
                let other = match want {
                    Prompt::Question => {
                        "a confirmation: use confirm_action_approve or confirm_action_deny"
                    }
                    Prompt::Confirm => "a question: use answer_question",
                };
                return Err(format!("followup_uuid `{id}` belongs to {other}."));
            }
            if let Some(past) = all.iter().find(|r| r.id == id) {
                let what = if past.state == RequestState::Open {
                    "is no longer waiting (the request it belonged to ended)"
                } else {
                    "was already answered"
                };
                return Err(format!(
                    "The {noun} with followup_uuid `{id}` {what}. Call read_thread to see what \
                     the task needs now."
                ));
            }
            Err(format!(
                "No {noun} with followup_uuid `{id}` is waiting on this thread. Use the \
                 followup_uuid from the latest `interactive` object, or \
                 request.answer_submission_uuid from read_thread."
            ))
        }
        None => open
            .iter()
            .find(|r| is_kind(&r.kind))
            .map(|r| r.id.clone())
            .ok_or_else(|| {
                format!(
                    "No {noun} is waiting on this thread, so there is nothing for {tool} to \
                     answer. Call read_thread to see the task's state."
                )
            }),
    }
}

/// Matches `answers` to the questions (by id or by question text) and renders them.
fn match_answers(
    questions: &[crate::scenario::QuestionSpec],
    answers: &Map<String, Value>,
    attachments: &[String],
) -> Result<String, String> {
    if answers.is_empty() {
        return Err(
            "Argument `answers` must map each question to your answer; it was empty.".into(),
        );
    }
    let mut lines = Vec::new();
    for (key, value) in answers {
        let question = questions
            .iter()
            .find(|q| q.id == *key || q.question.trim().eq_ignore_ascii_case(key.trim()));
        let question = match question {
            Some(q) => q,
            // A single question takes a single answer under any key.
            None if questions.len() == 1 && answers.len() == 1 => &questions[0],
            None => {
                let expected: Vec<String> = questions
                    .iter()
                    .map(|q| format!("`{}` ({})", q.id, q.question))
                    .collect();
                return Err(format!(
                    "Argument `answers` has key `{key}`, which matches no waiting question. \
                     Expected: {}.",
                    expected.join(", ")
                ));
            }
        };
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        };
        lines.push(format!("{}: {text}", question.question));
    }
    let missing: Vec<&str> = questions
        .iter()
        .filter(|q| {
            !lines
                .iter()
                .any(|l| l.starts_with(&format!("{}:", q.question)))
        })
        .map(|q| q.id.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "Argument `answers` is missing an answer for: {}.",
            missing.join(", ")
        ));
    }
    if !attachments.is_empty() {
        lines.push(format!("Attachments: {}", attachments.join(", ")));
    }
    Ok(lines.join("\n"))
}

async fn notify_connected(
    ctx: &CallContext,
    args: NotifyConnected,
    progress: Option<ProgressSink>,
) -> ToolOutput {
    let NotifyConnected {
        thread_id,
        message,
        connector,
        attachment_urls: attachments,
    } = args;
    if let Err(refused) = check_attachments(ctx, &attachments, Some(&thread_id)) {
        return refused;
    }
    let thread_id = thread_id.as_str();
    let message = message.as_str();
    let connector = connector
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let now = ctx.engine.clock.now();
    let decision = ctx
        .engine
        .with_thread(&ctx.account.id, thread_id, |thread, _| {
            if !attachments.is_empty() {
                return SignInDecision::SendMessage;
            }
            let Some(entry) = thread.latest() else {
                return SignInDecision::SendMessage;
            };
            if !entry.is_active() || matches!(entry.phase, Phase::Sleeping { .. }) {
                return SignInDecision::SendMessage;
            }
            let waiting: Vec<_> = entry
                .open_requests()
                .filter(|r| matches!(r.kind, RequestKind::SignIn(_)))
                .cloned()
                .collect();
            let target = match connector {
                Some(name) => {
                    if let Some(request) = waiting.iter().find(|r| render::sign_in_matches(r, name))
                    {
                        Some(request.id.clone())
                    } else if answered_sign_in(entry, Some(name)) {
                        return SignInDecision::AlreadyAnswered;
                    } else if !waiting.is_empty() {
                        let names: Vec<String> = waiting
                            .iter()
                            .filter_map(|r| match &r.kind {
                                RequestKind::SignIn(s) => {
                                    Some(format!("`{}` ({})", s.connector, s.display_name))
                                }
                                _ => None,
                            })
                            .collect();
                        return SignInDecision::Refuse(format!(
                            "No sign-in to `{name}` is waiting on this thread. Waiting: {}.",
                            names.join(", ")
                        ));
                    } else {
                        None
                    }
                }
                None if waiting.len() == 1 => Some(waiting[0].id.clone()),
                None if waiting.is_empty() && answered_sign_in(entry, None) => {
                    return SignInDecision::AlreadyAnswered;
                }
                None => None,
            };
            match target {
                Some(request) => {
                    thread.resolve(&request, RequestState::Answered, now);
                    SignInDecision::Answered
                }
                None => SignInDecision::SendMessage,
            }
        });
    let decision = match decision {
        Ok(d) => d,
        Err(e) => return e.into_output(),
    };
    match decision {
        SignInDecision::SendMessage => {
            send_follow_up(ctx, thread_id, message, &attachments, None, progress).await
        }
        SignInDecision::Refuse(problem) => ToolOutput::server_error(Some(thread_id), problem),
        SignInDecision::Answered | SignInDecision::AlreadyAnswered => {
            let already = decision == SignInDecision::AlreadyAnswered;
            let ack = ctx.engine.with_thread(&ctx.account.id, thread_id, |thread, _| {
                let entry = thread.latest();
                let status = entry.map(|e| e.task_status().as_str()).unwrap_or("working");
                let text = match (already, entry.filter(|e| matches!(e.phase, Phase::Input { .. }))) {
                    (false, Some(entry)) => format!(
                        "Sign-in recorded. The task is still waiting on {}; use read_thread to \
                         see what it needs.",
                        render::describe_open(entry)
                    ),
                    (true, Some(entry)) => format!(
                        "That sign-in was already answered in Perplexity, so nothing new was \
                         sent. The task is still waiting on {}; use read_thread to see what it \
                         needs.",
                        render::describe_open(entry)
                    ),
                    (true, None) => "That sign-in was already answered in Perplexity, so \
                                     nothing new was sent. Computer is continuing this request; \
                                     use read_thread to follow progress."
                        .to_owned(),
                    (false, None) => "Sign-in sent. Computer is continuing this request; use \
                                      read_thread to follow progress."
                        .to_owned(),
                };
                json!({"thread_id": thread.id, "event": "complete", "task_status": status, "text": text})
            });
            match ack {
                Ok(body) => ToolOutput {
                    body,
                    structured: true,
                    is_error: false,
                    links: Vec::new(),
                    meta: None,
                },
                Err(e) => e.into_output(),
            }
        }
    }
}

/// Whether the request in progress had a sign-in (to `connector`, or any) that was already
/// answered, on the Perplexity page or by an earlier `notify_connected`.
fn answered_sign_in(entry: &super::thread::Entry, connector: Option<&str>) -> bool {
    let current = match &entry.phase {
        Phase::Input { requests, .. } => requests.as_slice(),
        _ => &[],
    };
    current
        .iter()
        .chain(&entry.past_requests)
        .filter(|r| matches!(r.kind, RequestKind::SignIn(_)))
        .filter(|r| {
            matches!(
                r.state,
                RequestState::Answered | RequestState::CompletedOnPage
            )
        })
        .any(|r| connector.is_none_or(|name| render::sign_in_matches(r, name)))
}

#[derive(Debug, PartialEq, Eq)]
enum SignInDecision {
    Answered,
    AlreadyAnswered,
    SendMessage,
    Refuse(String),
}

fn cancel_task(ctx: &CallContext, args: ThreadRef) -> ToolOutput {
    let thread_id = args.thread_id.as_str();
    let now = ctx.engine.clock.now();
    let result = ctx.engine.with_thread(&ctx.account.id, thread_id, |thread, _| {
        if thread.scenario.scenario.settings.cancel_fails {
            return ToolOutput::server_error(
                Some(thread_id),
                "The cancellation request failed, so the task may still be running. Check with \
                 read_thread and retry cancel_task.",
            );
        }
        if thread.cancel(now) {
            ToolOutput::ok(json!({
                "thread_id": thread.id,
                "event": "cancelled",
                "text": "Cancelled the current work on this thread. Confirm with read_thread.",
                "task_status": "cancelled",
            }))
        } else {
            let status = thread
                .latest()
                .map(|e| e.task_status().as_str())
                .unwrap_or("completed");
            ToolOutput::ok(json!({
                "thread_id": thread.id,
                "event": "complete",
                "text": format!("Nothing to cancel: the thread's last request already ended ({status})."),
                "task_status": status,
            }))
        }
    });
    result.unwrap_or_else(|e| e.into_output())
}

fn read_thread(ctx: &CallContext, args: ThreadRef) -> ToolOutput {
    let result = ctx
        .engine
        .view_thread(&ctx.account.id, &args.thread_id, |thread, rctx| {
            // The scenario's `web_state_error` makes the first read fail, as a flaky load does.
            let fail =
                thread.scenario.scenario.settings.web_state_error && thread.web_state_failures == 0;
            if fail {
                thread.web_state_failures += 1;
            }
            render::read_thread_result(thread, rctx, fail)
        });
    result.unwrap_or_else(|e| e.into_output())
}

fn list_thread_assets(ctx: &CallContext, args: ListThreadAssets) -> ToolOutput {
    let entry_filter = args.entry_id.as_deref();
    let scope = format!(
        "assets:{}:{}",
        args.thread_id,
        entry_filter.unwrap_or_default()
    );
    let start = match page_start(ctx, args.cursor.as_deref(), Some(&args.thread_id), &scope) {
        Ok(start) => start,
        Err(refused) => return refused,
    };
    let result = ctx
        .engine
        .view_thread(&ctx.account.id, &args.thread_id, |thread, _| {
            // Pages are cut from all of the thread's assets and then filtered, as the service
            // does: a filtered page can be empty while next_cursor is not null.
            let total = thread.assets.len();
            let end = (start + ASSETS_PAGE).min(total);
            let assets: Vec<Value> = thread
                .assets
                .get(start.min(end)..end)
                .unwrap_or_default()
                .iter()
                .filter(|a| entry_filter.is_none_or(|e| a.entry_id == e))
                .map(|asset| {
                    let (media_type, size) = render::file_facts(asset);
                    let asset_type = if asset.spec.published_url.is_some() {
                        "app"
                    } else {
                        "file"
                    };
                    json!({
                        "asset_id": asset.asset_id,
                        "entry_id": asset.entry_id,
                        "filename": asset.spec.filename,
                        "mime_type": media_type,
                        "size_bytes": size,
                        "asset_type": asset_type,
                        "created_at": asset.created_at.timestamp(),
                        "is_primary_asset": asset.spec.primary,
                        "root_asset_id": asset.root_asset_id,
                        "parent_asset_id": asset.parent_asset_id,
                        "published_url": asset.spec.published_url,
                    })
                })
                .collect();
            (assets, end, total)
        });
    match result {
        Ok((assets, end, total)) => {
            let next = next_cursor(ctx, &scope, end, total);
            ToolOutput::ok(json!({"assets": assets, "next_cursor": next}))
        }
        Err(e) => e.into_output(),
    }
}

fn create_asset_download(ctx: &CallContext, args: CreateAssetDownload) -> ToolOutput {
    let asset_id = args.asset_id.as_str();
    match ctx
        .engine
        .create_download(&ctx.account.id, &args.thread_id, asset_id)
    {
        Err(e) => e.into_output(),
        Ok(None) => ToolOutput::server_error(
            Some(&args.thread_id),
            format!(
                "Asset `{asset_id}` is not in this thread; use an asset_id from list_thread_assets."
            ),
        ),
        Ok(Some((url, expires))) => ToolOutput::ok(json!({
            "asset_id": asset_id,
            "url": url,
            "expires_in_seconds": expires,
        })),
    }
}

/// Projects per `projects_list` page, as documented.
const PROJECTS_PAGE: usize = 50;
/// Assets per `list_thread_assets` page (undocumented; the filter applies within a page).
const ASSETS_PAGE: usize = 20;

/// The offset a `cursor` argument stands for (0 without one), or the error to answer.
fn page_start(
    ctx: &CallContext,
    cursor: Option<&str>,
    thread_id: Option<&str>,
    scope: &str,
) -> Result<usize, ToolOutput> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    ctx.engine
        .world
        .resolve_cursor(&ctx.account.id, scope, cursor)
        .map_err(|e| {
            let why = match e {
                CursorError::Unknown => "was not handed out by this server to this account",
                CursorError::OtherQuery => "belongs to a listing with other arguments",
            };
            ToolOutput::server_error(
                thread_id,
                format!(
                    "Argument `cursor`: `{cursor}` {why}. Pass the next_cursor of the previous \
                     page with the same arguments, or omit cursor to start from the first page."
                ),
            )
        })
}

/// The `next_cursor` after a page that ended at `end` of `total`.
fn next_cursor(ctx: &CallContext, scope: &str, end: usize, total: usize) -> Value {
    if end < total {
        ctx.engine
            .world
            .issue_cursor(&ctx.account.id, scope, end)
            .into()
    } else {
        Value::Null
    }
}

fn projects_list(ctx: &CallContext, args: ProjectsList) -> ToolOutput {
    let term = args.search_term.as_deref().map(str::to_lowercase);
    let scope = format!("projects:{}", term.as_deref().unwrap_or_default());
    let start = match page_start(ctx, args.cursor.as_deref(), None, &scope) {
        Ok(start) => start,
        Err(refused) => return refused,
    };
    let base = &ctx.engine.base_url;
    let matching: Vec<&crate::world::Project> = ctx
        .account
        .projects
        .iter()
        .filter(|p| {
            term.as_ref().is_none_or(|t| {
                t.split_whitespace().any(|word| {
                    p.name.to_lowercase().contains(word)
                        || p.description.to_lowercase().contains(word)
                })
            })
        })
        .collect();
    let end = (start + PROJECTS_PAGE).min(matching.len());
    let projects: Vec<Value> = matching
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .map(|p| {
            let mut item = serde_json::to_value(p).unwrap_or_default();
            item["project_url"] = format!("{base}/_mock/projects/{}", p.project_uuid).into();
            item
        })
        .collect();
    let next = next_cursor(ctx, &scope, end, matching.len());
    ToolOutput::ok(json!({"projects": projects, "next_cursor": next}))
}

fn create_attachment_upload(ctx: &CallContext, args: CreateAttachmentUpload) -> ToolOutput {
    let filename = args.filename.as_str();
    let mime_type = args.mime_type.as_str();
    let size = args.size_bytes.as_i64().unwrap_or(0);
    let size = match u64::try_from(size) {
        Ok(size) if size > 0 => size,
        _ => {
            return ToolOutput::server_error(
                None,
                "Argument `size_bytes` must be the file's size in bytes, greater than zero.",
            );
        }
    };
    if filename.contains('/') || filename.trim().is_empty() {
        return ToolOutput::server_error(
            None,
            "Argument `filename` must be a file name without slashes, such as `report.pdf`.",
        );
    }
    // Checked last, so a malformed request does not use up one of the plan's uploads.
    match ctx
        .engine
        .world
        .take_attachment(&ctx.account, size, ctx.engine.clock.now())
    {
        Ok(()) => {}
        Err(AttachmentRefusal::TooLarge { limit }) => {
            return ToolOutput::server_error(
                None,
                format!(
                    "The file is {size} bytes, over your plan's limit of {} MB per attachment.",
                    limit / (1024 * 1024)
                ),
            );
        }
        Err(AttachmentRefusal::LimitReached {
            window,
            limit,
            next_at,
        }) => {
            return ToolOutput::server_error(
                None,
                format!(
                    "Your plan allows {limit} attachments per {window}, and that limit is \
                     reached. You can attach another file after {}, or upgrade your plan.",
                    crate::clock::iso(next_at)
                ),
            );
        }
    }
    let base = &ctx.engine.base_url;
    let key = format!("uploads/{}/{}", uuid::Uuid::new_v4(), filename);
    let expires = ctx.engine.clock.now() + chrono::Duration::minutes(10);
    let policy = json!({
        "expiration": crate::clock::iso(expires),
        "conditions": [
            {"bucket": "mock-computer-uploads"},
            {"key": key},
            {"Content-Type": mime_type},
            ["content-length-range", 1, size],
        ],
    });
    let policy = base64(policy.to_string().as_bytes());
    let now = ctx.engine.clock.now();
    let fields: std::collections::BTreeMap<String, String> = [
        ("key", key.clone()),
        ("Content-Type", mime_type.to_owned()),
        ("policy", policy),
        ("x-amz-algorithm", "AWS4-HMAC-SHA256".to_owned()),
        (
            "x-amz-credential",
            format!(
                "MOCKACCESSKEY/{}/us-east-1/s3/aws4_request",
                now.format("%Y%m%d")
            ),
        ),
        ("x-amz-date", now.format("%Y%m%dT%H%M%SZ").to_string()),
        ("x-amz-signature", uuid::Uuid::new_v4().simple().to_string()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    ctx.engine
        .world
        .issue_upload(&ctx.account.id, fields.clone(), size, expires);
    ToolOutput::ok(json!({
        "attachment_url": format!("{base}/_mock/uploads/{key}"),
        "upload_url": format!("{base}/_mock/uploads"),
        "upload_fields": fields,
    }))
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
