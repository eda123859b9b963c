//! [`MockHandle`]: a mock's URLs, clock, journal and world, with or without a socket.

use crate::clock::Clock;
use crate::fixtures::Catalog;
use crate::journal::Journal;
use crate::oauth::MCP_PATH;
use crate::state::AppState;
use crate::world::World;

/// The path of the Agent API's create endpoint (also served as `/v1/responses` and
/// `/responses`).
pub const AGENT_PATH: &str = "/v1/agent";

/// Access to a mock's clock, journal and world, with or without a socket.
#[derive(Clone)]
pub struct MockHandle {
    state: AppState,
}

impl MockHandle {
    /// The handle of the mock on `state`.
    pub(crate) fn new(state: AppState) -> Self {
        Self { state }
    }

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
