//! The approval policy a client sends: no `never` filter unless the user chose "Always allow"
//! (an empty list matches every tool, so every call would run without approval).

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::Transcript;

use super::documents::AGENT_MCP_DOC;
use super::ids;
use super::rule::Rule;

/// The paths an Agent API create request is served on.
const CREATE_PATHS: &[&str] = &["/v1/agent", "/v1/responses", "/responses"];

pub(super) fn rules() -> Vec<Rule> {
    vec![Rule {
        id: ids::AGENT_ALWAYS_ALLOW_NO_EMPTY_NEVER,
        summary: "no require_approval.never filter (never an empty one) while the user chose Always allow for no tool",
        level: Level::Must,
        doc: DocRef {
            document: AGENT_MCP_DOC,
            section: "Allow a tool for later calls",
            quote: "If the user has not chosen Always allow for any tool, do not send the never filter. An empty list, as in {\"never\": {\"tool_names\": []}}, matches every tool",
        },
        // The approval scenarios: the user decides each call and never chooses Always allow.
        scenarios: &[
            "agent-approval",
            "agent-approval-deny",
            "agent-approval-zdr",
        ],
        check: no_never_filter,
    }]
}

fn no_never_filter(t: &Transcript) -> Outcome {
    let creates: Vec<_> = t
        .exchanges
        .iter()
        .filter(|e| e.method == "POST" && CREATE_PATHS.contains(&e.path.as_str()))
        .collect();
    if creates.is_empty() {
        return Outcome::Unobserved("the client sent no Agent API request".into());
    }
    for e in &creates {
        let tools = e.request_body.get("tools").and_then(Value::as_array);
        for tool in tools.into_iter().flatten() {
            let Some(never) = tool.pointer("/require_approval/never") else {
                continue;
            };
            let names = never.get("tool_names").and_then(Value::as_array);
            let what = if names.is_none_or(Vec::is_empty) {
                "an empty never filter, which matches every tool, so every call runs without approval"
            } else {
                "a never filter although the user chose Always allow for no tool"
            };
            return Outcome::Violated {
                message: format!(
                    "request #{} sent {what}: {}",
                    e.seq,
                    tool.get("require_approval").cloned().unwrap_or(Value::Null)
                ),
                evidence: vec![e.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} request(s), none with a never filter the user did not choose",
        creates.len()
    ))
}
