//! The twelve Computer tools: their `tools/list` entries (schemas from the document's parameter
//! tables, one file per group: `task`, `thread`, `account`) and the calls, each a service
//! command.
//!
//! Arguments are validated against the tool's input schema first; a bad argument is a tool result
//! with `isError: true` naming the argument (MCP 2025-11-25, SEP-1303), never a protocol error.
//! `call_perplexity_computer` and `notify_connected` declare no `outputSchema`: they can answer
//! the out-of-credits result, which has no `structuredContent`, and strict clients (the Python
//! and TypeScript SDKs) reject a missing `structuredContent` when a schema is declared.

mod account;
mod catalog;
mod schema;
mod task;
mod thread;

pub use catalog::TOOL_NAMES;
pub(crate) use catalog::{arguments, call, catalog, catalog_for};
