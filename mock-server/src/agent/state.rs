//! What the Agent API's handlers read: the authenticator requests go through (which knows the
//! accounts), virtual time, the scenarios, and the responses the API holds. Built once by the crate root
//! and handed to [`routes`](super::routes) with `Router::with_state`, so no handler names the
//! root's state.

use std::sync::Arc;

use super::service::Service;
use super::store::Store;
use crate::clock::Clock;
use crate::faults::store::Faults;
use crate::fixtures::Catalog;
use crate::http::auth::Authenticator;
use crate::journal::Outgoing;

/// The Agent API surface's state; cheap to clone (one `Arc`).
#[derive(Clone)]
pub(crate) struct AgentState {
    inner: Arc<Surface>,
}

/// What the Agent API surface stands on.
pub(crate) struct AgentSetup {
    /// Checks API keys: the accounts' dev tokens and the OAuth access tokens the mock issued.
    pub(crate) authenticator: Authenticator,
    /// Virtual time.
    pub(crate) clock: Clock,
    /// The responses the API holds (shared with `/_mock/reset`).
    pub(crate) store: Arc<Store>,
    /// The scenarios responses follow.
    pub(crate) catalog: Arc<Catalog>,
    /// The faults in force (the scenarios' faults are taken here).
    pub(crate) faults: Faults,
    /// Where the credentials an `mcp` tool sends out are noted (the journal's).
    pub(crate) outgoing: Outgoing,
}

/// The surface: who may call it, and its behaviour.
struct Surface {
    authenticator: Authenticator,
    service: Service,
}

impl AgentState {
    /// The surface's state on `setup`.
    pub(crate) fn new(setup: AgentSetup) -> Self {
        let AgentSetup {
            authenticator,
            clock,
            store,
            catalog,
            faults,
            outgoing,
        } = setup;
        Self {
            inner: Arc::new(Surface {
                authenticator,
                service: Service::new(clock, store, catalog, faults, outgoing),
            }),
        }
    }

    /// Checks API keys.
    pub(crate) fn authenticator(&self) -> &Authenticator {
        &self.inner.authenticator
    }

    /// The Agent API's behaviour, which every handler calls into.
    pub(crate) fn service(&self) -> &Service {
        &self.inner.service
    }
}
