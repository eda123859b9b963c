//! [`MockServer`]: a mock serving on a loopback socket in the background of the caller's tokio
//! runtime, until it is dropped; then it checks the expectations given to it.

use std::net::SocketAddr;

use tokio::sync::oneshot;

use crate::builder::{Bound, MockServerBuilder};
use crate::client::{ALICE_DEV_TOKEN, AgentClient, ClientError, McpSession};
use crate::clock::Clock;
use crate::error::Error;
use crate::expect::Expectation;
use crate::handle::MockHandle;
use crate::journal::Journal;
use crate::serve;

impl MockServerBuilder {
    /// Binds the listener and serves in the background on the current tokio runtime (so a
    /// paused tokio clock is the mock's too).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().manual_clock().start().await?;
    /// assert!(mock.address().ip().is_loopback());
    /// let taken = mock_server::MockServer::builder().listen(mock.address().to_string()).start().await;
    /// assert!(matches!(taken, Err(mock_server::Error::Bind { .. })));
    /// # Ok(()) }
    /// ```
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

/// A running mock on a loopback port. It stops when dropped, and then panics if an
/// [expectation](Self::expect) is unmet (unless the thread is already panicking), showing the
/// journal.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::start().await?;
/// let session = mock.mcp_session().await?;
/// assert_eq!(session.list_tools().await?.len(), mock_server::TOOL_NAMES.len());
/// assert_eq!(mock.journal().exchanges().len(), 3);
/// # Ok(()) }
/// ```
pub struct MockServer {
    address: SocketAddr,
    handle: MockHandle,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl MockServer {
    /// A builder with the defaults: listening on `127.0.0.1:0` (a free port), virtual time at
    /// the speed of real time from 2026-10-24T00:11:18Z, the built-in scenarios and accounts.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .manual_clock()
    ///     .scenario("timeout-then-complete")
    ///     .start()
    ///     .await?;
    /// assert_eq!(mock.handle().catalog().fallback(), "timeout-then-complete");
    /// # Ok(()) }
    /// ```
    pub fn builder() -> MockServerBuilder {
        MockServerBuilder::default().listen("127.0.0.1:0")
    }

    /// Starts a mock with the defaults ([`builder`](Self::builder)`.start()`).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// assert!(mock.uri().starts_with("http://127.0.0.1:"));
    /// # Ok(()) }
    /// ```
    pub async fn start() -> Result<Self, Error> {
        Self::builder().start().await
    }

    /// The socket address it listens on.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// assert_eq!(mock.uri(), format!("http://{}", mock.address()));
    /// # Ok(()) }
    /// ```
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The handle: the same URLs, clock, journal and expectations, plus the world and the
    /// catalog; cheap to clone and hand to other tasks.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// assert_eq!(mock.handle().world().credits("alice"), 10_000);
    /// assert_eq!(mock.handle().mcp_url(), mock.mcp_url());
    /// # Ok(()) }
    /// ```
    pub fn handle(&self) -> &MockHandle {
        &self.handle
    }

    /// The base URL (`http://127.0.0.1:PORT`); what the Agent API SDKs take as their base URL.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().manual_clock().start().await?;
    /// let clock: serde_json::Value =
    ///     reqwest::get(format!("{}/_mock/clock", mock.uri())).await?.json().await?;
    /// assert_eq!(clock["now"], "2026-10-24T00:11:18.000Z");
    /// # Ok(()) }
    /// ```
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
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// assert_eq!(mock.agent_url(), format!("{}/v1/agent", mock.uri()));
    /// # Ok(()) }
    /// ```
    pub fn agent_url(&self) -> String {
        self.handle.agent_url()
    }

    /// Every exchange so far, in order ([`Journal`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// mock.mcp_session().await?;
    /// let first = &mock.journal().exchanges()[0];
    /// assert_eq!((first.method.as_str(), first.status), ("POST", 200));
    /// assert_eq!(first.request_body["method"], "initialize");
    /// # Ok(()) }
    /// ```
    pub fn journal(&self) -> &Journal {
        self.handle.journal()
    }

    /// The virtual clock: `clock().now()`, and `clock().advance(duration)` to move it (on a
    /// [manual clock](MockServerBuilder::manual_clock) nothing else moves it).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().manual_clock().start().await?;
    /// mock.clock().advance(Duration::from_secs(3600));
    /// let passed = mock.clock().now() - mock_server::Clock::fixed_epoch();
    /// assert_eq!(passed.num_hours(), 1);
    /// # Ok(()) }
    /// ```
    pub fn clock(&self) -> &Clock {
        self.handle.clock()
    }

    /// A connected MCP session with the mock's Computer endpoint, as alice
    /// ([`ALICE_DEV_TOKEN`](crate::ALICE_DEV_TOKEN)) on protocol 2025-11-25: the handshake is
    /// done. For another token or version, use
    /// [`McpSession::builder`]`(mock.mcp_url())`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let session = mock.mcp_session().await?;
    /// let started = session.call_computer("#timeout-then-complete Summarize Hacker News").await?;
    /// assert_eq!(started["event"], "timeout");
    /// let thread = started["thread_id"].as_str().ok_or("a thread id")?;
    /// let read = session.read_thread(thread).await?;
    /// assert_eq!(read["web_state"]["task_status"], "completed");
    /// # Ok(()) }
    /// ```
    pub async fn mcp_session(&self) -> Result<McpSession, ClientError> {
        McpSession::builder(self.mcp_url()).connect().await
    }

    /// A client of the mock's Agent API with alice's key
    /// ([`ALICE_DEV_TOKEN`](crate::ALICE_DEV_TOKEN)); [`AgentClient::new`] takes another.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let response = mock
    ///     .agent_client()
    ///     .create(serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "Say hello"}))
    ///     .await?;
    /// assert_eq!(response["object"], "response");
    /// assert_eq!(mock.handle().agent_responses(), 1);
    /// # Ok(()) }
    /// ```
    pub fn agent_client(&self) -> AgentClient {
        AgentClient::new(self.uri(), ALICE_DEV_TOKEN)
    }

    /// Adds an expectation on what the client sends, checked by [`verify`](Self::verify) and
    /// when the mock is dropped.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mock_server::{Expectation, MockServer};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = MockServer::builder().driven_clock(Duration::from_secs(60)).start().await?;
    /// mock.expect(Expectation::tool_call("call_perplexity_computer").times(1));
    /// mock.mcp_session().await?.call_computer("#complete Summarize Hacker News").await?;
    /// # Ok(()) }
    /// // Dropped here: the expectation holds, so nothing panics.
    /// ```
    pub fn expect(&self, expectation: Expectation) {
        self.handle.expect(expectation);
    }

    /// Panics unless every expectation given so far holds over the journal, as the drop does;
    /// for a check in the middle of a test.
    ///
    /// ```should_panic
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// mock.expect(mock_server::Expectation::tool_call("read_thread").times(1));
    /// mock.mcp_session().await?;
    /// mock.verify(); // panics: `read_thread` called: wanted exactly 1 time, seen 0 times
    /// # Ok(()) }
    /// ```
    pub fn verify(&self) {
        self.handle.verify();
    }

    /// Serves until the task ends (for the binary); checks the expectations when it returns.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// // Still serving when a zero timeout runs out.
    /// assert!(tokio::time::timeout(Duration::ZERO, mock.wait()).await.is_err());
    /// # Ok(()) }
    /// ```
    pub async fn wait(mut self) {
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl Drop for MockServer {
    /// Stops serving, then panics with the report if an expectation is unmet, unless the
    /// thread is already panicking (a failed assertion says more than the report would).
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if std::thread::panicking() {
            return;
        }
        if let Some(report) = self.handle.unmet() {
            panic!("{report}");
        }
    }
}
