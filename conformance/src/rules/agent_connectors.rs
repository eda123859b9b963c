//! The Agent API duties around tool discovery and in-band tool errors: `max_steps` left high
//! enough for deferred discovery, a discovery failure (`external_connector_error`) shown to the
//! user, `POLICY_DENIED` never retried, `CONNECTOR_UNAVAILABLE` retried later, `TOOL_ERROR` and unknown error values treated as
//! failures, and a connector that lists no tools noticed.
//!
//! Read from the journal (what the client sent and what the mock answered) and the user
//! channel's log (what the client showed the person).

use mock_server::Exchange;
use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::Transcript;

use super::agent_observe::{creates, output_items, recreated, str_field};
use super::documents::{AGENT_CONNECTORS_DOC, AGENT_MCP_DOC};
use super::ids;
use super::rule::Rule;

/// The fewest steps a deferred tool needs: one search of the catalog, one call.
const DEFERRED_STEPS: i64 = 2;

/// The error values the Connectors document gives their own handling (everything else, and
/// `TOOL_ERROR`, is a tool failure).
const HANDLED_ELSEWHERE: &[&str] = &[
    "AUTH_REQUIRED",
    "INVALID_ARGUMENTS",
    "POLICY_DENIED",
    "CONNECTOR_UNAVAILABLE",
    "CONNECTOR_INTERNAL_ERROR",
];

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::AGENT_DEFERRED_MAX_STEPS,
            summary: "a request with deferred tools (connectors, or defer_loading) leaves max_steps room to search the catalog and call a tool",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Defer tool definitions",
                quote: "Set max_steps high enough that the model can search the catalog and still call the tools it finds.",
            },
            scenarios: &["agent-deferred-discovery"],
            check: deferred_max_steps,
        },
        Rule {
            id: ids::AGENT_DISCOVERY_FAILURE_SHOWN,
            summary: "a run that fails with external_connector_error is shown to the user as an error naming it or the server",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Error handling",
                quote: "A discovery failure happens when a server cannot be reached or returns an unusable response as its tools are listed at the start of the run. Because discovery runs before the model, the whole run fails with external_connector_error.",
            },
            scenarios: &["agent-discovery-failure"],
            check: discovery_failure_shown,
        },
        Rule {
            id: ids::AGENT_CONNECTOR_POLICY_DENIED_NOT_RETRIED,
            summary: "a request whose mcp_call failed with POLICY_DENIED is not sent again",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_CONNECTORS_DOC,
                section: "Error handling",
                quote: "`POLICY_DENIED` | A policy blocked the tool call. | Do not retry. The call is not allowed.",
            },
            scenarios: &["agent-connector-errors"],
            check: policy_denied_not_retried,
        },
        Rule {
            id: ids::AGENT_CONNECTOR_TRANSIENT_RETRIED_LATER,
            summary: "after CONNECTOR_UNAVAILABLE the connector is still offered in the conversation's next request",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_CONNECTORS_DOC,
                section: "Error handling",
                quote: "`CONNECTOR_UNAVAILABLE` | The connector service could not be reached. | Transient. Retry later.",
            },
            scenarios: &["agent-connector-transient"],
            check: transient_retried_later,
        },
        Rule {
            id: ids::AGENT_CONNECTOR_ERROR_IS_FAILURE,
            summary: "an mcp_call with TOOL_ERROR or an undocumented error value is shown to the user as a failed tool call",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_CONNECTORS_DOC,
                section: "Error handling",
                quote: "`TOOL_ERROR` | The tool failed for another reason. | Treat as a tool failure. The error field is a free-form string, so treat any other value as a tool failure.",
            },
            scenarios: &["agent-connector-errors"],
            check: error_is_failure,
        },
        Rule {
            id: ids::AGENT_CONNECTOR_EMPTY_TOOLS_NOTICED,
            summary: "a connector that lists no tools (mcp_list_tools with tools: [] and no error) is shown to the user",
            level: Level::Should,
            doc: DocRef {
                document: AGENT_CONNECTORS_DOC,
                section: "Error handling",
                quote: "A connector that is not connected lists no tools (\"tools\": []) and produces no error, so also watch for an empty tool list.",
            },
            scenarios: &["agent-connector-empty"],
            check: empty_tools_noticed,
        },
    ]
}

/// Whether a tool of a request is discovered on demand: a connector (deferred by default) or
/// an `mcp` server with `defer_loading: true`.
fn deferred(tool: &Value) -> bool {
    match str_field(tool, "type") {
        "connector" => tool.get("defer_loading").and_then(Value::as_bool) != Some(false),
        "mcp" => tool.get("defer_loading").and_then(Value::as_bool) == Some(true),
        _ => false,
    }
}

/// Whether the client showed the user something of `kinds` after journal position `after`
/// whose text contains one of `needles` (empty needles ignored).
fn shown(t: &Transcript, after: usize, kinds: &[&str], needles: &[&str]) -> bool {
    t.user.iter().any(|u| {
        u.kind == "show" && u.at > after && kinds.contains(&str_field(&u.request, "kind")) && {
            let text = str_field(&u.request, "text");
            needles.iter().any(|n| !n.is_empty() && text.contains(n))
        }
    })
}

/// The failed `mcp_call` items of each create's answer.
fn failed_calls(t: &Transcript) -> Vec<(&Exchange, Value)> {
    creates(t)
        .flat_map(|e| {
            output_items(e)
                .into_iter()
                .filter(|i| str_field(i, "type") == "mcp_call" && !str_field(i, "error").is_empty())
                .map(move |i| (e, i))
        })
        .collect()
}

fn deferred_max_steps(t: &Transcript) -> Outcome {
    let with_deferred: Vec<&Exchange> = creates(t)
        .filter(|e| {
            e.request_body
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(|tools| tools.iter().any(deferred))
        })
        .collect();
    if with_deferred.is_empty() {
        return Outcome::Unobserved("the client sent no request with deferred tools".into());
    }
    for e in &with_deferred {
        let Some(steps) = e.request_body.get("max_steps").and_then(Value::as_i64) else {
            continue;
        };
        if steps < DEFERRED_STEPS {
            let items = output_items(e);
            let ended = items
                .iter()
                .any(|i| str_field(i, "type") == "tool_search_output")
                && !items.iter().any(|i| str_field(i, "type") == "mcp_call");
            return Outcome::Violated {
                message: format!(
                    "request #{} offers deferred tools with max_steps {steps}, which leaves no step to call a tool after searching the catalog{}",
                    e.seq,
                    if ended {
                        " (the run ended right after the search, without a call)"
                    } else {
                        ""
                    }
                ),
                evidence: vec![e.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} request(s) with deferred tools left max_steps room to search and call",
        with_deferred.len()
    ))
}

fn discovery_failure_shown(t: &Transcript) -> Outcome {
    let failed = creates(t).find(|e| {
        e.response_body
            .pointer("/error/type")
            .and_then(Value::as_str)
            == Some("external_connector_error")
            || e.response_body
                .pointer("/error/code")
                .and_then(Value::as_str)
                == Some("external_connector_error")
            || e.sse_events.iter().any(|s| {
                s.data.to_string().contains("external_connector_error")
                    && str_field(&s.data, "type") == "response.failed"
            })
    });
    let Some(failed) = failed else {
        return Outcome::Unobserved("no run failed with external_connector_error".into());
    };
    let labels: Vec<&str> = failed
        .request_body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|tool| str_field(tool, "server_label"))
        .collect();
    let mut needles = vec!["external_connector_error"];
    needles.extend(labels.iter().copied());
    if !shown(t, failed.seq, &["error"], &needles) {
        return Outcome::Violated {
            message: format!(
                "request #{} failed with external_connector_error (tool discovery of {}), and the client never showed it (a show of kind error naming external_connector_error or the server)",
                failed.seq,
                labels.join(", ")
            ),
            evidence: vec![failed.seq],
        };
    }
    Outcome::Pass(format!(
        "the discovery failure of request #{} was shown to the user",
        failed.seq
    ))
}

fn policy_denied_not_retried(t: &Transcript) -> Outcome {
    let Some((denied, call)) = failed_calls(t)
        .into_iter()
        .find(|(_, c)| str_field(c, "error") == "POLICY_DENIED")
    else {
        return Outcome::Unobserved("no mcp_call came back with error POLICY_DENIED".into());
    };
    if let Some(again) = creates(t).find(|e| recreated(denied, e)) {
        return Outcome::Violated {
            message: format!(
                "{}/{} failed with POLICY_DENIED, and the client sent the same request again (#{}): a policy blocked the call, so it must not be retried",
                str_field(&call, "server_label"),
                str_field(&call, "name"),
                again.seq
            ),
            evidence: vec![denied.seq, again.seq],
        };
    }
    Outcome::Pass(format!(
        "POLICY_DENIED on {}/{} not retried",
        str_field(&call, "server_label"),
        str_field(&call, "name")
    ))
}

fn transient_retried_later(t: &Transcript) -> Outcome {
    let Some((failed, call)) = failed_calls(t)
        .into_iter()
        .find(|(_, c)| str_field(c, "error") == "CONNECTOR_UNAVAILABLE")
    else {
        return Outcome::Unobserved(
            "no mcp_call came back with error CONNECTOR_UNAVAILABLE".into(),
        );
    };
    let label = str_field(&call, "server_label");
    let Some(later) = creates(t).find(|e| e.seq > failed.seq) else {
        return Outcome::Unobserved(format!(
            "{label} was unavailable (#{}), and the conversation sent no later request to retry it in",
            failed.seq
        ));
    };
    let offered = later
        .request_body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .iter()
                .any(|tool| str_field(tool, "server_label") == label)
        });
    if !offered {
        return Outcome::Violated {
            message: format!(
                "{label} failed with CONNECTOR_UNAVAILABLE (#{}), a transient error, and the next request (#{}) no longer offers it: retry it later instead of dropping it",
                failed.seq, later.seq
            ),
            evidence: vec![failed.seq, later.seq],
        };
    }
    Outcome::Pass(format!(
        "{label} was offered again in the next request (#{}) after CONNECTOR_UNAVAILABLE",
        later.seq
    ))
}

fn error_is_failure(t: &Transcript) -> Outcome {
    let failures: Vec<(&Exchange, Value)> = failed_calls(t)
        .into_iter()
        .filter(|(_, c)| !HANDLED_ELSEWHERE.contains(&str_field(c, "error")))
        .collect();
    if failures.is_empty() {
        return Outcome::Unobserved(
            "no mcp_call came back with TOOL_ERROR or an undocumented error value".into(),
        );
    }
    for (e, call) in &failures {
        let error = str_field(call, "error");
        if !shown(t, e.seq, &["error"], &[error]) {
            return Outcome::Violated {
                message: format!(
                    "{}/{} failed with {error}, and the client never showed it as a failure (a show of kind error naming {error})",
                    str_field(call, "server_label"),
                    str_field(call, "name")
                ),
                evidence: vec![e.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} tool failure(s) shown to the user: {}",
        failures.len(),
        failures
            .iter()
            .map(|(_, c)| str_field(c, "error"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

fn empty_tools_noticed(t: &Transcript) -> Outcome {
    let empty = creates(t).find_map(|e| {
        output_items(e)
            .into_iter()
            .find(|i| {
                str_field(i, "type") == "mcp_list_tools"
                    && i.get("tools")
                        .and_then(Value::as_array)
                        .is_some_and(Vec::is_empty)
                    && i.get("error").is_none_or(Value::is_null)
            })
            .map(|item| (e, item))
    });
    let Some((e, item)) = empty else {
        return Outcome::Unobserved(
            "no connector listed an empty tool list (mcp_list_tools with tools: [] and no error)"
                .into(),
        );
    };
    let label = str_field(&item, "server_label");
    if !shown(t, e.seq, &["error", "status"], &[label]) {
        return Outcome::Violated {
            message: format!(
                "the {label} connector listed no tools (it is probably not connected), and the client never told the user (a show of kind error or status naming {label})"
            ),
            evidence: vec![e.seq],
        };
    }
    Outcome::Pass(format!(
        "the empty tool list of {label} was shown to the user"
    ))
}
