//! Where in its scenario's script a request starts.
//!
//! - A new conversation plays turn 0 of the scenario its first user message routes to.
//! - `previous_response_id` resumes the turn the previous response paused (on a function call or
//!   approval requests), or, when the request brings a new user message, plays the next turn
//!   ("you can add the new user message after the `mcp_approval_response` in the same input").
//! - History in `input` (chat frameworks; Zero Data Retention organizations, which "cannot use
//!   `previous_response_id`") carries the conversation on the same way: `history.rs` reads where
//!   it stands.
//!
//! Either way each pending approval request must get exactly one decision, else 400.

use std::sync::Arc;

use super::history;
use super::research;
use super::setup::{Decided, Previous, Setup};
use crate::agent::approval;
use crate::agent::error::ApiError;
use crate::agent::store::{Pending, Store};
use crate::agent::validate::Validated;
use crate::agent::wire::items::OutputItem;
use crate::agent::wire::request::{Input, InputItem, Tool};
use crate::agent::wire::response::Status;
use crate::fixtures::{AgentScript, Catalog, DEFAULT_AGENT_SCENARIO, LoadedAgentScenario};
use crate::world::Account;

/// Works out which scenario turn this request plays, checking a continuation against the
/// response it continues (or against the history in `input`).
pub(crate) fn continuation(
    catalog: &Catalog,
    store: &Store,
    account: &Arc<Account>,
    validated: Validated,
) -> Result<Setup, ApiError> {
    // (A malformed decision was refused with the request.)
    let input = &validated.input;
    // Zero data retention: nothing is kept for a later GET, whatever `store` asked.
    let stored = validated.request.store != Some(false) && !account.agent_api.zero_data_retention;
    let items = input.items();
    let Some(previous_id) = validated.request.previous_response_id.clone() else {
        let loaded = catalog.agent_route(&input.first_user_text());
        let script = script_for(&loaded, &validated);
        let pending = approval::pending_in_history(input);
        let decisions = match_all(&pending, input)?;
        let at = history::position(&script.turns, input);
        let previous = previous_result(items, &[]);
        return Ok(Setup {
            account: Arc::clone(account),
            scenario: (loaded.name.clone(), script),
            turn: at.turn,
            next_step: at.next_step,
            decisions,
            previous,
            stored,
            validated,
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
    let previous = store.get(&account.id, &previous_id).ok_or_else(|| {
        ApiError::invalid_request(format!(
            "invalid request: previous_response_id \"{previous_id}\" is not a response of this account"
        ))
        .param("previous_response_id")
    })?;
    let (status, pause, turn, output) = {
        let state = previous.state();
        (
            state.response.status.clone(),
            state.pause.clone(),
            state.turn,
            state.response.output.clone(),
        )
    };
    if status != Status::Completed {
        return Err(ApiError::invalid_request(format!(
            "invalid request: the previous response is {status}; only a completed response can be continued"
        ))
        .param("previous_response_id"));
    }
    let loaded = catalog
        .agent_get(&previous.scenario)
        .unwrap_or_else(|| catalog.agent_route(""));
    // A new user message moves the conversation on to the next turn.
    let new_message =
        matches!(input, Input::Text(_)) || items.iter().any(InputItem::is_user_message);
    let (turn, next_step, decisions) = match pause {
        Some(pause) => {
            let decisions = match_all(&pause.approvals, input)?;
            if new_message {
                (pause.turn + 1, 0, decisions)
            } else {
                (pause.turn, pause.next_step, decisions)
            }
        }
        None => (turn + 1, 0, match_all(&[], input)?),
    };
    let mut result = previous_result(items, &output);
    if result.output.is_empty()
        && let Some((tool, text)) = history::last_call_result(&output)
    {
        result.tool = tool;
        result.output = text;
    }
    let script = script_for(&loaded, &validated);
    Ok(Setup {
        account: Arc::clone(account),
        scenario: (loaded.name.clone(), script),
        turn,
        next_step,
        decisions,
        previous: result,
        stored,
        validated,
    })
}

/// The script a request plays: its scenario's, or, for the default scenario (nothing selected
/// another), the default model's run for the request's preset and input.
fn script_for(loaded: &LoadedAgentScenario, validated: &Validated) -> Arc<AgentScript> {
    if loaded.name != DEFAULT_AGENT_SCENARIO {
        return loaded.script.clone();
    }
    let request = &validated.request;
    let preset = request.effort.as_deref().or(request.preset.as_deref());
    let preset_tools = validated.brings_preset_tools();
    let offers = |pred: fn(&Tool) -> bool| validated.tools.iter().any(pred);
    let offered = research::Offered {
        searches: preset_tools || offers(|t| matches!(t, Tool::WebSearch { .. })),
        reads: preset_tools || offers(|t| matches!(t, Tool::FetchUrl { .. })),
        // A continuation bringing a function's output lines up with the script that called it,
        // even if it does not send the tool again.
        functions: offers(|t| matches!(t, Tool::Function { .. }))
            || validated.input.items().iter().any(|i| {
                matches!(
                    i,
                    InputItem::FunctionCall(_) | InputItem::FunctionCallOutput(_)
                )
            }),
        servers: offers(|t| matches!(t, Tool::Mcp(_) | Tool::Connector(_))),
    };
    let input = validated.input.first_user_text();
    Arc::new(research::script(preset, &input, offered))
}

/// The tool result the request's own items leave the model with (none: empty, and
/// `{tool_output}` reads as nothing).
fn previous_result(items: &[InputItem], earlier: &[OutputItem]) -> Previous {
    let (tool, output) = history::last_result(items, earlier).unwrap_or_default();
    Previous {
        output,
        tool,
        fresh: history::brings_function_output(items),
    }
}

/// One decision per pending request, else 400 `invalid_request` naming the item.
fn match_all(pending: &[Pending], input: &Input) -> Result<Vec<Decided>, ApiError> {
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
