//! The reference client: a hand-written MCP client on reqwest (handshake era here, 2026-07-28 in
//! `modern`) that follows every rule, and with `--break RULE_ID` breaks exactly that one, to prove
//! each check can fail.
//!
//! It plays the host: it asks the user channel (`CONFORMANCE_USER_URL`) for messages, answers
//! and sign-ins, and reports what it shows the user.

mod account;
mod agent;
mod agent_conversation;
mod handshake;
mod modern;
mod oauth;
mod options;
mod pace;
mod retry;
mod session;
mod sonar;
mod wire;

use crate::error::ClientError;
pub use options::{ClientOptions, break_points_reached};

/// Runs the reference client to the end of the user's script.
pub async fn run(options: ClientOptions) -> Result<(), ClientError> {
    pace::set_delay(options.delay);
    // An Agent API scenario: the client speaks `/v1/responses`, not MCP.
    let context: serde_json::Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default();
    if context.get("suite").and_then(serde_json::Value::as_str) == Some("agent") {
        return agent::run(options, &context).await;
    }
    if context.get("suite").and_then(serde_json::Value::as_str) == Some("sonar") {
        return sonar::run(options).await;
    }
    if options.protocol_version == mock_server::MODERN_VERSION {
        return modern::run(options).await;
    }
    handshake::run(options).await
}
