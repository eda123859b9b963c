//! The MCP endpoint's part in reading request bodies: its 4 MiB limit, and a refused body
//! answered as a JSON-RPC error (a body cut short is a parse error, the others invalid
//! requests).

use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::model::error::ErrorData;
use crate::http::body::{BodyPolicy, BodyRefusal, DEFAULT_LIMIT};
use crate::http::shape::ErrorShape;

/// Request bodies taken as the MCP endpoint takes them.
pub(crate) struct JsonRpcBodies {
    /// Whether a body too large is told how the endpoint takes files instead.
    names_attachments: bool,
}

/// How the MCP endpoint takes request bodies.
pub(crate) static ENDPOINT_BODIES: JsonRpcBodies = JsonRpcBodies {
    names_attachments: true,
};

/// How paths that no surface claims take request bodies: as the MCP endpoint, whose
/// neighbours they are, without its advice on files.
pub(crate) static UNCLAIMED_BODIES: JsonRpcBodies = JsonRpcBodies {
    names_attachments: false,
};

impl BodyPolicy for JsonRpcBodies {
    fn limit(&self) -> usize {
        DEFAULT_LIMIT
    }

    fn refuse(&self, refusal: &BodyRefusal) -> Response {
        let mut sentence = refusal.to_string();
        if self.names_attachments && matches!(refusal, BodyRefusal::TooLarge { .. }) {
            sentence.push_str(
                " Send files with create_attachment_upload and pass their attachment_urls \
                 instead of putting their content in a message.",
            );
        }
        let status = refusal.status();
        let kind = if status == StatusCode::BAD_REQUEST {
            "Parse error"
        } else {
            "Invalid Request"
        };
        ErrorData::refused_body(status, format!("{kind}: {sentence}")).into_response()
    }
}

/// An injected fault's status, as a JSON-RPC server error (no request id: it answers before
/// the request is read).
impl ErrorShape for JsonRpcBodies {
    fn error(&self, status: StatusCode, sentence: &str) -> Response {
        ErrorData::server_error(status, sentence).into_response()
    }
}
