//! What the flows and pages around the tools need to know about a thread, asked as typed
//! questions rather than by reading the state machine, and the few moves they make on it.

use chrono::{DateTime, Utc};

use super::{Service, Wait};
use crate::clock::iso;
use crate::computer::model::arguments::CallComputer;
use crate::computer::model::listings::Step;
use crate::computer::model::results::{Awaiting, Checkpoint};
use crate::computer::thread::{InputKind, Phase, RequestState};
use crate::computer::view;
use crate::world::Account;

/// One request of a thread, as a task sees it on a poll.
#[derive(Debug, Clone)]
pub(crate) struct TaskView {
    /// The request's result so far (a timeout while Computer works); `None` while the task's
    /// message is queued behind the request in progress.
    pub(crate) checkpoint: Option<Checkpoint>,
    /// Its steps.
    pub(crate) steps: Vec<Step>,
    /// What the thread's latest request waits on, when that request is the task's own.
    pub(crate) awaiting: Vec<Awaiting>,
    /// When a sleeping request wakes.
    pub(crate) wake_at: Option<String>,
    /// The title of the step in progress.
    pub(crate) current_step: Option<String>,
    /// `queued`, `running` or `idle`.
    pub(crate) thread_status: &'static str,
}

/// How long a thread's tasks live and how often they should be polled, when its scenario says.
#[derive(Debug, Clone, Default)]
pub(crate) struct TaskTiming {
    /// Lifetime, in milliseconds.
    pub(crate) ttl_ms: Option<u64>,
    /// Poll intervals in milliseconds: the creation's, then each `tasks/get`'s, the last
    /// repeating (empty: the document's default).
    pub(crate) poll_intervals_ms: Vec<u64>,
}

impl Service {
    /// Virtual now.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.engine.clock.now()
    }

    /// A look that does not block (`tasks/get`): a driven clock moves on by its look step.
    pub(crate) async fn look(&self) {
        self.engine.clock.look().await;
    }

    /// Whether the account has credits left to send a message with.
    pub(crate) fn has_credits(&self, account: &Account) -> bool {
        self.engine.world.credits(&account.id) > 0
    }

    /// The stop page of a thread.
    pub(crate) fn stop_url(&self, thread_id: &str) -> String {
        format!("{}/_mock/stop/{thread_id}", self.engine.base_url)
    }

    /// The scenario's task timing for a thread.
    pub(crate) fn task_timing(&self, account: &Account, thread_id: &str) -> TaskTiming {
        self.engine
            .with_thread(&account.id, thread_id, |thread, _| {
                let settings = &thread.scenario.scenario.settings;
                let poll_intervals_ms = if settings.poll_intervals_ms.is_empty() {
                    settings.poll_interval_ms.into_iter().collect()
                } else {
                    settings.poll_intervals_ms.clone()
                };
                TaskTiming {
                    ttl_ms: settings.ttl_ms,
                    poll_intervals_ms,
                }
            })
            // A thread that vanished has no scenario to ask: the document's defaults apply.
            .unwrap_or_else(|_| TaskTiming::default())
    }

    /// The request a task follows: the entries from `first_entry` on, up to `last_entry` once a
    /// newer task took over. `None` when the thread is gone or has no entries.
    pub(crate) fn task_view(
        &self,
        account: &Account,
        thread_id: &str,
        first_entry: usize,
        last_entry: Option<usize>,
    ) -> Option<TaskView> {
        self.engine
            .with_thread(&account.id, thread_id, |thread, links| {
                let latest = thread.entries.len().checked_sub(1)?;
                let index = last_entry.map_or(latest, |last| last.min(latest));
                if index < first_entry {
                    // The message is queued behind the request in progress.
                    return Some(TaskView {
                        checkpoint: None,
                        steps: Vec::new(),
                        awaiting: Vec::new(),
                        wake_at: None,
                        current_step: None,
                        thread_status: "queued",
                    });
                }
                let entry = &thread.entries[index];
                let checkpoint = if matches!(entry.phase, Phase::Running { .. }) {
                    view::timeout(thread)
                } else {
                    view::checkpoint(thread, entry, links)
                };
                let own_latest = latest >= first_entry && last_entry.is_none_or(|l| l >= latest);
                let awaiting = if own_latest {
                    view::awaiting(thread, &thread.entries[latest], links)
                } else {
                    Vec::new()
                };
                let wake_at = match &entry.phase {
                    Phase::Sleeping { wake_at, .. } => Some(iso(*wake_at)),
                    _ => None,
                };
                let current_step = entry
                    .steps
                    .iter()
                    .rev()
                    .find(|s| s.completed_at.is_none())
                    .map(|s| s.title.clone());
                Some(TaskView {
                    checkpoint: Some(checkpoint),
                    steps: view::steps(entry),
                    awaiting,
                    wake_at,
                    current_step,
                    thread_status: thread.status(),
                })
            })
            .ok()
            .flatten()
    }

    /// What the thread's latest request waits on, for a task covering entries `first_entry` to
    /// `last_entry`: nothing when that request is another task's.
    pub(crate) fn task_awaiting(
        &self,
        account: &Account,
        thread_id: &str,
        first_entry: usize,
        last_entry: Option<usize>,
    ) -> Vec<Awaiting> {
        self.engine
            .with_thread(&account.id, thread_id, |thread, links| {
                let latest = thread.entries.len().checked_sub(1)?;
                let own = latest >= first_entry && last_entry.is_none_or(|l| l >= latest);
                own.then(|| view::awaiting(thread, &thread.entries[latest], links))
            })
            .ok()
            .flatten()
            // A thread that vanished, or a latest request that is another task's, waits on
            // nothing this task can answer.
            .unwrap_or_default()
    }

    /// A URL elicitation of sign-in `request_id` was accepted: if the user finished the page,
    /// the request continues without `notify_connected` ("URL mode: ... the client is asked
    /// to open the Perplexity page where you finish that step. The call then returns the
    /// usual result"). Whether the request no longer waits on it.
    pub(crate) fn resume_signed_in(
        &self,
        account: &Account,
        thread_id: &str,
        request_id: &str,
    ) -> bool {
        let now = self.now();
        self.engine
            .with_thread(&account.id, thread_id, |thread, _| {
                let waiting = thread
                    .latest()
                    .is_some_and(|e| e.open_requests().any(|r| r.id == request_id));
                !waiting || thread.resume_connected(request_id, now)
            })
            // A thread that vanished counts as still waiting: nothing moves it on.
            .unwrap_or(false)
    }

    /// Moves a task's thread on where no tool call would: after the account was topped up
    /// while the request waits on credits, or the user finished the Perplexity page it waits
    /// on (a form, two-factor), a message continues it ("Open the URL and complete the
    /// required action in Perplexity"); a sign-in finished on its page resumes the task.
    pub(crate) async fn continue_after_page(&self, account: &Account, thread_id: &str) {
        let credits = self.engine.world.credits(&account.id);
        let now = self.now();
        let finished = self
            .engine
            .with_thread(&account.id, thread_id, |thread, _| {
                // "Sign-ins | URL | Open the URL. The user signs in on that page and the task
                // continues": a task needs no notify_connected.
                let connected: Vec<String> = thread
                    .latest()?
                    .open_requests()
                    .filter(|r| r.connected)
                    .map(|r| r.id.clone())
                    .collect();
                for request_id in &connected {
                    thread.resume_connected(request_id, now);
                }
                let entry = thread.latest()?;
                match &entry.phase {
                    Phase::Input {
                        kind: InputKind::Credits,
                        ..
                    } => (credits > 0).then_some("Credits added. Continue."),
                    Phase::Input {
                        kind:
                            InputKind::Interaction { request_id, .. }
                            | InputKind::TwoFactor { request_id },
                        ..
                    } => entry
                        .pages_done
                        .contains(request_id)
                        .then_some("Done in Perplexity. Continue."),
                    _ => None,
                }
            })
            .ok()
            .flatten();
        if let Some(message) = finished {
            let args = CallComputer {
                thread_id: Some(thread_id.to_owned()),
                message: Some(message.to_owned()),
                ..CallComputer::default()
            };
            self.send(account, args, Wait::none()).await;
        }
    }

    /// The user dismissed sign-in `request_id`: the task goes on without that connector.
    pub(crate) fn dismiss_sign_in(&self, account: &Account, thread_id: &str, request_id: &str) {
        let now = self.now();
        // A thread that vanished has nothing left to dismiss.
        let _ = self
            .engine
            .with_thread(&account.id, thread_id, |thread, _| {
                thread.resolve(request_id, RequestState::Dismissed, now);
            });
    }
}
