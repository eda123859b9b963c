//! What the server sends: its responses as HTTP answers or as SSE event data, and the
//! notifications and requests it makes of a client on a call's stream.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use serde::Serialize;

use super::error::ErrorData;
use super::jsonrpc::{JSONRPC, RequestId, Response};
use super::request::ProgressToken;

/// Bytes first set aside for a response body (a `models_list` answer is about 2 KiB).
const RESPONSE_CAPACITY: usize = 4096;

/// Writes `message` as one line of JSON, or the JSON-RPC internal error that replaces it: the
/// types the server sends are strings, numbers and JSON values, which always serialize, so the
/// error says what went wrong instead of sending an empty event if that ever changes.
fn to_json(message: &impl Serialize, answering: Option<&RequestId>) -> String {
    serde_json::to_string(message).unwrap_or_else(|error| {
        ErrorData::internal(format!("The server could not write its message: {error}"))
            .with_id(answering.cloned())
            .to_json()
    })
}

impl<T: Serialize> Response<'_, T> {
    /// The response as one line of JSON (an internal error answering the same request if it
    /// cannot be written).
    pub(crate) fn to_json(&self) -> String {
        to_json(self, Some(self.id()))
    }
}

impl<T: Serialize> IntoResponse for Response<'_, T> {
    /// As axum's `Json`, but written into a buffer sized for a typical tool result: `Json`
    /// starts at 128 bytes and copies the answer over each time it doubles.
    fn into_response(self) -> HttpResponse {
        let mut body = Vec::with_capacity(RESPONSE_CAPACITY);
        match serde_json::to_writer(&mut body, &self) {
            Ok(()) => {
                // Built by hand: `(headers, Vec)` sets an octet-stream content type first and
                // then replaces it.
                let mut response = HttpResponse::new(axum::body::Body::from(body));
                response.headers_mut().insert(
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                response
            }
            Err(error) => ErrorData::internal(format!("the answer could not be written: {error}"))
                .with_id(Some(self.id().clone()))
                .into_response(),
        }
    }
}

/// A notification or a request the server sends, `{"jsonrpc":"2.0",["id":…,]"method":…,"params":…}`.
#[derive(Debug, Serialize)]
pub(crate) struct Outgoing<'a, P> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    method: &'a str,
    params: P,
}

impl<'a, P: Serialize> Outgoing<'a, P> {
    /// A notification (no id, no answer expected).
    pub(crate) fn notification(method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id: None,
            method,
            params,
        }
    }

    /// A request the client answers by POSTing a response with `id`.
    pub(crate) fn request(id: &'a str, method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id: Some(id),
            method,
            params,
        }
    }

    /// The message as one line of JSON (an internal error if it cannot be written).
    pub(crate) fn to_json(&self) -> String {
        to_json(self, None)
    }
}

/// `notifications/progress` params.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Progress<'a> {
    /// The request's token.
    pub(crate) progress_token: &'a ProgressToken,
    /// How many lines so far, counting this one.
    pub(crate) progress: u64,
    /// The line.
    pub(crate) message: &'a str,
}
