//! The Computer MCP surface's wire types, as serde types: JSON-RPC messages and the one error
//! type, protocol versions, what the lifecycle methods answer, the tools' arguments and
//! results, and elicitation (in-call and MRTR).
//!
//! Behaviour speaks in these types; the transports turn them into bytes once, at the edge.
//!
//! Public as `mock_server::model`, so that a client (the conformance suite's reference client,
//! an embedder's test) writes the requests the server reads, and names the results' values, in
//! the same types: a request is a [`request::JsonRpcRequest`] whose [`request::ClientRequest`]
//! carries typed params, a tool is a [`tools::ToolName`] called with its [`arguments`].

#![warn(missing_docs)]

pub mod arguments;
pub mod content;
pub mod elicitation;
pub(crate) mod error;
pub(crate) mod incoming;
pub mod jsonrpc;
pub mod lifecycle;
pub mod listings;
pub(crate) mod outgoing;
pub(crate) mod params;
pub mod request;
pub mod results;
pub mod tasks;
pub mod tools;
pub mod version;
