//! A faithful, scriptable mock of Perplexity Computer's MCP server and of the Agent API, on a
//! virtual clock.
//!
//! Start one in a test with [`MockServer::start`] or [`MockServer::builder`], give it scenarios
//! written in the test ([`MockServerBuilder::scenario_json`]) or a world of accounts
//! ([`MockServerBuilder::world_json`]), point your client at [`MockServer::mcp_url`] (Computer,
//! MCP) or [`MockServer::agent_url`] (the Agent API; SDKs take [`MockServer::uri`] as their base
//! URL), move time with [`MockServer::clock`], and read every exchange from
//! [`MockServer::journal`]:
//!
//! ```
//! use std::time::Duration;
//!
//! use serde_json::{Value, json};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Arrange: a scenario written here, on a clock that moves only when the test moves it.
//! let mock = mock_server::MockServer::builder()
//!     .manual_clock()
//!     .scenario_json(
//!         r#"{
//!             "name": "weekly-digest",
//!             "description": "Thinks for a minute, then answers.",
//!             "agent": {"turns": [{"steps": [
//!                 {"type": "reasoning", "thought": "Reading the week's news", "duration": "1m"},
//!                 {"type": "message", "text": "Three things happened this week."}
//!             ]}]}
//!         }"#,
//!     )?
//!     .start()
//!     .await?;
//!
//! // Act: a client starts a background response; `#weekly-digest` picks the scenario.
//! let http = reqwest::Client::new();
//! let created: Value = http
//!     .post(mock.agent_url())
//!     .bearer_auth("alice-dev-token")
//!     .json(&json!({
//!         "model": "openai/gpt-5.6-terra",
//!         "input": "#weekly-digest What happened this week?",
//!         "background": true,
//!     }))
//!     .send()
//!     .await?
//!     .json()
//!     .await?;
//! assert_eq!(created["status"], "queued");
//!
//! // Nothing moves until the test moves the clock past the queue and the minute of thought.
//! mock.clock().advance(Duration::from_secs(90));
//! let id = created["id"].as_str().unwrap_or_default();
//! let events = http
//!     .get(format!("{}/{id}?stream=true&starting_after=-1", mock.agent_url()))
//!     .bearer_auth("alice-dev-token")
//!     .send()
//!     .await?
//!     .text()
//!     .await?;
//! assert!(events.contains(r#""type":"response.completed""#));
//! assert!(events.contains("Three things happened this week."));
//!
//! // Assert on what the client sent: every exchange is in the journal, in order.
//! let seen: Vec<(String, String, u16)> = mock
//!     .journal()
//!     .exchanges()
//!     .into_iter()
//!     .map(|e| (e.method, e.path, e.status))
//!     .collect();
//! assert_eq!(seen[0], ("POST".to_owned(), "/v1/agent".to_owned(), 200));
//! assert_eq!(seen[1], ("GET".to_owned(), format!("/v1/agent/{id}"), 200));
//! # Ok(()) }
//! ```
//!
//! Without a socket, [`MockServer::builder`]`.router(base_url)` gives the axum [`Router`](axum::Router) to
//! drive with `tower::ServiceExt::oneshot`, and a [`MockHandle`] with the same accessors.
//! The crate's documentation (`docs/embedding.md`) walks through both.

mod agent;
mod app;
mod builder;
mod client;
mod clock;
mod computer;
mod config;
mod control;
mod error;
mod expect;
pub mod fixtures;
mod handle;
mod http;
pub mod journal;
mod limits;
mod oauth;
mod serve;
mod server;
mod sonar;
mod state;
pub mod world;

pub use builder::MockServerBuilder;
pub use client::{
    ALICE_DEV_TOKEN, AgentClient, BOB_DEV_TOKEN, ClientError, McpSession, McpSessionBuilder,
    ToolResult, pkce_s256_challenge,
};
pub use clock::{Clock, ClockError, ClockMode};
pub use computer::{
    HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSION, TOOL_NAMES, form_content_problem,
};
pub use config::{DEFAULT_ACCESS_TOKEN_LIFETIME, DEFAULT_CALL_WAIT};
pub use error::{Error, FixtureError, FixtureErrorKind};
pub use expect::{Expectation, Times};
pub use fixtures::Catalog;
pub use handle::{AGENT_PATH, MockHandle};
pub use http::encoding::{percent_decode, percent_encode};
pub use journal::{
    Exchange, Journal, JournalConfig, JournalGap, JournalQuery, JournalStats, SseRecord,
    StatusFilter, WaitError, fingerprint,
};
pub use limits::StateLimits;
pub use oauth::{AUTHORIZE_PATH, AuthMode, MCP_PATH, REGISTER_PATH, TOKEN_PATH};
pub use serve::ConnectionLimits;
pub use server::MockServer;
pub use world::World;
