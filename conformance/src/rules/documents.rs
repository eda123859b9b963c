//! The documents rules quote, by their public titles (what a client author can look up).

/// The Computer document, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const COMPUTER_DOC: &str = "Perplexity Computer MCP Server";
/// The MCP specification (lifecycle and transport), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const MCP_SPEC: &str = "MCP specification 2025-11-25";
/// The MCP specification of the stateless era (MRTR, elicitation), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const MCP_SPEC_MODERN: &str = "MCP specification 2026-07-28";
/// The Agent API `mcp` tool document (approvals, ZDR), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const AGENT_MCP_DOC: &str = "Agent API, MCP tool";
/// The Agent API Connectors document, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const AGENT_CONNECTORS_DOC: &str = "Agent API, Connectors";
/// The Agent API guide to background runs (polling, cancel, resuming a stream), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const AGENT_BACKGROUND_DOC: &str = "Agent API, Background mode";
/// The tasks extension (SEP-2663), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const TASKS_SPEC: &str = "MCP Tasks extension (SEP-2663)";
/// The MCP specification's authorization chapter, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const MCP_AUTH_SPEC: &str = "MCP specification 2025-11-25, Authorization";
/// HTTP Semantics (RFC 9110: `Retry-After`, idempotent methods), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const HTTP_SEMANTICS: &str = "RFC 9110, HTTP Semantics";
/// Perplexity's cookbook article on citations in a streamed answer, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const STREAMING_CITATIONS_DOC: &str = "Perplexity API cookbook, Streaming citations";
/// The official Python SDK's README (`perplexityai`: retries, errors), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const PYTHON_SDK_DOC: &str = "perplexityai Python SDK README";
