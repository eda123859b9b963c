//! Expectations on what a client sends, verified when the mock is dropped, as wiremock-rs
//! does: a test states what its client must do ([`MockServer::expect`](crate::MockServer::expect)),
//! drives the client, and a [`MockServer`](crate::MockServer) that goes out of scope with an
//! expectation unmet panics with a message that lists each unmet expectation and the journal,
//! one short line per exchange (method, path, JSON-RPC method and tool, status, and the event
//! of a Computer tool result).
//!
//! An expectation counts the journal's exchanges that match it and compares the count with
//! its [`Times`] (at least once unless told otherwise). It reads the journal only when it is
//! verified, so it sees what the journal kept (see
//! [`JournalConfig`](crate::JournalConfig)); nothing about how the mock answers changes.

mod reading;
mod times;

use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::journal::{Exchange, Journal};
pub use times::Times;

/// How many journal lines a failure report shows at most (the newest).
const REPORT_LINES: usize = 100;

/// A test's predicate over one exchange.
type Predicate = Arc<dyn Fn(&Exchange) -> bool + Send + Sync>;

/// Something a client is expected to send, and how many times; give it to
/// [`MockServer::expect`](crate::MockServer::expect).
///
/// ```
/// use std::time::Duration;
///
/// use mock_server::{Expectation, MockServer};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = MockServer::builder().driven_clock(Duration::from_secs(60)).start().await?;
/// // After a `timeout`, the client must read that thread, and never start it again.
/// mock.expect(Expectation::tool_call("read_thread").after_event("timeout"));
/// mock.expect(Expectation::tool_call("call_perplexity_computer").times(1));
///
/// let session = mock.mcp_session().await?;
/// let started = session.call_computer("#timeout-then-complete Summarize Hacker News").await?;
/// session.read_thread(started["thread_id"].as_str().ok_or("a thread")?).await?;
/// mock.verify();
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[must_use = "an expectation does nothing until it is given to `MockServer::expect`"]
pub struct Expectation {
    /// What it wants, as the failure report says it (`` `read_thread` called ``).
    description: String,
    matches: Predicate,
    /// Only exchanges after a Computer tool result with this event count.
    after_event: Option<String>,
    times: Times,
}

impl Expectation {
    /// A `tools/call` of tool `name` on the MCP endpoint, in either protocol era.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// mock.expect(mock_server::Expectation::tool_call("models_list").times(1));
    /// mock.mcp_session().await?.call_tool("models_list", serde_json::json!({})).await?;
    /// # Ok(()) }
    /// ```
    pub fn tool_call(name: &str) -> Self {
        let wanted = name.to_owned();
        Self::matching(format!("`{name}` called"), move |exchange| {
            reading::tool_name(exchange) == Some(wanted.as_str())
        })
    }

    /// A request with HTTP `method` (`GET`, `POST`) to `path`, without its query string
    /// (`/v1/agent`, `/oauth/token`).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// mock.expect(mock_server::Expectation::request("POST", "/v1/agent").times(1));
    /// mock.agent_client()
    ///     .create(serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "Hi"}))
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn request(method: &str, path: &str) -> Self {
        let (wanted_method, wanted_path) = (method.to_owned(), path.to_owned());
        Self::matching(format!("`{method} {path}` requested"), move |exchange| {
            exchange.method.eq_ignore_ascii_case(&wanted_method) && exchange.path == wanted_path
        })
    }

    /// Any exchange `predicate` accepts; `description` says what it wants in the failure
    /// report.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// mock.expect(mock_server::Expectation::matching(
    ///     "an initialize offering 2025-06-18",
    ///     |e| e.request_body["params"]["protocolVersion"] == "2025-06-18",
    /// ));
    /// mock_server::McpSession::builder(mock.mcp_url())
    ///     .protocol_version("2025-06-18")
    ///     .connect()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    pub fn matching(
        description: impl Into<String>,
        predicate: impl Fn(&Exchange) -> bool + Send + Sync + 'static,
    ) -> Self {
        Self {
            description: description.into(),
            matches: Arc::new(predicate),
            after_event: None,
            times: Times::default(),
        }
    }

    /// Counts only exchanges that come after a Computer tool result whose `event` is `event`
    /// (`timeout`, `ask_user_question`, ...); a tool call with a `thread_id` argument counts
    /// only when it names a thread such a result was about.
    ///
    /// ```should_panic
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// mock.expect(mock_server::Expectation::tool_call("read_thread").after_event("timeout"));
    /// let session = mock.mcp_session().await?;
    /// let done = session.call_computer("#complete Summarize Hacker News").await?;
    /// // A read after `complete` is no read after a `timeout`: the mock panics when dropped.
    /// session.read_thread(done["thread_id"].as_str().ok_or("a thread")?).await?;
    /// # Ok(()) }
    /// ```
    pub fn after_event(mut self, event: &str) -> Self {
        self.description = format!("{} after a `{event}` result", self.description);
        self.after_event = Some(event.to_owned());
        self
    }

    /// How many matching exchanges are wanted: `1`, `2..5`, `1..` (the default), `..=3`, `0`
    /// (never); see [`Times`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// mock.expect(mock_server::Expectation::tool_call("cancel_task").times(0));
    /// mock.expect(mock_server::Expectation::request("POST", "/rest/computer/mcp").times(2..));
    /// mock.mcp_session().await?;
    /// # Ok(()) }
    /// ```
    pub fn times(mut self, times: impl Into<Times>) -> Self {
        self.times = times.into();
        self
    }

    /// How many of `exchanges` (in journal order) count for this expectation.
    fn count(&self, exchanges: &[Exchange]) -> u64 {
        let mut counted = 0;
        // Once a result with the event was seen: the threads such results were about.
        let mut after: Option<Vec<String>> = None;
        for exchange in exchanges {
            let in_scope = match (&self.after_event, &after) {
                (None, _) => true,
                (Some(_), None) => false,
                (Some(_), Some(threads)) => reading::thread_argument(exchange)
                    .is_none_or(|thread| threads.iter().any(|t| t == thread)),
            };
            if in_scope && (self.matches)(exchange) {
                counted += 1;
            }
            if let Some(event) = &self.after_event
                && let Some(result) = reading::result_event(exchange)
                && &result.event == event
            {
                let threads = after.get_or_insert_with(Vec::new);
                threads.extend(result.thread_id);
            }
        }
        counted
    }
}

impl fmt::Debug for Expectation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Expectation")
            .field("description", &self.description)
            .field("times", &self.times)
            .finish_non_exhaustive()
    }
}

/// The expectations given to one mock; shared by its handles.
#[derive(Debug, Default)]
pub(crate) struct Expectations {
    list: Mutex<Vec<Expectation>>,
}

impl Expectations {
    /// Adds one.
    pub(crate) fn add(&self, expectation: Expectation) {
        self.list.lock().push(expectation);
    }

    /// `Ok` when every expectation holds over `journal`; else the report to panic with.
    pub(crate) fn check(&self, journal: &Journal) -> Result<(), String> {
        let expectations = self.list.lock().clone();
        if expectations.is_empty() {
            return Ok(());
        }
        let exchanges = journal.exchanges();
        let failed: Vec<String> = expectations
            .iter()
            .filter_map(|expectation| {
                let seen = expectation.count(&exchanges);
                (!expectation.times.contains(seen)).then(|| {
                    let times = if seen == 1 { "time" } else { "times" };
                    format!(
                        "- {}: wanted {}, seen {seen} {times}",
                        expectation.description, expectation.times
                    )
                })
            })
            .collect();
        if failed.is_empty() {
            return Ok(());
        }
        let mut report = format!(
            "The mock's expectations failed ({} of {}):\n{}\n",
            failed.len(),
            expectations.len(),
            failed.join("\n")
        );
        report.push_str(&journal_lines(journal, &exchanges));
        Err(report)
    }
}

/// The journal as a failure report shows it: a heading, then one line per exchange (the newest
/// [`REPORT_LINES`]).
fn journal_lines(journal: &Journal, exchanges: &[Exchange]) -> String {
    let dropped = journal.stats().dropped;
    let mut out = format!(
        "The journal ({} exchange{}):\n",
        exchanges.len(),
        if exchanges.len() == 1 { "" } else { "s" }
    );
    if dropped > 0 {
        out.push_str(&format!(
            "  ({dropped} older exchanges were dropped from a full journal and not counted)\n"
        ));
    }
    let hidden = exchanges.len().saturating_sub(REPORT_LINES);
    if hidden > 0 {
        out.push_str(&format!("  ({hidden} earlier exchanges not shown)\n"));
    }
    for exchange in &exchanges[hidden..] {
        out.push_str("  ");
        out.push_str(&reading::describe(exchange));
        out.push('\n');
    }
    out
}
