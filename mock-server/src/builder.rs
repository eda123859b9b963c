//! [`MockServerBuilder`]: every option of a mock, then `start` (on a socket) or `router`
//! (without one).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;

use crate::clock::ClockMode;
use crate::config::Config;
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

    /// Listens on `addr` (default `127.0.0.1:0` for
    /// [`MockServer::start`](crate::MockServer::start)).
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

    /// Runs virtual time as `mode` says ([`time_scale`](Self::time_scale),
    /// [`manual_clock`](Self::manual_clock) and [`driven_clock`](Self::driven_clock) are
    /// shortcuts); a mode out of range is refused by [`start`](Self::start) and
    /// [`router`](Self::router) ([`ClockMode::check`]).
    pub fn clock(mut self, mode: ClockMode) -> Self {
        self.config.clock = mode;
        self
    }

    /// Starts virtual time at `start` instead of the fixed instant 2026-10-24T00:11:18Z that
    /// keeps timestamps the same on every run ([`Clock::fixed_epoch`](crate::Clock::fixed_epoch)).
    pub fn start_time(mut self, start: chrono::DateTime<chrono::Utc>) -> Self {
        self.config.epoch = Some(start);
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
