//! What a client learns about the server, and what it declares about itself: `initialize` and
//! `server/discover` results, the server and client info, the client's capabilities, and the
//! keys of the 2026-07-28 `_meta` envelope every stateless request and result carries.

use std::borrow::Cow;

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::version::ProtocolVersion;

/// The namespace of the keys MCP itself defines in `_meta`.
pub const META_NAMESPACE: &str = "io.modelcontextprotocol/";
/// `_meta` key of a stateless request's protocol version.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of a stateless request's client capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of a stateless request's client info.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The tasks extension's identifier, as clients declare it in `clientCapabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How long a client may reuse `server/discover` and `tools/list` (the catalog never changes
/// while the mock runs).
pub(crate) const LIST_TTL_MS: u64 = 3_600_000;
/// Answers depend on who asks (authentication), so shared caches must not keep them.
pub(crate) const CACHE_SCOPE: &str = "private";

/// What the server tells a client about using it, in both eras.
pub(crate) const INSTRUCTIONS: &str = "Perplexity Computer runs long, multi-step tasks. Start or \
    continue one with call_perplexity_computer and reuse its thread_id. After a `timeout`, call \
    read_thread; answer questions with answer_question, approvals with \
    confirm_action_approve/deny, and call notify_connected after a sign-in.";

/// A program's name and version (`Implementation`): the server's in `initialize` and every
/// stateless result, a client's in `clientInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Implementation {
    /// Its name, for programs.
    pub name: Cow<'static, str>,
    /// Its name, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Cow<'static, str>>,
    /// Its version.
    pub version: Cow<'static, str>,
}

impl Implementation {
    /// Program `name` at `version`, without a title.
    pub fn new(name: impl Into<Cow<'static, str>>, version: impl Into<Cow<'static, str>>) -> Self {
        Self {
            name: name.into(),
            title: None,
            version: version.into(),
        }
    }

    /// An `Implementation` member, if it is one.
    pub(crate) fn read(value: Value) -> Option<Self> {
        serde_json::from_value(value).ok()
    }
}

/// This server.
pub const SERVER_INFO: Implementation = Implementation {
    name: Cow::Borrowed("perplexity-computer-mock"),
    title: Some(Cow::Borrowed("Perplexity Computer (mock)")),
    version: Cow::Borrowed(env!("CARGO_PKG_VERSION")),
};

/// What a stateless result is (`resultType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultType {
    /// The final answer.
    Complete,
    /// A task was created; poll it.
    Task,
    /// The server needs input first; retry with `inputResponses`.
    InputRequired,
}

impl ResultType {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Complete => "complete",
            Self::Task => "task",
            Self::InputRequired => "input_required",
        }
    }
}

/// The `_meta` of a stateless result that carries only the server info.
#[derive(Debug, Clone, Serialize)]
pub struct ServerMeta {
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: Implementation,
}

/// The server info `_meta` every stateless result carries.
pub const SERVER_META: ServerMeta = ServerMeta {
    server_info: SERVER_INFO,
};

/// `capabilities.tools`.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolsCapability {
    list_changed: bool,
}

/// The extensions a server offers, by identifier.
#[derive(Debug, Clone, Copy, Serialize)]
struct Extensions {
    #[serde(rename = "io.modelcontextprotocol/tasks")]
    tasks: Empty,
}

/// `{}`.
#[derive(Debug, Clone, Copy, Serialize)]
struct Empty {}

/// The server's capabilities.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ServerCapabilities {
    tools: ToolsCapability,
    #[serde(skip_serializing_if = "Option::is_none")]
    extensions: Option<Extensions>,
}

impl ServerCapabilities {
    /// The handshake era's: tools, whose list never changes.
    pub const HANDSHAKE: Self = Self {
        tools: ToolsCapability {
            list_changed: false,
        },
        extensions: None,
    };
    /// The stateless era's: tools and the tasks extension.
    pub const STATELESS: Self = Self {
        tools: ToolsCapability {
            list_changed: false,
        },
        extensions: Some(Extensions { tasks: Empty {} }),
    };
}

/// The `initialize` result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeResult {
    /// The negotiated version.
    pub protocol_version: ProtocolVersion,
    /// What the server offers.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// How to use it.
    pub instructions: &'static str,
}

impl InitializeResult {
    /// This server's answer, having negotiated `version`.
    pub(crate) fn new(protocol_version: ProtocolVersion) -> Self {
        Self {
            protocol_version,
            capabilities: ServerCapabilities::HANDSHAKE,
            server_info: SERVER_INFO,
            instructions: INSTRUCTIONS,
        }
    }
}

/// The `server/discover` result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    supported_versions: [ProtocolVersion; 4],
    capabilities: ServerCapabilities,
    instructions: &'static str,
    ttl_ms: u64,
    cache_scope: &'static str,
    result_type: ResultType,
    #[serde(rename = "_meta")]
    meta: ServerMeta,
}

/// This server's `server/discover` result.
pub const DISCOVER: DiscoverResult = DiscoverResult {
    supported_versions: ProtocolVersion::SUPPORTED,
    capabilities: ServerCapabilities::STATELESS,
    instructions: INSTRUCTIONS,
    ttl_ms: LIST_TTL_MS,
    cache_scope: CACHE_SCOPE,
    result_type: ResultType::Complete,
    meta: SERVER_META,
};

/// The empty result (`ping`).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EmptyResult {}

/// Which elicitation modes a client declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ElicitationModes {
    /// Forms (`mode: "form"`).
    pub form: bool,
    /// URLs the user opens (`mode: "url"`).
    pub url: bool,
}

impl Serialize for ElicitationModes {
    /// `{"form": {}, "url": {}}`, each mode when declared (neither: `{}`, which a server reads
    /// as forms only).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.form {
            map.serialize_entry("form", &Empty {})?;
        }
        if self.url {
            map.serialize_entry("url", &Empty {})?;
        }
        map.end()
    }
}

/// What a client declared it can do (`ClientCapabilities`), as far as this server cares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientCapabilities {
    /// The elicitation modes, if it declared elicitation.
    pub elicitation: Option<ElicitationModes>,
    /// Whether it declared the tasks extension.
    pub tasks: bool,
}

impl Serialize for ClientCapabilities {
    /// `{"elicitation": {…}, "extensions": {"io.modelcontextprotocol/tasks": {}}}`, each part
    /// when declared.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(modes) = &self.elicitation {
            map.serialize_entry("elicitation", modes)?;
        }
        if self.tasks {
            map.serialize_entry("extensions", &Extensions { tasks: Empty {} })?;
        }
        map.end()
    }
}

impl ClientCapabilities {
    /// Reads a `ClientCapabilities` object; `elicitation: {}` means forms only.
    pub(crate) fn read(capabilities: &Value) -> Self {
        let elicitation = capabilities
            .get("elicitation")
            .and_then(Value::as_object)
            .map(|modes| {
                if modes.is_empty() {
                    ElicitationModes {
                        form: true,
                        url: false,
                    }
                } else {
                    ElicitationModes {
                        form: modes.contains_key("form"),
                        url: modes.contains_key("url"),
                    }
                }
            });
        let tasks = capabilities
            .get("extensions")
            .and_then(|e| e.get(TASKS_EXTENSION))
            .is_some();
        Self { elicitation, tasks }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_empty_elicitation_capability_means_forms_only() {
        let caps = ClientCapabilities::read(&json!({"elicitation": {}}));
        assert_eq!(
            caps.elicitation,
            Some(ElicitationModes {
                form: true,
                url: false
            })
        );
        let caps = ClientCapabilities::read(&json!({"elicitation": {"url": {}}}));
        assert_eq!(
            caps.elicitation,
            Some(ElicitationModes {
                form: false,
                url: true
            })
        );
        assert_eq!(
            ClientCapabilities::read(&json!({"elicitation": true})).elicitation,
            None
        );
    }

    #[test]
    fn the_tasks_extension_is_declared_under_extensions() {
        let caps = ClientCapabilities::read(&json!({"extensions": {TASKS_EXTENSION: {}}}));
        assert!(caps.tasks);
        assert!(!ClientCapabilities::read(&json!({})).tasks);
    }

    #[test]
    fn discover_lists_every_version_stateless_first_with_the_server_info() {
        let value = serde_json::to_value(DISCOVER).expect("serializes");
        assert_eq!(
            value["supportedVersions"],
            json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
        );
        assert_eq!(
            value["capabilities"]["extensions"][TASKS_EXTENSION],
            json!({})
        );
        assert_eq!(
            value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "perplexity-computer-mock"
        );
    }
}
