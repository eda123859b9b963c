//! The Computer MCP surface's wire types, as serde types: JSON-RPC messages and the one error
//! type, protocol versions, what the lifecycle methods answer, and the tools' arguments.
//!
//! Behaviour speaks in these types; the transports turn them into bytes once, at the edge.

pub(crate) mod arguments;
pub(crate) mod jsonrpc;
pub(crate) mod lifecycle;
pub(crate) mod version;
