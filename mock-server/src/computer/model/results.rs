//! What the task tools answer, exactly as "Response Format" documents them: the result of a
//! request that reached a checkpoint (or stopped waiting for one), the refusals made before a
//! message is sent, and the objects they carry (`interactive`, sources, files).
//!
//! Field order is the wire order, and optional fields appear exactly when the document says.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tools::ToolName;
use crate::world::TaskSettings;

/// Computer's status for a request, as `task_status` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Computer is working (or asleep, or waiting on something outside).
    Working,
    /// Computer waits on the user.
    InputRequired,
    /// The request ended with a result.
    Completed,
    /// The request ended with an error.
    Failed,
    /// The request was stopped.
    Cancelled,
}

impl TaskStatus {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// A result's `event`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The call stopped waiting; Computer did not.
    Timeout,
    /// Computer sleeps until `wake_at`.
    Sleep,
    /// Computer waits on something outside the conversation.
    Waiting,
    /// The request finished (or an acknowledgement).
    Complete,
    /// The request failed, or the call was refused.
    Error,
    /// The request was cancelled.
    Cancelled,
    /// A confirmation waits.
    ConfirmAction,
    /// A question waits.
    AskUserQuestion,
    /// A sign-in waits.
    AuthRequired,
    /// A form only Perplexity can show waits.
    InteractionRequired,
    /// Two-factor authentication waits.
    TwoFactorRequired,
    /// Credits ran out (during a task, or before a message was sent).
    InsufficientCredits,
    /// Computer is not available to the account.
    AccessDenied,
    /// `read_thread`'s answer.
    Transcript,
    /// A task's message waits behind the request in progress (tasks only, never sent).
    Queued,
}

impl Event {
    /// Every event, in the order above.
    pub const ALL: [Self; 15] = [
        Self::Timeout,
        Self::Sleep,
        Self::Waiting,
        Self::Complete,
        Self::Error,
        Self::Cancelled,
        Self::ConfirmAction,
        Self::AskUserQuestion,
        Self::AuthRequired,
        Self::InteractionRequired,
        Self::TwoFactorRequired,
        Self::InsufficientCredits,
        Self::AccessDenied,
        Self::Transcript,
        Self::Queued,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::Sleep => "sleep",
            Self::Waiting => "waiting",
            Self::Complete => "complete",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
            Self::ConfirmAction => "confirm_action",
            Self::AskUserQuestion => "ask_user_question",
            Self::AuthRequired => "auth_required",
            Self::InteractionRequired => "interaction_required",
            Self::TwoFactorRequired => "two_factor_required",
            Self::InsufficientCredits => "insufficient_credits",
            Self::AccessDenied => "access_denied",
            Self::Transcript => "transcript",
            Self::Queued => "queued",
        }
    }
}

/// A source Computer used.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Source {
    /// Page title, when known.
    pub title: Option<String>,
    /// Page URL.
    pub url: String,
    /// Its host, without `www.`.
    pub domain: String,
    /// An excerpt, when known.
    pub snippet: Option<String>,
}

/// A file a result offers, with a fresh download URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct File {
    /// File name.
    pub filename: String,
    /// Content type, when known.
    pub media_type: Option<String>,
    /// Size in bytes, when known.
    pub size_bytes: Option<u64>,
    /// Download URL.
    pub url: String,
}

/// A question or confirmation a follow-up tool answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Prompt {
    /// The thread.
    pub thread_id: String,
    /// `answer_question` or `confirm_action_approve`.
    pub respond_with_tool: ToolName,
    /// The id the answer names.
    pub followup_uuid: String,
}

/// A connector sign-in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SignIn {
    /// The thread.
    pub thread_id: String,
    /// The page the user signs in on.
    pub auth_url: String,
    /// Connector id (`slack`).
    pub connector: String,
    /// Connector name (`Slack`).
    pub display_name: String,
    /// A short title.
    pub title: String,
    /// What the sign-in is for.
    pub description: String,
    /// Whether the task waits on it.
    pub requires_user_response: bool,
    /// The tool to call once signed in (only on `interactive`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub respond_with_tool: Option<ToolName>,
}

/// The `interactive` object of a result (and the items of `pending_interactions`,
/// `optional_auth_requests` and `read_thread`'s `auth_requests`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Interactive {
    /// A question.
    AskUserQuestion(Prompt),
    /// A confirmation.
    ConfirmAction(Prompt),
    /// A sign-in.
    AuthRequired(SignIn),
    /// A form only Perplexity can show.
    InteractionRequired {
        /// The thread.
        thread_id: String,
        /// The form's page.
        url: String,
        /// Its title.
        title: String,
    },
    /// Two-factor authentication, done outside.
    TwoFactorRequired {
        /// The thread.
        thread_id: String,
    },
    /// No credits (or no quota) left.
    InsufficientCredits {
        /// `insufficient_credits` or `quota_exhausted`.
        reason: &'static str,
        /// Where to top up; left out when topping up would not help ("left out for reasons
        /// like a temporary service outage").
        #[serde(skip_serializing_if = "Option::is_none")]
        billing_url: Option<String>,
        /// When the quota resets (quota refusals only).
        #[serde(skip_serializing_if = "Option::is_none")]
        quota_reset_date: Option<String>,
    },
    /// Computer is not available to the account.
    AccessDenied {
        /// Always `access_denied`.
        reason: &'static str,
    },
}

/// Something the request waits on that a client can be asked for (by elicitation or a task's
/// `inputRequests`). Not on the wire itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Awaiting {
    /// The request's id (`followup_uuid`, sign-in id, form id, or `credits-<entry>`).
    pub(crate) request_id: String,
    /// What it is.
    pub(crate) kind: AwaitingKind,
}

/// What a request waits on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AwaitingKind {
    /// Questions, as one flat form.
    Questions {
        /// The form's JSON Schema.
        schema: Value,
        /// The questions, one per line.
        message: String,
        /// Whether one form can ask them (no question allows several choices or attachments).
        fits_a_form: bool,
    },
    /// A confirmation of `action`.
    Confirm {
        /// What Computer wants to do.
        action: String,
    },
    /// A connector sign-in the user finishes on `url`.
    SignIn {
        /// The connector's name.
        display_name: String,
        /// The sign-in page.
        url: String,
    },
    /// A form only Perplexity can show.
    Form {
        /// Its title.
        title: String,
        /// Its page.
        url: String,
    },
    /// Two-factor authentication, finished on a Perplexity page.
    TwoFactor {
        /// The page.
        url: String,
    },
    /// A top-up on the billing page.
    Credits {
        /// The billing page.
        url: String,
    },
}

impl AwaitingKind {
    /// Whether the user finishes it on a page that a message then continues from (a form only
    /// Perplexity shows, a top-up), rather than answering it with a tool.
    pub(crate) fn is_page(&self) -> bool {
        matches!(
            self,
            Self::Form { .. } | Self::TwoFactor { .. } | Self::Credits { .. }
        )
    }
}

/// The result of a request that reached a checkpoint, or of a call that stopped waiting for one:
/// the body of every task tool's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Checkpoint {
    /// The thread.
    pub thread_id: String,
    /// What happened.
    pub event: Event,
    /// What Computer says.
    pub text: String,
    /// The request's status.
    pub task_status: TaskStatus,
    /// `computer_error` when the request failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<&'static str>,
    /// Sources so far.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
    /// Files the request produced.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<File>,
    /// When a sleeping request wakes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wake_at: Option<String>,
    /// What the request waits on first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interactive: Option<Interactive>,
    /// Every open question and confirmation, when more than one is open.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pending_interactions: Vec<Interactive>,
    /// Sign-ins Computer suggests without waiting on them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub optional_auth_requests: Vec<Interactive>,
    /// The MCP `isError` flag.
    #[serde(skip)]
    pub is_error: bool,
    /// The mode, model and effort the request ran with (sent in `_meta`).
    #[serde(skip)]
    pub(crate) settings: Option<TaskSettings>,
    /// What the request waits on, in order (open prompts and sign-ins, then a page).
    #[serde(skip)]
    pub(crate) awaiting: Vec<Awaiting>,
}

impl Checkpoint {
    /// A result with only the four fields every task result has.
    pub fn bare(
        thread_id: impl Into<String>,
        event: Event,
        text: impl Into<String>,
        task_status: TaskStatus,
    ) -> Self {
        Self {
            thread_id: thread_id.into(),
            event,
            text: text.into(),
            task_status,
            error_code: None,
            sources: Vec::new(),
            files: Vec::new(),
            wake_at: None,
            interactive: None,
            pending_interactions: Vec::new(),
            optional_auth_requests: Vec::new(),
            is_error: false,
            settings: None,
            awaiting: Vec::new(),
        }
    }
}

/// `notify_connected`'s acknowledgement when no message was sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Ack {
    /// The thread.
    pub thread_id: String,
    /// Always `complete`.
    pub event: Event,
    /// The request's status.
    pub task_status: TaskStatus,
    /// What was recorded.
    pub text: String,
}

/// A tool error from the MCP server itself: no `error_code`, no `task_status`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ToolError {
    /// The thread, when the call named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// Always `error`.
    pub event: Event,
    /// What went wrong and what to do.
    pub text: String,
}

impl ToolError {
    /// An error about `thread_id` (if any) saying `text`.
    pub(crate) fn new(thread_id: Option<&str>, text: impl Into<String>) -> Self {
        Self {
            thread_id: thread_id.map(str::to_owned),
            event: Event::Error,
            text: text.into(),
        }
    }
}

/// The refusal of an account Computer is not available to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AccessDenied {
    /// The thread, when the call named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// Always `access_denied`.
    pub event: Event,
    /// What to do.
    pub text: String,
    /// Always `failed`.
    pub task_status: TaskStatus,
    /// Always `access_denied`.
    pub error_code: &'static str,
    /// The account event.
    pub interactive: Interactive,
}

/// The refusal of a message that was not sent for lack of credits or quota: no `thread_id`, no
/// `task_status` and, as documented, no `structuredContent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct NotSent {
    /// Always `insufficient_credits`.
    pub event: Event,
    /// What happened and what to do.
    pub text: String,
    /// The account event.
    pub interactive: Interactive,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_bare_checkpoint_has_exactly_the_four_fields_in_order() {
        let checkpoint =
            Checkpoint::bare("t", Event::Timeout, "Still working.", TaskStatus::Working);
        assert_eq!(
            serde_json::to_string(&checkpoint).ok().as_deref(),
            Some(
                r#"{"thread_id":"t","event":"timeout","text":"Still working.","task_status":"working"}"#
            )
        );
    }

    #[test]
    fn events_and_statuses_name_themselves_as_they_are_written() {
        for event in Event::ALL {
            assert_eq!(
                serde_json::to_value(event).ok(),
                Some(json!(event.as_str()))
            );
        }
        let status = TaskStatus::InputRequired;
        assert_eq!(
            serde_json::to_value(status).ok(),
            Some(json!(status.as_str()))
        );
    }

    #[test]
    fn interactive_objects_lead_with_their_type() {
        let prompt = Interactive::ConfirmAction(Prompt {
            thread_id: "t".into(),
            respond_with_tool: ToolName::ConfirmActionApprove,
            followup_uuid: "f".into(),
        });
        assert_eq!(
            serde_json::to_string(&prompt).ok().as_deref(),
            Some(
                r#"{"type":"confirm_action","thread_id":"t","respond_with_tool":"confirm_action_approve","followup_uuid":"f"}"#
            )
        );
        let credits = Interactive::InsufficientCredits {
            reason: "insufficient_credits",
            billing_url: Some("b".into()),
            quota_reset_date: None,
        };
        assert_eq!(
            serde_json::to_value(&credits).ok(),
            Some(
                json!({"type": "insufficient_credits", "reason": "insufficient_credits", "billing_url": "b"})
            )
        );
        let outage = Interactive::InsufficientCredits {
            reason: "insufficient_credits",
            billing_url: None,
            quota_reset_date: None,
        };
        assert_eq!(
            serde_json::to_value(&outage).ok(),
            Some(json!({"type": "insufficient_credits", "reason": "insufficient_credits"}))
        );
    }
}
