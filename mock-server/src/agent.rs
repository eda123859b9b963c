//! The Agent API surface. This minimal version declares the modules agent-mcp delivers first;
//! agent-core's engine (routes, runs, wire types) replaces it and keeps these lines.

pub mod approval;
pub mod connectors;
pub mod mcp_client;
