//! [`MockServerBuilder`]: every option of a mock, then `start` (on a socket) or `router`
//! (without one).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;

use crate::clock::ClockMode;
use crate::config::{Config, Eras};
use crate::error::{Error, FixtureError};
use crate::fixtures::{self, Catalog};
use crate::handle::MockHandle;
use crate::journal::JournalConfig;
use crate::limits::StateLimits;
use crate::oauth::AuthMode;
use crate::serve::ConnectionLimits;
use crate::state::AppState;
use crate::world::World;

/// Builds a [`MockServer`](crate::MockServer) (or, without a socket, its [`Router`]).
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
    /// test, in the format of `fixtures/world.json`
    /// ([`world::WORLD_FIXTURE`](crate::world::WORLD_FIXTURE) is a good start).
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

    /// Listens on `addr` (default `127.0.0.1:0`, a free port, for
    /// [`MockServer::builder`](crate::MockServer::builder)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder().listen("127.0.0.1:0").start().await?;
    /// assert_ne!(mock.address().port(), 0);
    /// # Ok(()) }
    /// ```
    pub fn listen(mut self, addr: impl Into<String>) -> Self {
        self.config.listen = addr.into();
        self
    }

    /// Adds a scenario file or a directory of them (`*.json`, in the format of
    /// `fixtures/scenarios/`); each adds to the built-in scenarios or replaces the one of the
    /// same name. Repeatable.
    ///
    /// ```
    /// let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/scenarios/complete.json");
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .fixtures(file)
    ///     .router("http://mock.test")?;
    /// let complete = mock.catalog().get("complete").ok_or("loaded")?;
    /// assert_eq!(complete.source, std::path::Path::new(file));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fixtures(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.fixtures.push(path.into());
        self
    }

    /// The scenario for conversations that name none (`#name`) and match none (default
    /// `complete`); an unknown name is refused.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .scenario("timeout-then-complete")
    ///     .start()
    ///     .await?;
    /// let started = mock.mcp_session().await?.call_computer("Plan my week").await?;
    /// assert_eq!(started["event"], "timeout");
    /// assert!(mock_server::MockServer::builder().scenario("nope").router("http://x").is_err());
    /// # Ok(()) }
    /// ```
    pub fn scenario(mut self, name: impl Into<String>) -> Self {
        self.config.scenario = Some(name.into());
        self
    }

    /// Runs virtual time as `mode` says ([`time_scale`](Self::time_scale),
    /// [`manual_clock`](Self::manual_clock) and [`driven_clock`](Self::driven_clock) are
    /// shortcuts); a mode out of range is refused by [`start`](Self::start) and
    /// [`router`](Self::router) ([`ClockMode::check`]).
    ///
    /// ```
    /// use mock_server::ClockMode;
    ///
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .clock(ClockMode::Manual)
    ///     .router("http://mock.test")?;
    /// assert_eq!(mock.clock().mode(), ClockMode::Manual);
    /// let refused = mock_server::MockServer::builder()
    ///     .clock(ClockMode::Scaled { factor: 0.0 })
    ///     .router("http://mock.test");
    /// assert!(matches!(refused, Err(mock_server::Error::Clock(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clock(mut self, mode: ClockMode) -> Self {
        self.config.clock = mode;
        self
    }

    /// Starts virtual time at `start` instead of the fixed instant 2026-10-24T00:11:18Z that
    /// keeps timestamps the same on every run ([`Clock::fixed_epoch`](crate::Clock::fixed_epoch));
    /// the command line starts at today.
    ///
    /// ```
    /// let start = chrono::DateTime::parse_from_rfc3339("2030-01-01T09:00:00Z")?.to_utc();
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .manual_clock()
    ///     .start_time(start)
    ///     .router("http://mock.test")?;
    /// assert_eq!(mock.clock().now(), start);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn start_time(mut self, start: chrono::DateTime<chrono::Utc>) -> Self {
        self.config.epoch = Some(start);
        self
    }

    /// Runs virtual time `factor` times as fast as real time (0.001 to 1000000):
    /// `time_scale(100.0)` makes the two-minute call window 1.2 real seconds.
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .time_scale(100.0)
    ///     .router("http://mock.test")?;
    /// assert_eq!(mock.clock().mode(), mock_server::ClockMode::Scaled { factor: 100.0 });
    /// assert!(mock_server::MockServer::builder().time_scale(1e9).router("http://x").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_scale(mut self, factor: f64) -> Self {
        self.config.clock = ClockMode::Scaled { factor };
        self
    }

    /// Moves virtual time only when advanced: [`Clock::advance`](crate::Clock::advance) or
    /// `POST /_mock/clock/advance`. A call that waits on virtual time waits until then.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .manual_clock()
    ///     .router("http://mock.test")?;
    /// let start = mock.clock().now();
    /// assert_eq!(mock.clock().now(), start, "nothing moves it by itself");
    /// mock.clock().advance(Duration::from_secs(5));
    /// assert_eq!((mock.clock().now() - start).num_seconds(), 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn manual_clock(mut self) -> Self {
        self.config.clock = ClockMode::Manual;
        self
    }

    /// Lets the client drive virtual time (what the conformance runner uses): blocking waits
    /// jump to their next event, each look (`read_thread`, `tasks/get`, `GET` of a background
    /// response) moves time on by `look_step`, thinking time does not count
    /// ([`ClockMode::Driven`]). What a client sees then depends on what it did, not on how fast
    /// it is. One client per mock: two clients' looks would move each other's time.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .start()
    ///     .await?;
    /// let session = mock.mcp_session().await?;
    /// let started = session.call_computer("#timeout-then-complete Go").await?;
    /// let waited = mock.clock().now() - mock_server::Clock::fixed_epoch();
    /// assert_eq!((started["event"].as_str(), waited.num_seconds()), (Some("timeout"), 120));
    /// session.read_thread(started["thread_id"].as_str().ok_or("a thread")?).await?;
    /// let looked = mock.clock().now() - mock_server::Clock::fixed_epoch();
    /// assert_eq!(looked.num_seconds(), 180, "one look moved it a minute");
    /// # Ok(()) }
    /// ```
    pub fn driven_clock(mut self, look_step: Duration) -> Self {
        self.config.clock = ClockMode::Driven { look_step };
        self
    }

    /// Sets the call-wait window: how long a call waits, in virtual time, for a checkpoint
    /// before it answers `timeout` (default [`DEFAULT_CALL_WAIT`](crate::DEFAULT_CALL_WAIT),
    /// two minutes).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .driven_clock(Duration::from_secs(60))
    ///     .call_wait(Duration::from_secs(10))
    ///     .start()
    ///     .await?;
    /// let started = mock.mcp_session().await?.call_computer("#complete Go").await?;
    /// assert_eq!(started["event"], "timeout", "the steps take longer than 10 s");
    /// # Ok(()) }
    /// ```
    pub fn call_wait(mut self, wait: Duration) -> Self {
        self.config.call_wait = wait;
        self
    }

    /// Sets the base URL put in the URLs the mock hands out (sign-in pages, downloads), for a
    /// mock behind a proxy; default: the address it listens on.
    ///
    /// ```
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .public_url("https://mock.example.com/")
    ///     .router("http://127.0.0.1:8080")?;
    /// assert_eq!(mock.mcp_url(), "https://mock.example.com/rest/computer/mcp");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.config.public_url = Some(url.into());
        self
    }

    /// Lets web pages of `origin` (`scheme://host[:port]`) call the mock from a browser. On
    /// every surface, the MCP endpoint included, the mock refuses requests from pages not
    /// served by its own names (localhost, 127.0.0.1, [::1], the public URL's host), so that
    /// any site a developer opens cannot reset it or approve actions; a dashboard or tool
    /// served elsewhere needs this. Repeatable; a value that is no origin stops the start.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .allow_origin("https://dashboard.example")
    ///     .start()
    ///     .await?;
    /// let reset = reqwest::Client::new()
    ///     .post(format!("{}/_mock/reset", mock.uri()))
    ///     .header("origin", "https://dashboard.example")
    ///     .send()
    ///     .await?;
    /// assert_eq!(reset.status(), 200);
    /// # Ok(()) }
    /// ```
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.config.allowed_origins.push(origin.into());
        self
    }

    /// Sets the authentication mode: [`AuthMode::Bearer`] (the default) or
    /// [`AuthMode::None`], where every request acts as alice and needs no token.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .auth(mock_server::AuthMode::None)
    ///     .start()
    ///     .await?;
    /// let anyone = mock_server::McpSession::builder(mock.mcp_url())
    ///     .token("anything")
    ///     .connect()
    ///     .await?;
    /// assert!(anyone.session_id().is_some());
    /// # Ok(()) }
    /// ```
    pub fn auth(mut self, auth: AuthMode) -> Self {
        self.config.auth = auth;
        self
    }

    /// Replaces the built-in world (accounts, plans, models, Projects) with the file at `path`,
    /// in the format of `fixtures/world.json`; the last of this and
    /// [`world_json`](Self::world_json) wins.
    ///
    /// ```
    /// let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/world.json");
    /// let (_router, mock) = mock_server::MockServer::builder()
    ///     .world(file)
    ///     .router("http://mock.test")?;
    /// assert_eq!(mock.world().credits("alice"), 10_000);
    /// let missing = mock_server::MockServer::builder().world("no/such/world.json").router("http://x");
    /// assert!(matches!(missing, Err(mock_server::Error::Fixture(_))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn world(mut self, path: impl Into<PathBuf>) -> Self {
        self.config.world = Some(path.into());
        self.world = None;
        self
    }

    /// Makes the OAuth consent page approve at once as `account` (`alice`, `bob`), so a client
    /// completes sign-in with plain HTTP and no person. An account the world does not have is
    /// refused.
    ///
    /// ```
    /// let (_router, _mock) = mock_server::MockServer::builder()
    ///     .auto_consent("bob")
    ///     .router("http://mock.test")?;
    /// let refused = mock_server::MockServer::builder().auto_consent("carol").router("http://x");
    /// assert!(matches!(refused, Err(mock_server::Error::UnknownAccount { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn auto_consent(mut self, account: impl Into<String>) -> Self {
        self.config.auto_consent = Some(account.into());
        self
    }

    /// Makes the Computer endpoint speak only the protocol eras `eras` names, answering as a
    /// server of that era would ([`Eras::Both`] by default): a handshake-only mock does not know
    /// `server/discover`, a modern-only one does not know `initialize`.
    ///
    /// ```
    /// let (_router, _mock) = mock_server::MockServer::builder()
    ///     .eras(mock_server::Eras::Handshake)
    ///     .router("http://mock.test")?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn eras(mut self, eras: Eras) -> Self {
        self.config.eras = eras;
        self
    }

    /// Whether the built-in dev tokens (`alice-dev-token`, `bob-dev-token`) authenticate (yes by
    /// default). With `false` they get a 401 saying a real OAuth sign-in is needed, as in a
    /// scenario that tests sign-in.
    ///
    /// ```
    /// let (_router, _mock) = mock_server::MockServer::builder()
    ///     .dev_tokens(false)
    ///     .router("http://mock.test")?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dev_tokens(mut self, accepted: bool) -> Self {
        self.config.dev_tokens = accepted;
        self
    }

    /// Puts a fault in force from the start, in the compact grammar of `mock-server --fault`
    /// (`docs/faults.md`): a spec that does not read is refused at once, with a sentence.
    ///
    /// ```
    /// let builder = mock_server::MockServer::builder()
    ///     .fault("status=429,retry-after=2s,times=1,path=/chat/completions")?;
    /// let refused = mock_server::MockServer::builder().fault("status=404");
    /// assert!(matches!(refused, Err(mock_server::Error::Fault { .. })));
    /// # drop(builder);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fault(mut self, spec: &str) -> Result<Self, crate::error::Error> {
        let spec = crate::faults::spec::FaultSpec::parse(spec).map_err(|refused| {
            crate::error::Error::Fault {
                reason: refused.to_string(),
            }
        })?;
        self.config.faults.push(spec);
        Ok(self)
    }

    /// Sets how long OAuth access tokens live in virtual time (default one hour, at least one
    /// second, at most 366 days): a client's token then expires mid-scenario and it must
    /// refresh it.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let short = mock_server::MockServer::builder()
    ///     .access_token_lifetime(Duration::from_secs(90))
    ///     .router("http://mock.test");
    /// assert!(short.is_ok());
    /// let refused = mock_server::MockServer::builder()
    ///     .access_token_lifetime(Duration::ZERO)
    ///     .router("http://mock.test");
    /// assert!(matches!(refused, Err(mock_server::Error::AccessTokenLifetime { .. })));
    /// ```
    pub fn access_token_lifetime(mut self, lifetime: Duration) -> Self {
        self.config.access_token_lifetime = lifetime;
        self
    }

    /// Sets how much the journal keeps and where it writes ([`JournalConfig`]; by default the
    /// newest 10,000 exchanges within 256 MiB).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let mock = mock_server::MockServer::builder()
    ///     .journal(mock_server::JournalConfig::off())
    ///     .start()
    ///     .await?;
    /// mock.mcp_session().await?;
    /// assert!(mock.journal().exchanges().is_empty());
    /// # Ok(()) }
    /// ```
    pub fn journal(mut self, journal: JournalConfig) -> Self {
        self.config.journal = journal;
        self
    }

    /// Sets the caps on sessions, OAuth registrations and codes ([`StateLimits`]).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let limits = mock_server::StateLimits { max_sessions: 1, ..Default::default() };
    /// let mock = mock_server::MockServer::builder().limits(limits).start().await?;
    /// let _first = mock.mcp_session().await?;
    /// let second = mock.mcp_session().await.expect_err("one session at most");
    /// assert_eq!(second.status(), Some(503));
    /// # Ok(()) }
    /// ```
    pub fn limits(mut self, limits: StateLimits) -> Self {
        self.config.limits = limits;
        self
    }

    /// Sets the read timeouts and the connection cap ([`ConnectionLimits`]) of
    /// [`start`](Self::start); a router has no connections.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let limits = mock_server::ConnectionLimits {
    ///     header_read_timeout: Duration::from_secs(5),
    ///     ..Default::default()
    /// };
    /// let mock = mock_server::MockServer::builder().connections(limits).start().await?;
    /// mock.mcp_session().await?;
    /// # Ok(()) }
    /// ```
    pub fn connections(mut self, limits: ConnectionLimits) -> Self {
        self.config.connections = limits;
        self
    }

    /// The mock as an axum [`Router`], without a socket, handing out URLs under `base_url`,
    /// and its [`MockHandle`]; drive the router with `tower::ServiceExt::oneshot`. On a paused
    /// tokio clock (`#[tokio::test(start_paused = true)]`) scripted minutes pass at once.
    ///
    /// ```
    /// use tower::ServiceExt as _;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let (router, mock) = mock_server::MockServer::builder().router("http://mock.test")?;
    /// let request = http::Request::get("/.well-known/oauth-protected-resource/rest/computer/mcp")
    ///     .body(axum::body::Body::empty())?;
    /// let response = router.oneshot(request).await?;
    /// assert_eq!(response.status(), 200);
    /// assert_eq!(mock.journal().exchanges().len(), 1);
    /// # Ok(()) }
    /// ```
    pub fn router(self, base_url: &str) -> Result<(Router, MockHandle), Error> {
        let state = self.state(base_url)?;
        Ok((
            Router::new().fallback_service(state.app()),
            MockHandle::new(state),
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

    /// Binds the listener and builds the mock's state on it, for [`MockServerBuilder::start`].
    pub(crate) async fn bind(self) -> Result<Bound, Error> {
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
        let connections = self.config.connections;
        let state = self.state(&base_url)?;
        Ok(Bound {
            listener,
            address,
            state,
            connections,
        })
    }
}

/// A bound listener and the state to serve on it.
pub(crate) struct Bound {
    /// The listener, bound.
    pub(crate) listener: TcpListener,
    /// The address it is bound to.
    pub(crate) address: SocketAddr,
    /// The mock's state, handing out URLs under that address.
    pub(crate) state: AppState,
    /// The read timeouts and the connection cap to serve with.
    pub(crate) connections: ConnectionLimits,
}
