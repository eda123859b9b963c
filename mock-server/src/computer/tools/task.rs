//! The task tools: start or continue a task, answer what it waits on, cancel it. Each reads
//! its arguments and calls the service; how long a call waits comes with the call.

use serde_json::{Value, json};

use super::schema::{
    ACTIVE_THREAD, RETURNED_THREAD, annotations, attachment_urls, followup_uuid, input, parse,
    task_result_schema, thread_id,
};
use crate::computer::model::arguments::ThreadRef;
use crate::computer::model::content::Reply;
use crate::computer::service::{Service, Wait};
use crate::world::Account;

/// The task tools' `tools/list` entries.
pub(super) fn entries() -> Vec<Value> {
    vec![
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
                "thread_id": thread_id(ACTIVE_THREAD),
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
                "thread_id": thread_id(ACTIVE_THREAD),
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
                "thread_id": thread_id(ACTIVE_THREAD),
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
                "thread_id": thread_id(ACTIVE_THREAD),
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
            "inputSchema": input(json!({"thread_id": thread_id(RETURNED_THREAD)}), &["thread_id"]),
            "outputSchema": task_result_schema(),
            "annotations": annotations("Cancel task", false, true, true),
        }),
    ]
}

/// Runs task tool `name` with `args` (already checked against its schema).
pub(super) async fn call(
    service: &Service,
    account: &Account,
    name: &str,
    args: &Value,
    wait: Wait,
) -> Reply {
    match name {
        "call_perplexity_computer" => match parse(name, args) {
            Ok(a) => service.send(account, a, wait).await.reply,
            Err(refused) => refused,
        },
        "answer_question" => match parse(name, args) {
            Ok(a) => service.answer(account, a, wait).await,
            Err(refused) => refused,
        },
        "confirm_action_approve" | "confirm_action_deny" => match parse(name, args) {
            Ok(a) => {
                let approve = name == "confirm_action_approve";
                service.confirm(account, a, approve, wait).await
            }
            Err(refused) => refused,
        },
        "notify_connected" => match parse(name, args) {
            Ok(a) => service.connected(account, a, wait).await,
            Err(refused) => refused,
        },
        "cancel_task" => parse::<ThreadRef>(name, args)
            .map_or_else(|r| r, |a| service.cancel(account, &a.thread_id)),
        other => Reply::error(None, format!("Unknown tool `{other}`.")),
    }
}
