//! `require_approval` policies and approval continuations, as the MCP tool document defines them.
//!
//! A policy is `"always"`, `"never"`, or `{always?: filter, never?: filter}`; a filter matches
//! by exact `tool_names` and/or `read_only` (both given: both must match), `{}` matches every
//! tool, and an omitted, null or empty `tool_names` does not check the name, so
//! `{"never": {"tool_names": []}}` lets every call run. Omitted, MCP calls run without
//! approval. A continuation (by `previous_response_id`, or by sending the history in `input`
//! under Zero Data Retention) must carry exactly one `mcp_approval_response` per pending
//! `mcp_approval_request`.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// Which tool calls of one server need a decision before they run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum ApprovalPolicy {
    /// Every call needs approval.
    Always,
    /// No call needs approval (the default).
    #[default]
    Never,
    /// Per-tool filters.
    Filters {
        /// Tools that always need approval.
        always: Option<ApprovalFilter>,
        /// Tools that never need approval.
        never: Option<ApprovalFilter>,
    },
}

/// A set of tools, by exact name and/or by the server's read-only annotation.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ApprovalFilter {
    /// Exact names; `None` or empty does not check the name.
    pub(crate) tool_names: Option<Vec<String>>,
    /// The tool's `annotations.read_only` must equal this.
    pub(crate) read_only: Option<bool>,
}

impl ApprovalFilter {
    /// Whether the filter selects `tool_name`. A tool without a read-only annotation counts
    /// as not read-only, the MCP default for `readOnlyHint`.
    pub(crate) fn matches(&self, tool_name: &str, read_only: Option<bool>) -> bool {
        let name_ok = match &self.tool_names {
            Some(names) if !names.is_empty() => names.iter().any(|n| n == tool_name),
            _ => true,
        };
        let read_only_ok = self
            .read_only
            .is_none_or(|wanted| wanted == read_only.unwrap_or(false));
        name_ok && read_only_ok
    }

    fn from_value(value: &Value, field: &str) -> Result<Option<Self>, String> {
        let fields = match value {
            Value::Null => return Ok(None),
            Value::Object(fields) => fields,
            other => {
                return Err(format!(
                    "`{field}` must be an object such as {{\"tool_names\": [\"...\"], \
                     \"read_only\": true}}, not {}",
                    kind(other)
                ));
            }
        };
        reject_unknown(fields, field, &["tool_names", "read_only"])?;
        let tool_names = match fields.get("tool_names") {
            None | Some(Value::Null) => None,
            Some(Value::Array(names)) => {
                let mut out = Vec::with_capacity(names.len());
                for (i, name) in names.iter().enumerate() {
                    let Some(name) = name.as_str() else {
                        return Err(format!(
                            "`{field}.tool_names[{i}]` must be a tool name (a string), not {}",
                            kind(name)
                        ));
                    };
                    out.push(name.to_owned());
                }
                Some(out)
            }
            Some(other) => {
                return Err(format!(
                    "`{field}.tool_names` must be an array of tool names, not {}",
                    kind(other)
                ));
            }
        };
        let read_only = match fields.get("read_only") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(other) => {
                return Err(format!(
                    "`{field}.read_only` must be true or false, not {}",
                    kind(other)
                ));
            }
        };
        Ok(Some(Self {
            tool_names,
            read_only,
        }))
    }
}

impl ApprovalPolicy {
    /// Parses a tool's `require_approval` value (absent or null: [`ApprovalPolicy::Never`]).
    /// The error names the offending field, relative to the tool entry.
    pub(crate) fn from_request(value: Option<&Value>) -> Result<Self, String> {
        let fields = match value {
            None | Some(Value::Null) => return Ok(Self::Never),
            Some(Value::String(s)) if s == "always" => return Ok(Self::Always),
            Some(Value::String(s)) if s == "never" => return Ok(Self::Never),
            Some(Value::String(s)) => {
                return Err(format!(
                    "`require_approval` must be \"always\", \"never\" or an object with `always` \
                     and/or `never` filters; \"{s}\" is none of these"
                ));
            }
            Some(Value::Object(fields)) => fields,
            Some(other) => {
                return Err(format!(
                    "`require_approval` must be \"always\", \"never\" or an object with `always` \
                     and/or `never` filters, not {}",
                    kind(other)
                ));
            }
        };
        reject_unknown(fields, "require_approval", &["always", "never"])?;
        let always = match fields.get("always") {
            Some(v) => ApprovalFilter::from_value(v, "require_approval.always")?,
            None => None,
        };
        let never = match fields.get("never") {
            Some(v) => ApprovalFilter::from_value(v, "require_approval.never")?,
            None => None,
        };
        Ok(Self::Filters { always, never })
    }

    /// Whether a call of `tool_name` (with the server's read-only annotation) needs approval.
    ///
    /// With filters: a tool the `always` filter selects needs approval (also when `never`
    /// selects it too: the stricter choice wins); else a tool the `never` filter selects runs;
    /// else it needs approval exactly when a `never` filter was sent, because tools outside
    /// `never` still require approval while an `always`-only policy selects just its tools.
    pub(crate) fn requires_approval(&self, tool_name: &str, read_only: Option<bool>) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Filters { always, never } => {
                if always
                    .as_ref()
                    .is_some_and(|f| f.matches(tool_name, read_only))
                {
                    return true;
                }
                match never {
                    Some(filter) => !filter.matches(tool_name, read_only),
                    None => false,
                }
            }
        }
    }
}

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

/// One `mcp_approval_response`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApprovalDecision {
    /// The request it answers.
    pub(crate) approval_request_id: String,
    /// Approve (run the call) or deny (skip it).
    pub(crate) approve: bool,
    /// Why, for a denial; passed to the model.
    pub(crate) reason: Option<String>,
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

/// The `mcp_approval_response` items of a request's `input`, with their position.
///
/// Decisions whose request already ran (an `mcp_call` item in the same input carries its
/// `approval_request_id`) are history, as a Zero Data Retention client sends it, and are left
/// out. A string input has none.
pub(crate) fn decisions_in_input(input: &Value) -> Result<Vec<ApprovalDecision>, ApprovalError> {
    Ok(indexed_decisions(input)?
        .into_iter()
        .map(|(_, decision)| decision)
        .collect())
}

fn indexed_decisions(input: &Value) -> Result<Vec<(usize, ApprovalDecision)>, ApprovalError> {
    let Some(items) = input.as_array() else {
        return Ok(Vec::new());
    };
    let ran = calls_in_history(items);
    let mut decisions = Vec::new();
    for (index, item) in items.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("mcp_approval_response") {
            continue;
        }
        let malformed = |why: &str| ApprovalError::Malformed {
            index,
            why: why.to_owned(),
        };
        let id = match item.get("approval_request_id") {
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
        if ran.contains(id.as_str()) {
            continue;
        }
        decisions.push((
            index,
            ApprovalDecision {
                approval_request_id: id,
                approve,
                reason,
            },
        ));
    }
    Ok(decisions)
}

/// Approval request ids that an `mcp_call` item in `items` says already ran.
fn calls_in_history(items: &[Value]) -> HashSet<&str> {
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("mcp_call"))
        .filter_map(|item| item.get("approval_request_id").and_then(Value::as_str))
        .collect()
}

/// The `mcp_approval_request` items in `items` (a previous response's `output`, or a Zero Data
/// Retention `input`) whose call has not run: no `mcp_call` in `items` carries their id.
pub(crate) fn pending_in_history(items: &Value) -> Vec<PendingApproval> {
    let Some(items) = items.as_array() else {
        return Vec::new();
    };
    let ran = calls_in_history(items);
    let text = |item: &Value, key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    items
        .iter()
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("mcp_approval_request"))
        .filter_map(|item| {
            let id = item.get("id").and_then(Value::as_str)?;
            (!ran.contains(id)).then(|| PendingApproval {
                id: id.to_owned(),
                server_label: text(item, "server_label"),
                name: text(item, "name"),
                arguments: text(item, "arguments"),
                connector_id: item
                    .get("connector_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
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
    let located: Vec<(Option<usize>, ApprovalDecision)> =
        decisions.iter().map(|d| (None, d.clone())).collect();
    match_located(pending, &located)
}

/// Pairs each pending request with its one decision in `input`, so errors point at the item.
pub(crate) fn match_input(
    pending: &[PendingApproval],
    input: &Value,
) -> Result<Vec<(PendingApproval, ApprovalDecision)>, ApprovalError> {
    let located: Vec<(Option<usize>, ApprovalDecision)> = indexed_decisions(input)?
        .into_iter()
        .map(|(i, d)| (Some(i), d))
        .collect();
    match_located(pending, &located)
}

/// Matches decisions that may know their position in `input`.
fn match_located(
    pending: &[PendingApproval],
    decisions: &[(Option<usize>, ApprovalDecision)],
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
                .map(|(_, d)| (p.clone(), d.clone()))
                .ok_or_else(|| ApprovalError::Missing {
                    id: p.id.clone(),
                    name: p.name.clone(),
                    server_label: p.server_label.clone(),
                })
        })
        .collect()
}

fn reject_unknown(fields: &Map<String, Value>, field: &str, known: &[&str]) -> Result<(), String> {
    match fields.keys().find(|k| !known.contains(&k.as_str())) {
        Some(extra) => Err(format!(
            "`{field}` has an unknown field `{extra}`; it accepts {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
        None => Ok(()),
    }
}

/// "a number", "an array", ... for error messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
