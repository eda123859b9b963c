//! [`MockServer`]: a mock serving on a loopback socket in the background of the caller's tokio
//! runtime, until it is dropped.

use std::net::SocketAddr;

use tokio::sync::oneshot;

use crate::builder::{Bound, MockServerBuilder};
use crate::clock::Clock;
use crate::error::Error;
use crate::handle::MockHandle;
use crate::journal::Journal;
use crate::serve;

impl MockServerBuilder {
    /// Binds the listener and serves in the background on the current tokio runtime.
    pub async fn start(self) -> Result<MockServer, Error> {
        let Bound {
            listener,
            address,
            state,
            connections,
        } = self.bind().await?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve::serve(listener, state.app(), connections, stopped));
        Ok(MockServer {
            address,
            handle: MockHandle::new(state),
            stop: Some(stop),
            task,
        })
    }
}

/// A running mock; stops when dropped.
pub struct MockServer {
    address: SocketAddr,
    handle: MockHandle,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl MockServer {
    /// A builder with the defaults (listening on `127.0.0.1:0`, real time).
    pub fn builder() -> MockServerBuilder {
        MockServerBuilder::default().listen("127.0.0.1:0")
    }

    /// Starts a mock with the defaults.
    pub async fn start() -> Result<Self, Error> {
        Self::builder().start().await
    }

    /// The socket address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Clock, journal and world.
    pub fn handle(&self) -> &MockHandle {
        &self.handle
    }

    /// The base URL (`http://127.0.0.1:PORT`).
    pub fn uri(&self) -> &str {
        self.handle.uri()
    }

    /// The MCP endpoint URL (`http://127.0.0.1:PORT/rest/computer/mcp`).
    ///
    /// A Computer scenario written in the test, driven with raw JSON-RPC POSTs:
    ///
    /// ```
    /// use serde_json::{Value, json};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     // Thirty virtual seconds pass in 0.3 real seconds (a call waits up to 1.2 s).
    ///     .time_scale(100.0)
    ///     .scenario_json(
    ///         r#"{"name": "quick", "description": "Searches, then answers.", "turns": [{
    ///             "steps": [{"title": "Searching the web", "type": "search_web", "duration": "30s"}],
    ///             "outcome": {"event": "complete", "text": "Here is the summary."}}]}"#,
    ///     )?
    ///     .start()
    ///     .await?;
    /// let http = reqwest::Client::new();
    /// let post = |body: Value, session: Option<&str>| {
    ///     let mut request = http
    ///         .post(mock.mcp_url())
    ///         .bearer_auth("alice-dev-token")
    ///         .header("accept", "application/json, text/event-stream")
    ///         .json(&body);
    ///     if let Some(session) = session {
    ///         request = request.header("mcp-session-id", session);
    ///     }
    ///     request.send()
    /// };
    /// let init = post(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    ///     "protocolVersion": "2025-11-25", "capabilities": {},
    ///     "clientInfo": {"name": "my-client", "version": "1"}}}), None).await?;
    /// let session = init.headers()["mcp-session-id"].to_str()?.to_owned();
    /// post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), Some(&session)).await?;
    /// let call: Value = post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
    ///     "name": "call_perplexity_computer",
    ///     "arguments": {"message": "#quick Summarize this week"}}}), Some(&session))
    ///     .await?
    ///     .json()
    ///     .await?;
    /// let result = &call["result"]["structuredContent"];
    /// assert_eq!(result["event"], "complete");
    /// assert_eq!(result["text"], "Here is the summary.");
    /// assert_eq!(mock.journal().exchanges().len(), 3);
    /// # Ok(()) }
    /// ```
    pub fn mcp_url(&self) -> String {
        self.handle.mcp_url()
    }

    /// The Agent API endpoint URL (`http://127.0.0.1:PORT/v1/agent`).
    pub fn agent_url(&self) -> String {
        self.handle.agent_url()
    }

    /// Every exchange so far.
    pub fn journal(&self) -> &Journal {
        self.handle.journal()
    }

    /// The virtual clock: `clock().now()`, and on a [manual clock](MockServerBuilder::manual_clock)
    /// `clock().advance(duration)` to move it.
    pub fn clock(&self) -> &Clock {
        self.handle.clock()
    }

    /// Serves until the task ends (for the binary).
    pub async fn wait(mut self) {
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
