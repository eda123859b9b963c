//! The documents rules quote, by the name the reports give them.

/// The computer document, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const COMPUTER_DOC: &str = "computer-mcp-server.txt";
/// The MCP specification (lifecycle and transport), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const MCP_SPEC: &str = "MCP specification 2025-11-25";
/// The MCP specification of the stateless era (MRTR, elicitation), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const MCP_SPEC_MODERN: &str = "MCP specification 2026-07-28 (mcp-wire.md)";
/// The Agent API `mcp` tool document (approvals, ZDR), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const AGENT_MCP_DOC: &str = "agent-api-mcp-tool.txt";
/// The Agent API Connectors document, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const AGENT_CONNECTORS_DOC: &str = "agent-api-connectors.txt";
/// Documented facts gathered in the Agent API wire reference, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const AGENT_WIRE_DOC: &str =
    "agent-api-wire.md (a documented fact, not a product document)";
/// The tasks extension (SEP-2663), for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const TASKS_SPEC: &str = "MCP Tasks extension SEP-2663 (mcp-wire.md)";
/// The MCP specification's authorization chapter, for [`DocRef::document`](crate::check::DocRef::document).
pub(crate) const MCP_AUTH_SPEC: &str = "MCP specification 2025-11-25, Authorization";
