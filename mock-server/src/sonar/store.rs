//! What the Sonar surface remembers while the mock runs, behind one lock: each account's
//! requests in the rate-limit window, the async jobs, and a log of recent calls for the
//! dashboard (a scenario's faults are the fault store's). `POST /_mock/reset` forgets it all.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use parking_lot::Mutex;
use serde::Serialize;

use super::jobs::Job;
use super::wire::jobs::{AsyncJob, AsyncSummary};

/// The most jobs kept (over all accounts); the oldest are forgotten first.
const MAX_JOBS: usize = 10_000;
/// The most calls the dashboard's log keeps.
const MAX_CALLS: usize = 500;

/// The Sonar surface's live state; shared with `/_mock/reset` and the dashboard.
#[derive(Debug, Default)]
pub(crate) struct Store {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Request times inside the window, per account and rate-limit bucket.
    windows: HashMap<(String, &'static str), VecDeque<DateTime<Utc>>>,
    /// Async jobs, oldest first.
    jobs: VecDeque<Job>,
    /// Recent calls, oldest first.
    calls: VecDeque<Call>,
}

/// One call, for the dashboard (`GET /_mock/sonar`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Call {
    /// Virtual time it arrived, RFC 3339.
    pub(crate) at: String,
    /// The account.
    pub(crate) account: String,
    /// `chat`, `chat stream`, `async`, `search`, `embeddings` or `contextualized embeddings`.
    pub(crate) route: &'static str,
    /// The model (or the Search API's `search`).
    pub(crate) model: String,
    /// The scenario followed.
    pub(crate) scenario: String,
    /// The HTTP status answered.
    pub(crate) status: u16,
    /// Credits it spent.
    pub(crate) credits: i64,
    /// The completion's, job's or search's id, when it got one.
    pub(crate) id: Option<String>,
}

impl Store {
    /// Counts a request of `account` against `bucket`'s `limit` per `window`; refused (with
    /// how long until a place frees up) when the window is full. A refused request does not
    /// count.
    pub(crate) fn admit(
        &self,
        account: &str,
        bucket: &'static str,
        limit: usize,
        window: TimeDelta,
        now: DateTime<Utc>,
    ) -> Result<(), Duration> {
        let mut state = self.state.lock();
        let times = state
            .windows
            .entry((account.to_owned(), bucket))
            .or_default();
        while times.front().is_some_and(|t| *t + window <= now) {
            times.pop_front();
        }
        if times.len() >= limit {
            let frees = times.front().map_or(now, |t| *t + window);
            return Err((frees - now).to_std().unwrap_or(Duration::ZERO));
        }
        times.push_back(now);
        Ok(())
    }

    /// Keeps a new job; returns it as `GET` shows it now.
    pub(crate) fn add_job(&self, job: Job, now: DateTime<Utc>) -> AsyncJob {
        let view = job.view(now);
        let mut state = self.state.lock();
        if state.jobs.len() >= MAX_JOBS {
            state.jobs.pop_front();
        }
        state.jobs.push_back(job);
        view
    }

    /// The job `account` created with `key`: its id and its request as sent.
    pub(crate) fn idempotent(&self, account: &str, key: &str) -> Option<(String, String)> {
        let state = self.state.lock();
        state
            .jobs
            .iter()
            .find(|j| j.account == account && j.idempotency_key.as_deref() == Some(key))
            .map(|j| (j.id.clone(), j.request_text.clone()))
    }

    /// `account`'s job `id` as it stands at `now`, and the credits to take for it now.
    pub(crate) fn job(
        &self,
        account: &str,
        id: &str,
        now: DateTime<Utc>,
    ) -> Option<(AsyncJob, Option<i64>)> {
        let mut state = self.state.lock();
        let job = state
            .jobs
            .iter_mut()
            .find(|j| j.account == account && j.id == id)?;
        let bill = job.bill(now);
        Some((job.view(now), bill))
    }

    /// `account`'s jobs, newest first, from `offset`, at most `limit`; whether more follow;
    /// and the credits to take now for the jobs seen completed for the first time.
    pub(crate) fn list(
        &self,
        account: &str,
        offset: usize,
        limit: usize,
        now: DateTime<Utc>,
    ) -> (Vec<AsyncSummary>, bool, i64) {
        let mut state = self.state.lock();
        let mut bills = 0;
        let mut mine: Vec<&mut Job> = state
            .jobs
            .iter_mut()
            .rev()
            .filter(|j| j.account == account)
            .collect();
        let more = mine.len() > offset.saturating_add(limit);
        let page = mine
            .iter_mut()
            .skip(offset)
            .take(limit)
            .map(|job| {
                bills += job.bill(now).unwrap_or(0);
                job.summary(now)
            })
            .collect();
        (page, more, bills)
    }

    /// Every job (every account's), newest first, as the dashboard shows them.
    pub(crate) fn jobs(&self, now: DateTime<Utc>) -> Vec<(String, String, AsyncSummary)> {
        let state = self.state.lock();
        state
            .jobs
            .iter()
            .rev()
            .map(|j| (j.account.clone(), j.scenario.clone(), j.summary(now)))
            .collect()
    }

    /// Logs a call for the dashboard.
    pub(crate) fn record(&self, call: Call) {
        let mut state = self.state.lock();
        if state.calls.len() >= MAX_CALLS {
            state.calls.pop_front();
        }
        state.calls.push_back(call);
    }

    /// Recent calls, newest first.
    pub(crate) fn calls(&self) -> Vec<Call> {
        self.state.lock().calls.iter().rev().cloned().collect()
    }

    /// Forgets everything (`POST /_mock/reset`).
    pub(crate) fn clear(&self) {
        *self.state.lock() = State::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_refuses_past_its_limit_until_the_oldest_request_leaves_it() {
        let store = Store::default();
        let t0 = crate::clock::Clock::fixed_epoch();
        let minute = TimeDelta::minutes(1);
        for i in 0..5 {
            let at = t0 + TimeDelta::seconds(i);
            assert_eq!(store.admit("bob", "sonar", 5, minute, at), Ok(()));
        }
        let later = t0 + TimeDelta::seconds(20);
        assert_eq!(
            store.admit("bob", "sonar", 5, minute, later),
            Err(Duration::from_secs(40))
        );
        assert_eq!(store.admit("alice", "sonar", 5, minute, later), Ok(()));
        assert_eq!(store.admit("bob", "sonar", 5, minute, t0 + minute), Ok(()));
    }
}
