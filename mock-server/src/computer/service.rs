//! The one door to Computer's behaviour: typed commands (send, answer, approve or deny,
//! connected, cancel, read, list assets, create a download, ...) over the engine and the thread
//! state machine, each answering a typed [`Reply`].
//!
//! Every transport and flow (the handshake era, the stateless era, MCP Tasks, in-call
//! elicitation) and every tool goes through here; none re-enters a tool by name. How long a
//! command waits for a checkpoint is part of the command ([`Wait`]), never ambient state.

pub(crate) mod account;
pub(crate) mod answer;
pub(crate) mod pages;
pub(crate) mod queries;
pub(crate) mod reads;
pub(crate) mod send;

use std::sync::Arc;
use std::time::Duration;

use super::engine::{Engine, ProgressSink};
use super::model::content::Reply;

/// How long a command waits for a checkpoint, and where its progress lines go.
#[derive(Debug, Clone, Default)]
pub(crate) struct Wait {
    /// The call-wait window, in virtual time (zero: answer at once, the client polls).
    pub(crate) window: Duration,
    /// Receives a line per step, for a call that sent a progress token.
    pub(crate) progress: Option<ProgressSink>,
}

impl Wait {
    /// No waiting and no progress: answer with where things stand now.
    pub(crate) fn none() -> Self {
        Self::default()
    }
}

/// Computer's behaviour; cheap to clone.
#[derive(Clone)]
pub(crate) struct Service {
    pub(crate) engine: Arc<Engine>,
}

impl Service {
    /// The service over `engine`.
    pub(crate) fn new(engine: Arc<Engine>) -> Self {
        Self { engine }
    }

    /// Forgets every thread and download link (`POST /_mock/reset`).
    pub(crate) fn reset(&self) {
        self.engine.reset();
    }

    /// The configured call-wait window with `progress`: how a tool call waits.
    pub(crate) fn call_wait(&self, progress: Option<ProgressSink>) -> Wait {
        Wait {
            window: self.engine.call_wait,
            progress,
        }
    }
}

/// A tool error about `thread_id` (if any).
pub(crate) fn refuse(thread_id: Option<&str>, text: impl Into<String>) -> Reply {
    Reply::error(thread_id, text)
}
