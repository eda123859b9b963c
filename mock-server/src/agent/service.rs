//! The one door to the Agent API's behaviour: typed commands (create, retrieve, cancel, list a
//! run's files, read one, forget a run) over the store, the scenarios and the virtual clock,
//! each answering a typed value or an [`ApiError`]. The routes extract a request, call one
//! command and write its answer; none holds behaviour of its own.
//!
//! - `create`: counting the request for the rate-limit window, validation, where the
//!   conversation stands, a scenario's faults, and the run in its mode;
//! - `lookups`: the commands on a response that exists (retrieve, cancel, files, forget).

pub(crate) mod create;
pub(crate) mod lookups;

use std::sync::Arc;

use super::error::ApiError;
use super::store::{Run, Store};
use crate::clock::Clock;
use crate::faults::store::Faults;
use crate::fixtures::Catalog;
use crate::journal::Outgoing;
use crate::world::Account;

/// The Agent API's behaviour; one per surface.
pub(crate) struct Service {
    /// Virtual time.
    clock: Clock,
    /// The responses the API holds (shared with `/_mock/reset`).
    store: Arc<Store>,
    /// The scenarios responses follow.
    catalog: Arc<Catalog>,
    /// The faults in force: a scenario's are taken once a request is known to follow it.
    faults: Faults,
    /// Where the credentials an `mcp` tool sends out are noted, for the journal.
    outgoing: Outgoing,
}

impl Service {
    /// The service over `store`, following `catalog` on `clock`, meeting `faults`, noting what
    /// it sends out in `outgoing`.
    pub(crate) fn new(
        clock: Clock,
        store: Arc<Store>,
        catalog: Arc<Catalog>,
        faults: Faults,
        outgoing: Outgoing,
    ) -> Self {
        Self {
            clock,
            store,
            catalog,
            faults,
            outgoing,
        }
    }

    /// The response `id` of `account` that `GET` may show: a malformed id is a 400, another
    /// account's, a forgotten or an unstored one a 404.
    fn stored_run(&self, account: &Account, id: &str) -> Result<Arc<Run>, ApiError> {
        if !id.starts_with("resp_") {
            return Err(ApiError::invalid_request("invalid response id").param("id"));
        }
        self.store
            .get(&account.id, id)
            .filter(|run| run.stored)
            .ok_or_else(ApiError::not_found)
    }
}
