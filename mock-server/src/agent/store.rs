//! The responses the mock remembers: each run's snapshot, its event log (for stream resume),
//! its files, and where its turn paused (for `previous_response_id` continuations).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use parking_lot::{MappedMutexGuard, Mutex, MutexGuard};
use serde::Serialize;
use tokio::sync::watch;

use super::error::ApiError;
use super::wire::events::{Event, StreamEvent};
use super::wire::items::OutputItem;
use super::wire::response::{Response, ResponseError, Status};
use crate::clock::PacerWaker;

/// A file a run shared (`share_file`), served by `GET …/{id}/files`.
#[derive(Debug, Clone)]
pub(crate) struct RunFile {
    /// `file_<uuid>`.
    pub(crate) id: String,
    /// File name.
    pub(crate) filename: String,
    /// Content.
    pub(crate) content: bytes::Bytes,
    /// Unix seconds.
    pub(crate) created_at: i64,
}

/// An approval request the run is waiting on.
pub(crate) type Pending = super::approval::PendingApproval;

/// Where a turn stopped before its end, so a continuation can resume it.
#[derive(Debug, Clone)]
pub(crate) struct Pause {
    /// The turn.
    pub(crate) turn: usize,
    /// The step to resume at.
    pub(crate) next_step: usize,
    /// Approval requests waiting for a decision (empty when paused on a function call).
    pub(crate) approvals: Vec<Pending>,
}

/// A run's mutable state.
#[derive(Debug)]
pub(crate) struct RunState {
    /// The response as `GET` shows it now.
    pub(crate) response: Response,
    /// Every stream event so far, `sequence_number` = index.
    pub(crate) events: Vec<StreamEvent>,
    /// The run reached a terminal status.
    pub(crate) terminal: bool,
    /// Files shared so far.
    pub(crate) files: Vec<RunFile>,
    /// Where the turn paused, if it did.
    pub(crate) pause: Option<Pause>,
    /// The turn this run played.
    pub(crate) turn: usize,
    /// A sync request answers this instead of the response (a discovery failure is a 424).
    pub(crate) sync_error: Option<ApiError>,
    /// Marks a background run busy on a driven clock when a cancel is about to wake it, so
    /// the next look waits for the cancel to take effect.
    pub(crate) waker: Option<PacerWaker>,
    /// The virtual time the first cancel arrived: the run stops a fixed latency after it,
    /// however late its task gets to run (so the next look on a driven clock sees it stopped).
    pub(crate) cancel_requested_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// One response.
#[derive(Debug)]
pub(crate) struct Run {
    /// `resp_<uuid>`.
    pub(crate) id: String,
    /// Owning account.
    pub(crate) account: String,
    /// `store` was not false: `GET` may show it.
    pub(crate) stored: bool,
    /// The scenario it follows.
    pub(crate) scenario: String,
    state: Mutex<RunState>,
    changed: watch::Sender<usize>,
    cancel: watch::Sender<bool>,
    forgotten: std::sync::atomic::AtomicBool,
}

impl Run {
    /// A new run whose snapshot is `response`.
    pub(crate) fn new(account: String, stored: bool, scenario: String, response: Response) -> Self {
        Self {
            id: response.id.clone(),
            account,
            stored,
            scenario,
            state: Mutex::new(RunState {
                response,
                events: Vec::new(),
                terminal: false,
                files: Vec::new(),
                pause: None,
                turn: 0,
                sync_error: None,
                waker: None,
                cancel_requested_at: None,
            }),
            changed: watch::channel(0).0,
            cancel: watch::channel(false).0,
            forgotten: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// From now on the run answers as an id the API never issued (its scenario's
    /// `forget_after` passed).
    pub(crate) fn forget(&self) {
        self.forgotten
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    fn is_forgotten(&self) -> bool {
        self.forgotten.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Locks the state.
    pub(crate) fn state(&self) -> MutexGuard<'_, RunState> {
        self.state.lock()
    }

    /// The response as `GET` shows it now.
    pub(crate) fn snapshot(&self) -> Response {
        self.state().response.clone()
    }

    /// Appends a stream event (with the next `sequence_number`) and wakes readers.
    pub(crate) fn emit(&self, event: Event) {
        let count = {
            let mut state = self.state();
            let sequence_number = state.events.len();
            state.events.push(StreamEvent {
                sequence_number,
                event,
            });
            state.events.len()
        };
        self.changed.send_replace(count);
    }

    /// What the dashboard shows of the run.
    pub(crate) fn summary(&self) -> ResponseSummary {
        let state = self.state();
        ResponseSummary {
            id: self.id.clone(),
            account: self.account.clone(),
            scenario: self.scenario.clone(),
            stored: self.stored,
            terminal: state.terminal,
            status: state.response.status.clone(),
            model: state.response.model.clone(),
            created_at: state.response.created_at,
            output: state.response.output.clone(),
            error: state.response.error.clone(),
        }
    }

    /// Marks the run terminal and wakes readers.
    pub(crate) fn finish(&self) {
        let count = {
            let mut state = self.state();
            state.terminal = true;
            state.events.len()
        };
        self.changed.send_replace(count);
    }

    /// Changes to the event log and terminal flag.
    pub(crate) fn subscribe(&self) -> watch::Receiver<usize> {
        self.changed.subscribe()
    }

    /// Waits until the run is terminal.
    pub(crate) async fn wait_terminal(&self) {
        let mut changes = self.subscribe();
        loop {
            if self.state().terminal {
                return;
            }
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// Asks the run to stop; `at` is the virtual time of the request.
    pub(crate) fn request_cancel(&self, at: chrono::DateTime<chrono::Utc>) {
        {
            let mut state = self.state();
            state.cancel_requested_at.get_or_insert(at);
            if let Some(waker) = &state.waker {
                waker.wake();
            }
        }
        self.cancel.send_replace(true);
    }

    /// Cancellation requests.
    pub(crate) fn cancelled(&self) -> watch::Receiver<bool> {
        self.cancel.subscribe()
    }
}

/// A run as the dashboard lists it (`GET /_mock/responses`): who owns it, which scenario it
/// follows, and where it is.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ResponseSummary {
    /// `resp_<uuid>`.
    pub(crate) id: String,
    /// Owning account.
    pub(crate) account: String,
    /// The scenario it follows.
    pub(crate) scenario: String,
    /// `GET` may show it.
    pub(crate) stored: bool,
    /// It reached a terminal status.
    pub(crate) terminal: bool,
    /// Its status.
    pub(crate) status: Status,
    /// Its model.
    pub(crate) model: String,
    /// Unix seconds.
    pub(crate) created_at: i64,
    /// Its output so far.
    pub(crate) output: Vec<OutputItem>,
    /// Its error, if any.
    pub(crate) error: Option<ResponseError>,
}

/// Every response, by id, at most `max` of them: the oldest go first.
#[derive(Debug)]
pub(crate) struct Store {
    runs: Mutex<Runs>,
    /// Create requests per account in the last virtual minute, for `x-ratelimit-*`.
    recent: Mutex<HashMap<String, Vec<chrono::DateTime<chrono::Utc>>>>,
}

/// The runs and the order they came in.
#[derive(Debug, Default)]
struct Runs {
    by_id: HashMap<String, Arc<Run>>,
    /// Ids oldest first (one already removed is skipped when it comes up).
    order: VecDeque<String>,
    /// Runs evicted since the start or the last reset.
    evicted: u64,
    /// Most runs kept (`StateLimits::max_responses`).
    max: usize,
}

impl Default for Store {
    fn default() -> Self {
        Self::with_max(crate::limits::StateLimits::default().max_responses)
    }
}

/// The requests-per-minute window the `x-ratelimit-*` headers describe (recorded: 50).
pub(crate) const RATE_LIMIT: usize = 50;

impl Store {
    /// A store keeping at most `max` runs (at least one: the one just created).
    pub(crate) fn with_max(max: usize) -> Self {
        Self {
            runs: Mutex::new(Runs {
                max: max.max(1),
                ..Runs::default()
            }),
            recent: Mutex::default(),
        }
    }

    fn runs(&self) -> MappedMutexGuard<'_, HashMap<String, Arc<Run>>> {
        MutexGuard::map(self.runs.lock(), |runs| &mut runs.by_id)
    }

    /// How many runs it holds.
    pub(crate) fn len(&self) -> usize {
        self.runs().len()
    }

    /// How many runs are kept, the cap, and how many were evicted.
    pub(crate) fn kept(&self) -> crate::limits::Kept {
        let runs = self.runs.lock();
        crate::limits::Kept {
            kept: runs.by_id.len(),
            max: u64::try_from(runs.max).unwrap_or(u64::MAX),
            evicted: runs.evicted,
        }
    }

    /// Remembers a run. Past the cap the oldest runs go, stored or not: each then answers 404
    /// as an id never issued. One still running is asked to stop at `now` (its task ends
    /// and lets go of it; a connection streaming it sees it cancelled, never a panic).
    pub(crate) fn insert(&self, run: Arc<Run>, now: chrono::DateTime<chrono::Utc>) {
        let mut gone = Vec::new();
        {
            let mut runs = self.runs.lock();
            while runs.by_id.len() >= runs.max {
                let Some(oldest) = runs.order.pop_front() else {
                    break;
                };
                if let Some(run) = runs.by_id.remove(&oldest) {
                    runs.evicted += 1;
                    gone.push(run);
                }
            }
            runs.order.push_back(run.id.clone());
            runs.by_id.insert(run.id.clone(), run);
        }
        for run in gone {
            if !run.state().terminal {
                run.request_cancel(now);
            }
        }
    }

    /// Every run not forgotten, whoever owns it (for the dashboard), in no particular order.
    pub(crate) fn listing(&self) -> Vec<Arc<Run>> {
        self.runs()
            .values()
            .filter(|run| !run.is_forgotten())
            .cloned()
            .collect()
    }

    /// Every run not forgotten, whoever owns it, newest first, as the dashboard lists them.
    pub(crate) fn summaries(&self) -> Vec<ResponseSummary> {
        let mut runs: Vec<ResponseSummary> =
            self.listing().iter().map(|run| run.summary()).collect();
        runs.sort_by_key(|run| std::cmp::Reverse(run.created_at));
        runs
    }

    /// The run with this id, whoever owns it (for the dashboard's cancel button); a forgotten
    /// one looks unknown.
    pub(crate) fn any(&self, id: &str) -> Option<Arc<Run>> {
        self.runs()
            .get(id)
            .filter(|run| !run.is_forgotten())
            .cloned()
    }

    /// The run with this id if `account` owns it; another account's run, and a forgotten
    /// one, look unknown.
    pub(crate) fn get(&self, account: &str, id: &str) -> Option<Arc<Run>> {
        self.runs()
            .get(id)
            .filter(|run| run.account == account && !run.is_forgotten())
            .cloned()
    }

    /// Forgets one run, whoever owns it (`DELETE /_mock/agent/responses/{id}`); a running one
    /// goes on for the connection that waits on it, but nothing can find it again.
    pub(crate) fn remove(&self, id: &str) -> Option<Arc<Run>> {
        let mut runs = self.runs.lock();
        let run = runs.by_id.remove(id)?;
        // Its place in the order goes too, so creating and deleting runs forever cannot grow it.
        runs.order.retain(|kept| kept != id);
        Some(run)
    }

    /// Counts a create request by `account` at `now`; returns (used, reset epoch seconds) for
    /// the minute window. The mock reports the window and never enforces it on its own (a
    /// scenario's faults do that).
    pub(crate) fn count_request(
        &self,
        account: &str,
        now: chrono::DateTime<chrono::Utc>,
    ) -> (usize, i64) {
        let mut recent = self.recent.lock();
        let seen = recent.entry(account.to_owned()).or_default();
        seen.retain(|t| now - *t < chrono::Duration::seconds(60));
        seen.push(now);
        let oldest = seen.first().copied().unwrap_or(now);
        (
            seen.len(),
            (oldest + chrono::Duration::seconds(60)).timestamp(),
        )
    }

    /// Forgets everything (`POST /_mock/reset`) and gives the maps' memory back (`drain`
    /// would keep their capacity); running runs are asked to stop.
    pub(crate) fn clear(&self, now: chrono::DateTime<chrono::Utc>) {
        let runs = {
            let mut runs = self.runs.lock();
            let max = runs.max;
            std::mem::replace(
                &mut *runs,
                Runs {
                    max,
                    ..Runs::default()
                },
            )
        };
        for run in runs.by_id.into_values() {
            run.request_cancel(now);
        }
        *self.recent.lock() = HashMap::new();
    }
}
