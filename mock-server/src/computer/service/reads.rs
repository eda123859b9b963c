//! Looking at a thread and stopping it: `cancel_task`, `read_thread`, `list_thread_assets` and
//! `create_asset_download`, with the cursors that page listings.

use super::{Service, refuse};
use crate::computer::model::arguments::{CreateAssetDownload, ListThreadAssets};
use crate::computer::model::content::Reply;
use crate::computer::model::listings::{AssetPage, DownloadLink};
use crate::computer::model::results::{Checkpoint, Event, TaskStatus};
use crate::computer::view;
use crate::world::{Account, CursorError};

/// Assets per `list_thread_assets` page (undocumented; the filter applies within a page).
const ASSETS_PAGE: usize = 20;

impl Service {
    /// `cancel_task`: stops the request in progress (and any queued message).
    pub(crate) fn cancel(&self, account: &Account, thread_id: &str) -> Reply {
        let now = self.engine.clock.now();
        let result = self
            .engine
            .with_thread(&account.id, thread_id, |thread, _| {
                let settings = &thread.scenario.scenario.settings;
                let (fails, unread) = (settings.cancel_fails, settings.cancel_unread_state);
                let attempt = thread.cancel_attempts;
                thread.cancel_attempts = attempt.saturating_add(1);
                if fails || attempt < settings.cancel_failures {
                    return refuse(
                        Some(thread_id),
                        "The cancellation request failed, so the task may still be running. Check \
                     with read_thread and retry cancel_task.",
                    );
                }
                let paused = thread
                    .latest()
                    .is_some_and(|e| e.task_status() == TaskStatus::InputRequired);
                // "If Computer cannot read the thread state, the tool still sends a
                // cancellation request. A paused task may remain input_required in this case."
                let text = if paused && attempt < unread {
                    "Sent a cancellation request, but Computer couldn't read the thread state, so \
                     a paused task may remain input_required. Confirm with read_thread or \
                     tasks/get, and retry cancel_task if the task remains active."
                        .to_owned()
                } else if thread.cancel(now) {
                    "Cancelled the current work on this thread. Confirm with read_thread."
                        .to_owned()
                } else {
                    // "Returns a cancelled event with task_status: cancelled", also when the
                    // request had already ended; the text says what was there.
                    let ended = thread
                        .latest()
                        .map_or(TaskStatus::Completed, |e| e.task_status());
                    format!(
                        "Nothing was running on this thread: its last request had already ended \
                         ({}). Nothing is left to cancel.",
                        ended.as_str()
                    )
                };
                Checkpoint::bare(
                    thread.id.clone(),
                    Event::Cancelled,
                    text,
                    TaskStatus::Cancelled,
                )
                .into()
            });
        result.unwrap_or_else(|e| e.into_reply())
    }

    /// `read_thread`: the transcript and state, without sending anything. Members of the
    /// thread's Project may read a session shared with them. A look: a driven clock moves on
    /// by its look step first.
    pub(crate) async fn read(&self, account: &Account, thread_id: &str) -> Reply {
        self.engine.clock.look().await;
        let result = self
            .engine
            .view_thread(&account.id, thread_id, |thread, links| {
                // The scenario's `web_state_error` makes the first read fail, as a flaky load
                // does.
                let fail = thread.scenario.scenario.settings.web_state_error
                    && thread.web_state_failures == 0;
                if fail {
                    thread.web_state_failures += 1;
                }
                Reply::Transcript(Box::new(view::transcript(thread, links, fail)))
            });
        result.unwrap_or_else(|e| e.into_reply())
    }

    /// `list_thread_assets`: a page of the thread's durable assets.
    pub(crate) fn list_assets(&self, account: &Account, args: ListThreadAssets) -> Reply {
        let entry_filter = args.entry_id.as_deref();
        let scope = format!("assets:{}:{}", args.thread_id, entry_filter.unwrap_or(""));
        let start = match self.page_start(
            account,
            args.cursor.as_deref(),
            Some(&args.thread_id),
            &scope,
        ) {
            Ok(start) => start,
            Err(refused) => return refused,
        };
        let result = self
            .engine
            .view_thread(&account.id, &args.thread_id, |thread, links| {
                // Pages are cut from all of the thread's assets and then filtered, as the
                // service does: a filtered page can be empty while next_cursor is not null.
                let total = thread.assets.len();
                let end = (start + ASSETS_PAGE).min(total);
                let assets = thread
                    .assets
                    .get(start.min(end)..end)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|a| entry_filter.is_none_or(|e| a.entry_id == e))
                    .map(|a| view::asset_item(a, links))
                    .collect();
                (assets, end, total)
            });
        match result {
            Ok((assets, end, total)) => Reply::Assets(AssetPage {
                assets,
                next_cursor: self.next_cursor(account, &scope, end, total),
            }),
            Err(e) => e.into_reply(),
        }
    }

    /// `create_asset_download`: a fresh download URL for one asset.
    pub(crate) fn create_download(&self, account: &Account, args: CreateAssetDownload) -> Reply {
        let asset_id = args.asset_id;
        match self
            .engine
            .create_download(&account.id, &args.thread_id, &asset_id)
        {
            Err(e) => e.into_reply(),
            Ok(None) => refuse(
                Some(&args.thread_id),
                format!(
                    "Asset `{asset_id}` is not in this thread; use an asset_id from \
                     list_thread_assets."
                ),
            ),
            Ok(Some((url, expires_in_seconds))) => Reply::Download(DownloadLink {
                asset_id,
                url,
                expires_in_seconds,
            }),
        }
    }

    /// The offset a `cursor` argument stands for (0 without one), or the error to answer.
    pub(super) fn page_start(
        &self,
        account: &Account,
        cursor: Option<&str>,
        thread_id: Option<&str>,
        scope: &str,
    ) -> Result<usize, Reply> {
        let Some(cursor) = cursor else {
            return Ok(0);
        };
        self.engine
            .world
            .resolve_cursor(&account.id, scope, cursor)
            .map_err(|e| {
                let why = match e {
                    CursorError::Unknown => "was not handed out by this server to this account",
                    CursorError::OtherQuery => "belongs to a listing with other arguments",
                };
                refuse(
                    thread_id,
                    format!(
                        "Argument `cursor`: `{cursor}` {why}. Pass the next_cursor of the \
                         previous page with the same arguments, or omit cursor to start from the \
                         first page."
                    ),
                )
            })
    }

    /// The `next_cursor` after a page that ended at `end` of `total`.
    pub(super) fn next_cursor(
        &self,
        account: &Account,
        scope: &str,
        end: usize,
        total: usize,
    ) -> Option<String> {
        (end < total).then(|| self.engine.world.issue_cursor(&account.id, scope, end))
    }
}
