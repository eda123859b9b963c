//! What the reading tools answer: `read_thread`'s transcript and state, the steps a request took,
//! thread assets and their downloads, Projects, and the upload envelope.

use std::collections::BTreeMap;

use serde::Serialize;

use super::results::{Event, Interactive, Prompt, TaskStatus};
use crate::world::{Project, TaskSettings};

/// `read_thread`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Transcript {
    /// The thread.
    pub thread_id: String,
    /// Always `transcript`.
    pub event: Event,
    /// `queued`, `running` or `idle`.
    pub status: &'static str,
    /// The messages in order, as Markdown.
    pub text: String,
    /// Set when older messages were left out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The thread's state (`null` when it could not be loaded).
    pub web_state: Option<WebState>,
    /// Why the state is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web_state_error: Option<String>,
    /// The mode, model and effort the thread runs with (sent in `_meta`).
    #[serde(skip)]
    pub(crate) settings: Option<TaskSettings>,
}

/// A thread's state, as `read_thread` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct WebState {
    /// `queued`, `running` or `idle`.
    pub thread_status: &'static str,
    /// When a sleeping request wakes.
    pub wake_at: Option<String>,
    /// The latest request's status.
    pub task_status: Option<TaskStatus>,
    /// The latest entries, oldest first.
    pub entries: Vec<EntryState>,
}

/// One entry (turn) of a thread's state.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EntryState {
    /// The entry.
    pub entry_id: String,
    /// When it started.
    pub created_at: String,
    /// Its request's status.
    pub status: TaskStatus,
    /// Open questions and confirmations, then the workflow marker of an ended request.
    pub interactions: Vec<Interaction>,
    /// Open sign-ins.
    pub auth_requests: Vec<Interactive>,
    /// Pages the user finishes things on (a Perplexity form, billing).
    pub form_links: Vec<FormLink>,
    /// The latest entry's steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<Step>>,
}

/// An item of an entry's `interactions`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Interaction {
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
#[non_exhaustive]
pub struct OpenPrompt {
    /// Who answers it and how.
    #[serde(flatten)]
    pub prompt: Prompt,
    /// Always `WAITING_FOR_USER`.
    pub status: &'static str,
    /// The form.
    pub request: PromptRequest,
}

/// The form of an open prompt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum PromptRequest {
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
#[non_exhaustive]
pub struct Question {
    /// Its id (the key of `answers`).
    pub id: String,
    /// The question.
    pub question: String,
    /// The choices, if it offers some.
    pub options: Vec<String>,
    /// Whether several choices may be picked.
    pub allow_multiple: bool,
    /// Whether files may be attached.
    pub allow_attachments: bool,
}

/// A page the user finishes something on.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct FormLink {
    /// The page.
    pub url: String,
    /// What it is.
    pub title: String,
}

/// A step of a request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Step {
    /// Its id.
    pub id: String,
    /// What Computer does.
    pub title: String,
    /// Its kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// `working`, `completed`, `failed`, `cancelled` or `input_required`.
    pub status: &'static str,
    /// When it started.
    pub started_at: String,
    /// When it ended.
    pub completed_at: Option<String>,
    /// Up to five of its sources.
    pub sources: Vec<StepSource>,
}

/// A source of a step.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct StepSource {
    /// Page URL.
    pub url: String,
    /// Page title, when known.
    pub title: Option<String>,
}

/// `list_thread_assets`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AssetPage {
    /// This page's assets.
    pub assets: Vec<AssetItem>,
    /// The cursor of the next page, `null` on the last one.
    pub next_cursor: Option<String>,
}

/// One durable asset of a thread.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct AssetItem {
    /// Its id.
    pub asset_id: String,
    /// The turn that produced it.
    pub entry_id: String,
    /// File name.
    pub filename: String,
    /// Content type, when known.
    pub mime_type: Option<String>,
    /// Size in bytes, when known.
    pub size_bytes: Option<u64>,
    /// `file` or `app` (a published website).
    pub asset_type: &'static str,
    /// Creation time, in Unix seconds.
    pub created_at: i64,
    /// Whether it is the main output; `None` when the source turn is unavailable.
    pub is_primary_asset: Option<bool>,
    /// The first version it was edited from.
    pub root_asset_id: Option<String>,
    /// The version it was edited from.
    pub parent_asset_id: Option<String>,
    /// A published website's public URL.
    pub published_url: Option<String>,
}

/// `create_asset_download`'s result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DownloadLink {
    /// The asset.
    pub asset_id: String,
    /// Its download URL.
    pub url: String,
    /// How long the URL is valid (`null` for a published website's URL).
    pub expires_in_seconds: Option<i64>,
}

/// `projects_list`'s result.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ProjectPage {
    /// This page's Projects.
    pub projects: Vec<ProjectItem>,
    /// The cursor of the next page, `null` on the last one.
    pub next_cursor: Option<String>,
}

/// One Project, with its page.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct ProjectItem {
    /// The Project as the world describes it.
    #[serde(flatten)]
    pub(crate) project: Project,
    /// Its page in Perplexity.
    pub project_url: String,
}

/// `create_attachment_upload`'s result: a presigned S3 POST.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct UploadEnvelope {
    /// The URL to pass as an attachment once the file is up.
    pub attachment_url: String,
    /// Where to POST the file.
    pub upload_url: String,
    /// The form fields to POST with it.
    pub upload_fields: BTreeMap<String, String>,
}
