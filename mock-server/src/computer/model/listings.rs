//! What the reading tools answer: `read_thread`'s transcript and state, the steps a request took,
//! thread assets and their downloads, Projects, and the upload envelope.

use std::collections::BTreeMap;

use serde::Serialize;

use super::results::{Event, Interactive, Prompt, TaskStatus};
use crate::world::{Project, TaskSettings};

/// `read_thread`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Transcript {
    /// The thread.
    pub(crate) thread_id: String,
    /// Always `transcript`.
    pub(crate) event: Event,
    /// `queued`, `running` or `idle`.
    pub(crate) status: &'static str,
    /// The messages in order, as Markdown.
    pub(crate) text: String,
    /// Set when older messages were left out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) truncated: bool,
    /// The thread's state (`null` when it could not be loaded).
    pub(crate) web_state: Option<WebState>,
    /// Why the state is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) web_state_error: Option<String>,
    /// The mode, model and effort the thread runs with (sent in `_meta`).
    #[serde(skip)]
    pub(crate) settings: Option<TaskSettings>,
}

/// A thread's state, as `read_thread` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct WebState {
    /// `queued`, `running` or `idle`.
    pub(crate) thread_status: &'static str,
    /// When a sleeping request wakes.
    pub(crate) wake_at: Option<String>,
    /// The latest request's status.
    pub(crate) task_status: Option<TaskStatus>,
    /// The latest entries, oldest first.
    pub(crate) entries: Vec<EntryState>,
}

/// One entry (turn) of a thread's state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct EntryState {
    /// The entry.
    pub(crate) entry_id: String,
    /// When it started.
    pub(crate) created_at: String,
    /// Its request's status.
    pub(crate) status: TaskStatus,
    /// Open questions and confirmations, then the workflow marker of an ended request.
    pub(crate) interactions: Vec<Interaction>,
    /// Open sign-ins.
    pub(crate) auth_requests: Vec<Interactive>,
    /// Pages the user finishes things on (a Perplexity form, billing).
    pub(crate) form_links: Vec<FormLink>,
    /// The latest entry's steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) steps: Option<Vec<Step>>,
}

/// An item of an entry's `interactions`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Interaction {
    /// An open question.
    AskUserQuestion(OpenPrompt),
    /// An open confirmation.
    ConfirmAction(OpenPrompt),
    /// How the request ended.
    Workflow {
        /// `WORKFLOW_COMPLETED`, `WORKFLOW_ERROR` or `WORKFLOW_CANCELED`.
        status: &'static str,
    },
}

/// An open question or confirmation with the form that answers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct OpenPrompt {
    /// Who answers it and how.
    #[serde(flatten)]
    pub(crate) prompt: Prompt,
    /// Always `WAITING_FOR_USER`.
    pub(crate) status: &'static str,
    /// The form.
    pub(crate) request: PromptRequest,
}

/// The form of an open prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum PromptRequest {
    /// Questions.
    Questions {
        /// The id the answer names.
        answer_submission_uuid: String,
        /// The questions.
        questions: Vec<Question>,
    },
    /// A confirmation.
    Confirm {
        /// The id the answer names.
        answer_submission_uuid: String,
        /// What Computer wants to do.
        action: String,
    },
}

/// One question of a form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Question {
    /// Its id (the key of `answers`).
    pub(crate) id: String,
    /// The question.
    pub(crate) question: String,
    /// The choices, if it offers some.
    pub(crate) options: Vec<String>,
    /// Whether several choices may be picked.
    pub(crate) allow_multiple: bool,
    /// Whether files may be attached.
    pub(crate) allow_attachments: bool,
}

/// A page the user finishes something on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FormLink {
    /// The page.
    pub(crate) url: String,
    /// What it is.
    pub(crate) title: String,
}

/// A step of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Step {
    /// Its id.
    pub(crate) id: String,
    /// What Computer does.
    pub(crate) title: String,
    /// Its kind.
    #[serde(rename = "type")]
    pub(crate) kind: String,
    /// `working`, `completed`, `failed`, `cancelled` or `input_required`.
    pub(crate) status: &'static str,
    /// When it started.
    pub(crate) started_at: String,
    /// When it ended.
    pub(crate) completed_at: Option<String>,
    /// Up to five of its sources.
    pub(crate) sources: Vec<StepSource>,
}

/// A source of a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct StepSource {
    /// Page URL.
    pub(crate) url: String,
    /// Page title, when known.
    pub(crate) title: Option<String>,
}

/// `list_thread_assets`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AssetPage {
    /// This page's assets.
    pub(crate) assets: Vec<AssetItem>,
    /// The cursor of the next page, `null` on the last one.
    pub(crate) next_cursor: Option<String>,
}

/// One durable asset of a thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AssetItem {
    /// Its id.
    pub(crate) asset_id: String,
    /// The turn that produced it.
    pub(crate) entry_id: String,
    /// File name.
    pub(crate) filename: String,
    /// Content type, when known.
    pub(crate) mime_type: Option<String>,
    /// Size in bytes, when known.
    pub(crate) size_bytes: Option<u64>,
    /// `file` or `app` (a published website).
    pub(crate) asset_type: &'static str,
    /// Creation time, in Unix seconds.
    pub(crate) created_at: i64,
    /// Whether it is the main output; `None` when the source turn is unavailable.
    pub(crate) is_primary_asset: Option<bool>,
    /// The first version it was edited from.
    pub(crate) root_asset_id: Option<String>,
    /// The version it was edited from.
    pub(crate) parent_asset_id: Option<String>,
    /// A published website's public URL.
    pub(crate) published_url: Option<String>,
}

/// `create_asset_download`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct DownloadLink {
    /// The asset.
    pub(crate) asset_id: String,
    /// Its download URL.
    pub(crate) url: String,
    /// How long the URL is valid (`null` for a published website's URL).
    pub(crate) expires_in_seconds: Option<i64>,
}

/// `projects_list`'s result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProjectPage {
    /// This page's Projects.
    pub(crate) projects: Vec<ProjectItem>,
    /// The cursor of the next page, `null` on the last one.
    pub(crate) next_cursor: Option<String>,
}

/// One Project, with its page.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProjectItem {
    /// The Project as the world describes it.
    #[serde(flatten)]
    pub(crate) project: Project,
    /// Its page in Perplexity.
    pub(crate) project_url: String,
}

/// `create_attachment_upload`'s result: a presigned S3 POST.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct UploadEnvelope {
    /// The URL to pass as an attachment once the file is up.
    pub(crate) attachment_url: String,
    /// Where to POST the file.
    pub(crate) upload_url: String,
    /// The form fields to POST with it.
    pub(crate) upload_fields: BTreeMap<String, String>,
}
