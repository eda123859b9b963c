//! What a run starts from: the validated request, who sent it, the scenario's script, where in
//! the script it starts, the approval decisions it carries and the tool result it goes on with.

use std::sync::Arc;

use crate::agent::store::Pending;
use crate::agent::validate::Validated;
use crate::fixtures::AgentScript;
use crate::world::Account;

/// An approval decision matched to its pending request.
#[derive(Debug, Clone)]
pub(crate) struct Decided {
    /// The request.
    pub(crate) pending: Pending,
    /// Approved or denied.
    pub(crate) approve: bool,
    /// The denial's reason.
    pub(crate) reason: Option<String>,
}

/// The tool result the conversation left the model with, for `{tool_output}` and
/// `{tool_name}`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Previous {
    /// The output.
    pub(crate) output: String,
    /// The tool (or function) that wrote it.
    pub(crate) tool: String,
    /// This request brought it (a `function_call_output` in `input`): the model answers from
    /// it now.
    pub(crate) fresh: bool,
}

/// Everything a run needs to start.
pub(crate) struct Setup {
    /// The validated request.
    pub(crate) validated: Validated,
    /// Who sent it.
    pub(crate) account: Arc<Account>,
    /// Scenario name and its script.
    pub(crate) scenario: (String, Arc<AgentScript>),
    /// The turn to play.
    pub(crate) turn: usize,
    /// The step to start at (non-zero when resuming a paused turn).
    pub(crate) next_step: usize,
    /// Approval decisions to carry out first.
    pub(crate) decisions: Vec<Decided>,
    /// The tool result the model goes on with.
    pub(crate) previous: Previous,
    /// `GET` may show the run later (`store` was not false, and the account retains data).
    pub(crate) stored: bool,
}
