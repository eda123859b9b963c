//! A faithful, scriptable mock of Perplexity Computer's MCP server and of the Agent API, on a
//! virtual clock.
//!
//! Start one in a test with [`MockServer::start`] or [`MockServer::builder`] (scenarios
//! written in the test with [`MockServerBuilder::scenario_json`], a world of accounts with
//! [`MockServerBuilder::world_json`], a clock that moves only when the test or the client moves
//! it), talk to it with [`MockServer::mcp_session`] (the Computer MCP endpoint, handshake
//! done) or [`MockServer::agent_client`] (the Agent API), or point your own client at
//! [`MockServer::mcp_url`] / [`MockServer::uri`] with [`ALICE_DEV_TOKEN`]. State what the
//! client must do with [`MockServer::expect`]: a mock dropped with an [`Expectation`] unmet
//! panics and shows the journal. Every exchange is in [`MockServer::journal`].
//!
//! ```
//! use std::time::Duration;
//!
//! use mock_server::{Expectation, MockServer};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Arrange: time follows the client, so a two-minute wait takes no real time.
//! let mock = MockServer::builder().driven_clock(Duration::from_secs(60)).start().await?;
//! // After a `timeout` the client must read the thread, and never start it again.
//! mock.expect(Expectation::tool_call("read_thread").after_event("timeout"));
//! mock.expect(Expectation::tool_call("call_perplexity_computer").times(1));
//!
//! // Act: what a well-behaved client does with `#timeout-then-complete`.
//! let session = mock.mcp_session().await?;
//! let started = session.call_computer("#timeout-then-complete Summarize Hacker News").await?;
//! assert_eq!(started["event"], "timeout");
//! let thread = started["thread_id"].as_str().ok_or("a thread id")?;
//! let read = session.read_thread(thread).await?;
//!
//! // Assert: the task finished; the expectations are checked when `mock` drops.
//! assert_eq!(read["web_state"]["task_status"], "completed");
//! # Ok(()) }
//! ```
//!
//! The Agent API on a manual clock, asserting on what the client sent:
//!
//! ```
//! use std::time::Duration;
//!
//! use serde_json::json;
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
//! let agent = mock.agent_client();
//! let created = agent
//!     .create(json!({
//!         "model": "openai/gpt-5.6-terra",
//!         "input": "#weekly-digest What happened this week?",
//!         "background": true,
//!     }))
//!     .await?;
//! assert_eq!(created["status"], "queued");
//!
//! // Nothing moves until the test moves the clock past the queue and the minute of thought.
//! mock.clock().advance(Duration::from_secs(90));
//! let id = created["id"].as_str().ok_or("an id")?;
//! let events = agent.events(id).await?;
//! assert_eq!(events.last().ok_or("events")?["type"], "response.completed");
//! assert!(events.iter().any(|e| e.to_string().contains("Three things happened this week.")));
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
//! Without a socket, [`MockServer::builder`]`.router(base_url)` gives the axum
//! [`Router`](axum::Router) to drive with `tower::ServiceExt::oneshot`, and a [`MockHandle`]
//! with the same accessors. The crate's documentation (`docs/embedding.md`) walks through
//! both.
//!
//! The public API, in one place:
//!
//! - the mock: [`MockServer`], [`MockServerBuilder`], [`MockHandle`], [`Error`] (why it did
//!   not start), [`FixtureError`];
//! - talking to it: [`McpSession`] ([`McpSessionBuilder`], [`ToolResult`]), [`AgentClient`],
//!   [`ClientError`], [`ALICE_DEV_TOKEN`], [`BOB_DEV_TOKEN`], [`pkce_s256_challenge`];
//! - checking the client: [`Expectation`], [`Times`], the [`journal`] ([`Journal`],
//!   [`Exchange`], [`journal::normalize`] for snapshots);
//! - time: [`Clock`], [`ClockMode`], [`ClockError`];
//! - fixtures and accounts: [`fixtures`], [`world`];
//! - protocol facts a client or a rule needs: [`MCP_PATH`], [`AGENT_PATH`], the OAuth paths,
//!   [`HANDSHAKE_VERSIONS`], [`LATEST_HANDSHAKE_VERSION`], [`MODERN_VERSION`], [`TOOL_NAMES`],
//!   [`form_content_problem`], [`fingerprint`], [`percent_encode`], [`percent_decode`].

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
mod faults;
pub mod fixtures;
mod handle;
mod http;
pub mod journal;
mod limits;
mod oauth;
pub mod record;
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
pub use computer::model;
pub use computer::{
    HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSION, TOOL_NAMES, form_content_problem,
};
pub use config::{DEFAULT_ACCESS_TOKEN_LIFETIME, DEFAULT_CALL_WAIT, Eras};
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
