//! The API's other answers: the model list (`GET /v1/models`), a run's files
//! (`GET …/{id}/files`) and a cancel's acknowledgement (`POST …/{id}/cancel`).

use serde::Serialize;

use super::usage::Price;

/// A list answer: `{"object": "list", "data": [...]}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct List<T> {
    /// Always `list`.
    pub(crate) object: &'static str,
    /// The entries.
    pub(crate) data: Vec<T>,
}

impl<T> List<T> {
    /// A list of `data`.
    pub(crate) fn of(data: Vec<T>) -> Self {
        Self {
            object: "list",
            data,
        }
    }
}

/// One model of `GET /v1/models`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ModelEntry {
    /// `provider/model`.
    pub(crate) id: &'static str,
    /// Always `model`.
    pub(crate) object: &'static str,
    /// Always 0.
    pub(crate) created: u64,
    /// The provider.
    pub(crate) owned_by: &'static str,
    /// Its prices.
    pub(crate) pricing: Pricing,
}

/// A model's prices, USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Pricing {
    /// Input.
    pub(crate) input: Price,
    /// Output.
    pub(crate) output: Price,
    /// Cache write.
    pub(crate) cache_write: Price,
    /// Cache read.
    pub(crate) cache_read: Price,
    /// Always `usd_per_1m_tokens`.
    pub(crate) unit: &'static str,
}

/// One file of `GET …/{id}/files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FileEntry {
    /// `file_<uuid>`.
    pub(crate) id: String,
    /// Always `file`.
    pub(crate) object: &'static str,
    /// File name.
    pub(crate) filename: String,
    /// Its size.
    pub(crate) bytes: usize,
    /// Unix seconds.
    pub(crate) created_at: i64,
}

/// The answer to a cancel: the run stops shortly after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct CancelAck {
    /// The response.
    pub(crate) response_id: String,
    /// Always `cancelling`.
    pub(crate) status: &'static str,
}

impl CancelAck {
    /// The acknowledgement for `response_id`.
    pub(crate) fn cancelling(response_id: String) -> Self {
        Self {
            response_id,
            status: "cancelling",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_acknowledgements_render_as_recorded() {
        let files = List::of(vec![FileEntry {
            id: "file_1".into(),
            object: "file",
            filename: "a.txt".into(),
            bytes: 3,
            created_at: 7,
        }]);
        assert_eq!(
            serde_json::to_string(&files).expect("renders"),
            r#"{"object":"list","data":[{"id":"file_1","object":"file","filename":"a.txt","bytes":3,"created_at":7}]}"#
        );
        assert_eq!(
            serde_json::to_string(&CancelAck::cancelling("resp_1".into())).expect("renders"),
            r#"{"response_id":"resp_1","status":"cancelling"}"#
        );
    }
}
