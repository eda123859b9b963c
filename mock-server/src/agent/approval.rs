//! Approval continuations, as the MCP tool document defines them: a continuation (by
//! `previous_response_id`, or by sending the history in `input` under Zero Data Retention) must
//! carry exactly one `mcp_approval_response` per pending `mcp_approval_request`. (The policies
//! that decide which calls need approval are in `wire::approval`.)

use std::collections::HashSet;

use serde_json::{Map, Value};

pub(crate) use super::wire::approval::ApprovalDecision;
use super::wire::request::{Input, InputItem};

/// An `mcp_approval_request` that has not been decided yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingApproval {
    /// The request id (`approval_request_id` in the answer).
    pub(crate) id: String,
    /// The server the call is for.
    pub(crate) server_label: String,
    /// The tool.
    pub(crate) name: String,
    /// The proposed arguments, a JSON string.
    pub(crate) arguments: String,
    /// The connector, when the server is a connector.
    pub(crate) connector_id: Option<String>,
}

/// Why a continuation's decisions cannot be used: the request fails with 400
/// `invalid_request` in every mode and no tool runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ApprovalError {
    /// A pending request has no decision.
    #[error(
        "approval request `{id}` (tool `{name}` on server `{server_label}`) is still pending: \
         send an mcp_approval_response with approval_request_id `{id}` and approve true or \
         false for each pending approval request"
    )]
    Missing {
        /// The pending request.
        id: String,
        /// Its tool.
        name: String,
        /// Its server.
        server_label: String,
    },
    /// A decision names a request that is not pending.
    #[error(
        "{at} answers approval request `{id}`, which is not pending here{pending}; send one \
         mcp_approval_response for each mcp_approval_request of the response you continue"
    )]
    Unknown {
        /// Where the decision is (`input[3]`, or `an mcp_approval_response`).
        at: String,
        /// The id it names.
        id: String,
        /// The pending ids, as a clause (`" (pending: a, b)"`, or `" (none is pending)"`).
        pending: String,
    },
    /// Two decisions for one request.
    #[error(
        "{at} is a second mcp_approval_response for approval request `{id}`; each approval \
         request takes exactly one decision"
    )]
    Duplicate {
        /// Where the second decision is (`input[3]`, or `an mcp_approval_response`).
        at: String,
        /// The request id.
        id: String,
    },
    /// An `mcp_approval_response` item is malformed.
    #[error("input[{index}] is not a valid mcp_approval_response: {why}")]
    Malformed {
        /// Position of the item in `input`.
        index: usize,
        /// What is wrong.
        why: String,
    },
}

impl ApprovalError {
    /// The request field the error is about, for the error envelope's `param`.
    pub(crate) fn param(&self) -> String {
        match self {
            Self::Missing { .. } => "input".to_owned(),
            Self::Unknown { at, .. } | Self::Duplicate { at, .. } if at.starts_with("input[") => {
                format!("{at}.approval_request_id")
            }
            Self::Unknown { .. } | Self::Duplicate { .. } => "input".to_owned(),
            Self::Malformed { index, .. } => format!("input[{index}]"),
        }
    }
}

/// One `mcp_approval_response` item of `input`, at `index`, read into a decision; a
/// malformed one is an error naming what is wrong.
pub(crate) fn decision(
    index: usize,
    item: &Map<String, Value>,
) -> Result<ApprovalDecision, ApprovalError> {
    let malformed = |why: &str| ApprovalError::Malformed {
        index,
        why: why.to_owned(),
    };
    let approval_request_id = match item.get("approval_request_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        Some(Value::String(_)) => return Err(malformed("`approval_request_id` is empty")),
        Some(_) => return Err(malformed("`approval_request_id` must be a string")),
        None => return Err(malformed("`approval_request_id` is required")),
    };
    let approve = match item.get("approve") {
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(malformed("`approve` must be true or false")),
        None => return Err(malformed("`approve` (true or false) is required")),
    };
    let reason = match item.get("reason") {
        None | Some(Value::Null) => None,
        Some(Value::String(r)) => Some(r.clone()),
        Some(_) => return Err(malformed("`reason` must be a string")),
    };
    Ok(ApprovalDecision {
        approval_request_id,
        approve,
        reason,
    })
}

/// The decisions of a request's `input`, with their position.
///
/// Decisions whose request already ran (an `mcp_call` item in the same input carries its
/// `approval_request_id`) are history, as a Zero Data Retention client sends it, and are left
/// out. A string input has none.
pub(crate) fn decisions_in_input(input: &Input) -> Vec<(usize, &ApprovalDecision)> {
    let items = input.items();
    let ran = calls_in_history(items);
    items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| match item {
            InputItem::McpApprovalResponse(decision)
                if !ran.contains(decision.approval_request_id.as_str()) =>
            {
                Some((index, decision))
            }
            _ => None,
        })
        .collect()
}

/// Approval request ids that an `mcp_call` item in `items` says already ran.
fn calls_in_history(items: &[InputItem]) -> HashSet<&str> {
    items
        .iter()
        .filter_map(|item| match item {
            InputItem::McpCall(call) => call.approval_request_id.as_deref(),
            _ => None,
        })
        .collect()
}

/// The `mcp_approval_request` items of a Zero Data Retention `input` whose call has not run:
/// no `mcp_call` in it carries their id.
pub(crate) fn pending_in_history(input: &Input) -> Vec<PendingApproval> {
    let items = input.items();
    let ran = calls_in_history(items);
    items
        .iter()
        .filter_map(|item| match item {
            InputItem::McpApprovalRequest(request) if !ran.contains(request.id.as_str()) => {
                Some(PendingApproval {
                    id: request.id.clone(),
                    server_label: request.server_label.clone(),
                    name: request.name.clone(),
                    arguments: request.arguments.clone(),
                    connector_id: request.connector_id.clone(),
                })
            }
            _ => None,
        })
        .collect()
}

/// Pairs each pending request with its one decision, in the order of `pending`.
// The routes match decisions where they sit in `input` (`match_input`); the tests check the
// pairing rules on decisions alone.
#[cfg(test)]
fn match_decisions(
    pending: &[PendingApproval],
    decisions: &[ApprovalDecision],
) -> Result<Vec<(PendingApproval, ApprovalDecision)>, ApprovalError> {
    let located: Vec<(Option<usize>, &ApprovalDecision)> =
        decisions.iter().map(|d| (None, d)).collect();
    match_located(pending, &located)
}

/// Pairs each pending request with its one decision in `input`, so errors point at the item.
pub(crate) fn match_input(
    pending: &[PendingApproval],
    input: &Input,
) -> Result<Vec<(PendingApproval, ApprovalDecision)>, ApprovalError> {
    let located: Vec<(Option<usize>, &ApprovalDecision)> = decisions_in_input(input)
        .into_iter()
        .map(|(i, d)| (Some(i), d))
        .collect();
    match_located(pending, &located)
}

/// Matches decisions that may know their position in `input`.
fn match_located(
    pending: &[PendingApproval],
    decisions: &[(Option<usize>, &ApprovalDecision)],
) -> Result<Vec<(PendingApproval, ApprovalDecision)>, ApprovalError> {
    let mut seen: HashSet<&str> = HashSet::new();
    for (index, decision) in decisions {
        let id = decision.approval_request_id.as_str();
        let at = match index {
            Some(i) => format!("input[{i}]"),
            None => "an mcp_approval_response".to_owned(),
        };
        if !pending.iter().any(|p| p.id == id) {
            let pending = if pending.is_empty() {
                " (none is pending)".to_owned()
            } else {
                let ids: Vec<&str> = pending.iter().map(|p| p.id.as_str()).collect();
                format!(" (pending: {})", ids.join(", "))
            };
            return Err(ApprovalError::Unknown {
                at,
                id: id.to_owned(),
                pending,
            });
        }
        if !seen.insert(id) {
            return Err(ApprovalError::Duplicate {
                at,
                id: id.to_owned(),
            });
        }
    }
    pending
        .iter()
        .map(|p| {
            decisions
                .iter()
                .find(|(_, d)| d.approval_request_id == p.id)
                .map(|(_, d)| (p.clone(), (*d).clone()))
                .ok_or_else(|| ApprovalError::Missing {
                    id: p.id.clone(),
                    name: p.name.clone(),
                    server_label: p.server_label.clone(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests;
