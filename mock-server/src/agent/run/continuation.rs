//! Where in its scenario's script a request starts: a new conversation plays turn 0 of the
//! scenario its first message routes to; `previous_response_id` resumes the turn the previous
//! response paused (on a function call or approval requests) or plays the next one; an account
//! with zero data retention continues an approval by sending the history in `input`. Each
//! pending approval request must get exactly one decision.

use serde_json::Value;

use super::setup::{Decided, Setup};
use crate::agent::approval;
use crate::agent::error::ApiError;
use crate::agent::store::{Pending, Store};
use crate::agent::validate::Validated;
use crate::agent::wire::first_user_text;
use crate::fixtures::{AgentStep, Catalog};
use crate::world::Account;

/// Works out which scenario turn this request plays, checking a continuation against the
/// response it continues (or, for zero-data-retention accounts, against the history in input).
pub(crate) fn continuation(
    catalog: &Catalog,
    store: &Store,
    account: &Account,
    validated: Validated,
) -> Result<Setup, ApiError> {
    let input = validated.request.input.clone();
    let decisions = approval::decisions_in_input(&input)
        .map_err(|e| ApiError::invalid_request(e.to_string()).param(e.param()))?;
    let Some(previous_id) = validated.request.previous_response_id.clone() else {
        let text = first_user_text(&input);
        let loaded = catalog.agent_route(&text);
        let scenario = (loaded.name.clone(), loaded.script.clone());
        // Zero-data-retention continuation: the pending requests come from the history.
        let history: Vec<Pending> = approval::pending_in_history(&input).into_iter().collect();
        let (decided, next_step) = if history.is_empty() && decisions.is_empty() {
            (Vec::new(), 0)
        } else {
            let decided = match_all(&history, &input)?;
            let calls_done = input
                .as_array()
                .map(|items| {
                    items
                        .iter()
                        .filter(|i| {
                            matches!(
                                i.get("type").and_then(Value::as_str),
                                Some("mcp_approval_request")
                            )
                        })
                        .count()
                })
                .unwrap_or(0);
            let next = scenario
                .1
                .turns
                .first()
                .and_then(|turn| {
                    turn.steps
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| matches!(s, AgentStep::McpCall { .. }))
                        .nth(calls_done.saturating_sub(1))
                        .map(|(i, _)| i + 1)
                })
                .unwrap_or(0);
            (decided, next)
        };
        return Ok(Setup {
            validated,
            account: account.clone(),
            scenario,
            turn: 0,
            next_step,
            decisions: decided,
            previous_output: String::new(),
        });
    };
    if account.agent_api.zero_data_retention {
        return Err(ApiError::invalid_request(
            "previous_response_id is not available to zero data retention organizations: send \
             the conversation history in input instead (the user message, the \
             mcp_approval_request item and your mcp_approval_response)",
        )
        .param("previous_response_id"));
    }
    let previous = store
        .get(&account.id, &previous_id)
        .ok_or_else(|| {
            ApiError::invalid_request(format!(
                "invalid request: previous_response_id \"{previous_id}\" is not a response of this account"
            ))
            .param("previous_response_id")
        })?;
    let (status, pause, turn, last_output) = {
        let state = previous.state();
        let last_output = state
            .response
            .get("output")
            .and_then(Value::as_array)
            .and_then(|o| {
                o.iter()
                    .rev()
                    .find_map(|i| i.get("output").and_then(Value::as_str))
            })
            .unwrap_or_default()
            .to_owned();
        (
            state
                .response
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            state.pause.clone(),
            state.turn,
            last_output,
        )
    };
    if status != "completed" {
        return Err(ApiError::invalid_request(format!(
            "invalid request: the previous response is {status}; only a completed response can be continued"
        ))
        .param("previous_response_id"));
    }
    let loaded = catalog
        .agent_get(&previous.scenario)
        .unwrap_or_else(|| catalog.agent_route(""));
    let scenario = (loaded.name.clone(), loaded.script.clone());
    let (turn, next_step, decided) = match pause {
        Some(pause) => {
            let decided = match_all(&pause.approvals, &input)?;
            (pause.turn, pause.next_step, decided)
        }
        None => {
            let decided = match_all(&[], &input)?;
            (turn + 1, 0, decided)
        }
    };
    Ok(Setup {
        validated,
        account: account.clone(),
        scenario,
        turn,
        next_step,
        decisions: decided,
        previous_output: last_output,
    })
}

/// One decision per pending request, else 400 `invalid_request` naming the item.
fn match_all(pending: &[Pending], input: &Value) -> Result<Vec<Decided>, ApiError> {
    let matched = approval::match_input(pending, input)
        .map_err(|e| ApiError::invalid_request(e.to_string()).param(e.param()))?;
    Ok(matched
        .into_iter()
        .map(|(pending, d)| Decided {
            pending,
            approve: d.approve,
            reason: d.reason,
        })
        .collect())
}
