//! What the Agent API's handlers read: the accounts and tokens requests authenticate against,
//! virtual time, the scenarios, and the responses the API holds. Built once by the crate root
//! and handed to [`routes`](super::routes) with `Router::with_state`, so no handler names the
//! root's state.

use std::sync::Arc;

use super::store::Store;
use crate::clock::Clock;
use crate::fixtures::Catalog;
use crate::http::auth::AuthMode;
use crate::oauth;
use crate::world::World;

/// The Agent API surface's state; cheap to clone (one `Arc`).
#[derive(Clone)]
pub(crate) struct AgentState {
    inner: Arc<Inner>,
}

struct Inner {
    auth: AuthMode,
    world: Arc<World>,
    tokens: Arc<oauth::Store>,
    clock: Clock,
    store: Arc<Store>,
    catalog: Arc<Catalog>,
}

/// What the Agent API surface stands on.
pub(crate) struct AgentSetup {
    /// How requests authenticate.
    pub(crate) auth: AuthMode,
    /// Accounts and their dev tokens.
    pub(crate) world: Arc<World>,
    /// The OAuth access tokens the mock issued (also accepted as API keys).
    pub(crate) tokens: Arc<oauth::Store>,
    /// Virtual time.
    pub(crate) clock: Clock,
    /// The responses the API holds (shared with `/_mock/reset`).
    pub(crate) store: Arc<Store>,
    /// The scenarios responses follow.
    pub(crate) catalog: Arc<Catalog>,
}

impl AgentState {
    /// The surface's state on `setup`.
    pub(crate) fn new(setup: AgentSetup) -> Self {
        let AgentSetup {
            auth,
            world,
            tokens,
            clock,
            store,
            catalog,
        } = setup;
        Self {
            inner: Arc::new(Inner {
                auth,
                world,
                tokens,
                clock,
                store,
                catalog,
            }),
        }
    }

    /// How requests authenticate.
    pub(crate) fn auth_mode(&self) -> AuthMode {
        self.inner.auth
    }
    /// Accounts and their dev tokens.
    pub(crate) fn world(&self) -> &World {
        &self.inner.world
    }
    /// The OAuth access tokens the mock issued.
    pub(crate) fn oauth(&self) -> &oauth::Store {
        &self.inner.tokens
    }
    /// Virtual time.
    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }
    /// The responses the API holds.
    pub(crate) fn agent(&self) -> &Store {
        &self.inner.store
    }
    /// The scenarios responses follow.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }
}
