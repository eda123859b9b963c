//! The ground floor every surface stands on: server-sent events, the small encodings (base64,
//! URL percent-encoding, HTML escaping and the human-page template), SHA-256 and bearer
//! authentication.
//!
//! Nothing here knows a wire shape: each surface (the Computer MCP endpoint, the Agent API, the
//! OAuth server, the control pages) turns what these give it into its own answers.

pub(crate) mod auth;
pub(crate) mod encoding;
pub(crate) mod sha256;
pub(crate) mod sse;
