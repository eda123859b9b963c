//! The commands on a response that exists: retrieve it (or resume its stream), cancel it, list
//! and read its files, and forget it (the control API's).

use std::sync::Arc;

use serde::Deserialize;

use super::Service;
use crate::agent::error::ApiError;
use crate::agent::store::{Run, RunFile};
use crate::agent::wire::lists::{CancelAck, FileEntry, List};
use crate::agent::wire::response::Response;
use crate::world::Account;

/// What `GET …/{id}` asks for (its query).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct Retrieve {
    /// With `stream`: the sequence number of the last event the client has (-1 for none).
    #[serde(default)]
    pub(crate) starting_after: Option<i64>,
    /// Resume the stream instead of answering the response.
    #[serde(default)]
    pub(crate) stream: Option<bool>,
    /// `default` or `short`.
    #[serde(default)]
    pub(crate) format: Option<String>,
}

/// What `GET …/{id}` gets.
pub(crate) enum Retrieved {
    /// The response as it stands.
    Snapshot(Box<Response>),
    /// The run's stream, from event `from` on.
    Stream {
        /// The run.
        run: Arc<Run>,
        /// The first event to send.
        from: usize,
    },
}

impl Service {
    /// `GET …/{id}`: the response, or with `stream=true&starting_after=N` its stream after N.
    pub(crate) async fn retrieve(
        &self,
        account: &Account,
        id: &str,
        query: &Retrieve,
    ) -> Result<Retrieved, ApiError> {
        if let Some(format) = &query.format
            && format != "default"
            && format != "short"
        {
            return Err(ApiError::invalid_request(format!(
                "format must be default or short, not \"{format}\""
            ))
            .param("format"));
        }
        let run = self.stored_run(account, id)?;
        if query.stream != Some(true) {
            // A look: a driven clock moves on by its look step, and the run catches up, first.
            self.clock.look().await;
            return Ok(Retrieved::Snapshot(Box::new(run.snapshot())));
        }
        let Some(after) = query.starting_after else {
            return Err(ApiError::invalid_request(
                "stream=true requires starting_after: pass the sequence_number of the last event you received (-1 for all)",
            )
            .param("starting_after"));
        };
        let len = i64::try_from(run.state().events.len()).unwrap_or(i64::MAX);
        let past_end = || {
            ApiError::invalid_request(format!(
                "starting_after {after} is past the end of the stream: the last sequence_number is {}; \
                 fall back to a plain GET",
                len - 1
            ))
            .param("starting_after")
        };
        if after < -1 || after >= len {
            return Err(past_end());
        }
        let from = usize::try_from(after + 1).map_err(|_| past_end())?;
        Ok(Retrieved::Stream { run, from })
    }

    /// `POST …/{id}/cancel`: asks the run to stop.
    pub(crate) fn cancel(&self, account: &Account, id: &str) -> Result<CancelAck, ApiError> {
        // The live API answers an unknown id like a terminal one (recorded 400); the docs say
        // 404, which an account's `documented_cancel_errors` switches to.
        let terminal_error =
            || ApiError::invalid_request("the run is already terminal and cannot be cancelled");
        let unknown = || {
            if account.agent_api.documented_cancel_errors {
                ApiError::not_found()
            } else {
                terminal_error()
            }
        };
        let run = self.store.get(&account.id, id).ok_or_else(unknown)?;
        if run.state().terminal {
            return Err(terminal_error());
        }
        run.request_cancel(self.clock.now());
        Ok(CancelAck::cancelling(run.id.clone()))
    }

    /// `GET …/{id}/files`: the files the run shared.
    pub(crate) fn files(&self, account: &Account, id: &str) -> Result<List<FileEntry>, ApiError> {
        let run = self.stored_run(account, id)?;
        let files = run
            .state()
            .files
            .iter()
            .map(|f| FileEntry {
                id: f.id.clone(),
                object: "file",
                filename: f.filename.clone(),
                bytes: f.content.len(),
                created_at: f.created_at,
            })
            .collect();
        Ok(List::of(files))
    }

    /// `GET …/{id}/files/{file_id}/content`: one file the run shared.
    pub(crate) fn file(
        &self,
        account: &Account,
        id: &str,
        file_id: &str,
    ) -> Result<RunFile, ApiError> {
        let run = self.stored_run(account, id)?;
        run.state()
            .files
            .iter()
            .find(|f| f.id == file_id)
            .cloned()
            .ok_or_else(ApiError::not_found)
    }

    /// `DELETE /_mock/agent/responses/{id}`: forgets the run, whoever owns it; its id, or
    /// `None` when the mock holds no such run.
    pub(crate) fn forget(&self, id: &str) -> Option<String> {
        self.store.remove(id).map(|run| run.id.clone())
    }
}
