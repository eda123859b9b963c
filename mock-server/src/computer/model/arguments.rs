//! The twelve tools' arguments, as serde structs. A call's arguments are checked against the
//! tool's input schema first (so a bad argument is named in the words of the schema); these
//! structs then read what passed.

use serde::Deserialize;
use serde_json::{Map, Number, Value};

/// `call_perplexity_computer`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct CallComputer {
    /// The task description or follow-up message.
    pub(crate) message: Option<String>,
    /// The conversation to continue; `None` starts a new one.
    pub(crate) thread_id: Option<String>,
    /// Files from `create_attachment_upload`.
    #[serde(default)]
    pub(crate) attachment_urls: Vec<String>,
    /// The Project a new conversation starts in.
    pub(crate) project_uuid: Option<String>,
    /// `private` or `project`.
    pub(crate) project_visibility: Option<String>,
    /// A mode from `models_list`.
    pub(crate) mode: Option<String>,
    /// A model `id` from `models_list`.
    pub(crate) model: Option<String>,
    /// One of the model's efforts.
    pub(crate) effort: Option<String>,
}

/// `answer_question`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct AnswerQuestion {
    /// The conversation.
    pub(crate) thread_id: String,
    /// Each question (by id or text) mapped to its answer.
    pub(crate) answers: Map<String, Value>,
    /// Files from `create_attachment_upload`.
    #[serde(default)]
    pub(crate) attachment_urls: Vec<String>,
    /// Which question is answered.
    pub(crate) followup_uuid: Option<String>,
}

/// `confirm_action_approve` and `confirm_action_deny`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ConfirmAction {
    /// The conversation.
    pub(crate) thread_id: String,
    /// The reason or message for the decision.
    pub(crate) result: String,
    /// Files from `create_attachment_upload`.
    #[serde(default)]
    pub(crate) attachment_urls: Vec<String>,
    /// Which confirmation is decided.
    pub(crate) followup_uuid: Option<String>,
}

/// `notify_connected`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct NotifyConnected {
    /// The conversation.
    pub(crate) thread_id: String,
    /// The message sent when the call sends one.
    pub(crate) message: String,
    /// The connector (id or display name) the user signed in to.
    pub(crate) connector: Option<String>,
    /// Files from `create_attachment_upload`.
    #[serde(default)]
    pub(crate) attachment_urls: Vec<String>,
}

/// `cancel_task` and `read_thread`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ThreadRef {
    /// The conversation.
    pub(crate) thread_id: String,
}

/// `list_thread_assets`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ListThreadAssets {
    /// The conversation.
    pub(crate) thread_id: String,
    /// Only this turn's assets.
    pub(crate) entry_id: Option<String>,
    /// `next_cursor` of the previous page.
    pub(crate) cursor: Option<String>,
}

/// `create_asset_download`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CreateAssetDownload {
    /// The conversation the asset belongs to.
    pub(crate) thread_id: String,
    /// The asset.
    pub(crate) asset_id: String,
}

/// `projects_list`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ProjectsList {
    /// Words to look for in the Projects' names and descriptions.
    pub(crate) search_term: Option<String>,
    /// `next_cursor` of the previous page.
    pub(crate) cursor: Option<String>,
}

/// `create_attachment_upload`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CreateAttachmentUpload {
    /// File name including extension.
    pub(crate) filename: String,
    /// Content type.
    pub(crate) mime_type: String,
    /// File size in bytes (a JSON integer, which may not fit an `i64`).
    pub(crate) size_bytes: Number,
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
    fn a_huge_size_is_read_rather_than_refused() {
        let args: CreateAttachmentUpload = serde_json::from_value(
            json!({"filename": "a.pdf", "mime_type": "application/pdf", "size_bytes": 18446744073709551615u64}),
        )
        .expect("an integer beyond i64");
        assert_eq!(args.size_bytes.as_i64(), None);
    }
}
