//! The task tools: start or continue a task, answer what it waits on, cancel it.

use super::schema::{
    ACTIVE_THREAD, ATTACHMENT_URLS, FOLLOWUP_UUID, RETURNED_THREAD, STRING, TASK_RESULT, thread_id,
};
use crate::computer::model::tools::{
    JsonType, ObjectSchema, Schema, Tool, ToolAnnotations, ToolName,
};

/// `call_perplexity_computer`. It declares no `outputSchema`: it can answer the out-of-credits
/// result, which has no `structuredContent`.
pub(super) const CALL_PERPLEXITY_COMPUTER: Tool = Tool {
    name: ToolName::CallPerplexityComputer,
    title: "Call Perplexity Computer",
    description: "Send a message to Perplexity Computer to start or continue any task. This is \
        the primary tool you'll use for all interactions. Best for: Starting new tasks, sending \
        follow-up instructions, and resuming paused conversations. Returns thread_id: reuse it \
        on follow-ups. If the result is `timeout`, Computer is still working: call read_thread \
        with the thread_id instead of calling this tool again.",
    input_schema: ObjectSchema::input(
        &[
            (
                "message",
                STRING.description("The task description or follow-up message."),
            ),
            (
                "thread_id",
                thread_id(
                    "Thread ID to continue an existing conversation. Omit to start a new one.",
                ),
            ),
            ("attachment_urls", ATTACHMENT_URLS),
            (
                "project_uuid",
                STRING.description(
                    "Start the new conversation inside this Project. Get it from \
                     `projects_list`. Only for new conversations; can't be combined with \
                     `thread_id`.",
                ),
            ),
            (
                "project_visibility",
                STRING
                    .choices(&["private", "project"])
                    .description("`private` (default) or `project`. Requires `project_uuid`."),
            ),
            (
                "mode",
                STRING
                    .choices(&["light", "standard", "high", "ultra"])
                    .description("Can't be combined with `model`."),
            ),
            (
                "model",
                STRING
                    .description("A model `id` from `models_list`. Can't be combined with `mode`."),
            ),
            (
                "effort",
                STRING
                    .choices(&["none", "minimal", "low", "medium", "high", "xhigh", "max"])
                    .description("Requires `model`, and must be one of that model's `efforts`."),
            ),
        ],
        &[],
    ),
    output_schema: None,
    annotations: ToolAnnotations::new("Call Perplexity Computer", false, true, false),
};

/// `answer_question`.
pub(super) const ANSWER_QUESTION: Tool = Tool {
    name: ToolName::AnswerQuestion,
    title: "Answer question",
    description: "Relays answers when Computer returns an ask_user_question event.",
    input_schema: ObjectSchema::input(
        &[
            ("thread_id", ACTIVE_THREAD),
            (
                "answers",
                Schema::described(
                    JsonType::Object,
                    "Key-value pairs mapping each question to your answer.",
                ),
            ),
            ("attachment_urls", ATTACHMENT_URLS),
            ("followup_uuid", FOLLOWUP_UUID),
        ],
        &["thread_id", "answers"],
    ),
    output_schema: Some(TASK_RESULT),
    annotations: ToolAnnotations::new("Answer question", false, false, false),
};

/// `confirm_action_approve`.
pub(super) const CONFIRM_ACTION_APPROVE: Tool = Tool {
    name: ToolName::ConfirmActionApprove,
    title: "Approve action",
    description: "Approves a pending action from a confirm_action event.",
    input_schema: ObjectSchema::input(
        &[
            ("thread_id", ACTIVE_THREAD),
            (
                "result",
                STRING.description("Reason or message for the approval."),
            ),
            ("attachment_urls", ATTACHMENT_URLS),
            ("followup_uuid", FOLLOWUP_UUID),
        ],
        &["thread_id", "result"],
    ),
    output_schema: Some(TASK_RESULT),
    annotations: ToolAnnotations::new("Approve action", false, true, false),
};

/// `confirm_action_deny`.
pub(super) const CONFIRM_ACTION_DENY: Tool = Tool {
    name: ToolName::ConfirmActionDeny,
    title: "Deny action",
    description: "Denies a pending action from a confirm_action event.",
    input_schema: ObjectSchema::input(
        &[
            ("thread_id", ACTIVE_THREAD),
            (
                "result",
                STRING.description("Reason for denying the action."),
            ),
            ("attachment_urls", ATTACHMENT_URLS),
            ("followup_uuid", FOLLOWUP_UUID),
        ],
        &["thread_id", "result"],
    ),
    output_schema: Some(TASK_RESULT),
    annotations: ToolAnnotations::new("Deny action", false, false, false),
};

/// `notify_connected`. Like `call_perplexity_computer`, it declares no `outputSchema`: the
/// message it sends can be refused for credits.
pub(super) const NOTIFY_CONNECTED: Tool = Tool {
    name: ToolName::NotifyConnected,
    title: "Notify connected",
    description: "Tells Computer you finished signing in after an auth_required event.",
    input_schema: ObjectSchema::input(
        &[
            ("thread_id", ACTIVE_THREAD),
            (
                "message",
                STRING.description(
                    "Message about the completed connection. Only sent when the call sends a \
                     new message.",
                ),
            ),
            (
                "connector",
                STRING.description(
                    "The `connector` from the `auth_required` event, for example `slack`. The \
                     display name also works. Pass it when more than one sign-in is waiting.",
                ),
            ),
            ("attachment_urls", ATTACHMENT_URLS),
        ],
        &["thread_id", "message"],
    ),
    output_schema: None,
    annotations: ToolAnnotations::new("Notify connected", false, false, false),
};

/// `cancel_task`.
pub(super) const CANCEL_TASK: Tool = Tool {
    name: ToolName::CancelTask,
    title: "Cancel task",
    description: "Requests cancellation of the current work in a Computer thread, including \
        work paused for a question or approval.",
    input_schema: ObjectSchema::input(&[("thread_id", RETURNED_THREAD)], &["thread_id"]),
    output_schema: Some(TASK_RESULT),
    annotations: ToolAnnotations::new("Cancel task", false, true, true),
};
