//! The `io.modelcontextprotocol/tasks` extension's results: the task a `tools/call` creates,
//! what `tasks/get` shows, and the acknowledgements of `tasks/update` and `tasks/cancel`.

use serde::{Deserialize, Serialize};

use super::content::CallToolResult;
use super::elicitation::InputRequests;
use super::lifecycle::{Implementation, ResultType, SERVER_INFO};
use super::listings::Step;

/// A task's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskState {
    /// Computer works on it.
    Working,
    /// It waits on the user (see `inputRequests`).
    InputRequired,
    /// It ended with a result (see `result`), failed ones included.
    Completed,
    /// It was cancelled.
    Cancelled,
}

impl TaskState {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::InputRequired => "input_required",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// The `_meta` of a task result: the steps (`tasks/get`), the stop URL (creation, cancel), the
/// thread, and the server info.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct TaskMeta {
    /// The request's steps.
    #[serde(
        rename = "ai.perplexity/steps",
        skip_serializing_if = "Option::is_none"
    )]
    pub steps: Option<Vec<Step>>,
    /// The page that stops Computer.
    #[serde(
        rename = "ai.perplexity/stopUrl",
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_url: Option<String>,
    /// The thread the task runs on.
    #[serde(rename = "ai.perplexity/threadId")]
    pub thread_id: String,
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: Implementation,
}

impl TaskMeta {
    /// The meta of a task on `thread_id`.
    pub(crate) fn new(thread_id: impl Into<String>) -> Self {
        Self {
            steps: None,
            stop_url: None,
            thread_id: thread_id.into(),
            server_info: SERVER_INFO,
        }
    }
}

/// What every view of a task says about it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskInfo {
    /// The task's id.
    pub task_id: String,
    /// Its status.
    pub status: TaskState,
    /// A sentence about it.
    pub status_message: String,
    /// When it was created.
    pub created_at: String,
    /// When its state last changed.
    pub last_updated_at: String,
    /// How long it lives.
    pub ttl_ms: u64,
    /// How often to poll it.
    pub poll_interval_ms: u64,
}

/// `tasks/get`'s result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskResult {
    /// The tool result, once the task completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<CallToolResult>,
    /// What it waits on, while it is `input_required`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// The task.
    #[serde(flatten)]
    pub info: TaskInfo,
    /// Steps, thread and server info.
    #[serde(rename = "_meta")]
    pub meta: TaskMeta,
    /// Always `complete`.
    pub result_type: ResultType,
}

/// A `tools/call`'s answer when it created a task.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateTaskResult {
    /// The task.
    #[serde(flatten)]
    pub info: TaskInfo,
    /// Always `task`.
    pub result_type: ResultType,
    /// The stop URL, thread and server info.
    #[serde(rename = "_meta")]
    pub meta: TaskMeta,
}

/// `tasks/update`'s and `tasks/cancel`'s acknowledgement.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskAck {
    /// The thread (and the stop URL, for a cancel).
    #[serde(rename = "_meta")]
    pub meta: TaskMeta,
    /// Always `complete`.
    pub result_type: ResultType,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_names_itself_as_it_is_written() {
        for status in [
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::Completed,
            TaskState::Cancelled,
        ] {
            assert_eq!(
                serde_json::to_value(status).ok(),
                Some(serde_json::Value::from(status.as_str()))
            );
        }
    }
}
