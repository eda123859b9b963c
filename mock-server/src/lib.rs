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
//! Without a socket, [`MockServer::builder`]`.router(base_url)` gives the axum [`Router`] to
//! drive with `tower::ServiceExt::oneshot`, and a [`MockHandle`] with the same accessors.
//! The crate's documentation (`docs/embedding.md`) walks through both.

#[doc(hidden)]
pub mod agent;
mod app;
pub mod clock;
mod computer;
mod control;
mod error;
pub mod fixtures;
mod http;
pub mod journal;
mod limits;
mod oauth;
mod serve;
mod sonar;
pub mod world;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use clock::{Clock, ClockMode};
pub use computer::{
    HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSION, TOOL_NAMES, form_content_problem,
};
pub use error::{Error, FixtureError, FixtureErrorKind};
pub use fixtures::Catalog;
pub use http::encoding::{percent_decode, percent_encode};
pub use journal::{
    Exchange, Journal, JournalConfig, JournalGap, JournalQuery, JournalStats, SseRecord,
    StatusFilter, WaitError, fingerprint,
};
pub use limits::StateLimits;
pub use oauth::{AUTHORIZE_PATH, AuthMode, MCP_PATH, REGISTER_PATH, TOKEN_PATH};
pub use serve::ConnectionLimits;
pub use world::World;

/// Validating one Computer scenario file as the mock loads it; kept for the crate's own tests.
#[doc(hidden)]
pub mod scenario {
    use std::path::Path;

    use crate::error::FixtureError;
    use crate::fixtures::LoadedScenario;

    /// Parses and validates one Computer scenario file.
    pub fn parse(path: &Path, text: &str) -> Result<LoadedScenario, FixtureError> {
        crate::fixtures::parse(path, text)
    }
}

/// The PKCE S256 code challenge of `verifier`: `BASE64URL(SHA256(verifier))` without padding
/// (RFC 7636 §4.2), the value the mock's token endpoint checks. For a test client's sign-in.
///
/// ```
/// // RFC 7636, Appendix B.
/// let challenge = mock_server::pkce_s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
/// assert_eq!(challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
/// ```
pub fn pkce_s256_challenge(verifier: &str) -> String {
    oauth::pkce::s256_challenge(verifier)
}

/// The path of the Agent API's create endpoint (also served as `/v1/responses` and
/// `/responses`).
pub const AGENT_PATH: &str = "/v1/agent";

/// The default call-wait window: how long a call waits for a checkpoint before `timeout`.
pub const DEFAULT_CALL_WAIT: Duration = Duration::from_secs(120);

/// How long an OAuth access token lives unless configured otherwise (virtual time).
pub const DEFAULT_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(3600);

/// The longest access-token lifetime the mock issues.
const MAX_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(366 * 24 * 3600);

/// How a mock is configured; the command line maps onto this one to one.
#[derive(Debug, Clone)]
pub struct Config {
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub listen: String,
    /// Extra scenario files or directories; they add to or override the embedded catalog.
    pub fixtures: Vec<PathBuf>,
    /// Scenario for conversations that name none and match none.
    pub scenario: Option<String>,
    /// Virtual clock mode.
    pub clock: ClockMode,
    /// Call-wait window, in virtual time.
    pub call_wait: Duration,
    /// Base URL the mock puts in the URLs it hands out (default: the listen address).
    pub public_url: Option<String>,
    /// Authentication mode.
    pub auth: AuthMode,
    /// Virtual time at start; `None` is a fixed instant (2026-10-24T00:11:18Z), so tests and
    /// snapshots see the same timestamps on every run.
    pub epoch: Option<chrono::DateTime<chrono::Utc>>,
    /// A world file replacing the built-in accounts, plans, models and Projects.
    pub world: Option<PathBuf>,
    /// Account the OAuth consent page approves as at once, without showing itself (for tests).
    pub auto_consent: Option<String>,
    /// How long an OAuth access token lives, in virtual time (`expires_in`); default one hour.
    pub access_token_lifetime: Duration,
    /// How much the journal keeps in memory, and the file it appends to.
    pub journal: JournalConfig,
    /// Read timeouts and the cap on open connections (for [`MockServerBuilder::start`]).
    pub connections: ConnectionLimits,
    /// Caps on handshake sessions, OAuth registrations and codes.
    pub limits: StateLimits,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: "127.0.0.1:8080".to_owned(),
            fixtures: Vec::new(),
            scenario: None,
            clock: ClockMode::Scaled { factor: 1.0 },
            call_wait: DEFAULT_CALL_WAIT,
            public_url: None,
            auth: AuthMode::Bearer,
            epoch: None,
            auto_consent: None,
            access_token_lifetime: DEFAULT_ACCESS_TOKEN_LIFETIME,
            world: None,
            journal: JournalConfig::default(),
            connections: ConnectionLimits::default(),
            limits: StateLimits::default(),
        }
    }
}

/// State shared by every handler; cheap to clone.
#[derive(Clone)]
pub(crate) struct AppState {
    inner: Arc<Shared>,
}

struct Shared {
    config: Config,
    base_url: String,
    clock: Clock,
    journal: Journal,
    world: Arc<World>,
    catalog: Arc<Catalog>,
    computer: computer::Computer,
    oauth: Arc<oauth::Store>,
    /// Bearer tokens checked for the MCP endpoint and the Agent API alike.
    authenticator: http::auth::Authenticator,
    agent: Arc<agent::Store>,
    /// The Sonar routes' rate windows, scripted faults, async jobs and call log.
    sonar: Arc<sonar::Store>,
}

impl AppState {
    fn new(
        config: Config,
        base_url: String,
        catalog: Catalog,
        world: World,
    ) -> Result<Self, Error> {
        config.clock.check()?;
        let catalog = Arc::new(catalog);
        let epoch = config.epoch.unwrap_or_else(Clock::fixed_epoch);
        Clock::check_epoch(epoch)?;
        let clock = Clock::new(config.clock, epoch);
        let journal =
            Journal::configured(config.journal.clone()).map_err(|source| Error::JournalFile {
                path: config.journal.file.clone().unwrap_or_default(),
                source,
            })?;
        let world = Arc::new(world);
        if let Some(account) = &config.auto_consent
            && world.account(account).is_none()
        {
            return Err(Error::UnknownAccount {
                account: account.clone(),
                known: world.accounts().iter().map(|a| a.id.clone()).collect(),
            });
        }
        let lifetime = config.access_token_lifetime;
        let access_lifetime = chrono::Duration::from_std(lifetime)
            .ok()
            .filter(|_| lifetime >= Duration::from_secs(1) && lifetime <= MAX_ACCESS_TOKEN_LIFETIME)
            .ok_or(Error::AccessTokenLifetime { given: lifetime })?;
        let oauth = Arc::new(oauth::Store::new(
            access_lifetime,
            config.limits.max_oauth_clients,
            config.limits.max_oauth_codes,
        ));
        let authenticator = http::auth::Authenticator::new(
            config.auth,
            world.clone(),
            oauth.clone(),
            clock.clone(),
        );
        let computer = computer::Computer::new(computer::Setup {
            clock: clock.clone(),
            catalog: catalog.clone(),
            world: world.clone(),
            base_url: base_url.clone(),
            call_wait: config.call_wait,
            authenticator: authenticator.clone(),
            limits: config.limits,
        });
        Ok(Self {
            inner: Arc::new(Shared {
                config,
                base_url,
                clock,
                journal,
                world,
                catalog,
                computer,
                oauth,
                authenticator,
                agent: Arc::default(),
                sonar: Arc::default(),
            }),
        })
    }

    fn base_url(&self) -> &str {
        &self.inner.base_url
    }
    fn clock(&self) -> &Clock {
        &self.inner.clock
    }
    fn journal(&self) -> &Journal {
        &self.inner.journal
    }
    fn world(&self) -> &World {
        &self.inner.world
    }
    fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }
    fn agent(&self) -> &agent::Store {
        &self.inner.agent
    }
    fn oauth(&self) -> &oauth::Store {
        &self.inner.oauth
    }

    /// Every surface, each on the part of the state it reads (so no surface names this one),
    /// under the journal.
    fn app(&self) -> app::App {
        let shared = &*self.inner;
        let control = control::ControlState::new(control::ControlSetup {
            base_url: shared.base_url.clone(),
            clock: shared.clock.clone(),
            journal: shared.journal.clone(),
            world: shared.world.clone(),
            catalog: shared.catalog.clone(),
            computer: shared.computer.clone(),
            agent: shared.agent.clone(),
            oauth: shared.oauth.clone(),
            sonar: shared.sonar.clone(),
        });
        let oauth = oauth::OAuthState::new(oauth::OAuthSetup {
            base_url: shared.base_url.clone(),
            clock: shared.clock.clone(),
            world: shared.world.clone(),
            store: shared.oauth.clone(),
            auto_consent: shared.config.auto_consent.clone(),
        });
        let agent = agent::AgentState::new(agent::AgentSetup {
            authenticator: shared.authenticator.clone(),
            clock: shared.clock.clone(),
            store: shared.agent.clone(),
            catalog: shared.catalog.clone(),
        });
        let sonar = sonar::SonarState::new(sonar::SonarSetup {
            authenticator: shared.authenticator.clone(),
            clock: shared.clock.clone(),
            world: shared.world.clone(),
            catalog: shared.catalog.clone(),
            store: shared.sonar.clone(),
            base_url: shared.base_url.clone(),
        });
        let rest = Router::new()
            .merge(shared.computer.pages())
            .merge(control::routes().with_state(control))
            .merge(oauth::routes().with_state(oauth))
            .merge(agent::routes().with_state(agent))
            .merge(sonar::routes().with_state(sonar))
            // Agent API clients share the base URL: paths it does not serve answer in its envelope.
            .fallback(agent::unserved)
            // Each body was read under its surface's limit before routing (and refused in its
            // shape); axum's own 2 MB default would otherwise refuse 2-4 MiB bodies as plain
            // text.
            .layer(axum::extract::DefaultBodyLimit::max(
                http::body::DEFAULT_LIMIT,
            ));
        app::assemble(
            shared.journal.clone(),
            shared.clock.clone(),
            shared.computer.endpoint(),
            rest,
        )
    }
}

/// Builds a [`MockServer`] (or, without a socket, its [`Router`]).
#[derive(Debug, Clone, Default)]
#[must_use = "a builder does nothing until `start` or `router` is called"]
pub struct MockServerBuilder {
    config: Config,
    /// Scenarios handed over with [`Self::scenario_json`], already validated, in order.
    scenarios: Vec<fixtures::Loaded>,
    /// A world handed over with [`Self::world_json`], already validated.
    world: Option<Arc<fixtures::WorldFixture>>,
}

impl MockServerBuilder {
    /// Uses a whole configuration at once (the command line does this). Scenarios and a world
    /// given as JSON are kept.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Adds a scenario written in the test, a Computer scenario or (with an `agent` section) an
    /// Agent API one, in the format of the files in `fixtures/scenarios/`. It is validated at
    /// once against the same schema and checks as a file, and refused with the same
    /// [`FixtureError`] (its `path` is `scenario_json`). It adds to the built-in scenarios and
    /// the [`fixtures`](Self::fixtures) files, or replaces the one with the same name.
    ///
    /// ```
    /// let refused = mock_server::MockServer::builder()
    ///     .scenario_json(r#"{"name": "x", "description": "A typo.", "turns": [
    ///         {"steps": [{"title": "Reading", "duration": "soon"}],
    ///          "outcome": {"event": "complete", "text": "Done."}}]}"#)
    ///     .expect_err("`soon` is no duration");
    /// assert_eq!(refused.pointer(), Some("/turns/0/steps/0/duration"));
    /// assert!(refused.to_string().starts_with("scenario_json: at /turns/0/steps/0/duration"));
    /// ```
    pub fn scenario_json(mut self, json: &str) -> Result<Self, FixtureError> {
        let loaded = fixtures::parse_scenario(std::path::Path::new("scenario_json"), json)?;
        self.scenarios.push(loaded);
        Ok(self)
    }

    /// Replaces the built-in world (accounts, plans, models, Projects) with one written in the
    /// test, in the format of `fixtures/world.json` ([`world::WORLD_FIXTURE`] is a good start).
    /// It is validated at once, like a world file, and refused with the same [`FixtureError`]
    /// (its `path` is `world_json`).
    ///
    /// ```
    /// let mut world: serde_json::Value = serde_json::from_str(mock_server::world::WORLD_FIXTURE)?;
    /// world["accounts"][1]["credits"] = 3.into();
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .world_json(&world.to_string())?
    ///     .router("http://mock.test")?;
    /// assert_eq!(mock.world().credits("bob"), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn world_json(mut self, json: &str) -> Result<Self, FixtureError> {
        let fixture = fixtures::parse_world(std::path::Path::new("world_json"), json)?;
        self.world = Some(Arc::new(fixture));
        self.config.world = None;
        Ok(self)
    }

    /// Listens on `addr` (default `127.0.0.1:0` for [`MockServer::start`]).
    pub fn listen(mut self, addr: impl Into<String>) -> Self {
        self.config.listen = addr.into();
        self
    }

    /// Adds a scenario file or directory.
    pub fn fixtures(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.fixtures.push(path.into());
        self
    }

    /// Scenario for conversations that name none.
    pub fn scenario(mut self, name: impl Into<String>) -> Self {
        self.config.scenario = Some(name.into());
        self
    }

    /// Runs virtual time `factor` times as fast as real time.
    pub fn time_scale(mut self, factor: f64) -> Self {
        self.config.clock = ClockMode::Scaled { factor };
        self
    }

    /// Moves virtual time only when advanced (`POST /_mock/clock/advance`).
    pub fn manual_clock(mut self) -> Self {
        self.config.clock = ClockMode::Manual;
        self
    }

    /// Lets the client drive virtual time (what the conformance runner uses): blocking waits
    /// jump to their next event, each look (`read_thread`, `tasks/get`, `GET` of a background
    /// response) moves time on by `look_step`, thinking time does not count
    /// ([`ClockMode::Driven`]).
    pub fn driven_clock(mut self, look_step: Duration) -> Self {
        self.config.clock = ClockMode::Driven { look_step };
        self
    }

    /// Sets the call-wait window.
    pub fn call_wait(mut self, wait: Duration) -> Self {
        self.config.call_wait = wait;
        self
    }

    /// Sets the base URL put in the URLs the mock hands out.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.config.public_url = Some(url.into());
        self
    }

    /// Sets the authentication mode.
    pub fn auth(mut self, auth: AuthMode) -> Self {
        self.config.auth = auth;
        self
    }

    /// Replaces the built-in world (accounts, plans, models, Projects) with the file at `path`.
    pub fn world(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.world = Some(path.into());
        self.world = None;
        self
    }

    /// Makes the OAuth consent page approve at once as `account` (`alice`, `bob`), so a client
    /// completes sign-in with plain HTTP and no person.
    pub fn auto_consent(mut self, account: impl Into<String>) -> Self {
        self.config.auto_consent = Some(account.into());
        self
    }

    /// Sets how long OAuth access tokens live in virtual time (default one hour, at least one
    /// second): a client's token then expires mid-scenario and it must refresh it.
    pub fn access_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.config.access_token_lifetime = lifetime;
        self
    }

    /// Sets how much the journal keeps and where it writes ([`JournalConfig`]).
    pub fn journal(mut self, journal: JournalConfig) -> Self {
        self.config.journal = journal;
        self
    }

    /// Sets the caps on sessions, OAuth registrations and codes ([`StateLimits`]).
    pub fn limits(mut self, limits: StateLimits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Sets the read timeouts and the connection cap ([`ConnectionLimits`]).
    pub fn connections(mut self, limits: ConnectionLimits) -> Self {
        self.config.connections = limits;
        self
    }

    /// The mock as an axum [`Router`], without a socket, handing out URLs under `base_url`.
    pub fn router(self, base_url: &str) -> Result<(Router, MockHandle), Error> {
        let state = self.state(base_url)?;
        Ok((
            Router::new().fallback_service(state.app()),
            MockHandle { state },
        ))
    }

    /// The mock's state, handing out URLs under `base_url`.
    fn state(self, base_url: &str) -> Result<AppState, Error> {
        let base = self
            .config
            .public_url
            .clone()
            .unwrap_or_else(|| base_url.to_owned());
        let catalog = Catalog::build(
            &self.config.fixtures,
            &self.scenarios,
            self.config.scenario.as_deref(),
        )?;
        let world = match &self.world {
            Some(fixture) => World::from_fixture(fixture.as_ref().clone()),
            None => World::load(self.config.world.as_deref())?,
        };
        AppState::new(
            self.config,
            base.trim_end_matches('/').to_owned(),
            catalog,
            world,
        )
    }

    /// Binds the listener and serves in the background on the current tokio runtime.
    pub async fn start(self) -> Result<MockServer, Error> {
        let listen = self.config.listen.clone();
        let listener = TcpListener::bind(&listen)
            .await
            .map_err(|source| Error::Bind {
                addr: listen.clone(),
                source,
            })?;
        let address = listener.local_addr().map_err(|source| Error::Bind {
            addr: listen.clone(),
            source,
        })?;
        let base_url = format!("http://{address}");
        let limits = self.config.connections;
        let state = self.state(&base_url)?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve::serve(listener, state.app(), limits, stopped));
        Ok(MockServer {
            address,
            handle: MockHandle { state },
            stop: Some(stop),
            task,
        })
    }
}

/// Access to a mock's clock, journal and world, with or without a socket.
#[derive(Clone)]
pub struct MockHandle {
    state: AppState,
}

impl MockHandle {
    /// The base URL the mock hands out.
    pub fn uri(&self) -> &str {
        self.state.base_url()
    }
    /// The MCP endpoint URL.
    pub fn mcp_url(&self) -> String {
        format!("{}{MCP_PATH}", self.state.base_url())
    }
    /// The Agent API endpoint URL (`POST` creates a response, `GET {agent_url}/{id}` retrieves
    /// one); the official SDKs take [`uri`](Self::uri) as their base URL.
    pub fn agent_url(&self) -> String {
        format!("{}{AGENT_PATH}", self.state.base_url())
    }
    /// The virtual clock.
    pub fn clock(&self) -> &Clock {
        self.state.clock()
    }
    /// Every exchange so far.
    pub fn journal(&self) -> &Journal {
        self.state.journal()
    }
    /// The account world.
    pub fn world(&self) -> &World {
        self.state.world()
    }
    /// The scenario catalog.
    pub fn catalog(&self) -> &Catalog {
        self.state.catalog()
    }
    /// Revokes every OAuth access and refresh token issued for `account` (every account's when
    /// `None`), as `POST /_mock/oauth/revoke` does; returns how many were still usable. The
    /// client's next request gets 401 and it must sign in again.
    pub fn revoke_oauth_tokens(&self, account: Option<&str>) -> usize {
        let revoked = self.state.oauth().revoke_account(account);
        revoked.access_tokens + revoked.refresh_tokens
    }
    /// How many Agent API responses the mock holds (tests check a refused request added none).
    pub fn agent_responses(&self) -> usize {
        self.state.agent().len()
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
