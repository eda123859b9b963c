//! [`MockHandle`]: a mock's URLs, clock, journal and world, with or without a socket.

use std::sync::Arc;

use crate::clock::Clock;
use crate::expect::{Expectation, Expectations};
use crate::fixtures::Catalog;
use crate::journal::Journal;
use crate::oauth::MCP_PATH;
use crate::state::AppState;
use crate::world::World;

/// The path of the Agent API's create endpoint (also served as `/v1/responses` and
/// `/responses`).
pub const AGENT_PATH: &str = "/v1/agent";

/// A mock's URLs, clock, journal, world and expectations, with or without a socket: what
/// [`MockServerBuilder::router`](crate::MockServerBuilder::router) hands out beside the router,
/// and [`MockServer::handle`](crate::MockServer::handle) for a running one. Cheap to clone;
/// clones share the mock.
///
/// ```
/// use tower::ServiceExt as _;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let (router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
/// let request = http::Request::get("/_mock/clock").body(axum::body::Body::empty())?;
/// let response = router.oneshot(request).await?;
/// assert_eq!(response.status(), 200);
/// assert_eq!(mock.journal().exchanges()[0].path, "/_mock/clock");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct MockHandle {
    state: AppState,
    expectations: Arc<Expectations>,
}

impl MockHandle {
    /// The handle of the mock on `state`.
    pub(crate) fn new(state: AppState) -> Self {
        Self {
            state,
            expectations: Arc::default(),
        }
    }

    /// The base URL the mock hands out (what the Agent API SDKs take as their base URL).
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test/")?;
    /// assert_eq!(mock.uri(), "http://mock.test");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn uri(&self) -> &str {
        self.state.base_url()
    }

    /// The Computer MCP endpoint URL, `{uri}/rest/computer/mcp`.
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// assert_eq!(mock.mcp_url(), "http://mock.test/rest/computer/mcp");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mcp_url(&self) -> String {
        format!("{}{MCP_PATH}", self.state.base_url())
    }

    /// The Agent API endpoint URL, `{uri}/v1/agent` (`POST` creates a response, `GET
    /// {agent_url}/{id}` retrieves one); the official SDKs take [`uri`](Self::uri) as their
    /// base URL.
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// assert_eq!(mock.agent_url(), "http://mock.test/v1/agent");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn agent_url(&self) -> String {
        format!("{}{AGENT_PATH}", self.state.base_url())
    }

    /// The virtual clock: `now()`, and `advance(d)` to move it.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .manual_clock()
    ///     .router("http://mock.test")?;
    /// let start = mock.clock().now();
    /// assert_eq!(start, mock_server::Clock::fixed_epoch());
    /// mock.clock().advance(Duration::from_secs(90));
    /// assert_eq!((mock.clock().now() - start).num_seconds(), 90);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(&self) -> &Clock {
        self.state.clock()
    }

    /// Every exchange so far, in order ([`Journal`]).
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// assert!(mock.journal().exchanges().is_empty());
    /// assert_eq!(mock.journal().stats().next_seq, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn journal(&self) -> &Journal {
        self.state.journal()
    }

    /// The accounts and their live state (credit balances, connectors).
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// assert_eq!(mock.world().credits("bob"), 25);
    /// assert_eq!(mock.world().accounts().len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn world(&self) -> &World {
        self.state.world()
    }

    /// Every scenario loaded: Computer ones (`iter`, `get`) and Agent API ones (`agent_iter`,
    /// `agent_get`).
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// assert!(mock.catalog().get("timeout-then-complete").is_some());
    /// assert_eq!(mock.catalog().fallback(), "complete");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn catalog(&self) -> &Catalog {
        self.state.catalog()
    }

    /// Revokes every OAuth access and refresh token issued for `account` (every account's when
    /// `None`), as `POST /_mock/oauth/revoke` does; returns how many were still usable. The
    /// client's next request gets 401 and it must sign in again. The static dev tokens stay
    /// valid.
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// assert_eq!(mock.revoke_oauth_tokens(Some("alice")), 0, "nobody signed in yet");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn revoke_oauth_tokens(&self, account: Option<&str>) -> usize {
        let revoked = self.state.oauth().revoke_account(account);
        revoked.access_tokens + revoked.refresh_tokens
    }

    /// How many Agent API responses the mock holds: a test checks that a request the mock
    /// refused created none.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::start().await?;
    /// let refused = mock.agent_client().create(serde_json::json!({"input": "no model"})).await;
    /// assert_eq!(refused.expect_err("a model is required").status(), Some(400));
    /// assert_eq!(mock.handle().agent_responses(), 0);
    /// # Ok(()) }
    /// ```
    pub fn agent_responses(&self) -> usize {
        self.state.agent().len()
    }

    /// Adds an expectation on what the client sends; [`verify`](Self::verify) checks it (and a
    /// [`MockServer`](crate::MockServer) checks them all when dropped).
    ///
    /// ```
    /// use tower::ServiceExt as _;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let (router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// mock.expect(mock_server::Expectation::request("GET", "/_mock/scenarios").times(1));
    /// let request = http::Request::get("/_mock/scenarios").body(axum::body::Body::empty())?;
    /// router.oneshot(request).await?;
    /// mock.verify();
    /// # Ok(()) }
    /// ```
    pub fn expect(&self, expectation: Expectation) {
        self.expectations.add(expectation);
    }

    /// Panics unless every expectation given so far holds over the journal; the message lists
    /// each unmet expectation and the journal, one line per exchange.
    ///
    /// ```should_panic
    /// let (_router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// mock.expect(mock_server::Expectation::tool_call("read_thread"));
    /// mock.verify(); // panics: `read_thread` called: wanted at least 1 time, seen 0 times
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn verify(&self) {
        if let Err(report) = self.expectations.check(self.journal()) {
            panic!("{report}");
        }
    }

    /// The report of the unmet expectations, if any (what [`verify`](Self::verify) panics
    /// with).
    pub(crate) fn unmet(&self) -> Option<String> {
        self.expectations.check(self.journal()).err()
    }
}
