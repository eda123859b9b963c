//! The thread engine: every thread of every account, the waits that follow them on virtual time,
//! and the download links they hand out. It answers in typed values (a [`Checkpoint`], a
//! [`Delivered`]), never in rendered output.
//!
//! One lock guards all threads; it is never held across an `.await`. Anything that changes a
//! thread wakes every waiting call (`changed`), which then re-reads the state it follows. Every
//! wait goes through [`Engine::sleep_until_change`], built on `Clock::sleep_until` with the
//! deadline and the thread's next scripted event known there.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{Notify, mpsc};
use uuid::Uuid;

use super::model::content::Reply;
use super::model::results::Checkpoint;
use super::thread::{Asset, Delivery, Phase, Thread};
use super::view::{self, Links};
use crate::clock::{Clock, to_chrono};
use crate::fixtures::{Catalog, LoadedScenario};
use crate::http::encoding::percent_encode;
use crate::world::World;

/// How long a download URL stays valid.
const DOWNLOAD_TTL: Duration = Duration::from_secs(3600);
/// How long a website preview URL stays valid.
const PREVIEW_TTL: Duration = Duration::from_secs(24 * 3600);

/// How long a URL minted for `asset` stays valid: a day for a website preview, else "up to one
/// hour" (less when the scenario's file says so).
fn download_ttl(asset: &Asset) -> Duration {
    if asset.spec.published_url.is_some() {
        PREVIEW_TTL
    } else {
        asset
            .spec
            .link_expires_in
            .map_or(DOWNLOAD_TTL, |ttl| ttl.min(DOWNLOAD_TTL))
    }
}

/// Receives progress lines for a call that sent a progress token.
pub(crate) type ProgressSink = mpsc::UnboundedSender<String>;

/// A download link the mock handed out.
#[derive(Debug, Clone)]
pub(crate) struct Download {
    /// The thread the asset belongs to.
    pub(crate) thread_id: String,
    /// The asset.
    pub(crate) asset_id: String,
    /// When the link stops working.
    pub(crate) expires_at: DateTime<Utc>,
}

/// Which entry a waiting call follows.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Follow {
    /// The entry a message created or resumed (it may still be queued).
    Message(u64),
    /// The latest entry, from the moment the call resolved one of its requests; progress starts
    /// at `activity_from` (the thread's activity count right after the resolution, so the steps
    /// the resumed request opens are reported too).
    Latest { activity_from: usize },
}

/// Why a thread could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ThreadError {
    /// No such thread, or it belongs to another account (the two look the same on purpose).
    NotFound(String),
}

impl ThreadError {
    /// The tool error a call answers.
    pub(crate) fn into_reply(self) -> Reply {
        match self {
            Self::NotFound(id) => Reply::error(
                None,
                format!(
                    "Thread `{id}` was not found for this account. Pass a thread_id returned by \
                     an earlier call of yours, or omit thread_id to start a new conversation."
                ),
            ),
        }
    }
}

/// Where a delivered message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Delivered {
    /// The message, as waits follow it.
    pub(crate) message_id: u64,
    /// What became of it.
    pub(crate) delivery: Delivery,
    /// The index of the entry the message created or resumed (for a queued message: the index
    /// its entry will have).
    pub(crate) entry: usize,
    /// The last entry before the message's own (the one it resumed, for a resumed message).
    pub(crate) previous: Option<usize>,
}

/// All threads and the machinery to follow them.
pub(crate) struct Engine {
    threads: Mutex<HashMap<String, Thread>>,
    /// Thread ids oldest first, for eviction past `max_threads` (an id already gone is
    /// skipped when it comes up).
    order: Mutex<VecDeque<String>>,
    /// Most threads kept (`StateLimits::max_threads`).
    max_threads: usize,
    /// Threads evicted since the start or the last reset.
    evicted: AtomicU64,
    downloads: Mutex<HashMap<String, Download>>,
    /// The link results show for each asset, by asset id (a download token), reused while it
    /// is valid so that looking at a result again does not change it.
    result_links: Mutex<HashMap<String, String>>,
    changed: Notify,
    message_ids: AtomicU64,
    /// Virtual time.
    pub(crate) clock: Clock,
    /// The scenarios new threads follow.
    pub(crate) catalog: Arc<Catalog>,
    /// Accounts, credits, uploads.
    pub(crate) world: Arc<World>,
    /// The base URL of every URL handed out.
    pub(crate) base_url: String,
    /// The configured call-wait window.
    pub(crate) call_wait: Duration,
}

impl Engine {
    /// An engine with no threads.
    pub(crate) fn new(
        clock: Clock,
        catalog: Arc<Catalog>,
        world: Arc<World>,
        base_url: String,
        call_wait: Duration,
    ) -> Self {
        Self {
            threads: Mutex::default(),
            order: Mutex::default(),
            max_threads: crate::limits::StateLimits::default().max_threads,
            evicted: AtomicU64::new(0),
            downloads: Mutex::default(),
            result_links: Mutex::default(),
            changed: Notify::new(),
            message_ids: AtomicU64::new(1),
            clock,
            catalog,
            world,
            base_url,
            call_wait,
        }
    }

    /// The same engine keeping at most `max` threads (at least one: the one just started).
    pub(crate) fn with_max_threads(mut self, max: usize) -> Self {
        self.max_threads = max.max(1);
        self
    }

    fn threads(&self) -> MutexGuard<'_, HashMap<String, Thread>> {
        self.threads.lock()
    }

    fn downloads(&self) -> MutexGuard<'_, HashMap<String, Download>> {
        self.downloads.lock()
    }

    /// Forgets every thread and download link, and gives their maps' memory back (`clear`
    /// would keep each map's capacity: after 10,000 threads, room for 10,000 more).
    pub(crate) fn reset(&self) {
        let threads = std::mem::take(&mut *self.threads());
        *self.order.lock() = VecDeque::new();
        let downloads = std::mem::take(&mut *self.downloads());
        let links = std::mem::take(&mut *self.result_links.lock());
        self.evicted.store(0, Ordering::Relaxed);
        // Dropped outside the locks: freeing thousands of threads takes a moment.
        drop((threads, downloads, links));
        self.changed.notify_waiters();
    }

    /// How many threads are kept, the cap, and how many were evicted.
    pub(crate) fn kept(&self) -> crate::limits::Kept {
        crate::limits::Kept {
            kept: self.threads().len(),
            max: u64::try_from(self.max_threads).unwrap_or(u64::MAX),
            evicted: self.evicted.load(Ordering::Relaxed),
        }
    }

    /// Every thread's id and owner, oldest first (for the dashboard, which lists them all).
    pub(crate) fn thread_owners(&self) -> Vec<(String, String)> {
        let threads = self.threads();
        let mut listed: Vec<(&Thread, (String, String))> = threads
            .values()
            .map(|t| (t, (t.id.clone(), t.owner.clone())))
            .collect();
        listed.sort_by_key(|(t, _)| t.entries.first().map(|e| e.created_at));
        listed.into_iter().map(|(_, ids)| ids).collect()
    }

    /// A fresh id for a message a call sends.
    pub(crate) fn next_message_id(&self) -> u64 {
        self.message_ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Adds a new thread and returns its id. Past `max_threads` the oldest threads go (with
    /// their download links): each then answers as an id never issued. A call waiting on one
    /// finds it gone at its next look and answers that error; nothing holds a thread across a
    /// lock, so nothing else notices.
    pub(crate) fn insert(&self, thread: Thread) -> String {
        let id = thread.id.clone();
        let mut gone = Vec::new();
        {
            let mut threads = self.threads();
            let mut order = self.order.lock();
            while threads.len() >= self.max_threads {
                let Some(oldest) = order.pop_front() else {
                    break;
                };
                if let Some(thread) = threads.remove(&oldest) {
                    gone.push(thread);
                }
            }
            threads.insert(id.clone(), thread);
            order.push_back(id.clone());
        }
        if !gone.is_empty() {
            self.evicted.fetch_add(
                u64::try_from(gone.len()).unwrap_or(u64::MAX),
                Ordering::Relaxed,
            );
            // In `result_link`'s order (links, then downloads), so the two never deadlock.
            let mut links = self.result_links.lock();
            let mut downloads = self.downloads();
            downloads.retain(|_, d| gone.iter().all(|t| t.id != d.thread_id));
            links.retain(|_, token| downloads.contains_key(token.as_str()));
            drop((links, downloads));
            // Waiting calls on an evicted thread look again and answer "not found".
            self.changed.notify_waiters();
        }
        id
    }

    /// The scenario of a thread `account` may view, as it stands (nothing advanced): for the
    /// faults its scenario declares.
    pub(crate) fn scenario_of(
        &self,
        account: &str,
        thread_id: &str,
    ) -> Option<Arc<LoadedScenario>> {
        self.threads()
            .get(thread_id)
            .filter(|t| {
                t.owner == account
                    || t.writers.iter().any(|w| w == account)
                    || t.viewers.iter().any(|v| v == account)
            })
            .map(|t| t.scenario.clone())
    }

    /// Runs `f` on a thread `account` owns, brought up to the current virtual time, then wakes
    /// every waiting call so it re-reads what `f` may have changed.
    pub(crate) fn with_thread<R>(
        &self,
        account: &str,
        thread_id: &str,
        f: impl FnOnce(&mut Thread, &Links<'_>) -> R,
    ) -> Result<R, ThreadError> {
        let result = self.observe(account, thread_id, f);
        self.changed.notify_waiters();
        result
    }

    /// Like [`Engine::with_thread`], for reading only: members of the thread's Project may
    /// view a session shared with `project_visibility: project`.
    pub(crate) fn view_thread<R>(
        &self,
        account: &str,
        thread_id: &str,
        f: impl FnOnce(&mut Thread, &Links<'_>) -> R,
    ) -> Result<R, ThreadError> {
        let result = self.access(account, thread_id, true, f);
        self.changed.notify_waiters();
        result
    }

    /// Like [`Engine::with_thread`] without waking anyone: for the waiting calls themselves,
    /// which would otherwise wake each other (and themselves) in a loop.
    fn observe<R>(
        &self,
        account: &str,
        thread_id: &str,
        f: impl FnOnce(&mut Thread, &Links<'_>) -> R,
    ) -> Result<R, ThreadError> {
        self.access(account, thread_id, false, f)
    }

    fn access<R>(
        &self,
        account: &str,
        thread_id: &str,
        view: bool,
        f: impl FnOnce(&mut Thread, &Links<'_>) -> R,
    ) -> Result<R, ThreadError> {
        let now = self.clock.now();
        let mut threads = self.threads();
        let thread = threads
            .get_mut(thread_id)
            .filter(|t| {
                t.owner == account
                    || t.writers.iter().any(|w| w == account)
                    || (view && t.viewers.iter().any(|v| v == account))
            })
            .ok_or_else(|| ThreadError::NotFound(thread_id.to_owned()))?;
        thread.credit_budget = Some(self.world.credits(&thread.owner));
        thread.advance(now);
        // Steps cost what the scenario says, billed as virtual time passes them.
        let spent = thread.take_credits_spent();
        if spent > 0 {
            self.world.spend(&thread.owner, spent);
        }
        // Credits running out mid-task empties the account, so the next message is refused
        // before it is sent until the user tops up, as the document describes.
        if thread.take_credit_exhaustion() {
            self.world.drain(&thread.owner);
        }
        let download_url = |asset: &Asset| self.result_link(thread_id, asset);
        let links = Links {
            base_url: &self.base_url,
            download_url: &download_url,
        };
        Ok(f(thread, &links))
    }

    /// Any thread by id, whoever owns it (for the human pages, which act as the owner).
    pub(crate) fn with_any_thread<R>(
        &self,
        thread_id: &str,
        f: impl FnOnce(&mut Thread) -> R,
    ) -> Option<R> {
        let now = self.clock.now();
        let result = {
            let mut threads = self.threads();
            let thread = threads.get_mut(thread_id)?;
            thread.credit_budget = Some(self.world.credits(&thread.owner));
            thread.advance(now);
            f(thread)
        };
        self.changed.notify_waiters();
        Some(result)
    }

    /// Hands a user message to a thread `account` may write to.
    pub(crate) fn deliver(
        &self,
        account: &str,
        thread_id: &str,
        text: &str,
        attachments: &[String],
    ) -> Result<Delivered, ThreadError> {
        let message_id = self.next_message_id();
        let now = self.clock.now();
        self.with_thread(account, thread_id, |thread, _| {
            let delivery = thread.deliver(message_id, text, attachments, now);
            let count = thread.entries.len();
            let (entry, previous) = match delivery {
                Delivery::NewEntry => (count.saturating_sub(1), count.checked_sub(2)),
                Delivery::Queued => (count, count.checked_sub(1)),
                Delivery::Resumed => {
                    let resumed = count.saturating_sub(1);
                    (resumed, Some(resumed))
                }
            };
            Delivered {
                message_id,
                delivery,
                entry,
                previous,
            }
        })
    }

    /// Follows a thread until the followed entry reaches a checkpoint or `window` (virtual
    /// time) ends, sending each new step to `progress`.
    pub(crate) async fn wait(
        &self,
        account: &str,
        thread_id: &str,
        follow: Follow,
        window: Duration,
        progress: Option<ProgressSink>,
    ) -> Result<Checkpoint, ThreadError> {
        // At the end of time the window ends there too, and the call times out at once.
        let deadline = self.clock.deadline_in(window);
        let mut seen_activity = None;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let now = self.clock.now();
            let (fresh, reached, next_event) =
                self.observe(account, thread_id, |thread, links| {
                    let seen = *seen_activity.get_or_insert(match follow {
                        // Activity of a message starts at its delivery; report all of it.
                        Follow::Message(id) => thread
                            .activity
                            .iter()
                            .position(|a| a.message_id == id)
                            .unwrap_or(thread.activity.len()),
                        Follow::Latest { activity_from } => {
                            activity_from.min(thread.activity.len())
                        }
                    });
                    let fresh: Vec<String> = thread.activity[seen..]
                        .iter()
                        .map(|a| a.message.clone())
                        .collect();
                    seen_activity = Some(thread.activity.len());
                    let index = match follow {
                        Follow::Message(id) => thread.entry_for_message(id),
                        Follow::Latest { .. } => thread.entries.len().checked_sub(1),
                    };
                    // A queued message that a cancel dropped before it ran never gets an entry.
                    let dropped = match follow {
                        Follow::Message(id) => {
                            index.is_none() && !thread.queue.iter().any(|q| q.message_id == id)
                        }
                        Follow::Latest { .. } => false,
                    };
                    let checkpoint = index
                        .map(|i| &thread.entries[i])
                        .filter(|entry| !matches!(entry.phase, Phase::Running { .. }))
                        .map(|entry| view::checkpoint(thread, entry, links));
                    let reached = match checkpoint {
                        Some(checkpoint) => Some(checkpoint),
                        None if dropped => Some(view::dropped_message(thread)),
                        None if now >= deadline => Some(view::timeout(thread)),
                        None => None,
                    };
                    (fresh, reached, thread.next_event_at())
                })?;
            if let Some(sink) = &progress {
                for line in fresh {
                    // A closed sink means the client went away; Computer carries on regardless.
                    let _ = sink.send(line);
                }
            }
            if let Some(checkpoint) = reached {
                return Ok(checkpoint);
            }
            self.sleep_until_change(notified, next_event, deadline)
                .await;
        }
    }

    /// The one wait of the engine: until the thread's next scripted event, the call's deadline
    /// or a change someone else made, whichever comes first. The client is blocked on this
    /// call, so a driven clock jumps straight to the event or deadline.
    async fn sleep_until_change(
        &self,
        changed: std::pin::Pin<&mut tokio::sync::futures::Notified<'_>>,
        next_event: Option<DateTime<Utc>>,
        deadline: DateTime<Utc>,
    ) {
        let wake = next_event.map_or(deadline, |at| at.min(deadline));
        tokio::select! {
            () = self.clock.block_until(wake) => {}
            () = changed => {}
        }
    }

    /// The download URL a result shows for an asset: the one it showed before while that is
    /// still valid (a task's state only changes when it changes), else a fresh one.
    fn result_link(&self, thread_id: &str, asset: &Asset) -> String {
        let mut links = self.result_links.lock();
        let valid = links.get(&asset.asset_id).filter(|token| {
            self.downloads()
                .get(token.as_str())
                .is_some_and(|d| self.clock.now() < d.expires_at)
        });
        let token = match valid {
            Some(token) => token.clone(),
            None => {
                let token = self.mint_token(thread_id, asset);
                links.insert(asset.asset_id.clone(), token.clone());
                token
            }
        };
        self.file_url(&token, asset)
    }

    /// A fresh download URL for an asset.
    fn mint_download(&self, thread_id: &str, asset: &Asset) -> String {
        let token = self.mint_token(thread_id, asset);
        self.file_url(&token, asset)
    }

    fn file_url(&self, token: &str, asset: &Asset) -> String {
        format!(
            "{}/_mock/files/{token}/{}",
            self.base_url,
            percent_encode(&asset.spec.filename)
        )
    }

    /// Registers a fresh download token for an asset.
    fn mint_token(&self, thread_id: &str, asset: &Asset) -> String {
        let token = Uuid::new_v4().simple().to_string();
        let ttl = download_ttl(asset);
        self.downloads().insert(
            token.clone(),
            Download {
                thread_id: thread_id.to_owned(),
                asset_id: asset.asset_id.clone(),
                expires_at: self.clock.now() + to_chrono(ttl),
            },
        );
        token
    }

    /// Mints a download URL for an asset of a thread `account` owns (`create_asset_download`).
    pub(crate) fn create_download(
        &self,
        account: &str,
        thread_id: &str,
        asset_id: &str,
    ) -> Result<Option<(String, Option<i64>)>, ThreadError> {
        let asset = self.with_thread(account, thread_id, |thread, _| {
            thread
                .assets
                .iter()
                .find(|a| a.asset_id == asset_id)
                .cloned()
        })?;
        Ok(asset.map(|asset| {
            let url = self.mint_download(thread_id, &asset);
            // "Hosted website preview URLs last 24 hours and return expires_in_seconds: null."
            let remaining = asset
                .spec
                .published_url
                .is_none()
                .then(|| i64::try_from(download_ttl(&asset).as_secs()).unwrap_or(3600));
            (url, remaining)
        }))
    }

    /// The published website `asset_id`, whoever owns it: a published site is public.
    pub(crate) fn published_site(&self, asset_id: &str) -> Option<Asset> {
        self.threads().values().find_map(|t| {
            t.assets
                .iter()
                .find(|a| a.asset_id == asset_id && a.spec.published_url.is_some())
                .cloned()
        })
    }

    /// The asset behind a download token, if the token exists and has not expired.
    pub(crate) fn resolve_download(&self, token: &str) -> Result<Asset, DownloadError> {
        let download = self
            .downloads()
            .get(token)
            .cloned()
            .ok_or(DownloadError::Unknown)?;
        if self.clock.now() >= download.expires_at {
            return Err(DownloadError::Expired);
        }
        self.threads()
            .get(&download.thread_id)
            .and_then(|t| {
                t.assets
                    .iter()
                    .find(|a| a.asset_id == download.asset_id)
                    .cloned()
            })
            .ok_or(DownloadError::Unknown)
    }
}

/// Why a download URL was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DownloadError {
    /// The URL was never issued (or was tampered with).
    Unknown,
    /// The URL is past its expiry.
    Expired,
}
