//! Async chat completions (`/async/chat/completions`): the create request, a job as `GET`
//! shows it (`AsyncApiChatCompletionsResponseOutput`) and the list
//! (`ListAsyncApiChatCompletionsResponseOutput`), in the API reference's field order.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::completion::Completion;

/// `POST /async/chat/completions`.
#[derive(Debug, Deserialize)]
pub(crate) struct AsyncCreate {
    /// The chat completion request to run, validated as `POST /chat/completions` validates it
    /// (kept raw until then, so its refusals name its fields as that route's do).
    #[serde(default)]
    pub(crate) request: Option<Box<RawValue>>,
    /// The same key (from the same account) gets the same job back.
    #[serde(default)]
    pub(crate) idempotency_key: Option<String>,
}

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub(crate) enum JobStatus {
    /// Accepted, waiting to start.
    Created,
    /// Running.
    InProgress,
    /// Done: `response` holds the completion.
    Completed,
    /// Failed: `error_message` says why.
    Failed,
}

/// A job, as `POST` and `GET /async/chat/completions/{id}` answer it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AsyncJob {
    /// A UUID.
    pub(crate) id: String,
    /// The request's model.
    pub(crate) model: String,
    /// Unix seconds.
    pub(crate) created_at: i64,
    /// Where it stands.
    pub(crate) status: JobStatus,
    /// When it started running.
    pub(crate) started_at: Option<i64>,
    /// When it completed.
    pub(crate) completed_at: Option<i64>,
    /// The completion, once `COMPLETED`.
    pub(crate) response: Option<Completion>,
    /// When it failed.
    pub(crate) failed_at: Option<i64>,
    /// Why it failed.
    pub(crate) error_message: Option<String>,
}

/// A job as the list shows it (`AsyncApiChatCompletionsResponseSummaryOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AsyncSummary {
    /// A UUID.
    pub(crate) id: String,
    /// The request's model.
    pub(crate) model: String,
    /// Unix seconds.
    pub(crate) created_at: i64,
    /// Where it stands.
    pub(crate) status: JobStatus,
    /// When it started running.
    pub(crate) started_at: Option<i64>,
    /// When it completed.
    pub(crate) completed_at: Option<i64>,
    /// When it failed.
    pub(crate) failed_at: Option<i64>,
}

/// `GET /async/chat/completions`: the account's jobs, newest first, a page at a time.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AsyncList {
    /// This page.
    pub(crate) requests: Vec<AsyncSummary>,
    /// Pass as `?next_token=` for the next page; `null` on the last.
    pub(crate) next_token: Option<String>,
}

/// The query of `GET /async/chat/completions`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ListQuery {
    /// Jobs per page (1 to 100, default 20).
    #[serde(default)]
    pub(crate) limit: Option<u32>,
    /// Where the page starts, from the previous page's `next_token`.
    #[serde(default)]
    pub(crate) next_token: Option<String>,
}
