//! The JSON-RPC messages the client writes: requests (`initialize`, `tools/list`,
//! `tools/call`), the `notifications/initialized` notification, and its answers to requests a
//! server sends on a stream. Each is a serde value, written once when it is sent.

use serde::Serialize;
use serde_json::Value;

use super::model::PROTOCOL_VERSION;

/// The JSON-RPC version every message names.
const JSONRPC: &str = "2.0";

/// A request.
#[derive(Debug, Serialize)]
pub(super) struct Request<'a, P> {
    /// Always `2.0`.
    jsonrpc: &'static str,
    /// The request id, which the response names.
    id: u64,
    /// The method.
    method: &'a str,
    /// Its parameters.
    params: P,
}

impl<'a, P: Serialize> Request<'a, P> {
    /// Request `id` of `method` with `params`.
    pub(super) fn new(id: u64, method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id,
            method,
            params,
        }
    }
}

/// A notification (no id, no answer).
#[derive(Debug, Serialize)]
pub(super) struct Notification<'a> {
    /// Always `2.0`.
    jsonrpc: &'static str,
    /// The method.
    method: &'a str,
}

impl<'a> Notification<'a> {
    /// A notification of `method`, without parameters.
    pub(super) fn new(method: &'a str) -> Self {
        Self {
            jsonrpc: JSONRPC,
            method,
        }
    }
}

/// `initialize`'s parameters: the version offered, no capabilities, who the client is.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InitializeParams {
    /// The protocol version offered.
    protocol_version: &'static str,
    /// None: the client declares no capability.
    capabilities: Empty,
    /// The client.
    client_info: ClientInfo,
}

impl InitializeParams {
    /// The mock's `initialize`, offering [`PROTOCOL_VERSION`].
    pub(super) fn mock() -> Self {
        Self {
            protocol_version: PROTOCOL_VERSION,
            capabilities: Empty {},
            client_info: ClientInfo {
                name: "perplexity-agent-api-mock",
                version: env!("CARGO_PKG_VERSION"),
            },
        }
    }
}

/// `clientInfo`.
#[derive(Debug, Clone, Serialize)]
struct ClientInfo {
    /// The client's name.
    name: &'static str,
    /// Its version.
    version: &'static str,
}

/// An empty object (`{}`).
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct Empty {}

/// `tools/list`'s parameters: the page to read.
#[derive(Debug, Serialize)]
pub(super) struct ListToolsParams<'a> {
    /// Where the previous page ended (none for the first page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) cursor: Option<&'a str>,
}

/// `tools/call`'s parameters.
#[derive(Debug, Serialize)]
pub(super) struct CallToolParams<'a> {
    /// The tool.
    pub(super) name: &'a str,
    /// Its arguments (an object).
    pub(super) arguments: &'a Value,
    /// A progress token, so that a slow server may stream progress.
    #[serde(rename = "_meta")]
    pub(super) meta: CallMeta,
}

/// `tools/call`'s `_meta`.
#[derive(Debug, Serialize)]
pub(super) struct CallMeta {
    /// The progress token.
    #[serde(rename = "progressToken")]
    pub(super) progress_token: String,
}

/// The client's answer to a request the server sent: an empty result, or an error.
#[derive(Debug, Serialize)]
pub(super) struct Answer<'a> {
    /// Always `2.0`.
    jsonrpc: &'static str,
    /// The server's request id.
    id: &'a Value,
    /// The empty result (`ping`).
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Empty>,
    /// Why the request cannot be served.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<AnswerError>,
}

/// The `error` of an answer.
#[derive(Debug, Serialize)]
struct AnswerError {
    /// The JSON-RPC error code.
    code: i64,
    /// A sentence.
    message: String,
}

/// "Method not found".
const METHOD_NOT_FOUND: i64 = -32601;

impl<'a> Answer<'a> {
    /// The empty result of request `id`.
    pub(super) fn empty(id: &'a Value) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id,
            result: Some(Empty {}),
            error: None,
        }
    }

    /// "Method not found" for request `id`, saying why.
    pub(super) fn method_not_found(id: &'a Value, message: String) -> Self {
        Self {
            jsonrpc: JSONRPC,
            id,
            result: None,
            error: Some(AnswerError {
                code: METHOD_NOT_FOUND,
                message,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn written(value: &impl Serialize) -> String {
        serde_json::to_string(value).expect("a message renders")
    }

    #[test]
    fn requests_and_notifications_write_the_fields_in_order() {
        let initialize = Request::new(1, "initialize", InitializeParams::mock());
        assert_eq!(
            written(&initialize),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"perplexity-agent-api-mock","version":"{}"}}}}}}"#,
                env!("CARGO_PKG_VERSION")
            )
        );
        assert_eq!(
            written(&Request::new(
                2,
                "tools/list",
                ListToolsParams { cursor: None }
            )),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}"#
        );
        assert_eq!(
            written(&ListToolsParams { cursor: Some("p2") }),
            r#"{"cursor":"p2"}"#
        );
        let arguments = json!({"q": 1});
        let call = CallToolParams {
            name: "ask",
            arguments: &arguments,
            meta: CallMeta {
                progress_token: "agent-mock-3".into(),
            },
        };
        assert_eq!(
            written(&call),
            r#"{"name":"ask","arguments":{"q":1},"_meta":{"progressToken":"agent-mock-3"}}"#
        );
        assert_eq!(
            written(&Notification::new("notifications/initialized")),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
    }

    #[test]
    fn answers_carry_a_result_or_an_error() {
        let id = json!(7);
        assert_eq!(
            written(&Answer::empty(&id)),
            r#"{"jsonrpc":"2.0","id":7,"result":{}}"#
        );
        assert_eq!(
            written(&Answer::method_not_found(&id, "no".into())),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}"#
        );
    }
}
