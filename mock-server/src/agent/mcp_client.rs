//! A real MCP client over Streamable HTTP, for the Agent API's `mcp` tool and custom connectors.
//!
//! The Agent API discovers a remote server's tools when a run starts and calls them when the
//! model does, so the mock connects for real: `initialize` (offering [`PROTOCOL_VERSION`]),
//! `notifications/initialized`, then `tools/list` (following `nextCursor`) or `tools/call`, with
//! the `Mcp-Session-Id` the server hands out and the negotiated `MCP-Protocol-Version` on every
//! later request. Answers may be plain JSON or an SSE stream. Each operation opens its own
//! session and ends it with `DELETE`, because an approved call must run with the credentials of
//! the request that approved it, not of the one that proposed it.
//!
//! The `mcp` tool takes Streamable HTTP only, while custom connectors also take the legacy
//! HTTP+SSE transport; a client made with [`McpClient::allowing_legacy_sse`] falls back to it
//! the way the MCP backwards-compatibility rules say: when POSTing `initialize` fails with a 4xx,
//! it GETs the URL for an SSE stream whose first `endpoint` event says where to POST messages,
//! and reads the answers from that stream.
//!
//! Time limits are wall-clock, measured on a watchdog thread instead of tokio timers: the mock
//! often runs on a paused tokio clock (its own tests, and tests that embed it), where a tokio
//! timer fires as soon as the runtime has nothing to do but wait on the network.
//!
//! - `session`: the client and one session over Streamable HTTP;
//! - `legacy`: the legacy HTTP+SSE transport;
//! - `model`: versions, servers, tools, call outcomes, time limits;
//! - `jsonrpc`: the messages the client writes;
//! - `error`: why talking to a server failed;
//! - `server_request`, `deadline`: answering a server's requests, wall-clock limits.
//!
//! Streams are read with the crate's one SSE parser, `crate::http::sse::Parser`.

mod deadline;
mod error;
mod jsonrpc;
mod legacy;
mod model;
mod server_request;
mod session;

pub(crate) use model::{RemoteServer, RemoteTool};
pub(crate) use session::McpClient;

// The tests reach the pieces below through `use super::*`.
#[cfg(test)]
use error::McpClientError;
#[cfg(test)]
use model::{PROTOCOL_VERSION, Timeouts};
#[cfg(test)]
use reqwest::header::{self, HeaderValue};
#[cfg(test)]
use session::base_headers;
#[cfg(test)]
use std::time::Duration;

#[cfg(test)]
mod tests;
