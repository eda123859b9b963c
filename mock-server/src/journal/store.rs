//! The journal itself: records in order, capped by count and by bytes, the oldest dropped
//! first, with the number dropped kept; waits and queries over it.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;

use super::exchange::Exchange;
use super::file::FileSink;
use super::outgoing::Outgoing;
use super::query::JournalQuery;
use super::stored::Record;
use super::view;

/// How much the journal keeps, and where else it writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalConfig {
    /// Most exchanges kept in memory (default 10,000); 0 keeps none.
    pub max_exchanges: usize,
    /// Most bytes kept in memory (default 256 MiB): bodies, headers, events and each record's
    /// own size.
    pub max_bytes: usize,
    /// Most bytes kept of each body (default 64 KiB): the request's, and the response's or its
    /// event stream's; the full length is noted either way.
    pub max_body_bytes: usize,
    /// A file to append every finished exchange to, as one JSON line.
    pub file: Option<PathBuf>,
}

impl Default for JournalConfig {
    fn default() -> Self {
        Self {
            max_exchanges: 10_000,
            max_bytes: 256 * 1024 * 1024,
            max_body_bytes: 64 * 1024,
            file: None,
        }
    }
}

impl JournalConfig {
    /// Keeps everything, whole: for short-lived mocks whose journal is judged afterwards.
    pub fn unbounded() -> Self {
        Self {
            max_exchanges: usize::MAX,
            max_bytes: usize::MAX,
            max_body_bytes: usize::MAX,
            file: None,
        }
    }

    /// Keeps nothing in memory (`--no-journal`); a file, if set, still gets every exchange.
    pub fn off() -> Self {
        Self {
            max_exchanges: 0,
            ..Self::default()
        }
    }
}

/// How full the journal is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JournalStats {
    /// Exchanges kept.
    pub kept: usize,
    /// Bytes they take, as the byte cap counts them.
    pub bytes: usize,
    /// Exchanges dropped (or never kept) since the start or the last reset.
    pub dropped: u64,
    /// The `seq` the next exchange will get.
    pub next_seq: usize,
}

/// A wait needed exchanges that were dropped before it could look at them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "{missed} exchange(s) this wait had not yet seen were dropped from the journal (it keeps the \
     newest {max_exchanges} exchanges and {max_bytes} bytes); wait from a later seq, or raise \
     --journal-max-exchanges / --journal-max-bytes"
)]
pub struct JournalGap {
    /// How many exchanges were dropped unseen.
    pub missed: usize,
    /// The `seq` of the oldest exchange still kept.
    pub first_kept: usize,
    /// The journal's exchange cap.
    pub max_exchanges: usize,
    /// The journal's byte cap.
    pub max_bytes: usize,
}

/// Why a bounded wait ended without an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WaitError {
    /// Nothing matched in time.
    #[error(
        "no exchange matched within {limit:?} ({dropped} exchange(s) had been dropped from the journal)"
    )]
    TimedOut {
        /// How long the wait lasted.
        limit: Duration,
        /// Exchanges dropped so far, in case the one wanted was among them.
        dropped: u64,
    },
    /// The exchanges it needed were dropped.
    #[error(transparent)]
    Gap(#[from] JournalGap),
}

/// Where an in-flight exchange was recorded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket {
    seq: usize,
    generation: u64,
}

/// The shared journal; cheap to clone.
#[derive(Clone)]
pub struct Journal {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    changed: Notify,
    config: JournalConfig,
    file: Option<FileSink>,
    /// What the mock sent out lately, scrubbed from the requests that bring it back.
    outgoing: Outgoing,
}

#[derive(Default)]
struct State {
    records: VecDeque<Record>,
    /// `seq` of `records[0]`, or `next_seq` when empty.
    first_seq: usize,
    next_seq: usize,
    bytes: usize,
    dropped: u64,
    /// Bumped by a reset, so a response finishing after it is not written over a newer record.
    generation: u64,
    /// Bumped by every change.
    revision: u64,
    /// In-flight exchanges no longer kept (dropped, or from before a reset), held only until
    /// they finish so the journal file still gets them; at most one per open request.
    orphans: HashMap<(u64, usize), Record>,
}

/// What one look at the journal saw, for a wait.
struct Look {
    generation: u64,
    revision: u64,
    first_seq: usize,
    changed: Vec<Record>,
    settled: usize,
}

impl Default for Journal {
    fn default() -> Self {
        Self::with_sink(JournalConfig::default(), None)
    }
}

impl Journal {
    /// An empty journal with the default caps and no file.
    pub fn new() -> Self {
        Self::default()
    }

    /// A journal as configured, its file opened.
    pub(crate) fn configured(config: JournalConfig) -> std::io::Result<Self> {
        let file = config.file.as_deref().map(FileSink::open).transpose()?;
        Ok(Self::with_sink(config, file))
    }

    fn with_sink(config: JournalConfig, file: Option<FileSink>) -> Self {
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                changed: Notify::new(),
                config,
                file,
                outgoing: Outgoing::default(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every mutation is a push, a pop or a field update on one record, so a panic while
        // holding the lock cannot leave a half-written journal (and the lock never poisons).
        self.inner.state.lock()
    }

    /// The configuration it runs with.
    pub(crate) fn config(&self) -> &JournalConfig {
        &self.inner.config
    }

    /// Whether exchanges are recorded at all (kept in memory, or written to a file).
    pub(crate) fn capturing(&self) -> bool {
        let config = &self.inner.config;
        (config.max_exchanges > 0 && config.max_bytes > 0) || self.inner.file.is_some()
    }

    /// Counts an exchange that was not recorded (the journal is off): it takes a `seq` and is
    /// dropped at once, like any other.
    pub(crate) fn count_unkept(&self) {
        let mut state = self.lock();
        state.dropped += 1;
        state.next_seq += 1;
        state.first_seq = state.next_seq;
    }

    /// Where the surfaces note the credentials the mock sends out (see [`Outgoing`]).
    pub(crate) fn outgoing(&self) -> &Outgoing {
        &self.inner.outgoing
    }

    /// Records an exchange whose response is still to come.
    pub(crate) fn open(&self, mut record: Record) -> Ticket {
        self.inner.outgoing.scrub(&mut record);
        let ticket = {
            let mut state = self.lock();
            record.seq = state.next_seq;
            state.revision += 1;
            record.revision = state.revision;
            state.next_seq += 1;
            state.bytes = state.bytes.saturating_add(record.weight());
            state.records.push_back(record);
            let ticket = Ticket {
                seq: state.next_seq - 1,
                generation: state.generation,
            };
            self.evict(&mut state);
            ticket
        };
        self.inner.changed.notify_waiters();
        ticket
    }

    /// Changes an open exchange, wherever it is now.
    pub(crate) fn update(&self, ticket: Ticket, change: impl FnOnce(&mut Record)) {
        self.change(ticket, false, change);
    }

    /// Changes an open exchange for the last time.
    pub(crate) fn finish(&self, ticket: Ticket, change: impl FnOnce(&mut Record)) {
        self.change(ticket, true, change);
    }

    fn change(&self, ticket: Ticket, finish: bool, change: impl FnOnce(&mut Record)) {
        let finished = {
            let mut state = self.lock();
            state.revision += 1;
            let revision = state.revision;
            let apply = |record: &mut Record| {
                change(record);
                record.revision = revision;
                record.finished |= finish;
            };
            let kept = (state.generation == ticket.generation)
                .then(|| ticket.seq.checked_sub(state.first_seq))
                .flatten()
                .filter(|index| *index < state.records.len());
            if let Some(index) = kept {
                let record = &mut state.records[index];
                let before = record.weight();
                apply(record);
                let after = record.weight();
                let finished = (finish && self.inner.file.is_some()).then(|| record.clone());
                state.bytes = state.bytes.saturating_sub(before).saturating_add(after);
                self.evict(&mut state);
                finished
            } else {
                let key = (ticket.generation, ticket.seq);
                match state.orphans.get_mut(&key) {
                    Some(record) => apply(record),
                    None => return,
                }
                if finish {
                    state.orphans.remove(&key)
                } else {
                    None
                }
            }
        };
        if let (Some(record), Some(file)) = (finished, &self.inner.file) {
            file.append(record);
        }
        self.inner.changed.notify_waiters();
    }

    /// Drops the oldest records until both caps hold.
    fn evict(&self, state: &mut State) {
        let config = &self.inner.config;
        while state.records.len() > config.max_exchanges || state.bytes > config.max_bytes {
            let Some(oldest) = state.records.pop_front() else {
                break;
            };
            state.bytes = state.bytes.saturating_sub(oldest.weight());
            state.first_seq += 1;
            state.dropped += 1;
            if !oldest.finished && self.inner.file.is_some() {
                state.orphans.insert((state.generation, oldest.seq), oldest);
            }
        }
        if state.records.is_empty() {
            state.first_seq = state.next_seq;
        }
    }

    /// How full the journal is.
    pub fn stats(&self) -> JournalStats {
        let state = self.lock();
        JournalStats {
            kept: state.records.len(),
            bytes: state.bytes,
            dropped: state.dropped,
            next_seq: state.next_seq,
        }
    }

    /// A copy of every exchange kept.
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.query(&JournalQuery::default())
    }

    /// The kept exchanges `query` selects, oldest first.
    pub fn query(&self, query: &JournalQuery) -> Vec<Exchange> {
        let limit = query.limit.unwrap_or(usize::MAX);
        let records: Vec<Record> = {
            let state = self.lock();
            state
                .records
                .iter()
                .filter(|r| r.seq >= query.first() && query.matches(r))
                .take(limit)
                .cloned()
                .collect()
        };
        records.iter().map(view::exchange).collect()
    }

    /// Up to `max` records from `from` on that `query` selects, with the journal's state.
    pub(crate) fn page(&self, from: usize, max: usize, query: &JournalQuery) -> Page {
        let state = self.lock();
        let start = from.saturating_sub(state.first_seq);
        let mut records = Vec::new();
        let mut scanned_to = from.max(state.first_seq);
        for record in state.records.iter().skip(start) {
            if records.len() == max {
                break;
            }
            scanned_to = record.seq + 1;
            if query.matches(record) {
                records.push(record.clone());
            }
        }
        Page {
            records,
            scanned_to,
            first_seq: state.first_seq,
            next_seq: state.next_seq,
            generation: state.generation,
        }
    }

    /// The records `seqs` names as they are now (those no longer kept are left out), with the
    /// `seq` of the oldest record kept and the generation.
    pub(crate) fn records(&self, seqs: &[usize]) -> (Vec<Record>, usize, u64) {
        let state = self.lock();
        let records = seqs
            .iter()
            .filter_map(|seq| seq.checked_sub(state.first_seq))
            .filter_map(|index| state.records.get(index).cloned())
            .collect();
        (records, state.first_seq, state.generation)
    }

    /// Resolves when the journal changes next (create it before looking, then await it).
    pub(crate) fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.inner.changed.notified()
    }

    /// The journal as JSON lines, one exchange per line.
    pub fn to_json_lines(&self) -> String {
        self.exchanges()
            .iter()
            .filter_map(|e| serde_json::to_string(e).ok())
            .map(|line| line + "\n")
            .collect()
    }

    /// Waits until every finished exchange is in the journal file (`--journal-file`); returns
    /// at once when there is none. It blocks the calling thread.
    pub fn flush(&self) {
        if let Some(file) = &self.inner.file {
            file.flush();
        }
    }

    /// Forgets every exchange and the count of dropped ones; numbering starts again at 0.
    /// (Exchanges still in flight reach the journal file when they finish.)
    pub fn clear(&self) {
        {
            let mut state = self.lock();
            let generation = state.generation;
            let open: Vec<Record> = state.records.drain(..).filter(|r| !r.finished).collect();
            if self.inner.file.is_some() {
                for record in open {
                    state.orphans.insert((generation, record.seq), record);
                }
            }
            state.generation += 1;
            state.revision += 1;
            state.first_seq = 0;
            state.next_seq = 0;
            state.bytes = 0;
            state.dropped = 0;
        }
        self.inner.changed.notify_waiters();
    }

    /// Waits until some exchange satisfies `predicate` and returns it, looking at the whole
    /// journal: it fails with [`JournalGap`] if, before a match came, exchanges it had not
    /// yet seen were dropped (the one it wanted may have been among them).
    ///
    /// There is no default timeout: wrap the call in `tokio::time::timeout`, or use
    /// [`Journal::wait_for_within`].
    pub async fn wait_for(
        &self,
        predicate: impl Fn(&Exchange) -> bool,
    ) -> Result<Exchange, JournalGap> {
        self.wait_for_since(0, predicate).await
    }

    /// Like [`Journal::wait_for`], looking only at exchanges from `since` on (for example
    /// `journal.stats().next_seq` before sending the request awaited).
    pub async fn wait_for_since(
        &self,
        since: usize,
        predicate: impl Fn(&Exchange) -> bool,
    ) -> Result<Exchange, JournalGap> {
        let mut generation = self.lock().generation;
        let mut revision = 0;
        // Every exchange in since..settled was seen finished (so for good) and did not match.
        let mut settled = since;
        loop {
            let notified = self.changed();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let look = self.look(since, revision, settled);
            if look.generation != generation {
                (generation, revision, settled) = (look.generation, 0, since);
                continue;
            }
            if let Some(found) = look
                .changed
                .iter()
                .map(view::exchange)
                .find(|e| predicate(e))
            {
                return Ok(found);
            }
            if look.first_seq > settled {
                let config = &self.inner.config;
                return Err(JournalGap {
                    missed: look.first_seq - settled,
                    first_kept: look.first_seq,
                    max_exchanges: config.max_exchanges,
                    max_bytes: config.max_bytes,
                });
            }
            (revision, settled) = (look.revision, look.settled);
            notified.await;
        }
    }

    /// Like [`Journal::wait_for`], giving up after `limit` of real time.
    pub async fn wait_for_within(
        &self,
        limit: Duration,
        predicate: impl Fn(&Exchange) -> bool,
    ) -> Result<Exchange, WaitError> {
        match tokio::time::timeout(limit, self.wait_for(predicate)).await {
            Ok(found) => Ok(found?),
            Err(_) => Err(WaitError::TimedOut {
                limit,
                dropped: self.stats().dropped,
            }),
        }
    }

    /// The records from `since` on changed after `revision`, and how far the finished run
    /// from `settled` now reaches.
    fn look(&self, since: usize, revision: u64, settled: usize) -> Look {
        let state = self.lock();
        let start = since.saturating_sub(state.first_seq);
        let changed = state
            .records
            .iter()
            .skip(start)
            .filter(|r| r.revision > revision)
            .cloned()
            .collect();
        let mut reached = settled;
        if settled >= state.first_seq {
            reached = state
                .records
                .iter()
                .skip(settled - state.first_seq)
                .take_while(|r| r.finished)
                .last()
                .map_or(settled, |r| r.seq + 1);
        }
        Look {
            generation: state.generation,
            revision: state.revision,
            first_seq: state.first_seq,
            changed,
            settled: reached,
        }
    }
}

/// One page of a journal read.
pub(crate) struct Page {
    /// The matching records.
    pub(crate) records: Vec<Record>,
    /// Every record before this `seq` was looked at.
    pub(crate) scanned_to: usize,
    pub(crate) first_seq: usize,
    pub(crate) next_seq: usize,
    pub(crate) generation: u64,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal")
            .field("stats", &self.stats())
            .finish()
    }
}
