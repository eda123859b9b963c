//! The Streamable HTTP transport's own header names, each built once. A lookup by a `&str`
//! name parses and checks the name again on every request.

use axum::http::HeaderName;

/// `Mcp-Session-Id`: the session a handshake-era request belongs to.
pub(crate) const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(crate) const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`: a 2026-07-28 request's method, for routing.
pub(crate) const METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`: a 2026-07-28 request's tool, resource or task, for routing.
pub(crate) const NAME: HeaderName = HeaderName::from_static("mcp-name");
