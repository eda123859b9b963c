//! The ground floor every surface stands on: server-sent events, the small encodings (base64,
//! URL percent-encoding, HTML escaping and the human-page template), SHA-256, bearer
//! authentication, reading request bodies up to a limit and the guard against other sites'
//! pages (DNS rebinding, simple-request CSRF).
//!
//! Nothing here knows a wire shape or a surface: each surface (the Computer MCP endpoint, the
//! Agent API, the OAuth server, the control pages) turns what these give it into its own
//! answers.

pub(crate) mod auth;
pub(crate) mod body;
pub(crate) mod encoding;
pub(crate) mod origin;
pub(crate) mod sha256;
pub(crate) mod shape;
pub(crate) mod sse;
