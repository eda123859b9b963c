//! What the flows and pages around the tools need to know about a thread, asked as typed
//! questions rather than by reading the state machine.

use super::Service;
use crate::world::Account;

impl Service {
    /// Whether the request in progress still waits on request `request_id` (a sign-in the user
    /// may have finished on its page meanwhile, for one).
    pub(crate) fn is_waiting_on(
        &self,
        account: &Account,
        thread_id: &str,
        request_id: &str,
    ) -> bool {
        self.engine
            .with_thread(&account.id, thread_id, |thread, _| {
                thread
                    .latest()
                    .is_some_and(|e| e.open_requests().any(|r| r.id == request_id))
            })
            // A thread that vanished counts as still waiting: nothing moves it on.
            .unwrap_or(true)
    }
}
