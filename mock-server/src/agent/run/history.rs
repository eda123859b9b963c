//! Where a conversation stands when its client sends the history in `input` instead of
//! `previous_response_id` (chat frameworks do; Zero Data Retention organizations must).
//!
//! The history is read the way the model would read it: each user message opens a turn, so the
//! last one says which turn of the script this request plays; the items after it that the
//! model wrote (`function_call`, `mcp_approval_request`, `mcp_call`) say how far into that turn
//! it already got. A turn whose last user message is followed by nothing the model wrote starts
//! at its first step.

use serde_json::Value;

use crate::fixtures::{AgentStep, AgentTurn};

/// The turn a request plays and the step it starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    /// Index into the script's turns (the caller clamps it to the last one).
    pub(crate) turn: usize,
    /// The step to start at.
    pub(crate) next_step: usize,
}

/// True when `item` is a message from the user (a typed `message`, or a bare `{role, content}`).
pub(crate) fn is_user_message(item: &Value) -> bool {
    let typed = item.get("type").and_then(Value::as_str);
    typed.is_none_or(|t| t == "message") && item.get("role").and_then(Value::as_str) == Some("user")
}

/// Where a request whose `input` is `input` stands in a conversation scripted by `turns`.
pub(crate) fn position(turns: &[AgentTurn], input: &Value) -> Position {
    let Some(items) = input.as_array() else {
        return Position {
            turn: 0,
            next_step: 0,
        };
    };
    let users: Vec<usize> = (0..items.len())
        .filter(|&i| is_user_message(&items[i]))
        .collect();
    let (turn, after) = match users.last() {
        Some(&last) => (users.len() - 1, &items[last + 1..]),
        None => (0, &items[..]),
    };
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
fn steps_done(steps: &[AgentStep], written: &[Value]) -> usize {
    let requested: Vec<&str> = written
        .iter()
        .filter(|i| kind(i) == Some("mcp_approval_request"))
        .filter_map(|i| i.get("id").and_then(Value::as_str))
        .collect();
    let mut cursor = 0;
    for item in written {
        let wanted = match kind(item) {
            Some("function_call") => Wanted::Function,
            Some("mcp_approval_request") => Wanted::Mcp,
            // The run of an approved request belongs to the request's step, matched already.
            Some("mcp_call")
                if item
                    .get("approval_request_id")
                    .and_then(Value::as_str)
                    .is_some_and(|id| requested.contains(&id)) =>
            {
                continue;
            }
            Some("mcp_call") => Wanted::Mcp,
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
pub(crate) fn last_result(items: &[Value], earlier: &[Value]) -> Option<(String, String)> {
    items.iter().rev().find_map(|item| match kind(item) {
        Some("function_call_output") => {
            let output = output_text(item.get("output")?)?;
            let call_id = item.get("call_id").and_then(Value::as_str);
            let name = items
                .iter()
                .chain(earlier)
                .filter(|i| kind(i) == Some("function_call"))
                .find(|i| i.get("call_id").and_then(Value::as_str) == call_id)
                .and_then(|i| i.get("name").and_then(Value::as_str))
                .unwrap_or("the function");
            Some((name.to_owned(), output))
        }
        Some("mcp_call") => {
            let output = item.get("output").and_then(Value::as_str)?;
            let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
            Some((name.to_owned(), output.to_owned()))
        }
        _ => None,
    })
}

/// True when `items` bring a function's output after their last user message: the model
/// answers from it in this request.
pub(crate) fn brings_function_output(items: &[Value]) -> bool {
    let start = items
        .iter()
        .rposition(is_user_message)
        .map_or(0, |last| last + 1);
    items[start..]
        .iter()
        .any(|i| kind(i) == Some("function_call_output"))
}

/// A `function_call_output`'s output: a string, or the text of its content parts.
fn output_text(output: &Value) -> Option<String> {
    match output {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => None,
    }
}

fn kind(item: &Value) -> Option<&str> {
    item.get("type").and_then(Value::as_str)
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
    use serde_json::json;

    use super::*;

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
