//! What a thread is made of: its entries (one turn each: a user message and what Computer did),
//! where the request in progress is, what it waits on, and the files it produced.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::computer::model::results::TaskStatus;
use crate::fixtures::{FileSpec, QuestionSpec, Segment, SignInSpec, SourceSpec};
use crate::world::TaskSettings;

/// A step as `read_thread` and `tasks/get` list it.
#[derive(Debug, Clone)]
pub(crate) struct StepRecord {
    /// `step-<n>`.
    pub(crate) id: String,
    /// What Computer does.
    pub(crate) title: String,
    /// The step's kind.
    pub(crate) kind: String,
    /// `working`, `completed`, `failed`, `cancelled` or `input_required`.
    pub(crate) status: &'static str,
    /// When it started.
    pub(crate) started_at: DateTime<Utc>,
    /// When it ended.
    pub(crate) completed_at: Option<DateTime<Utc>>,
    /// The sources it found.
    pub(crate) sources: Vec<SourceSpec>,
    /// For a "waiting on you" step: the request it waits on, so it ends when that request does.
    pub(crate) request_id: Option<String>,
}

/// A file a turn produced; also a durable asset of the thread.
#[derive(Debug, Clone)]
pub(crate) struct Asset {
    /// `asset_<hex>`.
    pub(crate) asset_id: String,
    /// The turn that produced it.
    pub(crate) entry_id: String,
    /// The scripted file.
    pub(crate) spec: FileSpec,
    /// When it was produced.
    pub(crate) created_at: DateTime<Utc>,
    /// The first version it was edited from.
    pub(crate) root_asset_id: Option<String>,
    /// The version it was edited from.
    pub(crate) parent_asset_id: Option<String>,
}

/// Something the request waits on that a follow-up tool or a page resolves.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// The `followup_uuid` / `answer_submission_uuid` / sign-in request id.
    pub(crate) id: String,
    /// What it asks.
    pub(crate) kind: RequestKind,
    /// Whether it is still open, and how it ended.
    pub(crate) state: RequestState,
    /// For a sign-in: the user finished it on its page, so the account is connected; the
    /// request still waits until the client calls `notify_connected` (or, in a task or a URL
    /// elicitation, until the server sees the page finished).
    pub(crate) connected: bool,
}

/// What a request asks.
/// What a request asks.
#[derive(Debug, Clone)]
pub(crate) enum RequestKind {
    /// Questions, answered with `answer_question`.
    Question(Vec<QuestionSpec>),
    /// A confirmation of `action`; on approval Computer says `approved_text`, if any.
    Confirm {
        /// What Computer wants to do.
        action: String,
        /// What Computer says once approved.
        approved_text: Option<String>,
    },
    /// A connector sign-in.
    SignIn(SignInSpec),
}

/// Whether a request is open, and how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RequestState {
    Open,
    Answered,
    Denied,
    /// The user dismissed a sign-in: the task goes on without that connector.
    Dismissed,
    /// The user finished the sign-in on the page before telling Computer.
    CompletedOnPage,
}

/// What a request in `input_required` waits on.
#[derive(Debug, Clone)]
pub(crate) enum InputKind {
    /// Questions and confirmations.
    Prompts,
    /// Connector sign-ins.
    SignIns,
    /// A form that only Perplexity can show.
    Interaction { request_id: String, title: String },
    /// Two-factor authentication, done outside (or on its Perplexity page, `request_id`); a
    /// message continues.
    TwoFactor { request_id: String },
    /// Credits ran out; a message after a top-up continues.
    Credits,
}

/// Where the request in progress is.
#[derive(Debug, Clone)]
pub(crate) enum Phase {
    /// Executing `segment`; step `index` starts (or the outcome happens) at `at`.
    Running {
        segment: Segment,
        index: usize,
        at: DateTime<Utc>,
    },
    Sleeping {
        wake_at: DateTime<Utc>,
        then: Segment,
    },
    Input {
        kind: InputKind,
        requests: Vec<Request>,
        then: Segment,
        denied: Option<Segment>,
    },
    Waiting {
        then: Option<Segment>,
    },
    Completed {
        waiting_on_user: bool,
    },
    Failed,
    Cancelled,
}

/// Who wrote a transcript message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    User,
    Computer,
}

/// One turn: a user message and what Computer did with it.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The entry id (a UUID).
    pub(crate) id: String,
    /// Ties the entry to the call that sent its message (for queued messages).
    pub(crate) message_id: u64,
    /// When its message arrived.
    pub(crate) created_at: DateTime<Utc>,
    /// Its messages, in order.
    pub(crate) transcript: Vec<(Role, String)>,
    /// The steps its request took.
    pub(crate) steps: Vec<StepRecord>,
    /// Sources so far, one per URL.
    pub(crate) sources: Vec<SourceSpec>,
    /// Asset ids of the files it produced.
    pub(crate) files: Vec<String>,
    /// Sign-ins suggested without waiting on them.
    pub(crate) optional_auth: Vec<SignInSpec>,
    /// Where its request is.
    pub(crate) phase: Phase,
    /// Text of the latest outcome, the `text` of results.
    pub(crate) outcome_text: String,
    /// Requests this entry waited on earlier and no longer does (answered, denied, completed on
    /// the page, superseded), so a late answer can be told "already answered".
    pub(crate) past_requests: Vec<Request>,
    /// Pages (a Perplexity-only form, two-factor) the user finished while the request waits
    /// on them; a task then continues by itself, a tool client with its next message.
    pub(crate) pages_done: Vec<String>,
    /// Whether the step that is running has been recorded as started.
    pub(super) step_open: bool,
    /// Bumped on every change a waiting call could report.
    pub(crate) checkpoint: u64,
    /// The mode, model and effort the request ran with (`None` for scripted history).
    pub(crate) settings: Option<TaskSettings>,
}

impl Entry {
    /// The request's `task_status`.
    pub(crate) fn task_status(&self) -> TaskStatus {
        match &self.phase {
            Phase::Running { .. } | Phase::Sleeping { .. } | Phase::Waiting { .. } => {
                TaskStatus::Working
            }
            Phase::Input { .. } => TaskStatus::InputRequired,
            Phase::Completed { waiting_on_user } => {
                if *waiting_on_user {
                    TaskStatus::InputRequired
                } else {
                    TaskStatus::Completed
                }
            }
            Phase::Failed => TaskStatus::Failed,
            Phase::Cancelled => TaskStatus::Cancelled,
        }
    }

    /// Whether the request can still change without a new message.
    pub(crate) fn is_active(&self) -> bool {
        matches!(
            self.phase,
            Phase::Running { .. } | Phase::Sleeping { .. } | Phase::Input { .. }
        )
    }

    /// Open requests, in order.
    pub(crate) fn open_requests(&self) -> impl Iterator<Item = &Request> {
        let requests: &[Request] = match &self.phase {
            Phase::Input { requests, .. } => requests,
            _ => &[],
        };
        requests.iter().filter(|r| r.state == RequestState::Open)
    }
}

/// A message sent while Computer was busy; it runs when the current request stops.
#[derive(Debug, Clone)]
pub(crate) struct QueuedMessage {
    /// The message, as waits follow it.
    pub(crate) message_id: u64,
    /// Its text.
    pub(crate) text: String,
    /// Its attachment URLs.
    pub(crate) attachments: Vec<String>,
    /// When it arrived.
    pub(crate) queued_at: DateTime<Utc>,
}

/// A progress line for calls that follow the thread with a progress token.
#[derive(Debug, Clone)]
pub(crate) struct Activity {
    /// The message whose request made the progress.
    pub(crate) message_id: u64,
    /// The line.
    pub(crate) message: String,
}

impl Entry {
    /// An empty entry for message `message_id`, created at `at`.
    pub(super) fn blank(message_id: u64, at: DateTime<Utc>) -> Self {
        Self {
            id: Uuid::new_v4().to_string(),
            message_id,
            created_at: at,
            transcript: Vec::new(),
            steps: Vec::new(),
            sources: Vec::new(),
            files: Vec::new(),
            optional_auth: Vec::new(),
            phase: Phase::Completed {
                waiting_on_user: false,
            },
            outcome_text: String::new(),
            past_requests: Vec::new(),
            pages_done: Vec::new(),
            step_open: false,
            checkpoint: 0,
            settings: None,
        }
    }
}
