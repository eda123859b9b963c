//! What the control API and the account world's pages read and reset: nearly everything, since
//! `/_mock/reset` forgets each surface's state. Built once by the crate root and handed to
//! [`routes`](super::routes) with `Router::with_state`, so no handler names the root's state.

use std::sync::Arc;

use axum::extract::FromRef;

use crate::agent;
use crate::clock::Clock;
use crate::computer::Computer;
use crate::faults::store::Faults;
use crate::fixtures::Catalog;
use crate::http::auth::Authenticator;
use crate::journal::Journal;
use crate::oauth;
use crate::sonar;
use crate::world::World;

/// The control surface's state; cheap to clone (one `Arc`).
#[derive(Clone)]
pub(crate) struct ControlState {
    inner: Arc<ControlSetup>,
}

/// What the control surface stands on.
pub(crate) struct ControlSetup {
    /// The base URL every URL the surface hands out starts with.
    pub(crate) base_url: String,
    /// Virtual time (read and advanced).
    pub(crate) clock: Clock,
    /// Every exchange (served and cleared).
    pub(crate) journal: Journal,
    /// Accounts, credits, Projects, uploads.
    pub(crate) world: Arc<World>,
    /// The scenarios (listed).
    pub(crate) catalog: Arc<Catalog>,
    /// The Computer surface (reset).
    pub(crate) computer: Computer,
    /// The Agent API's responses (reset).
    pub(crate) agent: Arc<agent::Store>,
    /// The authorization server's sign-ins (revoked).
    pub(crate) oauth: Arc<oauth::Store>,
    /// The Sonar routes' live state (reset).
    pub(crate) sonar: Arc<sonar::Store>,
    /// The faults in force (listed, removed, reset to those given at start-up).
    pub(crate) faults: Faults,
    /// Who a request acts as (the stored bytes of an upload go only to their owner).
    pub(crate) authenticator: Authenticator,
}

impl ControlState {
    /// The surface's state on `setup`.
    pub(crate) fn new(setup: ControlSetup) -> Self {
        Self {
            inner: Arc::new(setup),
        }
    }

    /// The base URL the surface hands out.
    pub(crate) fn base_url(&self) -> &str {
        &self.inner.base_url
    }
    /// Virtual time.
    pub(crate) fn clock(&self) -> &Clock {
        &self.inner.clock
    }
    /// Who a request acts as.
    pub(crate) fn authenticator(&self) -> &Authenticator {
        &self.inner.authenticator
    }
    /// Every exchange.
    pub(crate) fn journal(&self) -> &Journal {
        &self.inner.journal
    }
    /// Accounts, credits, Projects, uploads.
    pub(crate) fn world(&self) -> &World {
        &self.inner.world
    }
    /// The scenarios.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }
    /// The Computer surface.
    pub(crate) fn computer(&self) -> &Computer {
        &self.inner.computer
    }
    /// The Agent API's responses.
    pub(crate) fn agent(&self) -> &agent::Store {
        &self.inner.agent
    }
    /// The authorization server's sign-ins.
    pub(crate) fn oauth(&self) -> &oauth::Store {
        &self.inner.oauth
    }
    /// The Sonar routes' live state.
    pub(crate) fn sonar(&self) -> &sonar::Store {
        &self.inner.sonar
    }
    /// The faults in force.
    pub(crate) fn faults(&self) -> &Faults {
        &self.inner.faults
    }
}

/// `GET /_mock/journal` takes only the journal.
impl FromRef<ControlState> for Journal {
    fn from_ref(state: &ControlState) -> Self {
        state.inner.journal.clone()
    }
}
