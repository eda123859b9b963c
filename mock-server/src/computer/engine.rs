//! The thread engine: every thread of every account, the waits that follow them on virtual time,
//! and the download links they hand out.
//!
//! One lock guards all threads; it is never held across an `.await`. Anything that changes a
//! thread wakes every waiting call (`changed`), which then re-reads the state it follows.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::{Notify, mpsc};
use uuid::Uuid;

use super::render::{self, RenderContext, ToolOutput};
use super::thread::{Asset, Delivery, Phase, Thread};
use crate::clock::{Clock, to_chrono};
use crate::http::encoding::urlencode;
use crate::scenario::Catalog;
use crate::world::World;

/// How long a download URL stays valid.
const DOWNLOAD_TTL: Duration = Duration::from_secs(3600);
/// How long a website preview URL stays valid.
const PREVIEW_TTL: Duration = Duration::from_secs(24 * 3600);

tokio::task_local! {
    /// A call-wait window that replaces the configured one for calls in its scope: the tasks
    /// extension answers at once and lets the client poll instead of holding the request open.
    pub(crate) static CALL_WAIT: Duration;
}

/// Receives progress lines for a call that sent a progress token.
pub(crate) type ProgressSink = mpsc::UnboundedSender<String>;

/// A download link the mock handed out.
#[derive(Debug, Clone)]
pub(crate) struct Download {
    pub(crate) thread_id: String,
    pub(crate) asset_id: String,
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
    pub(crate) fn into_output(self) -> ToolOutput {
        match self {
            Self::NotFound(id) => ToolOutput::server_error(
                None,
                format!(
                    "Thread `{id}` was not found for this account. Pass a thread_id returned by \
                     an earlier call of yours, or omit thread_id to start a new conversation."
                ),
            ),
        }
    }
}

/// All threads and the machinery to follow them.
pub(crate) struct Engine {
    threads: Mutex<HashMap<String, Thread>>,
    downloads: Mutex<HashMap<String, Download>>,
    changed: Notify,
    message_ids: AtomicU64,
    pub(crate) clock: Clock,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) world: Arc<World>,
    pub(crate) base_url: String,
    pub(crate) call_wait: Duration,
}

impl Engine {
    pub(crate) fn new(
        clock: Clock,
        catalog: Arc<Catalog>,
        world: Arc<World>,
        base_url: String,
        call_wait: Duration,
    ) -> Self {
        Self {
            threads: Mutex::default(),
            downloads: Mutex::default(),
            changed: Notify::new(),
            message_ids: AtomicU64::new(1),
            clock,
            catalog,
            world,
            base_url,
            call_wait,
        }
    }

    fn threads(&self) -> MutexGuard<'_, HashMap<String, Thread>> {
        self.threads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn downloads(&self) -> MutexGuard<'_, HashMap<String, Download>> {
        self.downloads
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forgets every thread and download link.
    pub(crate) fn reset(&self) {
        self.threads().clear();
        self.downloads().clear();
        self.changed.notify_waiters();
    }

    /// A fresh id for a message a call sends.
    pub(crate) fn next_message_id(&self) -> u64 {
        self.message_ids.fetch_add(1, Ordering::Relaxed)
    }

    /// Adds a new thread and returns its id.
    pub(crate) fn insert(&self, thread: Thread) -> String {
        let id = thread.id.clone();
        self.threads().insert(id.clone(), thread);
        id
    }

    /// Runs `f` on a thread `account` owns, brought up to the current virtual time, then wakes
    /// every waiting call so it re-reads what `f` may have changed.
    pub(crate) fn with_thread<R>(
        &self,
        account: &str,
        thread_id: &str,
        f: impl FnOnce(&mut Thread, &RenderContext<'_>) -> R,
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
        f: impl FnOnce(&mut Thread, &RenderContext<'_>) -> R,
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
        f: impl FnOnce(&mut Thread, &RenderContext<'_>) -> R,
    ) -> Result<R, ThreadError> {
        self.access(account, thread_id, false, f)
    }

    fn access<R>(
        &self,
        account: &str,
        thread_id: &str,
        view: bool,
        f: impl FnOnce(&mut Thread, &RenderContext<'_>) -> R,
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
        let download_url = |asset: &Asset| self.mint_download(thread_id, asset);
        let ctx = RenderContext {
            base_url: &self.base_url,
            download_url: &download_url,
        };
        Ok(f(thread, &ctx))
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

    /// Delivers a message and waits for the checkpoint it leads to.
    pub(crate) async fn send_and_wait(
        &self,
        account: &str,
        thread_id: &str,
        text: &str,
        attachments: &[String],
        progress: Option<ProgressSink>,
    ) -> ToolOutput {
        let message_id = self.next_message_id();
        let now = self.clock.now();
        let delivered = self.with_thread(account, thread_id, |thread, _| {
            thread.deliver(message_id, text, attachments, now)
        });
        match delivered {
            Ok(Delivery::NewEntry | Delivery::Resumed | Delivery::Queued) => {
                self.wait(account, thread_id, Follow::Message(message_id), progress)
                    .await
            }
            Err(e) => e.into_output(),
        }
    }

    /// Follows a thread until the followed entry reaches a checkpoint or the call-wait window
    /// ends, sending each new step to `progress`.
    pub(crate) async fn wait(
        &self,
        account: &str,
        thread_id: &str,
        follow: Follow,
        progress: Option<ProgressSink>,
    ) -> ToolOutput {
        let window = CALL_WAIT.try_with(|w| *w).unwrap_or(self.call_wait);
        let deadline = self.clock.now() + to_chrono(window);
        let mut seen_activity = None;
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let now = self.clock.now();
            let step = self.observe(account, thread_id, |thread, ctx| {
                let seen = *seen_activity.get_or_insert(match follow {
                    // Activity of a message starts at its delivery; report all of it.
                    Follow::Message(id) => thread
                        .activity
                        .iter()
                        .position(|a| a.message_id == id)
                        .unwrap_or(thread.activity.len()),
                    Follow::Latest { activity_from } => activity_from.min(thread.activity.len()),
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
                let reached = index
                    .map(|i| &thread.entries[i])
                    .filter(|entry| !matches!(entry.phase, Phase::Running { .. }))
                    .map(|entry| render::checkpoint_result(thread, entry, ctx));
                let result = match reached {
                    Some(result) => Some(result),
                    None if dropped => Some(render::dropped_message_result(thread)),
                    None if now >= deadline => Some(render::timeout_result(thread)),
                    None => None,
                };
                (fresh, result, thread.next_event_at())
            });
            let (fresh, result, next_event) = match step {
                Ok(step) => step,
                Err(e) => return e.into_output(),
            };
            if let Some(sink) = &progress {
                for line in fresh {
                    // A closed sink means the client went away; Computer carries on regardless.
                    let _ = sink.send(line);
                }
            }
            if let Some(result) = result {
                return result;
            }
            let wake = next_event.map_or(deadline, |at| at.min(deadline));
            tokio::select! {
                () = self.clock.sleep_until(wake) => {}
                () = notified => {}
            }
        }
    }

    /// A fresh download URL for an asset.
    fn mint_download(&self, thread_id: &str, asset: &Asset) -> String {
        let token = Uuid::new_v4().simple().to_string();
        let ttl = if asset.spec.published_url.is_some() {
            PREVIEW_TTL
        } else {
            DOWNLOAD_TTL
        };
        self.downloads().insert(
            token.clone(),
            Download {
                thread_id: thread_id.to_owned(),
                asset_id: asset.asset_id.clone(),
                expires_at: self.clock.now() + to_chrono(ttl),
            },
        );
        format!(
            "{}/_mock/files/{token}/{}",
            self.base_url,
            urlencode(&asset.spec.filename)
        )
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
            let remaining = asset
                .spec
                .published_url
                .is_none()
                .then(|| i64::try_from(DOWNLOAD_TTL.as_secs()).unwrap_or(3600));
            (url, remaining)
        }))
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
