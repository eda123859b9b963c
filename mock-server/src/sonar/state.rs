//! What the Sonar surface's handlers read: the authenticator, virtual time, the world's
//! accounts and credits, the scenarios, and the surface's own live state. Built once by the
//! crate root and handed to [`routes`](super::routes) with `Router::with_state`.

use std::sync::Arc;

use super::store::Store;
use crate::clock::Clock;
use crate::faults::store::Faults;
use crate::fixtures::Catalog;
use crate::http::auth::Authenticator;
use crate::world::World;

/// The Sonar surface's state; cheap to clone (one `Arc`).
#[derive(Clone)]
pub(crate) struct SonarState {
    inner: Arc<SonarSetup>,
}

/// What the Sonar surface stands on.
pub(crate) struct SonarSetup {
    /// Checks API keys: the accounts' dev tokens and the OAuth access tokens the mock issued.
    pub(crate) authenticator: Authenticator,
    /// Virtual time.
    pub(crate) clock: Clock,
    /// Accounts and their credits.
    pub(crate) world: Arc<World>,
    /// The scenarios requests follow.
    pub(crate) catalog: Arc<Catalog>,
    /// Rate-limit windows, async jobs, the call log (shared with the
    /// control API's reset and the dashboard).
    pub(crate) store: Arc<Store>,
    /// The base URL of the pages the mock hands out (the billing page).
    pub(crate) base_url: String,
    /// The faults in force (the scenarios' faults are taken at the gate).
    pub(crate) faults: Faults,
}

impl SonarState {
    /// The surface's state on `setup`.
    pub(crate) fn new(setup: SonarSetup) -> Self {
        Self {
            inner: Arc::new(setup),
        }
    }

    /// Checks API keys.
    pub(crate) fn authenticator(&self) -> &Authenticator {
        &self.inner.authenticator
    }
    /// Virtual time.
    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }
    /// Accounts and credits.
    pub(crate) fn world(&self) -> &World {
        &self.inner.world
    }
    /// The scenarios.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }
    /// The surface's live state.
    pub(crate) fn store(&self) -> &Store {
        &self.inner.store
    }
    /// The base URL the mock hands out.
    pub(crate) fn base_url(&self) -> &str {
        &self.inner.base_url
    }
    /// The faults in force.
    pub(crate) fn faults(&self) -> &Faults {
        &self.inner.faults
    }
}
