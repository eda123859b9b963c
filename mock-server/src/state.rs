//! The state every handler shares, built once from a [`Config`], and the service that puts
//! every surface on it.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;

use crate::clock::Clock;
use crate::config::{Config, MAX_ACCESS_TOKEN_LIFETIME};
use crate::error::Error;
use crate::fixtures::Catalog;
use crate::journal::Journal;
use crate::world::World;
use crate::{agent, app, computer, control, faults, http, oauth, sonar};

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
    /// The injected faults in force (`--fault`, `/_mock/faults`).
    faults: faults::Faults,
    /// The names and pages the guard in front of the surfaces lets in.
    origins: http::origin::Origins,
}

impl AppState {
    pub(crate) fn new(
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
        let world = Arc::new(world.with_max_upload_bytes(config.limits.max_upload_bytes));
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
        )
        .with_dev_tokens(config.dev_tokens);
        let computer = computer::Computer::new(computer::Setup {
            clock: clock.clone(),
            catalog: catalog.clone(),
            world: world.clone(),
            base_url: base_url.clone(),
            call_wait: config.call_wait,
            authenticator: authenticator.clone(),
            limits: config.limits,
            eras: config.eras,
        });
        let origins =
            http::origin::Origins::new(&base_url, &config.allowed_origins).map_err(|refused| {
                Error::AllowOrigin {
                    reason: refused.to_string(),
                }
            })?;
        let faults = faults::Faults::new(config.faults.clone());
        let agent = Arc::new(agent::Store::with_max(config.limits.max_responses));
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
                agent,
                sonar: Arc::default(),
                faults,
                origins,
            }),
        })
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
    pub(crate) fn agent(&self) -> &agent::Store {
        &self.inner.agent
    }
    pub(crate) fn oauth(&self) -> &oauth::Store {
        &self.inner.oauth
    }

    /// Which Computer conversation an MCP request belongs to, for the layer to take its
    /// scenario's faults: a `tools/call` naming a `thread_id` follows that thread's scenario,
    /// one with a `message` and no thread starts a conversation routed as `send` routes it.
    /// `None` when no Computer scenario declares faults (the endpoint stays on its fast path).
    fn computer_conversations(&self) -> Option<faults::layer::ConversationOf> {
        let shared = &*self.inner;
        if shared.catalog.iter().all(|s| s.faults.is_empty()) {
            return None;
        }
        let authenticator = shared.authenticator.clone();
        let catalog = shared.catalog.clone();
        let computer = shared.computer.clone();
        Some(Arc::new(move |headers: &::http::HeaderMap, body: &[u8]| {
            let account = authenticator
                .authenticate(headers, http::auth::Audience::Any)
                .ok()?;
            let rpc: serde_json::Value = serde_json::from_slice(body).ok()?;
            if rpc["method"] != "tools/call" {
                return None;
            }
            let arguments = &rpc["params"]["arguments"];
            let scenario = match arguments["thread_id"].as_str() {
                Some(thread) => computer.scenario_of(&account.id, thread)?,
                None => catalog.route(arguments["message"].as_str()?),
            };
            (!scenario.faults.is_empty()).then(|| faults::layer::Routed {
                scenario: scenario.scenario.name.clone(),
                account: account.id.clone(),
                faults: scenario.faults.clone(),
            })
        }))
    }

    /// Every surface, each on the part of the state it reads (so no surface names this one),
    /// under the journal.
    pub(crate) fn app(&self) -> app::App {
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
            faults: shared.faults.clone(),
            authenticator: shared.authenticator.clone(),
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
            faults: shared.faults.clone(),
            outgoing: shared.journal.outgoing().clone(),
        });
        let sonar = sonar::SonarState::new(sonar::SonarSetup {
            authenticator: shared.authenticator.clone(),
            clock: shared.clock.clone(),
            world: shared.world.clone(),
            catalog: shared.catalog.clone(),
            store: shared.sonar.clone(),
            base_url: shared.base_url.clone(),
            faults: shared.faults.clone(),
        });
        let rest = Router::new()
            .merge(shared.computer.pages())
            .merge(control::routes().with_state(control))
            .merge(oauth::routes().with_state(oauth))
            .merge(agent::routes().with_state(agent))
            .merge(sonar::routes().with_state(sonar))
            .merge(faults::routes().with_state(shared.faults.clone()))
            // Agent API clients share the base URL: paths it does not serve answer in its envelope.
            .fallback(agent::unserved)
            // Each body was read under its surface's limit before routing (and refused in its
            // shape); axum's own 2 MB default would otherwise refuse 2-4 MiB bodies as plain
            // text.
            .layer(axum::extract::DefaultBodyLimit::max(
                http::body::DEFAULT_LIMIT,
            ));
        app::assemble(
            app::Floors {
                journal: shared.journal.clone(),
                clock: shared.clock.clone(),
                faults: shared.faults.clone(),
                accounts: {
                    let authenticator = shared.authenticator.clone();
                    Arc::new(move |headers: &::http::HeaderMap| {
                        authenticator
                            .authenticate(headers, http::auth::Audience::Any)
                            .ok()
                            .map(|account| account.id.clone())
                    })
                },
                conversations: self.computer_conversations(),
                origins: shared.origins.clone(),
            },
            shared.computer.endpoint(),
            rest,
        )
    }
}
