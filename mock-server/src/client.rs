//! Clients for a test to talk to its mock in a line: [`McpSession`] (the Computer MCP endpoint,
//! handshake done) and [`AgentClient`] (the Agent API), the built-in accounts' tokens, and the
//! PKCE helper a test's own OAuth client needs.
//!
//! Both clients are plain HTTP on reqwest against the mock's socket, the way a real client
//! talks to it: every request they send is in the journal, and the expectations
//! ([`Expectation`](crate::Expectation)) see them like any other client's.

mod agent_api;
mod error;
mod mcp;
mod tokens;

pub use agent_api::AgentClient;
pub use error::ClientError;
pub use mcp::{McpSession, McpSessionBuilder, ToolResult};
pub use tokens::{ALICE_DEV_TOKEN, BOB_DEV_TOKEN};

/// The PKCE S256 code challenge of `verifier`: `BASE64URL(SHA256(verifier))` without padding
/// (RFC 7636 §4.2), the value the mock's token endpoint checks. For a test client's sign-in.
///
/// ```
/// // RFC 7636, Appendix B.
/// let challenge = mock_server::pkce_s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
/// assert_eq!(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
/// ```
pub fn pkce_s256_challenge(verifier: &str) -> String {
    crate::oauth::pkce::s256_challenge(verifier)
}
