//! A faithful, scriptable mock of Perplexity Computer's MCP server, on a virtual clock.
//!
//! Start one in a test, point any MCP client at [`MockServer::mcp_url`], and read what happened
//! from the [`Journal`]:
//!
//! ```no_run
//! # async fn demo() -> Result<(), mock_server::Error> {
//! // Arrange: a mock whose virtual clock runs 1000x faster than real time.
//! let mock = mock_server::MockServer::builder().time_scale(1000.0).start().await?;
//! // Act: point a client at the MCP endpoint with a dev token.
//! println!("{} (Bearer alice-dev-token)", mock.mcp_url());
//! // Assert: inspect every exchange the client made.
//! assert!(mock.journal().exchanges().is_empty());
//! # Ok(()) }
//! ```
//!
//! Without a socket, [`MockServer::builder`]`.router(base_url)` gives the axum [`Router`] to
//! drive with `tower::ServiceExt::oneshot`.

pub mod agent;
pub mod clock;
mod computer;
mod control;
pub mod error;
mod http;
pub mod journal;
mod oauth;
pub mod scenario;
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
pub use journal::{Exchange, Journal, SseRecord};
pub use oauth::{AUTHORIZE_PATH, AuthMode, MCP_PATH, REGISTER_PATH, TOKEN_PATH};
pub use scenario::Catalog;
pub use world::World;

/// The default call-wait window: how long a call waits for a checkpoint before `timeout`.
pub const DEFAULT_CALL_WAIT: Duration = Duration::from_secs(120);

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
            world: None,
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
    agent: agent::Store,
}

impl AppState {
    fn new(config: Config, base_url: String) -> Result<Self, Error> {
        let catalog = Arc::new(Catalog::load(&config.fixtures, config.scenario.as_deref())?);
        let epoch = config.epoch.unwrap_or_else(Clock::fixed_epoch);
        let clock = Clock::new(config.clock, epoch);
        let world = Arc::new(World::load(config.world.as_deref())?);
        if let Some(account) = &config.auto_consent
            && world.account(account).is_none()
        {
            return Err(Error::UnknownAccount {
                account: account.clone(),
                known: world.accounts().iter().map(|a| a.id.clone()).collect(),
            });
        }
        let oauth = Arc::new(oauth::Store::default());
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
            authenticator,
        });
        Ok(Self {
            inner: Arc::new(Shared {
                config,
                base_url,
                clock,
                journal: Journal::new(),
                world,
                catalog,
                computer,
                oauth,
                agent: agent::Store::default(),
            }),
        })
    }

    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }
    pub(crate) fn base_url(&self) -> &str {
        &self.inner.base_url
    }
    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }
    pub(crate) fn journal(&self) -> &Journal {
        &self.inner.journal
    }
    pub(crate) fn world(&self) -> &World {
        &self.inner.world
    }
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }
    pub(crate) fn oauth(&self) -> &oauth::Store {
        &self.inner.oauth
    }
    pub(crate) fn computer(&self) -> &computer::Computer {
        &self.inner.computer
    }
    pub(crate) fn agent(&self) -> &agent::Store {
        &self.inner.agent
    }

    fn router(&self) -> Router {
        Router::new()
            .merge(self.inner.computer.routes())
            .merge(control::routes())
            .merge(oauth::routes())
            .merge(agent::routes())
            // Agent API clients share the base URL: paths it does not serve answer in its envelope.
            .fallback(agent::unserved)
            .layer(axum::middleware::from_fn_with_state(
                self.clone(),
                journal::record_exchange,
            ))
            .with_state(self.clone())
    }
}

/// Builds a [`MockServer`].
#[derive(Debug, Clone, Default)]
#[must_use = "a builder does nothing until `start` or `router` is called"]
pub struct MockServerBuilder {
    config: Config,
}

impl MockServerBuilder {
    /// Uses a whole configuration at once (the command line does this).
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
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
        self
    }

    /// Makes the OAuth consent page approve at once as `account` (`alice`, `bob`), so a client
    /// completes sign-in with plain HTTP and no person.
    pub fn auto_consent(mut self, account: impl Into<String>) -> Self {
        self.config.auto_consent = Some(account.into());
        self
    }

    /// The mock as an axum [`Router`], without a socket, handing out URLs under `base_url`.
    pub fn router(self, base_url: &str) -> Result<(Router, MockHandle), Error> {
        let base = self
            .config
            .public_url
            .clone()
            .unwrap_or_else(|| base_url.to_owned());
        let state = AppState::new(self.config, base.trim_end_matches('/').to_owned())?;
        Ok((state.router(), MockHandle { state }))
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
        let (router, handle) = self.router(&base_url)?;
        let (stop, stopped) = oneshot::channel::<()>();
        let serve = axum::serve(listener, router).with_graceful_shutdown(async move {
            let _ = stopped.await;
        });
        let task = tokio::spawn(async move {
            let _ = serve.await;
        });
        Ok(MockServer {
            address,
            handle,
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

    /// The MCP endpoint URL.
    pub fn mcp_url(&self) -> String {
        self.handle.mcp_url()
    }

    /// Every exchange so far.
    pub fn journal(&self) -> &Journal {
        self.handle.journal()
    }

    /// The virtual clock.
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
