//! The Computer MCP surface's wire types, as serde types: JSON-RPC messages and the one error
//! type, protocol versions, what the lifecycle methods answer, the tools' arguments and
//! results, and elicitation (in-call and MRTR).
//!
//! Behaviour speaks in these types; the transports turn them into bytes once, at the edge.

pub(crate) mod arguments;
pub(crate) mod content;
pub(crate) mod elicitation;
pub(crate) mod error;
pub(crate) mod incoming;
pub mod jsonrpc;
pub mod lifecycle;
pub(crate) mod listings;
pub(crate) mod outgoing;
pub(crate) mod params;
pub mod request;
pub(crate) mod results;
pub(crate) mod tasks;
pub mod tools;
pub mod version;
