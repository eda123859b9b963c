//! The background work a driven clock waits for before a look answers.
//!
//! On a driven clock (`ClockMode::Driven`) a look moves virtual time on and must
//! then answer with what that time brought, including work that runs in its own task (a
//! background Agent API run). Each such task registers here; a look waits until every
//! registered task is asleep on a deadline still ahead, so what it reads no longer depends on
//! how fast the scheduler got to those tasks.

use parking_lot::{Mutex, MutexGuard};
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use tokio::sync::Notify;

/// Where one registered task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pace {
    /// Doing its work (or about to): a look waits for it.
    Busy,
    /// Asleep until this virtual time.
    Asleep(DateTime<Utc>),
}

/// Every registered task, and a signal when one of them changes.
#[derive(Debug, Default)]
pub(super) struct Pacers {
    registry: Mutex<Registry>,
    changed: Notify,
}

#[derive(Debug, Default)]
struct Registry {
    next_id: u64,
    paces: HashMap<u64, Pace>,
}

impl Pacers {
    fn lock(&self) -> MutexGuard<'_, Registry> {
        // Every mutation is one insert, update or removal: consistent after a panic (the lock
        // never poisons).
        self.registry.lock()
    }

    /// Registers a task, busy from the start; returns its id.
    pub(super) fn register(&self) -> u64 {
        let mut registry = self.lock();
        let id = registry.next_id;
        registry.next_id = registry.next_id.wrapping_add(1);
        registry.paces.insert(id, Pace::Busy);
        id
    }

    /// Records where task `id` stands (a task no longer registered stays unregistered).
    pub(super) fn set(&self, id: u64, pace: Pace) {
        if let Some(current) = self.lock().paces.get_mut(&id) {
            *current = pace;
        }
        self.changed.notify_waiters();
    }

    /// Forgets task `id`: it ended.
    pub(super) fn remove(&self, id: u64) {
        self.lock().paces.remove(&id);
        self.changed.notify_waiters();
    }

    /// Whether some task still has work to do at `now`: busy, or asleep on a deadline passed.
    pub(super) fn busy(&self, now: DateTime<Utc>) -> bool {
        self.lock().paces.values().any(|pace| match pace {
            Pace::Busy => true,
            Pace::Asleep(deadline) => *deadline <= now,
        })
    }

    /// Signalled whenever a task changes.
    pub(super) fn changed(&self) -> &Notify {
        &self.changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeDelta;

    #[test]
    fn a_task_is_busy_until_it_sleeps_on_a_deadline_still_ahead() {
        let pacers = Pacers::default();
        let now = DateTime::UNIX_EPOCH;
        assert!(!pacers.busy(now));
        let id = pacers.register();
        assert!(pacers.busy(now));
        pacers.set(id, Pace::Asleep(now + TimeDelta::seconds(5)));
        assert!(!pacers.busy(now));
        assert!(pacers.busy(now + TimeDelta::seconds(5)));
        pacers.remove(id);
        assert!(!pacers.busy(now + TimeDelta::seconds(5)));
        pacers.set(id, Pace::Busy);
        assert!(!pacers.busy(now), "a removed task is not registered again");
    }
}
