//! Where a conversation stands when its client sends the history in `input` instead of
//! `previous_response_id` (chat frameworks do; Zero Data Retention organizations must).
//!
//! The history is read the way the model would read it: each user message opens a turn, so the
//! last one says which turn of the script this request plays; the items after it that the
//! model wrote (`function_call`, `mcp_approval_request`, `mcp_call`) say how far into that turn
//! it already got. A turn whose last user message is followed by nothing the model wrote starts
//! at its first step.

use crate::agent::wire::items::OutputItem;
use crate::agent::wire::request::{Input, InputItem};
use crate::fixtures::{AgentStep, AgentTurn};

/// The turn a request plays and the step it starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    /// Index into the script's turns (the caller clamps it to the last one).
    pub(crate) turn: usize,
    /// The step to start at.
    pub(crate) next_step: usize,
}

/// Where a request whose `input` is `input` stands in a conversation scripted by `turns`.
pub(crate) fn position(turns: &[AgentTurn], input: &Input) -> Position {
    let Input::Items(items) = input else {
        return Position {
            turn: 0,
            next_step: 0,
        };
    };
    let users: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].is_user_message())
        .collect();
    let (turn, after) = match users.last() {
        Some(&last) => (users.len() - 1, &items[last + 1..]),
        None => (0, &items[..]),
    };
    // A script without turns has no steps to resume after.
    let steps = turns
        .get(turn.min(turns.len().saturating_sub(1)))
        .map(|t| t.steps.as_slice())
        .unwrap_or_default();
    Position {
        turn,
        next_step: steps_done(steps, after),
    }
}

/// How many of `steps` the model's items in `written` account for: each item the model wrote
/// is matched to the next step that writes its kind, and the turn resumes after the last one.
fn steps_done(steps: &[AgentStep], written: &[InputItem]) -> usize {
    let requested: Vec<&str> = written
        .iter()
        .filter_map(|item| match item {
            InputItem::McpApprovalRequest(request) => Some(request.id.as_str()),
            _ => None,
        })
        .collect();
    let mut cursor = 0;
    for item in written {
        let wanted = match item {
            InputItem::FunctionCall(_) => Wanted::Function,
            InputItem::McpApprovalRequest(_) => Wanted::Mcp,
            // The run of an approved request belongs to the request's step, matched already.
            InputItem::McpCall(call)
                if call
                    .approval_request_id
                    .as_deref()
                    .is_some_and(|id| requested.contains(&id)) =>
            {
                continue;
            }
            InputItem::McpCall(_) => Wanted::Mcp,
            _ => continue,
        };
        let Some(offset) = steps[cursor.min(steps.len())..]
            .iter()
            .position(|s| wanted.matches(s))
        else {
            break;
        };
        cursor += offset + 1;
    }
    cursor
}

/// The last tool result in `items` (a `function_call_output`, or an `mcp_call`'s `output`),
/// naming its tool; a function's name is looked up by `call_id` in `items`, then in `earlier`
/// (the output of the response a continuation names).
pub(crate) fn last_result(items: &[InputItem], earlier: &[OutputItem]) -> Option<(String, String)> {
    items.iter().rev().find_map(|item| match item {
        InputItem::FunctionCallOutput(output) => {
            let sent = items.iter().find_map(|i| match i {
                InputItem::FunctionCall(call) if call.call_id == output.call_id => {
                    Some(call.name.as_str())
                }
                _ => None,
            });
            let written = || {
                earlier.iter().find_map(|i| match i {
                    OutputItem::FunctionCall(call) if call.call_id == output.call_id => {
                        Some(call.name.as_str())
                    }
                    _ => None,
                })
            };
            let name = sent.or_else(written).unwrap_or("the function");
            Some((name.to_owned(), output.output.all_text()))
        }
        InputItem::McpCall(call) => Some((call.name.clone(), call.output.clone()?)),
        _ => None,
    })
}

/// The last `mcp_call` that returned something in `output` (a previous response's), naming its
/// tool.
pub(crate) fn last_call_result(output: &[OutputItem]) -> Option<(String, String)> {
    output.iter().rev().find_map(|item| match item {
        OutputItem::McpCall(call) => Some((call.name.clone(), call.output.clone()?)),
        _ => None,
    })
}

/// True when `items` bring a function's output after their last user message: the model
/// answers from it in this request.
pub(crate) fn brings_function_output(items: &[InputItem]) -> bool {
    let start = items
        .iter()
        .rposition(InputItem::is_user_message)
        .map_or(0, |last| last + 1);
    items[start..]
        .iter()
        .any(|i| matches!(i, InputItem::FunctionCallOutput(_)))
}

enum Wanted {
    Function,
    Mcp,
}

impl Wanted {
    fn matches(&self, step: &AgentStep) -> bool {
        match self {
            Self::Function => matches!(step, AgentStep::FunctionCall { .. }),
            Self::Mcp => matches!(step, AgentStep::McpCall { .. }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Where a request with this `input` (read as validation reads it) stands.
    fn position(turns: &[AgentTurn], input: &Value) -> Position {
        let (input, _) = crate::agent::validate::read_input(input).expect("a valid input");
        super::position(turns, &input)
    }

    fn turns(value: Value) -> Vec<AgentTurn> {
        serde_json::from_value(value).expect("turns")
    }

    fn approval_script() -> Vec<AgentTurn> {
        turns(json!([
            {"steps": [
                {"type": "reasoning", "thought": "t"},
                {"type": "mcp_call"},
                {"type": "mcp_call", "parallel": true},
                {"type": "mcp_call"},
                {"type": "message", "text": "done"}
            ]},
            {"steps": [{"type": "message", "text": "again"}]}
        ]))
    }

    fn user(text: &str) -> Value {
        json!({"type": "message", "role": "user", "content": text})
    }

    fn request(id: &str) -> Value {
        json!({"type": "mcp_approval_request", "id": id, "name": "t", "server_label": "s", "arguments": "{}"})
    }

    fn decision(id: &str) -> Value {
        json!({"type": "mcp_approval_response", "approval_request_id": id, "approve": true})
    }

    fn call(id: &str) -> Value {
        json!({"type": "mcp_call", "id": "call_1", "name": "t", "server_label": "s", "arguments": "{}",
               "approval_request_id": id, "output": "ok"})
    }

    #[test]
    fn a_first_message_starts_the_first_turn() {
        let at = position(&approval_script(), &json!("hi"));
        assert_eq!((at.turn, at.next_step), (0, 0));
        let at = position(&approval_script(), &json!([user("hi")]));
        assert_eq!((at.turn, at.next_step), (0, 0));
    }

    #[test]
    fn decided_requests_resume_after_their_steps_in_any_order() {
        let history = json!([
            user("hi"),
            request("a"),
            request("b"),
            decision("b"),
            decision("a")
        ]);
        let at = position(&approval_script(), &history);
        assert_eq!((at.turn, at.next_step), (0, 3));
    }

    #[test]
    fn a_second_round_resumes_after_its_own_step() {
        let history = json!([
            user("hi"),
            request("a"),
            request("b"),
            decision("a"),
            decision("b"),
            call("a"),
            call("b"),
            request("c"),
            decision("c")
        ]);
        let at = position(&approval_script(), &history);
        assert_eq!((at.turn, at.next_step), (0, 4));
    }

    #[test]
    fn a_new_user_message_after_the_model_answered_plays_the_next_turn() {
        let history = json!([
            user("hi"), request("a"), decision("a"), call("a"),
            {"type": "message", "role": "assistant", "content": "done"},
            user("thanks")
        ]);
        let at = position(&approval_script(), &history);
        assert_eq!((at.turn, at.next_step), (1, 0));
    }

    #[test]
    fn a_function_call_and_its_output_resume_after_the_function_step() {
        let script = turns(json!([{"steps": [
            {"type": "reasoning", "thought": "t"},
            {"type": "function_call"},
            {"type": "message", "text": "done"}
        ]}]));
        let history = json!([
            user("weather?"),
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}
        ]);
        let at = position(&script, &history);
        assert_eq!((at.turn, at.next_step), (0, 2));
    }

    #[test]
    fn items_the_script_does_not_write_are_ignored() {
        let script = turns(json!([{"steps": [{"type": "message", "text": "hi"}]}]));
        let history = json!([user("hi"), request("a"), decision("a")]);
        assert_eq!(position(&script, &history).next_step, 0);
    }
}
