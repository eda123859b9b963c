//! The twelve tools' arguments, as serde structs. A call's arguments are checked against the
//! tool's input schema first (so a bad argument is named in the words of the schema); these
//! structs then read what passed, and a client writes them (a field left `None` or empty is
//! left out).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// `call_perplexity_computer`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CallComputer {
    /// The task description or follow-up message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The conversation to continue; `None` starts a new one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    /// Files from `create_attachment_upload`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachment_urls: Vec<String>,
    /// The Project a new conversation starts in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_uuid: Option<String>,
    /// `private` or `project`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_visibility: Option<String>,
    /// A mode from `models_list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// A model `id` from `models_list`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// One of the model's efforts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<String>,
}

/// `answer_question`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerQuestion {
    /// The conversation.
    pub thread_id: String,
    /// Each question (by id or text) mapped to its answer.
    pub answers: Map<String, Value>,
    /// Files from `create_attachment_upload`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachment_urls: Vec<String>,
    /// Which question is answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub followup_uuid: Option<String>,
}

/// `confirm_action_approve` and `confirm_action_deny`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfirmAction {
    /// The conversation.
    pub thread_id: String,
    /// The reason or message for the decision.
    pub result: String,
    /// Files from `create_attachment_upload`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachment_urls: Vec<String>,
    /// Which confirmation is decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub followup_uuid: Option<String>,
}

/// `notify_connected`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotifyConnected {
    /// The conversation.
    pub thread_id: String,
    /// The message sent when the call sends one.
    pub message: String,
    /// The connector (id or display name) the user signed in to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connector: Option<String>,
    /// Files from `create_attachment_upload`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachment_urls: Vec<String>,
}

/// `cancel_task` and `read_thread`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThreadRef {
    /// The conversation.
    pub thread_id: String,
}

/// `list_thread_assets`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListThreadAssets {
    /// The conversation.
    pub thread_id: String,
    /// Only this turn's assets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    /// `next_cursor` of the previous page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `create_asset_download`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateAssetDownload {
    /// The conversation the asset belongs to.
    pub thread_id: String,
    /// The asset.
    pub asset_id: String,
}

/// `projects_list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectsList {
    /// Words to look for in the Projects' names and descriptions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_term: Option<String>,
    /// `next_cursor` of the previous page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// `create_attachment_upload`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateAttachmentUpload {
    /// File name including extension.
    pub filename: String,
    /// Content type.
    pub mime_type: String,
    /// File size in bytes (a JSON integer, which may not fit an `i64`).
    pub size_bytes: Number,
}

impl CallComputer {
    /// A new conversation starting with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: Some(message.into()),
            ..Self::default()
        }
    }
}

impl AnswerQuestion {
    /// `answers` to the question waiting on `thread_id`.
    pub fn new(thread_id: impl Into<String>, answers: Map<String, Value>) -> Self {
        Self {
            thread_id: thread_id.into(),
            answers,
            attachment_urls: Vec::new(),
            followup_uuid: None,
        }
    }
}

impl ConfirmAction {
    /// A decision on the action waiting on `thread_id`, with its reason.
    pub fn new(thread_id: impl Into<String>, result: impl Into<String>) -> Self {
        Self {
            thread_id: thread_id.into(),
            result: result.into(),
            attachment_urls: Vec::new(),
            followup_uuid: None,
        }
    }
}

impl NotifyConnected {
    /// The sign-in `thread_id` waits on is done; `message` goes on if a message is sent.
    pub fn new(thread_id: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            thread_id: thread_id.into(),
            message: message.into(),
            connector: None,
            attachment_urls: Vec::new(),
        }
    }
}

impl ThreadRef {
    /// Thread `thread_id`.
    pub fn new(thread_id: impl Into<String>) -> Self {
        Self {
            thread_id: thread_id.into(),
        }
    }
}

impl ListThreadAssets {
    /// The first page of `thread_id`'s assets.
    pub fn new(thread_id: impl Into<String>) -> Self {
        Self {
            thread_id: thread_id.into(),
            entry_id: None,
            cursor: None,
        }
    }
}

impl CreateAssetDownload {
    /// A fresh link to asset `asset_id` of `thread_id`.
    pub fn new(thread_id: impl Into<String>, asset_id: impl Into<String>) -> Self {
        Self {
            thread_id: thread_id.into(),
            asset_id: asset_id.into(),
        }
    }
}

impl CreateAttachmentUpload {
    /// An upload of `size_bytes` bytes named `filename`, of type `mime_type`.
    pub fn new(filename: impl Into<String>, mime_type: impl Into<String>, size_bytes: u64) -> Self {
        Self {
            filename: filename.into(),
            mime_type: mime_type.into(),
            size_bytes: size_bytes.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn optional_arguments_may_be_left_out() {
        let args: CallComputer =
            serde_json::from_value(json!({"message": "hi"})).expect("minimal arguments");
        assert_eq!(args.message.as_deref(), Some("hi"));
        assert!(args.thread_id.is_none() && args.attachment_urls.is_empty());
    }

    #[test]
    fn fields_left_unset_are_left_out_when_written() {
        let mut args = CallComputer::new("hi");
        args.thread_id = Some("t".into());
        assert_eq!(
            serde_json::to_value(&args).ok(),
            Some(json!({"message": "hi", "thread_id": "t"}))
        );
        assert_eq!(
            serde_json::to_value(ThreadRef::new("t")).ok(),
            Some(json!({"thread_id": "t"}))
        );
    }

    #[test]
    fn a_huge_size_is_read_rather_than_refused() {
        let args: CreateAttachmentUpload = serde_json::from_value(
            json!({"filename": "a.pdf", "mime_type": "application/pdf", "size_bytes": 18446744073709551615u64}),
        )
        .expect("an integer beyond i64");
        assert_eq!(args.size_bytes.as_i64(), None);
    }
}
