//! What the reference Agent API client keeps of a conversation between requests: the last
//! response (continued with `previous_response_id`), the history a Zero Data Retention account
//! sends instead, the decisions owed on approval requests the user left undecided (denied with
//! the next message),
//! and the "Always allow" choices, keyed by `server_url` and tool name.

use std::collections::BTreeSet;

use serde_json::{Value, json};

/// A person's answer to an approval prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    /// Allow this call; `always`: and every later call of this tool on this server.
    Approve {
        /// "Always allow".
        always: bool,
    },
    /// Deny it.
    Deny,
    /// The person closed the prompt without deciding.
    Undecided,
}

/// One conversation's state.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    /// The last response's id.
    pub(super) previous: Option<String>,
    /// Zero Data Retention: every item sent and received so far, as input items.
    pub(super) history: Vec<Value>,
    /// The decisions to send with the user's next message, when they closed an approval
    /// prompt without deciding (the undecided calls denied).
    pub(super) pending: Vec<Value>,
    /// "Always allow" choices: `(server_url, tool name)`, or `(server_label, tool name)` for a
    /// client that keys them by label (breaking agent.always-allow.by-server-url).
    pub(super) always: BTreeSet<(String, String)>,
    /// Server labels whose last call failed with the transient `CONNECTOR_UNAVAILABLE`.
    pub(super) unavailable: BTreeSet<String>,
}

impl Conversation {
    /// Applies the stored "Always allow" choices to `tools`: each `mcp` tool whose server
    /// (by `server_url`, or by `server_label` when `by_label`) has always-allowed tools gets
    /// them as a `never` filter. Tools without a choice are left as they are: no empty filter.
    pub(super) fn apply_always_allow(&self, tools: &mut Value, by_label: bool) {
        let key = if by_label {
            "server_label"
        } else {
            "server_url"
        };
        for tool in tools.as_array_mut().into_iter().flatten() {
            if str_field(tool, "type") != "mcp" {
                continue;
            }
            let server = str_field(tool, key).to_owned();
            let names: Vec<&str> = self
                .always
                .iter()
                .filter(|(s, _)| *s == server)
                .map(|(_, name)| name.as_str())
                .collect();
            if !names.is_empty() {
                tool["require_approval"] = json!({"never": {"tool_names": names}});
            }
        }
    }

    /// Records a response's output in the history: the items a ZDR history must send back
    /// (approval requests and `mcp_call` items as issued; `mcp_call` left out when
    /// `drop_calls`).
    pub(super) fn remember_output(&mut self, response: &Value, drop_calls: bool) {
        for item in response
            .get("output")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            match str_field(item, "type") {
                "mcp_approval_request" => self.history.push(item.clone()),
                "mcp_call" if !drop_calls => self.history.push(item.clone()),
                _ => {}
            }
        }
    }
}

/// The `mcp_approval_response` for `request`.
pub(super) fn decision_item(request: &Value, approve: bool, reason: &str) -> Value {
    let mut decision = json!({
        "type": "mcp_approval_response",
        "approval_request_id": str_field(request, "id"),
        "approve": approve,
    });
    if !approve {
        decision["reason"] = json!(reason);
    }
    decision
}

/// A user message as an input item.
pub(super) fn user_item(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": text})
}

/// The `server_url` of the `mcp` tool labelled `label` in `tools`.
pub(super) fn server_url_of<'a>(tools: &'a Value, label: &str) -> Option<&'a str> {
    tools
        .as_array()?
        .iter()
        .find(|t| str_field(t, "type") == "mcp" && str_field(t, "server_label") == label)
        .map(|t| str_field(t, "server_url"))
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_allow_goes_to_the_chosen_server_url_only_and_never_as_an_empty_filter() {
        let mut conversation = Conversation::default();
        conversation
            .always
            .insert(("https://a/mcp".into(), "models_list".into()));
        let mut tools = json!([
            {"type": "mcp", "server_label": "x", "server_url": "https://a/mcp", "require_approval": "always"},
            {"type": "mcp", "server_label": "x", "server_url": "https://b/mcp", "require_approval": "always"},
        ]);
        conversation.apply_always_allow(&mut tools, false);
        assert_eq!(
            tools[0]["require_approval"],
            json!({"never": {"tool_names": ["models_list"]}})
        );
        assert_eq!(tools[1]["require_approval"], json!("always"));
    }
}
