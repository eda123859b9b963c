//! Drives any Perplexity Computer MCP client through scripted scenarios and judges it, rule by
//! rule, against the follow-up rules of the Computer MCP document.
//!
//! The pieces, one module per concern (imports point down this list):
//! - [`judge`]: the checks as a library, for a Rust client's own tests (start there);
//! - [`runner`]: per scenario, a fresh in-process mock, the user channel, and the target process;
//! - [`report`]: pretty, JSON, JUnit, Markdown and GitHub output, and the expected-failures
//!   baseline;
//! - [`traceability`]: every duty of the documents, with the rules that judge it;
//! - [`rules`]: the rule registry (one file per family, ids in [`rules::ids`]);
//! - [`check`]: what the runner produces and the reports read (outcomes, checks, results);
//! - [`transcript`]: the observations the rules read, built from a journal;
//! - [`profile`]: the optional features a client claims (`--client-supports`);
//! - [`suite`]: the scenarios and the groups rules name;
//! - [`reference_client`]: the client that follows every rule and can break any one on purpose.
//!
//! Judging your own client from a Rust test: a mock in-process playing the suite's `follow-up`
//! scenario as written in the test, the client's requests (raw JSON-RPC here, where yours
//! would call your client), and a judgement of the scenario's rules over the mock's journal:
//!
//! ```
//! use serde_json::{Value, json};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Arrange: `follow-up`, short, on a clock running a thousand times real time.
//! let mock = mock_server::MockServer::builder()
//!     .time_scale(1000.0)
//!     .scenario_json(
//!         r#"{"name": "follow-up", "description": "A summary, then a report.", "turns": [
//!             {"steps": [{"title": "Reading", "type": "browse", "duration": "10s"}],
//!              "outcome": {"event": "complete", "text": "Five stories."}},
//!             {"steps": [{"title": "Writing", "type": "write", "duration": "10s"}],
//!              "outcome": {"event": "complete", "text": "Here is the report."}}]}"#,
//!     )?
//!     .start()
//!     .await?;
//!
//! // Act: the client's session, two messages, the second on the first's thread.
//! let http = reqwest::Client::new();
//! let mut session: Option<String> = None;
//! let mut send = async |body: Value| -> Result<Value, Box<dyn std::error::Error>> {
//!     let mut request = http
//!         .post(mock.mcp_url())
//!         .bearer_auth(conformance::suite::BEARER_TOKEN)
//!         .header("accept", "application/json, text/event-stream")
//!         .json(&body);
//!     if let Some(id) = &session {
//!         request = request
//!             .header("mcp-session-id", id)
//!             .header("mcp-protocol-version", conformance::suite::PROTOCOL_VERSION);
//!     }
//!     let response = request.send().await?;
//!     if let Some(id) = response.headers().get("mcp-session-id") {
//!         session = Some(id.to_str()?.to_owned());
//!     }
//!     if body.get("id").is_none() {
//!         return Ok(Value::Null); // a notification: 202, no body
//!     }
//!     // A call with a progress token streams its progress as SSE; the answer is the last event.
//!     let text = response.text().await?;
//!     let answer = text.lines().filter_map(|l| l.strip_prefix("data: ")).last();
//!     Ok(serde_json::from_str(answer.unwrap_or(&text))?)
//! };
//! send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
//!     "protocolVersion": conformance::suite::PROTOCOL_VERSION, "capabilities": {},
//!     "clientInfo": {"name": "my-client", "version": "1"}}})).await?;
//! send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await?;
//! let first = send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
//!     "name": "call_perplexity_computer", "_meta": {"progressToken": 2},
//!     "arguments": {"message": "Summarize the top 5 stories on Hacker News right now."}}}))
//!     .await?;
//! let thread = first["result"]["structuredContent"]["thread_id"].clone();
//! send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
//!     "name": "call_perplexity_computer", "_meta": {"progressToken": 3},
//!     "arguments": {"message": "Turn that into a PDF report.", "thread_id": thread}}}))
//!     .await?;
//!
//! // Assert: every rule `follow-up` exercises held; a failure quotes the rule and the exchanges.
//! conformance::judge("follow-up", mock.journal())?.assert_holds();
//! # Ok(()) }
//! ```
//!
//! The `conformance` command runs the whole suite the same way ([`runner::run_suite`]), each
//! scenario on a fresh mock with the scripted user of [`runner::Stage`].

pub mod check;
pub mod error;
pub mod judge;
pub mod profile;
pub mod reference_client;
pub mod report;
pub mod rules;
pub mod runner;
pub mod suite;
pub mod traceability;
pub mod transcript;

pub use error::Error;
pub use judge::{Judgement, judge, judge_transcript};
