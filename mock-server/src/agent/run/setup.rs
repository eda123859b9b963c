//! What a run starts from: the validated request, who sent it, the scenario's script, where in
//! the script it starts, and the approval decisions it carries.

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

/// Everything a run needs to start.
pub(crate) struct Setup {
    /// The validated request.
    pub(crate) validated: Validated,
    /// Who sent it.
    pub(crate) account: Account,
    /// Scenario name and its script.
    pub(crate) scenario: (String, Arc<AgentScript>),
    /// The turn to play.
    pub(crate) turn: usize,
    /// The step to start at (non-zero when resuming a paused turn).
    pub(crate) next_step: usize,
    /// Approval decisions to carry out first.
    pub(crate) decisions: Vec<Decided>,
    /// The previous response's last tool output (for `{tool_output}`).
    pub(crate) previous_output: String,
}
