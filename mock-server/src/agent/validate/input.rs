//! The request's `input`: a non-empty string, or a non-empty list of input items, each of a
//! known type with the fields it needs, read into typed items once.
//!
//! A malformed `mcp_approval_response` is not refused here: the approvals word their own
//! errors, and they come after the rules on the tools and the account (the order the refusals
//! have always had), so it is handed back for the caller to refuse in turn.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::agent::approval::{self, ApprovalError};
use crate::agent::error::ApiError;
use crate::agent::wire::request::{Input, InputItem};

/// The request's `input`, typed, and the first malformed approval decision in it, if any.
pub(crate) fn read_input(input: &Value) -> Result<(Input, Option<ApprovalError>), ApiError> {
    match input {
        Value::Null => Err(ApiError::validation("input is required").param("input")),
        Value::String(text) if text.is_empty() => {
            Err(ApiError::validation("input cannot be empty").param("input"))
        }
        Value::Array(items) if items.is_empty() => {
            Err(ApiError::validation("input cannot be empty").param("input"))
        }
        Value::Array(items) => {
            let (items, malformed) = read_items(items)?;
            Ok((Input::Items(items), malformed))
        }
        Value::String(text) => Ok((Input::Text(text.clone()), None)),
        _ => Err(
            ApiError::validation("input must be a string or a list of input items").param("input"),
        ),
    }
}

/// The input item types the API takes (Python SDK 0.46.1 `InputItemInput`).
const INPUT_ITEM_TYPES: &[&str] = &[
    "message",
    "function_call_output",
    "function_call",
    "reasoning",
    "mcp_approval_response",
    "mcp_approval_request",
    "mcp_call",
    "mcp_list_tools",
];

/// The string fields each history item type needs (`mcp_approval_response` is checked with
/// the approvals, which word its own errors).
fn required_strings(kind: &str) -> &'static [&'static str] {
    match kind {
        "function_call_output" => &["call_id"],
        "function_call" => &["call_id", "name", "arguments"],
        "mcp_approval_request" | "mcp_call" => &["id", "name", "server_label", "arguments"],
        _ => &[],
    }
}

/// Each input item: a known type (a bare `{role, content}` is a message), a message's role and
/// content, and the fields a history item needs. An item the SDK would refuse to send is a 400
/// naming it, not a silently ignored turn.
fn read_items(items: &[Value]) -> Result<(Vec<InputItem>, Option<ApprovalError>), ApiError> {
    let mut read = Vec::with_capacity(items.len());
    let mut malformed = None;
    for (i, item) in items.iter().enumerate() {
        let at = format!("input[{i}]");
        let Some(map) = item.as_object() else {
            return Err(ApiError::validation(format!(
                "{at} must be an input item object, e.g. {{\"role\": \"user\", \"content\": \"...\"}}"
            ))
            .param(at));
        };
        let kind = match map.get("type") {
            Some(Value::String(kind)) => kind.as_str(),
            None if map.contains_key("role") => "message",
            _ => {
                return Err(ApiError::validation(format!(
                    "{at}: `type` (or a message's `role`) is required"
                ))
                .param(format!("{at}.type")));
            }
        };
        if !INPUT_ITEM_TYPES.contains(&kind) {
            return Err(ApiError::validation(format!(
                "{at}: unknown input item type \"{kind}\"; use {}",
                INPUT_ITEM_TYPES.join(", ")
            ))
            .param(format!("{at}.type")));
        }
        if kind == "message" {
            check_message(&at, map)?;
        }
        for field in required_strings(kind) {
            if !map.get(*field).is_some_and(Value::is_string) {
                return Err(ApiError::validation(format!(
                    "{at}: a {kind} item needs `{field}` (a string)"
                ))
                .param(format!("{at}.{field}")));
            }
        }
        if kind == "function_call_output"
            && !map
                .get("output")
                .is_some_and(|o| o.is_string() || o.is_array())
        {
            return Err(ApiError::validation(format!(
                "{at}: a function_call_output item needs `output` (the function's result as a string)"
            ))
            .param(format!("{at}.output")));
        }
        read.push(match kind {
            "message" => InputItem::Message(typed(&at, item)?),
            "function_call_output" => InputItem::FunctionCallOutput(typed(&at, item)?),
            "function_call" => InputItem::FunctionCall(typed(&at, item)?),
            "mcp_approval_request" => InputItem::McpApprovalRequest(typed(&at, item)?),
            "mcp_call" => InputItem::McpCall(typed(&at, item)?),
            "mcp_approval_response" => match approval::decision(i, map) {
                Ok(decision) => InputItem::McpApprovalResponse(decision),
                Err(error) => {
                    malformed.get_or_insert(error);
                    continue;
                }
            },
            "reasoning" => InputItem::Reasoning,
            _ => InputItem::McpListTools,
        });
    }
    Ok((read, malformed))
}

/// An item whose fields the rules above checked, as its type.
fn typed<T: DeserializeOwned>(at: &str, item: &Value) -> Result<T, ApiError> {
    T::deserialize(item).map_err(|e| ApiError::validation(format!("{at}: {e}")).param(at))
}

fn check_message(at: &str, map: &Map<String, Value>) -> Result<(), ApiError> {
    const ROLES: &[&str] = &["user", "assistant", "system", "developer"];
    let role = map.get("role").and_then(Value::as_str);
    if !role.is_some_and(|r| ROLES.contains(&r)) {
        return Err(ApiError::validation(format!(
            "{at}: role must be one of: {}",
            ROLES.join(" ")
        ))
        .param(format!("{at}.role")));
    }
    match map.get("content") {
        Some(Value::String(_)) => Ok(()),
        Some(Value::Array(parts)) => {
            // `output_text` too: clients send an assistant turn back as the API wrote it.
            const PARTS: &[&str] = &["input_text", "input_image", "input_file", "output_text"];
            for (j, part) in parts.iter().enumerate() {
                let kind = part.get("type").and_then(Value::as_str);
                if !kind.is_some_and(|k| PARTS.contains(&k)) {
                    return Err(ApiError::validation(format!(
                        "{at}.content[{j}]: a content part's type must be one of: {}",
                        PARTS.join(" ")
                    ))
                    .param(format!("{at}.content[{j}].type")));
                }
            }
            Ok(())
        }
        _ => Err(ApiError::validation(format!(
            "{at}: a message needs `content` (a string or a list of content parts)"
        ))
        .param(format!("{at}.content"))),
    }
}
