//! Why a request of [`McpSession`](super::McpSession) or [`AgentClient`](super::AgentClient)
//! failed.

use serde_json::Value;

/// Why a request of a [`McpSession`](crate::McpSession) or an
/// [`AgentClient`](crate::AgentClient) failed: it never got an answer, the answer was an HTTP
/// error, a JSON-RPC error, or not what the protocol says.
///
/// A tool that reports a failure is no error here: its result comes back with
/// [`ToolResult::is_error`](crate::ToolResult::is_error) set, as the protocol delivers it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::start().await?;
/// let refused = mock_server::McpSession::builder(mock.mcp_url())
///     .token("not-a-token")
///     .connect()
///     .await
///     .expect_err("an unknown token is refused");
/// assert!(matches!(refused, mock_server::ClientError::Status { status: 401, .. }));
/// assert_eq!(refused.status(), Some(401));
/// # Ok(()) }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The request could not be sent, or its answer not read (the mock is gone, the address is
    /// wrong).
    #[error("{method} {url}: {source}")]
    Http {
        /// What was sent (`tools/call`, `POST /v1/agent`).
        method: String,
        /// Where it was sent.
        url: String,
        /// What reqwest said.
        #[source]
        source: reqwest::Error,
    },
    /// The mock answered with an HTTP error status (401 without a valid token, 404 for an
    /// unknown response id, 400 for a request it refuses).
    #[error("{method} answered HTTP {status}: {body}")]
    Status {
        /// What was sent (`initialize`, `GET /v1/agent/{id}`).
        method: String,
        /// The HTTP status.
        status: u16,
        /// The body: JSON when it parsed (the Agent API's error envelope, a JSON-RPC error),
        /// else its text.
        body: Value,
    },
    /// The mock answered a JSON-RPC request with a JSON-RPC error.
    #[error("{method} failed with JSON-RPC error {code}: {message}")]
    JsonRpc {
        /// The JSON-RPC method.
        method: String,
        /// The error code (`-32602` for invalid params).
        code: i64,
        /// The error message.
        message: String,
        /// The error's `data`, when it had one.
        data: Option<Value>,
    },
    /// The answer was not what the protocol says (no session id after `initialize`, no result
    /// for the request, a body that is not JSON).
    #[error("{method}: {problem}")]
    Protocol {
        /// What was sent.
        method: String,
        /// What was wrong with the answer.
        problem: String,
    },
}

impl ClientError {
    /// The HTTP status of a [`Status`](Self::Status) error, `None` for the others.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let missing = mock.agent_client().retrieve("resp_unknown").await.expect_err("no such id");
    /// assert_eq!(missing.status(), Some(404));
    /// # Ok(()) }
    /// ```
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            Self::Http { .. } | Self::JsonRpc { .. } | Self::Protocol { .. } => None,
        }
    }

    /// A [`Protocol`](Self::Protocol) error about the answer to `method`.
    pub(crate) fn protocol(method: &str, problem: impl Into<String>) -> Self {
        Self::Protocol {
            method: method.to_owned(),
            problem: problem.into(),
        }
    }
}

/// The body of an answer as [`ClientError::Status`] carries it: JSON when it parses, else the
/// text.
pub(crate) fn body_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}
