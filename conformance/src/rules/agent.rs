//! The Agent API client rules: approval continuations (`previous_response_id`, one
//! `mcp_approval_response` per pending request, the tools sent again, the user's own decision),
//! the Zero Data Retention history, background polling and cancellation, stream resumption with
//! `starting_after`, and in-band connector errors shown to the user.
//!
//! Everything is read from the journal (what the client sent to `/v1/agent` ≡ `/v1/responses` ≡
//! `/responses` and what the mock answered) and the user channel's log (what the person decided
//! and what the client showed them).

use mock_server::Exchange;
use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Transcript, terminal};

use super::agent_observe::*;
use super::documents::{AGENT_BACKGROUND_DOC, AGENT_CONNECTORS_DOC, AGENT_MCP_DOC};
use super::ids;
use super::rule::Rule;

const APPROVALS: &[&str] = &[
    "agent-approval",
    "agent-approval-deny",
    "agent-approval-zdr",
    "agent-approval-rounds",
    "agent-approval-rounds-zdr",
    "agent-approval-parallel",
];
/// The scenarios in which the person decides every call they are shown (Always allow too).
const DECIDED: &[&str] = &[
    "agent-approval",
    "agent-approval-deny",
    "agent-approval-zdr",
    "agent-approval-rounds",
    "agent-approval-rounds-zdr",
    "agent-always-allow",
    "agent-always-allow-relabelled",
    "agent-approval-parallel",
];

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::AGENT_APPROVAL_RESPOND_EACH,
            summary: "a response with pending mcp_approval_request items is continued with its previous_response_id and exactly one mcp_approval_response per request",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call",
                quote: "To continue, send previous_response_id and an mcp_approval_response for each approval request.",
            },
            scenarios: &[
                "agent-approval",
                "agent-approval-deny",
                "agent-approval-rounds",
            ],
            check: respond_each,
        },
        Rule {
            id: ids::AGENT_APPROVAL_RESEND_TOOLS,
            summary: "an approval continuation sends the same tools again (a new require_approval policy or refreshed credentials allowed)",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call",
                quote: "Send the same tools again, unchanged: Agent API does not reuse tool definitions from the previous response.",
            },
            scenarios: APPROVALS,
            check: resend_tools,
        },
        Rule {
            id: ids::AGENT_APPROVAL_USER_DECISION,
            summary: "each mcp_approval_response carries the decision the user gave when shown the call (server_label, name, arguments)",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals; Review calls safely",
                quote: "Review the requested tool and its arguments, then send an mcp_approval_response item in a new request. [...] Before you approve, show the user the server_label, name, and parsed arguments.",
            },
            scenarios: DECIDED,
            check: user_decision,
        },
        Rule {
            id: ids::AGENT_ZDR_HISTORY,
            summary: "a Zero Data Retention account continues without previous_response_id, sending the user message, the mcp_approval_request and the mcp_approval_response in input",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call (Zero Data Retention)",
                quote: "Organizations with Zero Data Retention (ZDR) cannot use previous_response_id. Instead, send the conversation history in input: the original user message, the mcp_approval_request item, and your mcp_approval_response.",
            },
            scenarios: &["agent-approval-zdr", "agent-approval-rounds-zdr"],
            check: zdr_history,
        },
        Rule {
            id: ids::AGENT_BACKGROUND_POLL,
            summary: "a background run is polled with GET until its status is terminal, never created again",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_BACKGROUND_DOC,
                section: "Polling a background response",
                quote: "Poll a background response with GET .../v1/responses/{id}. A background response is non-terminal while its status is queued or in_progress. It is terminal when its status is completed, failed, or cancelled",
            },
            scenarios: &["agent-background"],
            check: background_poll,
        },
        Rule {
            id: ids::AGENT_CANCEL_CONFIRM,
            summary: "when the user asks to stop, the run is cancelled and a later GET shows it cancelled",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_BACKGROUND_DOC,
                section: "Cancelling a response",
                quote: "Cancellation is asynchronous: a `200` acknowledges the request (`status: cancelling`) and the run stops shortly after - poll `GET /v1/agent/{id}` for its terminal status.",
            },
            scenarios: &["agent-cancel"],
            check: cancel_confirm,
        },
        Rule {
            id: ids::AGENT_STREAM_RESUME,
            summary: "a dropped stream is resumed with GET ?stream=true&starting_after=<last sequence_number received>, not created again",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_BACKGROUND_DOC,
                section: "Resuming a stream",
                quote: "create it with both background=true and stream=true. Save the response id, and keep a cursor from the sequence_number on each streamed event. If the connection drops, reconnect with GET /v1/responses/{id}?stream=true&starting_after=N to resume after sequence number N.",
            },
            scenarios: &["agent-stream-resume"],
            check: stream_resume,
        },
        Rule {
            id: ids::AGENT_CONNECTOR_AUTH_REQUIRED_SHOWN,
            summary: "an in-band AUTH_REQUIRED on an mcp_call is shown to the user (kind error), and the request is not sent again",
            level: Level::Should,
            doc: DocRef {
                document: AGENT_CONNECTORS_DOC,
                section: "Error handling",
                quote: "Because the request still succeeds, this is easy to miss. Detect it in your harness and send it to your logging or alerting so an operator can reconnect the connector on the Project connectors page.",
            },
            scenarios: &["agent-connector-auth-lapsed"],
            check: auth_required_shown,
        },
    ]
}

// ---- checks ------------------------------------------------------------------------------------

fn respond_each(t: &Transcript) -> Outcome {
    // The first round: responses to requests that carried no decision (a later round is
    // agent.approval.later-rounds).
    let asked: Vec<_> = asking(t)
        .into_iter()
        .filter(|(e, _)| decisions(e).is_empty())
        .collect();
    if asked.is_empty() {
        return Outcome::Unobserved(
            "no response held an mcp_approval_request, so no continuation was needed".into(),
        );
    }
    for (origin, requests) in &asked {
        let Some(id) = response_id(origin) else {
            continue;
        };
        let Some(next) = creates(t).find(|e| {
            e.seq > origin.seq
                && e.request_body
                    .get("previous_response_id")
                    .and_then(Value::as_str)
                    == Some(id)
        }) else {
            return Outcome::Violated {
                message: format!(
                    "response {id} waited on {} approval request(s), and no later request continued it with previous_response_id `{id}`",
                    requests.len()
                ),
                evidence: vec![origin.seq],
            };
        };
        let sent: Vec<String> = decisions(next)
            .iter()
            .map(|d| str_field(d, "approval_request_id").to_owned())
            .collect();
        for request in requests {
            let rid = str_field(request, "id");
            let n = sent.iter().filter(|s| *s == rid).count();
            if n != 1 {
                return Outcome::Violated {
                    message: format!(
                        "the continuation of {id} carries {n} mcp_approval_response item(s) for approval request `{rid}` ({}), where exactly one is needed",
                        str_field(request, "name")
                    ),
                    evidence: vec![origin.seq, next.seq],
                };
            }
        }
        if let Some(extra) = sent
            .iter()
            .find(|s| !requests.iter().any(|r| str_field(r, "id") == s.as_str()))
        {
            return Outcome::Violated {
                message: format!(
                    "the continuation of {id} answers approval request `{extra}`, which {id} never asked for"
                ),
                evidence: vec![origin.seq, next.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} response(s) with approval requests each continued with previous_response_id and one mcp_approval_response per request",
        asked.len()
    ))
}

fn resend_tools(t: &Transcript) -> Outcome {
    let asked = asking(t);
    let conts = continuations(t);
    if conts.is_empty() {
        return Outcome::Unobserved(if asked.is_empty() {
            "no response held an mcp_approval_request".into()
        } else {
            "the client never sent an mcp_approval_response".into()
        });
    }
    for cont in &conts {
        for decision in decisions(cont) {
            let rid = str_field(&decision, "approval_request_id");
            let Some((origin, _)) = origin_of(&asked, rid) else {
                continue;
            };
            let before = origin.request_body.get("tools");
            let now = cont.request_body.get("tools");
            if now.is_none() {
                return Outcome::Violated {
                    message: format!(
                        "the continuation answering `{rid}` sent no tools; the request that proposed the call had {}",
                        before.map_or("none".to_owned(), Value::to_string)
                    ),
                    evidence: vec![origin.seq, cont.seq],
                };
            }
            if now.map(comparable_tools) != before.map(comparable_tools) {
                return Outcome::Violated {
                    message: format!(
                        "the continuation answering `{rid}` changed the tools (beyond require_approval, authorization and headers): {} instead of {}",
                        now.map_or("none".to_owned(), Value::to_string),
                        before.map_or("none".to_owned(), Value::to_string)
                    ),
                    evidence: vec![origin.seq, cont.seq],
                };
            }
        }
    }
    Outcome::Pass(format!(
        "{} continuation(s) sent the same tools again",
        conts.len()
    ))
}

/// The tools of a request without what the document lets a continuation change: the approval
/// policy ("You can send the new policy in the same request as the mcp_approval_response") and
/// the credentials the approved call runs with ("the server_url, authorization, and headers from
/// this request"; a token may have been refreshed). The server itself must stay the same.
fn comparable_tools(tools: &Value) -> Value {
    let mut tools = tools.clone();
    if let Some(list) = tools.as_array_mut() {
        for tool in list.iter_mut().filter_map(Value::as_object_mut) {
            for key in ["require_approval", "authorization", "headers"] {
                tool.remove(key);
            }
        }
    }
    tools
}

fn user_decision(t: &Transcript) -> Outcome {
    let asked = asking(t);
    let conts = continuations(t);
    if conts.is_empty() {
        return Outcome::Unobserved(if asked.is_empty() {
            "no response held an mcp_approval_request".into()
        } else {
            "the client never sent an mcp_approval_response".into()
        });
    }
    let mut judged = 0;
    for cont in &conts {
        for decision in decisions(cont) {
            let rid = str_field(&decision, "approval_request_id");
            let Some((origin, request)) = origin_of(&asked, rid) else {
                continue;
            };
            // The person was asked after the request arrived and before the decision went out,
            // about this call: its server label and tool name on the question.
            let label = str_field(request, "server_label");
            let name = str_field(request, "name");
            let ask = t.user.iter().rev().find(|u| {
                u.kind == "ask"
                    && u.request.get("kind").and_then(Value::as_str) == Some("confirm")
                    && u.at > origin.seq
                    && u.at <= cont.seq
                    && {
                        let text = u.request.to_string();
                        text.contains(label) && text.contains(name)
                    }
            });
            let Some(ask) = ask else {
                return Outcome::Violated {
                    message: format!(
                        "the decision on `{rid}` ({label}/{name}) went out without the user being asked about it (an ask of kind confirm naming the server_label and the tool)"
                    ),
                    evidence: vec![origin.seq, cont.seq],
                };
            };
            let said = ask.response.get("action").and_then(Value::as_str) == Some("accept");
            let sent = decision.get("approve").and_then(Value::as_bool);
            if sent != Some(said) {
                return Outcome::Violated {
                    message: format!(
                        "the user answered {} on `{rid}` ({label}/{name}), and the client sent approve: {}",
                        if said { "approve" } else { "deny" },
                        sent.map_or("(missing)".to_owned(), |b| b.to_string())
                    ),
                    evidence: vec![origin.seq, cont.seq],
                };
            }
            judged += 1;
        }
    }
    if judged == 0 {
        return Outcome::Unobserved(
            "no mcp_approval_response answered an approval request the mock had issued".into(),
        );
    }
    Outcome::Pass(format!(
        "{judged} decision(s) sent as the user gave them, after showing the call"
    ))
}

fn zdr_history(t: &Transcript) -> Outcome {
    if let Some(e) = creates(t).find(|e| e.request_body.get("previous_response_id").is_some()) {
        return Outcome::Violated {
            message:
                "the Zero Data Retention account sent previous_response_id, which it cannot use"
                    .into(),
            evidence: vec![e.seq],
        };
    }
    let asked = asking(t);
    let conts = continuations(t);
    if conts.is_empty() {
        return Outcome::Unobserved(if asked.is_empty() {
            "no response held an mcp_approval_request".into()
        } else {
            "the client never sent an mcp_approval_response".into()
        });
    }
    for cont in &conts {
        let input = input_items(cont);
        let user_message = input.iter().any(|i| {
            str_field(i, "role") == "user"
                && i.get("type")
                    .and_then(Value::as_str)
                    .is_none_or(|k| k == "message")
        });
        if !user_message {
            return Outcome::Violated {
                message: "the continuation's input has no user message: the history starts with the original user message".into(),
                evidence: vec![cont.seq],
            };
        }
        for decision in decisions(cont) {
            let rid = str_field(&decision, "approval_request_id");
            let Some((origin, request)) = origin_of(&asked, rid) else {
                continue;
            };
            let sent_back = input.iter().any(|i| {
                str_field(i, "type") == "mcp_approval_request"
                    && ["id", "name", "server_label", "arguments"]
                        .iter()
                        .all(|k| i.get(*k) == request.get(*k))
            });
            if !sent_back {
                return Outcome::Violated {
                    message: format!(
                        "the continuation answering `{rid}` does not send that mcp_approval_request item back in input (id, name, server_label and arguments as the mock issued them)"
                    ),
                    evidence: vec![origin.seq, cont.seq],
                };
            }
        }
    }
    Outcome::Pass(format!(
        "{} continuation(s) sent the history in input without previous_response_id",
        conts.len()
    ))
}

/// The first background create and the id it was answered with.
fn first_background(t: &Transcript) -> Option<(&Exchange, &str)> {
    creates(t)
        .filter(|e| e.request_body.get("background").and_then(Value::as_bool) == Some(true))
        .find_map(|e| response_id(e).map(|id| (e, id)))
}

fn background_poll(t: &Transcript) -> Outcome {
    let Some((create, id)) = first_background(t) else {
        return Outcome::Unobserved("the client never created a background run".into());
    };
    if let Some(again) = creates(t).find(|e| recreated(create, e)) {
        return Outcome::Violated {
            message: format!(
                "the background run {id} was created again instead of being polled with GET"
            ),
            evidence: vec![create.seq, again.seq],
        };
    }
    let Some(last) = gets_of(t, id, create.seq).last() else {
        return Outcome::Violated {
            message: format!(
                "the background run {id} was answered `{}` and never polled with GET",
                status_of(create).unwrap_or("?")
            ),
            evidence: vec![create.seq],
        };
    };
    match status_of(last) {
        Some(s) if terminal(s) => {
            Outcome::Pass(format!("{id} polled with GET until `{s}` (#{})", last.seq))
        }
        other => Outcome::Violated {
            message: format!(
                "the client stopped polling {id} while its status was `{}`",
                other.unwrap_or("?")
            ),
            evidence: vec![last.seq],
        },
    }
}

fn cancel_confirm(t: &Transcript) -> Outcome {
    let Some(asked) = t.user.iter().find(|u| {
        u.kind == "interrupt" && u.response.get("action").and_then(Value::as_str) == Some("cancel")
    }) else {
        return Outcome::Unobserved(
            "the client never asked the user channel's interrupt, so the user's wish to stop was never heard".into(),
        );
    };
    let Some((create, id)) = first_background(t) else {
        return Outcome::Unobserved("the client never created a background run".into());
    };
    let Some(cancel) = t
        .exchanges
        .iter()
        .find(|e| e.seq >= asked.at && run_path(e) == Some((id, true)))
    else {
        return Outcome::Violated {
            message: format!(
                "the user asked to stop, and {id} was never cancelled (POST …/{id}/cancel)"
            ),
            evidence: vec![create.seq],
        };
    };
    let gets: Vec<&Exchange> = gets_of(t, id, cancel.seq).collect();
    if let Some(confirmed) = gets.iter().find(|e| status_of(e) == Some("cancelled")) {
        return Outcome::Pass(format!(
            "{id} cancelled (#{}) and a GET showed `cancelled` (#{})",
            cancel.seq, confirmed.seq
        ));
    }
    Outcome::Violated {
        message: match gets.last() {
            Some(last) => format!(
                "after the cancel the client stopped polling {id} at `{}`, before it showed `cancelled`",
                status_of(last).unwrap_or("?")
            ),
            None => format!(
                "the cancel of {id} answers only `cancelling`, and no GET confirmed `cancelled`"
            ),
        },
        evidence: std::iter::once(cancel.seq)
            .chain(gets.last().map(|e| e.seq))
            .collect(),
    }
}

fn stream_resume(t: &Transcript) -> Outcome {
    stream_resumed(t, "dropped")
}

/// The first streamed create's stream, which did not reach its terminal event (it `how`:
/// `dropped`, `ended before its terminal event`), was resumed with `GET ?stream=true&
/// starting_after=N` from the last `sequence_number` received, and the response was not
/// created again.
pub(super) fn stream_resumed(t: &Transcript, how: &str) -> Outcome {
    let Some(first) = creates(t).find(|e| !e.sse_events.is_empty()) else {
        return Outcome::Unobserved("the client never created a streamed run".into());
    };
    let terminal = first.sse_events.iter().any(|s| {
        matches!(
            s.data.get("type").and_then(Value::as_str),
            Some(
                "response.completed"
                    | "response.failed"
                    | "response.incomplete"
                    | "response.cancelled"
            )
        )
    });
    if terminal {
        return Outcome::Unobserved(
            "the first stream reached its terminal event, so there was nothing to resume".into(),
        );
    }
    let Some(id) = response_id(first) else {
        return Outcome::Unobserved(
            "the stream was cut before its response.created event named the response".into(),
        );
    };
    let last_seen = first
        .sse_events
        .iter()
        .filter_map(|s| s.data.get("sequence_number").and_then(Value::as_u64))
        .max();
    if let Some(again) = creates(t).find(|e| recreated(first, e)) {
        return Outcome::Violated {
            message: format!(
                "after the stream of {id} {how}, the client created the response again instead of resuming it"
            ),
            evidence: vec![first.seq, again.seq],
        };
    }
    let Some(resume) = gets_of(t, id, first.seq).find(|e| query_param(e, "stream") == Some("true"))
    else {
        return Outcome::Violated {
            message: format!(
                "the stream of {id} {how} after sequence_number {}, and the client never reconnected with GET …/{id}?stream=true&starting_after=N",
                last_seen.map_or("?".to_owned(), |n| n.to_string())
            ),
            evidence: vec![first.seq],
        };
    };
    let cursor = query_param(resume, "starting_after").and_then(|v| v.parse::<u64>().ok());
    if cursor != last_seen {
        return Outcome::Violated {
            message: format!(
                "the client resumed {id} with starting_after={}, but the last event it received was sequence_number {}",
                cursor.map_or("(none)".to_owned(), |n| n.to_string()),
                last_seen.map_or("?".to_owned(), |n| n.to_string())
            ),
            evidence: vec![first.seq, resume.seq],
        };
    }
    Outcome::Pass(format!(
        "the stream of {id} {how} after sequence_number {} and was resumed with starting_after={} (#{})",
        last_seen.unwrap_or_default(),
        last_seen.unwrap_or_default(),
        resume.seq
    ))
}

fn auth_required_shown(t: &Transcript) -> Outcome {
    let found = creates(t).find_map(|e| {
        output_items(e)
            .into_iter()
            .find(|i| {
                str_field(i, "type") == "mcp_call" && str_field(i, "error") == "AUTH_REQUIRED"
            })
            .map(|item| (e, item))
    });
    let Some((create, item)) = found else {
        return Outcome::Unobserved("no mcp_call came back with error AUTH_REQUIRED".into());
    };
    if let Some(again) = creates(t).find(|e| recreated(create, e)) {
        return Outcome::Violated {
            message: "after an in-band AUTH_REQUIRED the client sent the same request again: it cannot succeed until an administrator reconnects the connector".into(),
            evidence: vec![create.seq, again.seq],
        };
    }
    let label = str_field(&item, "server_label");
    let shown = t.user.iter().any(|u| {
        u.kind == "show"
            && u.at > create.seq
            && u.request.get("kind").and_then(Value::as_str) == Some("error")
            && {
                let text = u
                    .request
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                text.contains("AUTH_REQUIRED") || (!label.is_empty() && text.contains(label))
            }
    });
    if !shown {
        return Outcome::Violated {
            message: format!(
                "the {label} connector's mcp_call failed with AUTH_REQUIRED, and the client never showed it (a show of kind error naming AUTH_REQUIRED or the connector)"
            ),
            evidence: vec![create.seq],
        };
    }
    Outcome::Pass(format!(
        "AUTH_REQUIRED on {label}/{} shown to the user, not retried",
        str_field(&item, "name")
    ))
}
