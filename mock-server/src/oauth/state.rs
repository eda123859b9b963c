//! What the authorization server's handlers read: the base URL its documents name, virtual
//! time, the accounts a person can sign in as, and the clients, codes and tokens it issued.
//! Built once by the crate root and handed to [`routes`](super::routes) with
//! `Router::with_state`, so no handler names the root's state.

use std::sync::Arc;

use super::store::Store;
use crate::clock::Clock;
use crate::world::World;

/// The OAuth surface's state; cheap to clone (one `Arc`).
#[derive(Clone)]
pub(crate) struct OAuthState {
    inner: Arc<Inner>,
}

struct Inner {
    base_url: String,
    clock: Clock,
    world: Arc<World>,
    store: Arc<Store>,
    auto_consent: Option<String>,
}

/// What the OAuth surface stands on.
pub(crate) struct OAuthSetup {
    /// The base URL every URL the surface hands out starts with.
    pub(crate) base_url: String,
    /// Virtual time (token and code lifetimes).
    pub(crate) clock: Clock,
    /// The accounts the consent page offers.
    pub(crate) world: Arc<World>,
    /// Registered clients, codes and tokens (shared with the authenticator).
    pub(crate) store: Arc<Store>,
    /// The account `--auto-consent` approves as, without showing the page.
    pub(crate) auto_consent: Option<String>,
}

impl OAuthState {
    /// The surface's state on `setup`.
    pub(crate) fn new(setup: OAuthSetup) -> Self {
        let OAuthSetup {
            base_url,
            clock,
            world,
            store,
            auto_consent,
        } = setup;
        Self {
            inner: Arc::new(Inner {
                base_url,
                clock,
                world,
                store,
                auto_consent,
            }),
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
    /// The accounts the consent page offers.
    pub(crate) fn world(&self) -> &World {
        &self.inner.world
    }
    /// Registered clients, codes and tokens.
    pub(crate) fn oauth(&self) -> &Store {
        &self.inner.store
    }
    /// The account `--auto-consent` approves as.
    pub(crate) fn auto_consent(&self) -> Option<&str> {
        self.inner.auto_consent.as_deref()
    }
}
