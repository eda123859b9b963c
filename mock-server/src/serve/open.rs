//! The connections the accept loop has open, and which one gives way at the connection cap.
//!
//! A connection is *busy* from the moment a request reaches the app until its response body
//! has been sent (an SSE stream stays busy while it streams). A connection holds a slot without
//! being served when it is not busy (open but not yet sending, idle between keep-alive
//! requests, or part-way through its headers), when its request body is still arriving, or
//! when its SSE stream has sent nothing but keep-alive comments for [`QUIET_STREAM`]: at the
//! cap, the oldest such connection is closed to make room, so half-sent requests, idle
//! keep-alives and forgotten streams can never shut new clients out (an MCP client opens its
//! GET stream again; the transport lets a server close one). Only when every open connection
//! is busy does a new one wait.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;

/// How long an SSE stream may send only keep-alive comments before, at the connection cap, it
/// counts as holding its slot unserved (four of the 15 s keep-alives).
pub(crate) const QUIET_STREAM: Duration = Duration::from_secs(60);

/// What one connection is doing, shared by its task, its request body and its response.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    /// A request is in the app, or its response is still being sent.
    busy: AtomicBool,
    /// The request in the app has not sent all of its body yet.
    body_arriving: AtomicBool,
    /// Since when the response has sent only SSE keep-alive comments, if it has.
    quiet_since: Mutex<Option<Instant>>,
    /// Fired to close the connection.
    shed: Notify,
}

impl Activity {
    /// A request came in; `body_arriving` when its body is still to come.
    pub(crate) fn request_started(&self, body_arriving: bool) {
        self.body_arriving.store(body_arriving, Ordering::Relaxed);
        self.busy.store(true, Ordering::Relaxed);
    }

    /// The request's body is all there (or its reading ended).
    pub(crate) fn body_done(&self) {
        self.body_arriving.store(false, Ordering::Relaxed);
    }

    /// The response has been sent (or dropped).
    pub(crate) fn response_done(&self) {
        self.body_arriving.store(false, Ordering::Relaxed);
        *self.quiet_since.lock() = None;
        self.busy.store(false, Ordering::Relaxed);
    }

    /// The response sent a piece of its body: an SSE keep-alive comment (`keep_alive`) or
    /// anything else.
    pub(crate) fn response_sent(&self, keep_alive: bool) {
        let mut quiet_since = self.quiet_since.lock();
        match (keep_alive, *quiet_since) {
            (true, None) => *quiet_since = Some(Instant::now()),
            (false, Some(_)) => *quiet_since = None,
            _ => {}
        }
    }

    /// Waits until the accept loop sheds this connection.
    pub(crate) async fn shed(&self) {
        self.shed.notified().await;
    }

    fn holds_a_slot_unserved(&self) -> bool {
        !self.busy.load(Ordering::Relaxed)
            || self.body_arriving.load(Ordering::Relaxed)
            || self
                .quiet_since
                .lock()
                .is_some_and(|since| since.elapsed() >= QUIET_STREAM)
    }
}

/// Every open connection, oldest first.
#[derive(Debug, Default)]
pub(crate) struct OpenConnections {
    open: Mutex<VecDeque<(u64, Arc<Activity>)>>,
    next: Mutex<u64>,
}

impl OpenConnections {
    /// Registers a new connection; returns its id (for [`Self::closed`]) and its activity.
    pub(crate) fn opened(&self) -> (u64, Arc<Activity>) {
        let id = {
            let mut next = self.next.lock();
            *next += 1;
            *next
        };
        let activity = Arc::new(Activity::default());
        self.open.lock().push_back((id, activity.clone()));
        (id, activity)
    }

    /// Forgets a connection that ended.
    pub(crate) fn closed(&self, id: u64) {
        self.open.lock().retain(|(open, _)| *open != id);
    }

    /// Closes the oldest connection that holds a slot without being served; false if every
    /// open connection is busy.
    pub(crate) fn shed_oldest_unserved(&self) -> bool {
        let mut open = self.open.lock();
        let Some(at) = open
            .iter()
            .position(|(_, activity)| activity.holds_a_slot_unserved())
        else {
            return false;
        };
        if let Some((_, activity)) = open.remove(at) {
            // notify_one keeps the wake-up if the connection's task is not waiting yet.
            activity.shed.notify_one();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_idle_or_half_sent_connection_gives_way_and_busy_ones_never_do() {
        let open = OpenConnections::default();
        let (_, streaming) = open.opened();
        streaming.request_started(false);
        let (_, uploading) = open.opened();
        uploading.request_started(true);
        let (_, idle) = open.opened();

        assert!(
            open.shed_oldest_unserved(),
            "the upload still arriving goes first"
        );
        assert!(open.shed_oldest_unserved(), "then the idle one");
        assert!(
            !open.shed_oldest_unserved(),
            "a streaming response is never shed"
        );
        drop((uploading, idle));

        streaming.response_done();
        assert!(open.shed_oldest_unserved(), "once sent, it is idle");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_sending_only_keep_alives_gives_way_after_a_quiet_minute() {
        let open = OpenConnections::default();
        let (_, stream) = open.opened();
        stream.request_started(false);
        stream.response_sent(false);
        stream.response_sent(true);
        tokio::time::advance(QUIET_STREAM - Duration::from_secs(1)).await;
        stream.response_sent(true);
        assert!(!open.shed_oldest_unserved(), "quiet for 59 s: still served");
        stream.response_sent(false);
        tokio::time::advance(QUIET_STREAM).await;
        assert!(
            !open.shed_oldest_unserved(),
            "a message restarts the quiet minute"
        );
        stream.response_sent(true);
        tokio::time::advance(QUIET_STREAM).await;
        assert!(open.shed_oldest_unserved(), "a quiet minute of keep-alives");
    }

    #[test]
    fn a_closed_connection_is_forgotten() {
        let open = OpenConnections::default();
        let (id, _) = open.opened();
        open.closed(id);
        assert!(!open.shed_oldest_unserved());
    }
}
