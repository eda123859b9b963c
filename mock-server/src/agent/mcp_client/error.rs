//! Why talking to a remote MCP server failed, each reason a sentence naming the server's URL,
//! and the helpers that build them from what the network or the server said.

use std::time::Duration;

use reqwest::header;

use super::model::SUPPORTED_VERSIONS;

/// How much of an unexpected body an error quotes.
const SNIPPET_CHARS: usize = 200;

/// Why talking to a remote MCP server failed. Each message is a sentence naming the URL.
#[derive(Debug, thiserror::Error)]
pub(crate) enum McpClientError {
    /// The URL cannot be used.
    #[error("the MCP server URL `{url}` cannot be used: {reason}")]
    InvalidUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A configured header cannot be sent.
    #[error("the header `{name}` for the MCP server at {url} cannot be sent: {reason}")]
    InvalidHeader {
        /// The server URL.
        url: String,
        /// Header name as given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No connection, or the connection broke.
    #[error("could not reach the MCP server at {url} ({method}): {detail}")]
    Unreachable {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The underlying network error.
        detail: String,
    },
    /// The server took longer than the wall-clock limit.
    #[error("the MCP server at {url} did not answer {method} within {} s", .after.as_secs_f64())]
    TimedOut {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The limit that passed.
        after: Duration,
    },
    /// The server answered with an HTTP error status.
    #[error("the MCP server at {url} answered {method} with HTTP {status}{hint}")]
    HttpStatus {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The HTTP status code.
        status: u16,
        /// What it probably means, and what the body said (starts with `: ` when present).
        hint: String,
    },
    /// The answer is not JSON or an SSE stream: not a Streamable HTTP MCP endpoint.
    #[error(
        "the server at {url} answered {method} with `{content_type}` instead of JSON or an SSE \
         stream; is it a Streamable HTTP MCP endpoint? It said: {snippet}"
    )]
    NotMcp {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The `Content-Type` it answered with.
        content_type: String,
        /// The start of the body.
        snippet: String,
    },
    /// The answer is JSON or SSE but not the JSON-RPC response expected.
    #[error("the MCP server at {url} sent an unusable answer to {method}: {detail}")]
    Protocol {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// What was wrong.
        detail: String,
    },
    /// The server answered with a JSON-RPC error.
    #[error("the MCP server at {url} refused {method} with JSON-RPC error {code}: {message}")]
    Rpc {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being sent.
        method: String,
        /// The JSON-RPC error code.
        code: i64,
        /// The server's message.
        message: String,
    },
    /// The server only speaks a protocol version this client does not.
    #[error(
        "the MCP server at {url} answered initialize with protocol version `{version}`, which \
         this client does not speak (it speaks {supported})",
        supported = SUPPORTED_VERSIONS.join(", ")
    )]
    UnsupportedVersion {
        /// The server URL.
        url: String,
        /// The version the server chose.
        version: String,
    },
    /// The mock's HTTP client could not be set up, so nothing was sent.
    #[error("the mock could not set up its HTTP client to reach the MCP server at {url}: {detail}")]
    NoClient {
        /// The server URL.
        url: String,
        /// Why.
        detail: String,
    },
    /// The client could not write its own message (a bug in the mock, said in `detail`).
    #[error("the mock could not write its {method} request for the MCP server at {url}: {detail}")]
    Unwritable {
        /// The server URL.
        url: String,
        /// The JSON-RPC method being written.
        method: String,
        /// Why.
        detail: String,
    },
}

impl McpClientError {
    /// The in-band `mcp_call.error` value a connector reports for this failure (Agent API,
    /// Connectors, "Error handling"): `AUTH_REQUIRED` when the server refuses the stored
    /// credential, `CONNECTOR_UNAVAILABLE` when it cannot be reached (or is down: 502, 503,
    /// 504), `INVALID_ARGUMENTS` when it rejects the arguments, else `CONNECTOR_INTERNAL_ERROR`
    /// ("a response that could not be used").
    pub(crate) fn connector_error(&self) -> &'static str {
        match self {
            Self::HttpStatus {
                status: 401 | 403, ..
            } => "AUTH_REQUIRED",
            Self::HttpStatus {
                status: 502..=504, ..
            }
            | Self::Unreachable { .. }
            | Self::TimedOut { .. }
            | Self::InvalidUrl { .. }
            | Self::InvalidHeader { .. } => "CONNECTOR_UNAVAILABLE",
            Self::Rpc { code: -32602, .. } => "INVALID_ARGUMENTS",
            Self::HttpStatus { .. }
            | Self::NotMcp { .. }
            | Self::Protocol { .. }
            | Self::Rpc { .. }
            | Self::UnsupportedVersion { .. }
            | Self::NoClient { .. }
            | Self::Unwritable { .. } => "CONNECTOR_INTERNAL_ERROR",
        }
    }
}

/// The server an error is about: every [`McpClientError`] names its URL.
#[derive(Debug, Clone, Copy)]
pub(super) struct ServerUrl<'a>(pub(super) &'a str);

impl ServerUrl<'_> {
    /// The error for an HTTP error status, with what it probably means and what the body said;
    /// `session_known` tells a lost session from a wrong path on a 404.
    pub(super) async fn http_status(
        self,
        method: &str,
        response: reqwest::Response,
        session_known: bool,
    ) -> McpClientError {
        let status = response.status();
        let challenge = response
            .headers()
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let location = response
            .headers()
            .get(header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        // A body that cannot be read is quoted as nothing: the status is the error.
        let body = response.text().await.unwrap_or_default();
        let mut hint = match status.as_u16() {
            401 => {
                " (unauthorized: the `authorization` token is missing, expired or wrong)".to_owned()
            }
            403 => " (forbidden: the token is not allowed to use this server)".to_owned(),
            404 if session_known && method != "initialize" => {
                " (the server no longer knows this session)".to_owned()
            }
            404 => " (nothing at this URL: check the server_url path)".to_owned(),
            405 => " (POST is not allowed here; a server on the legacy HTTP+SSE transport? The \
                     `mcp` tool needs a Streamable HTTP endpoint)"
                .to_owned(),
            300..=399 => match location {
                Some(location) => {
                    format!(" (a redirect to {location}, another origin, which is not followed)")
                }
                None => " (a redirect without a Location)".to_owned(),
            },
            _ => status
                .canonical_reason()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default(),
        };
        if let Some(challenge) = challenge {
            hint.push_str(&format!("; WWW-Authenticate: {challenge}"));
        }
        let body = snippet(&body);
        if !body.is_empty() {
            hint.push_str(&format!(": {body}"));
        }
        McpClientError::HttpStatus {
            url: self.0.to_owned(),
            method: method.to_owned(),
            status: status.as_u16(),
            hint,
        }
    }

    /// The server sent an unusable answer to `method`.
    pub(super) fn protocol(self, method: &str, detail: &str) -> McpClientError {
        McpClientError::Protocol {
            url: self.0.to_owned(),
            method: method.to_owned(),
            detail: detail.to_owned(),
        }
    }

    /// The server did not answer `method` within `after`.
    pub(super) fn timed_out(self, method: &str, after: Duration) -> McpClientError {
        McpClientError::TimedOut {
            url: self.0.to_owned(),
            method: method.to_owned(),
            after,
        }
    }

    /// The network failed while sending `method`.
    pub(super) fn unreachable(self, method: &str, error: &reqwest::Error) -> McpClientError {
        McpClientError::Unreachable {
            url: self.0.to_owned(),
            method: method.to_owned(),
            detail: root_cause(error),
        }
    }

    /// The answer to `method` is neither JSON nor an SSE stream.
    pub(super) fn not_mcp(self, method: &str, content_type: String, body: &str) -> McpClientError {
        McpClientError::NotMcp {
            url: self.0.to_owned(),
            method: method.to_owned(),
            content_type,
            snippet: snippet(body),
        }
    }
}

/// The start of a body, on one line, for an error message.
pub(super) fn snippet(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > SNIPPET_CHARS {
        let cut: String = flat.chars().take(SNIPPET_CHARS).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// The innermost cause of a network error ("Connection refused (os error 111)"), which says
/// more than reqwest's "error sending request".
fn root_cause(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    let root = cause.to_string();
    if error.is_connect() {
        format!("connection failed: {root}")
    } else {
        root
    }
}
