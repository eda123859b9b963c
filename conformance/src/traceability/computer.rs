//! The duties of "Perplexity Computer MCP Server", in document order.

use super::duty::Coverage::{Excluded, Rules};
use super::duty::Duty;
use crate::rules::ids::*;

const DOC: &str = "Perplexity Computer MCP Server";

const fn duty(
    id: &'static str,
    section: &'static str,
    quote: &'static str,
    coverage: super::duty::Coverage,
) -> Duty {
    Duty {
        id,
        document: DOC,
        section,
        quote,
        coverage,
    }
}

/// The Computer document's client duties.
pub(super) const DUTIES: &[Duty] = &[
    duty(
        "C01",
        "Conversation Threading",
        "your MCP client must pass the thread_id from the previous response. The first call creates a new thread and returns a thread_id.",
        Rules(&[COMPUTER_THREAD_REUSE]),
    ),
    duty(
        "C02",
        "Status and Progress Updates",
        "Use task_status for the current Computer status and event for the tool call outcome.",
        Rules(&[COMPUTER_STATUS_TASK_STATUS]),
    ),
    duty(
        "C03",
        "Status and Progress Updates",
        "Handle these checkpoints by calling the indicated follow-up tool with the same thread_id",
        Rules(&[
            COMPUTER_QUESTION_ANSWER,
            COMPUTER_CONFIRM_DECIDE,
            COMPUTER_AUTH_OPEN_THEN_NOTIFY,
            COMPUTER_WAITING_SAME_THREAD,
        ]),
    ),
    duty(
        "C04",
        "Status and Progress Updates (follow-up table)",
        "`ask_user_question` | Call `answer_question` with the user’s answer.",
        Rules(&[COMPUTER_QUESTION_ANSWER]),
    ),
    duty(
        "C05",
        "Status and Progress Updates (follow-up table)",
        "`confirm_action` | Call `confirm_action_approve` or `confirm_action_deny`.",
        Rules(&[COMPUTER_CONFIRM_DECIDE]),
    ),
    duty(
        "C06",
        "Status and Progress Updates (follow-up table)",
        "Open the OAuth URL, then call `notify_connected` with the event’s `connector`.",
        Rules(&[
            COMPUTER_AUTH_OPEN_THEN_NOTIFY,
            COMPUTER_AUTH_NOTIFY_AFTER_SIGN_IN,
        ]),
    ),
    duty(
        "C07",
        "Status and Progress Updates (follow-up table)",
        "`sleep` | Nothing. Computer resumes on its own at the scheduled time, shown in the result’s `wake_at`. Use `read_thread` to check on it",
        Rules(&[COMPUTER_SLEEP_NO_RESEND]),
    ),
    duty(
        "C08",
        "Status and Progress Updates (follow-up table)",
        "`waiting` | Call `call_perplexity_computer` with the same `thread_id` when you want to continue.",
        Rules(&[COMPUTER_WAITING_SAME_THREAD]),
    ),
    duty(
        "C09",
        "Status and Progress Updates",
        "Your client must include a progress token",
        Rules(&[COMPUTER_PROGRESS_TOKEN]),
    ),
    duty(
        "C10",
        "Status and Progress Updates",
        "and support progress notifications to display them.",
        Rules(&[COMPUTER_PROGRESS_SHOWN]),
    ),
    duty(
        "C11",
        "Status and Progress Updates",
        "Keep the thread_id and call read_thread with it to check the task’s status [...] Don’t call call_perplexity_computer again just to check status",
        Rules(&[COMPUTER_TIMEOUT_READ_THREAD]),
    ),
    duty(
        "C12",
        "MCP Tasks: Start a task",
        "Declare the extension in the capabilities attached to each request, including task methods.",
        Rules(&[TASKS_EXTENSION_EVERY_REQUEST]),
    ),
    duty(
        "C13",
        "MCP Tasks: Start a task",
        "If a request cannot start, such as an invalid argument or insufficient credits, the call can return a regular tool result instead.",
        Rules(&[TASKS_REGULAR_RESULT_SHOWN]),
    ),
    duty(
        "C14",
        "MCP Tasks: Start a task",
        "Save this value for tools that require thread_id, including cancel_task before completion. Do not parse the task ID or Stop URL to obtain it.",
        Rules(&[TASKS_THREAD_ID_FROM_META, TASKS_CANCEL_CANCEL_TASK]),
    ),
    duty(
        "C15",
        "MCP Tasks: Start a task",
        "Call tasks/get with params.taskId set to the returned taskId. [...] Save the exact task ID without parsing it.",
        Rules(&[TASKS_TASK_ID_EXACT]),
    ),
    duty(
        "C16",
        "MCP Tasks: Start a task",
        "Wait for the returned pollIntervalMs between polls.",
        Rules(&[TASKS_POLL_FAR_TOO_EARLY, TASKS_POLL_INTERVAL]),
    ),
    duty(
        "C17",
        "MCP Tasks: Start a task",
        "After a disconnect, authenticate again and continue polling the same ID. A disconnect does not stop Computer.",
        Rules(&[TASKS_DISCONNECT_POLL_SAME_ID, COMPUTER_DISCONNECT_NO_RESEND]),
    ),
    duty(
        "C18",
        "MCP Tasks: Start a task",
        "tasks/get returns resultType: \"complete\" because the polling request has finished. Use its status field to determine whether Computer has finished.",
        Rules(&[TASKS_STATUS_FINAL_AFTER_TERMINAL]),
    ),
    duty(
        "C19",
        "MCP Tasks: Start a task",
        "When status is completed, the same response includes the final tool result in result. There is no separate tasks/result call.",
        Rules(&[TASKS_NO_RESULT_OR_LIST]),
    ),
    duty(
        "C20",
        "MCP Tasks: Task status",
        "If Computer failed, `result.isError` is `true` and `result.structuredContent.error_code` is `computer_error`.",
        Rules(&[COMPUTER_ERROR_SHOWN]),
    ),
    duty(
        "C21",
        "MCP Tasks: Answer questions and approvals",
        "Use each request’s params.mode to choose between a form and a URL. For forms, build the fields from params.requestedSchema.",
        Rules(&[
            TASKS_UPDATE_INPUT_RESPONSES,
            ELICITATION_MODES_DECLARED,
            ELICITATION_CONTENT_SCHEMA,
        ]),
    ),
    duty(
        "C22",
        "MCP Tasks: Answer questions and approvals",
        "Answer with tasks/update, using the exact keys from inputRequests",
        Rules(&[TASKS_UPDATE_INPUT_RESPONSES]),
    ),
    duty(
        "C23",
        "MCP Tasks: Answer questions and approvals",
        "Approvals | Form with no fields | `accept` approves. `decline` denies.",
        Rules(&[COMPUTER_APPROVAL_USER_DECISION]),
    ),
    duty(
        "C24",
        "MCP Tasks: Answer questions and approvals",
        "Sign-ins | URL | Open the URL. The user signs in on that page and the task continues.",
        Rules(&[TASKS_URL_OPEN]),
    ),
    duty(
        "C25",
        "MCP Tasks: Answer questions and approvals",
        "Credentials, payments, file inputs, richer forms, or credits | URL | Open the URL and complete the required action in Perplexity.",
        Rules(&[TASKS_URL_OPEN]),
    ),
    duty(
        "C26",
        "MCP Tasks: Answer questions and approvals",
        "tasks/update returns an acknowledgement, not the final answer. Continue polling the same task ID after an update.",
        Rules(&[TASKS_POLL_AFTER_ACK]),
    ),
    duty(
        "C27",
        "MCP Tasks: Cancel a task",
        "To stop Computer, open that URL and select Stop, or call cancel_task with thread_id set to _meta[\"ai.perplexity/threadId\"].",
        Rules(&[TASKS_CANCEL_CANCEL_TASK]),
    ),
    duty(
        "C28",
        "MCP Tasks: Cancel a task",
        "Continue polling to confirm that the current task reports cancelled.",
        Rules(&[TASKS_POLL_AFTER_ACK]),
    ),
    duty(
        "C29",
        "File Uploads",
        "request a presigned S3 envelope with create_attachment_upload, upload the bytes directly to S3, and pass the returned URL in attachment_urls",
        Rules(&[COMPUTER_UPLOAD_ENVELOPE, COMPUTER_UPLOAD_ATTACHMENT_URL]),
    ),
    duty(
        "C30",
        "File Uploads (Step 2)",
        "Send an unauthenticated multipart/form-data POST to upload_url. Include every key from upload_fields as a form field, then add the file under a file part.",
        Rules(&[COMPUTER_UPLOAD_ENVELOPE]),
    ),
    duty(
        "C31",
        "create_attachment_upload",
        "File size in bytes. Must not exceed your plan’s limit (200 MB on paid plans, 25 MB on Free).",
        Rules(&[COMPUTER_UPLOAD_SIZE_BYTES]),
    ),
    duty(
        "C32",
        "File Uploads",
        "When a limit is reached, create_attachment_upload returns an error.",
        Rules(&[COMPUTER_UPLOAD_REFUSAL_SHOWN]),
    ),
    duty(
        "C33",
        "Choosing a Mode or Model",
        "Use values returned by models_list. Values that aren’t available to your account are rejected.",
        Rules(&[COMPUTER_SETTINGS_LISTED]),
    ),
    duty(
        "C34",
        "Choosing a Mode or Model",
        "mode and model can’t be used together. effort requires model.",
        Rules(&[COMPUTER_SETTINGS_MODE_OR_MODEL]),
    ),
    duty(
        "C35",
        "Choosing a Mode or Model",
        "On a follow-up with a thread_id, passing mode or model switches the thread [...] If you leave them out, the thread keeps its current settings.",
        Rules(&[COMPUTER_SETTINGS_MODE_OR_MODEL]),
    ),
    duty(
        "C36",
        "call_perplexity_computer",
        "Only for new conversations; can’t be combined with `thread_id`. [...] `project_visibility` [...] Requires `project_uuid`.",
        Rules(&[COMPUTER_PROJECT_NEW_CONVERSATION]),
    ),
    duty(
        "C37",
        "call_perplexity_computer",
        "If the result also had files or sources, the call returns right after your answer with task_status: \"working\" and those files. Use read_thread",
        Rules(&[ELICITATION_WORKING_READ_THREAD]),
    ),
    duty(
        "C38",
        "call_perplexity_computer",
        "If your client doesn’t show the form, or you decline a question or cancel a form, the call returns the event. Use the following tools",
        Rules(&[ELICITATION_DECLINED_FOLLOW_UP_TOOLS]),
    ),
    duty(
        "C39",
        "call_perplexity_computer",
        "Declining a confirmation form denies the action, so you don’t need to call confirm_action_deny.",
        Rules(&[COMPUTER_APPROVAL_USER_DECISION]),
    ),
    duty(
        "C40",
        "answer_question",
        "The `followup_uuid` from the event’s `interactive` object [...] Pass it when present so the answer reaches the right question.",
        Rules(&[COMPUTER_QUESTION_ANSWER, COMPUTER_CONFIRM_DECIDE]),
    ),
    duty(
        "C41",
        "answer_question",
        "or `request.answer_submission_uuid` from a `read_thread` form.",
        Rules(&[COMPUTER_READ_THREAD_ANSWER_FORM]),
    ),
    duty(
        "C42",
        "notify_connected",
        "The display name also works. Pass it when more than one sign-in is waiting.",
        Rules(&[COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL]),
    ),
    duty(
        "C43",
        "notify_connected",
        "If the task is waiting on other input, such as another sign-in, the call returns task_status: \"input_required\" instead; use read_thread to see what it needs.",
        Rules(&[COMPUTER_AUTH_INPUT_REQUIRED_READ_THREAD]),
    ),
    duty(
        "C44",
        "notify_connected",
        "If you pass a connector that isn’t waiting while others are, the call fails and lists the ones that are.",
        Excluded(
            "a correct client only names connectors the server asked for, so this failure never reaches it; what it then does is not a documented duty",
        ),
    ),
    duty(
        "C45",
        "cancel_task",
        "If the cancel request itself fails, the call returns an error without task_status, because the task may still be running.",
        Rules(&[COMPUTER_CANCEL_CONFIRM]),
    ),
    duty(
        "C46",
        "cancel_task",
        "Confirm cancellation with read_thread or tasks/get, and retry if the task remains active.",
        Rules(&[COMPUTER_CANCEL_CONFIRM]),
    ),
    duty(
        "C47",
        "read_thread",
        "`web_state_error` | string | Present when `web_state` couldn’t be loaded. Retry `read_thread`.",
        Rules(&[COMPUTER_READ_THREAD_RETRY_STATE_ERROR]),
    ),
    duty(
        "C48",
        "read_thread",
        "idle or an empty interaction list doesn’t prove a task is finished; use web_state.task_status instead.",
        Rules(&[COMPUTER_STATUS_TASK_STATUS]),
    ),
    duty(
        "C49",
        "read_thread",
        "Check for background or scheduled work before treating a thread as complete.",
        Rules(&[COMPUTER_STATUS_TASK_STATUS, COMPUTER_SLEEP_NO_RESEND]),
    ),
    duty(
        "C50",
        "list_thread_assets",
        "Keep paging while next_cursor is not null, even when a filtered page is empty.",
        Rules(&[COMPUTER_PAGING_NEXT_CURSOR]),
    ),
    duty(
        "C51",
        "create_asset_download",
        "Call create_asset_download again whenever you need a new URL.",
        Rules(&[COMPUTER_ASSETS_REFRESH_DOWNLOAD]),
    ),
    duty(
        "C52",
        "projects_list",
        "Keep paging while next_cursor is not null before concluding a Project doesn’t exist.",
        Rules(&[COMPUTER_PROJECTS_PAGE_ON]),
    ),
    duty(
        "C53",
        "Response Format",
        "The task isn’t waiting on these, so don’t call `notify_connected` for them.",
        Rules(&[COMPUTER_AUTH_OPTIONAL_IGNORED]),
    ),
    duty(
        "C54",
        "Response Format",
        "`pending_interactions` | object[] | Present when more than one question or confirmation is waiting. Each item has the same shape as `interactive`.",
        Rules(&[COMPUTER_PENDING_EACH]),
    ),
    duty(
        "C55",
        "Interactive objects for account events",
        "If that check fails, nothing is sent and the result has no thread_id or task_status. Send the message again after topping up",
        Rules(&[COMPUTER_CREDITS_BEFORE_SEND]),
    ),
    duty(
        "C56",
        "Interactive objects for account events",
        "During a task: the thread keeps its state and task_status is input_required. After topping up, continue with the same thread_id.",
        Rules(&[COMPUTER_CREDITS_DURING_TASK]),
    ),
    duty(
        "C57",
        "Interactive objects for account events",
        "billing_url is present only when topping up or changing a limit would help; it’s left out for reasons like a temporary service outage.",
        Rules(&[COMPUTER_CREDITS_NO_BILLING_URL]),
    ),
    duty(
        "C58",
        "Interactive objects for account events",
        "When the reason is quota_exhausted, interactive also includes quota_reset_date, the UTC time when the quota comes back",
        Rules(&[COMPUTER_CREDITS_QUOTA_RESET]),
    ),
    duty(
        "C59",
        "Events",
        "`error` | Task failed. | Review the error message.",
        Rules(&[COMPUTER_ERROR_SHOWN]),
    ),
    duty(
        "C60",
        "Events",
        "Open the `url` in `interactive`, complete it there, then continue the thread.",
        Rules(&[COMPUTER_INTERACTION_OPEN_URL]),
    ),
    duty(
        "C61",
        "Events",
        "A connector or site requires two-factor authentication. | Follow the instructions in `text`, then continue with the same `thread_id`.",
        Rules(&[
            COMPUTER_TWO_FACTOR_INSTRUCTIONS_SHOWN,
            COMPUTER_THREAD_REUSE,
        ]),
    ),
    duty(
        "C62",
        "Events",
        "`access_denied` | Computer is unavailable for the account. | If you belong to an organization, ask its administrator to enable Computer access.",
        Rules(&[COMPUTER_ACCESS_DENIED_SHOWN]),
    ),
    duty(
        "C63",
        "Events",
        "`cancelled` | Task was cancelled before completion, for example with `cancel_task`. | Start a new task or continue the thread with new instructions.",
        Excluded(
            "both next steps are the user's choice and any later message is one of them; no client behaviour departs from it",
        ),
    ),
];
