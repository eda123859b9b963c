//! The Agent API approval duties beyond a single round: approval requests that arrive in a
//! continuation's response, a pending call the user stops or leaves undecided, the `mcp_call`
//! items a Zero Data Retention history sends back, and "Always allow" stored per `server_url`
//! and tool name and sent as a `never` filter.
//!
//! Read from the journal (what the client sent and what the mock answered) and the user
//! channel's log (what the person chose, and when).

use mock_server::Exchange;
use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Transcript, UserRecord};

use super::agent_observe::{
    asking, continuations, creates, decisions, input_items, response_id, str_field,
};
use super::documents::AGENT_MCP_DOC;
use super::ids;
use super::rule::Rule;

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::AGENT_APPROVAL_LATER_ROUNDS,
            summary: "approval requests that arrive in a continuation's response are answered like the first ones, one mcp_approval_response each",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call",
                quote: "A later response can contain new approval requests, so handle each one in the same way.",
            },
            scenarios: &["agent-approval-rounds", "agent-approval-rounds-zdr"],
            check: later_rounds,
        },
        Rule {
            id: ids::AGENT_APPROVAL_STOP_BY_DENY,
            summary: "a pending call the user asks to stop is denied (approve: false), not dropped from allowed_tools",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call",
                quote: "To stop a pending call, deny it: removing the tool from allowed_tools does not cancel it.",
            },
            scenarios: &["agent-approval-stop"],
            check: stop_by_deny,
        },
        Rule {
            id: ids::AGENT_APPROVAL_DENY_ON_MOVE_ON,
            summary: "when the user sends a new message without deciding, the next request denies the pending call and carries the new message",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Handle approval errors",
                quote: "If the user moves on without deciding, deny the pending call. You can add the new user message after the mcp_approval_response in the same input.",
            },
            scenarios: &["agent-approval-move-on"],
            check: deny_on_move_on,
        },
        Rule {
            id: ids::AGENT_ZDR_MCP_CALL_UNCHANGED,
            summary: "a Zero Data Retention history sends every mcp_call item back as the API issued it, approval_request_id included",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call (Zero Data Retention)",
                quote: "Send each mcp_call item back unchanged, including its approval_request_id",
            },
            scenarios: &["agent-approval-rounds-zdr"],
            check: mcp_call_unchanged,
        },
        Rule {
            id: ids::AGENT_ALWAYS_ALLOW_NEVER_FILTER,
            summary: "after the user chose Always allow for a tool, later requests to that server list the tool in require_approval.never",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Allow a tool for later calls",
                quote: "The API does not remember an approval, so store the Always allow choice in your application. [...] In later requests, add the tool to the never filter",
            },
            scenarios: &["agent-always-allow"],
            check: never_filter,
        },
        Rule {
            id: ids::AGENT_ALWAYS_ALLOW_BY_SERVER_URL,
            summary: "an Always allow choice is keyed by server_url and tool name: another server under the same server_label gets no never filter",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Allow a tool for later calls",
                quote: "Store the choice with the server’s server_url and the tool name. Do not rely on server_label alone: you set the label in each request, and the same label can point to a different server.",
            },
            scenarios: &["agent-always-allow-relabelled"],
            check: by_server_url,
        },
        Rule {
            id: ids::AGENT_APPROVAL_EVERY_PENDING,
            summary: "when one response holds several mcp_approval_request items, its continuation carries an mcp_approval_response for every one of them (deciding only the first is refused with 400 invalid_request)",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_MCP_DOC,
                section: "Approvals: Approve or deny the call; Handle approval errors",
                quote: "To continue, send previous_response_id and an mcp_approval_response for each approval request. [...] When you continue a response that has pending approval requests, the request fails with type: \"invalid_request\" if a decision is missing or invalid.",
            },
            scenarios: &["agent-approval-parallel"],
            check: every_pending,
        },
    ]
}

// ---- observations ------------------------------------------------------------------------------

/// Whether the user's answer on the channel was `action`.
fn answered(u: &UserRecord, action: &str) -> bool {
    u.response.get("action").and_then(Value::as_str) == Some(action)
}

/// Confirmation asks, with what the person answered.
fn confirm_asks(t: &Transcript) -> impl Iterator<Item = &UserRecord> {
    t.user.iter().filter(|u| {
        u.kind == "ask" && u.request.get("kind").and_then(Value::as_str) == Some("confirm")
    })
}

/// The last response before journal position `at` that held approval requests, with them.
fn pending_at(t: &Transcript, at: usize) -> Option<(&Exchange, Vec<Value>)> {
    asking(t).into_iter().rev().find(|(e, _)| e.seq < at)
}

/// The `mcp_approval_response` a request sent for approval request `id`, if any.
fn decision_on(e: &Exchange, id: &str) -> Option<Value> {
    decisions(e)
        .into_iter()
        .find(|d| str_field(d, "approval_request_id") == id)
}

/// Whether `e` still offers tool `name` of server `label` (in its `allowed_tools`, or with no
/// `allowed_tools` limit).
fn offers(e: &Exchange, label: &str, name: &str) -> bool {
    mcp_tools(e).iter().any(|tool| {
        str_field(tool, "server_label") == label
            && tool
                .get("allowed_tools")
                .and_then(Value::as_array)
                .is_none_or(|allowed| allowed.iter().any(|a| a.as_str() == Some(name)))
    })
}

/// The `mcp` tools of a request.
fn mcp_tools(e: &Exchange) -> Vec<&Value> {
    e.request_body
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter(|t| str_field(t, "type") == "mcp")
                .collect()
        })
        .unwrap_or_default()
}

/// The tool names of a tool's `require_approval.never` filter (`None` without one).
fn never_names(tool: &Value) -> Option<Vec<&str>> {
    let names = tool.pointer("/require_approval/never")?.get("tool_names");
    Some(
        names
            .and_then(Value::as_array)
            .map(|n| n.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default(),
    )
}

/// An "Always allow" choice: the tool, its server as the request that proposed the call named
/// it, and where in the journal the person chose.
struct Choice {
    name: String,
    label: String,
    server_url: String,
    at: usize,
}

/// The person's "Always allow" choices, each resolved to the server the proposing request
/// named.
fn choices(t: &Transcript) -> Vec<Choice> {
    confirm_asks(t)
        .filter(|u| u.response.get("always").and_then(Value::as_bool) == Some(true))
        .filter_map(|u| {
            let (origin, requests) = pending_at(t, u.at)?;
            let request = requests.iter().find(|r| {
                let text = u.request.to_string();
                text.contains(str_field(r, "server_label")) && text.contains(str_field(r, "name"))
            })?;
            let label = str_field(request, "server_label");
            let server_url = mcp_tools(origin)
                .into_iter()
                .find(|tool| str_field(tool, "server_label") == label)
                .map(|tool| str_field(tool, "server_url"))?;
            Some(Choice {
                name: str_field(request, "name").to_owned(),
                label: label.to_owned(),
                server_url: server_url.to_owned(),
                at: u.at,
            })
        })
        .collect()
}

/// The requests of later turns: those after the next user message that follows `at`.
fn later_turns(t: &Transcript, at: usize) -> Vec<&Exchange> {
    let Some(next) = t
        .user
        .iter()
        .find(|u| u.kind == "next-message" && u.at >= at && u.response.is_object())
    else {
        return Vec::new();
    };
    creates(t).filter(|e| e.seq >= next.at).collect()
}

/// The rules that judge the first round's continuation.
const FIRST_ROUND_RULES: &str = "agent.approval.respond-each, agent.approval.resend-tools, agent.approval.user-decision, agent.zdr.history, agent.always-allow.no-empty-never";

/// Why no later round of approvals came although the client continued the first one: its
/// continuation was refused, or changed the run so that the next call needed no approval
/// (what the first round's own rules judge). `None` when the client never continued.
fn first_round_went_wrong(t: &Transcript) -> Option<String> {
    let first = continuations(t).into_iter().next()?;
    let answer = if first.status >= 400 {
        format!("was refused with HTTP {}", first.status)
    } else {
        "was answered without a new approval request".to_owned()
    };
    Some(format!(
        "the first round's continuation (#{}) {answer}, so no later round came (the first round is judged by {FIRST_ROUND_RULES})",
        first.seq
    ))
}

// ---- checks ------------------------------------------------------------------------------------

fn later_rounds(t: &Transcript) -> Outcome {
    let later: Vec<(&Exchange, Vec<Value>)> = asking(t)
        .into_iter()
        .filter(|(e, _)| !decisions(e).is_empty())
        .collect();
    if later.is_empty() {
        return match first_round_went_wrong(t) {
            Some(why) => Outcome::NotReached(why),
            None => Outcome::Unobserved(
                "the client never continued a response with an mcp_approval_response".into(),
            ),
        };
    }
    for (origin, requests) in &later {
        let id = response_id(origin).unwrap_or("?");
        for request in requests {
            let rid = str_field(request, "id");
            let answers: Vec<&Exchange> = creates(t)
                .filter(|e| e.seq > origin.seq && decision_on(e, rid).is_some())
                .collect();
            let Some(first) = answers.first() else {
                return Outcome::Violated {
                    message: format!(
                        "the continuation's response {id} asked for approval again (`{rid}`, {}), and no later request answered it",
                        str_field(request, "name")
                    ),
                    evidence: vec![origin.seq],
                };
            };
            let n = decisions(first)
                .iter()
                .filter(|d| str_field(d, "approval_request_id") == rid)
                .count();
            if n != 1 {
                return Outcome::Violated {
                    message: format!(
                        "the request answering the later approval request `{rid}` carries {n} mcp_approval_response items for it, where exactly one is needed"
                    ),
                    evidence: vec![origin.seq, first.seq],
                };
            }
        }
    }
    Outcome::Pass(format!(
        "{} later response(s) with new approval requests answered like the first",
        later.len()
    ))
}

fn stop_by_deny(t: &Transcript) -> Outcome {
    let Some(stop) = t
        .user
        .iter()
        .find(|u| u.kind == "interrupt" && answered(u, "cancel"))
    else {
        return Outcome::Unobserved(
            "the client never asked the user channel's interrupt while a call waited for approval, so the user's wish to stop was never heard".into(),
        );
    };
    let Some((origin, requests)) = pending_at(t, stop.at) else {
        return Outcome::Unobserved(
            "no call was waiting for approval when the user asked to stop".into(),
        );
    };
    let Some(next) = creates(t).find(|e| e.seq >= stop.at) else {
        return Outcome::Violated {
            message: "the user asked to stop a call that waited for approval, and the client sent no deny: the call stays pending".into(),
            evidence: vec![origin.seq],
        };
    };
    for request in &requests {
        let (rid, label, name) = (
            str_field(request, "id"),
            str_field(request, "server_label"),
            str_field(request, "name"),
        );
        match decision_on(next, rid) {
            Some(d) if d.get("approve").and_then(Value::as_bool) == Some(false) => {}
            Some(_) => {
                return Outcome::Violated {
                    message: format!(
                        "the user asked to stop {label}/{name}, and the client approved it (`{rid}`)"
                    ),
                    evidence: vec![origin.seq, next.seq],
                };
            }
            None => {
                let how = if offers(next, label, name) {
                    "sent no mcp_approval_response with approve: false for it".to_owned()
                } else {
                    format!(
                        "removed {name} from the {label} tool's allowed_tools instead of denying it, which does not cancel the pending call"
                    )
                };
                return Outcome::Violated {
                    message: format!(
                        "the user asked to stop {label}/{name} (`{rid}`), and the next request {how}"
                    ),
                    evidence: vec![origin.seq, next.seq],
                };
            }
        }
    }
    Outcome::Pass(format!(
        "the user asked to stop; request #{} denied the {} pending call(s)",
        next.seq,
        requests.len()
    ))
}

fn deny_on_move_on(t: &Transcript) -> Outcome {
    let Some(ask) = confirm_asks(t).find(|u| answered(u, "cancel")) else {
        return Outcome::Unobserved(
            "the user never left an approval undecided (an ask of kind confirm answered cancel)"
                .into(),
        );
    };
    let Some((origin, requests)) = pending_at(t, ask.at) else {
        return Outcome::Unobserved(
            "no call was waiting for approval when the user was asked".into(),
        );
    };
    let Some(moved_on) = t
        .user
        .iter()
        .find(|u| u.kind == "next-message" && u.at >= ask.at && u.response.is_object())
    else {
        return Outcome::Unobserved(
            "the client never asked for the user's next message after the undecided approval"
                .into(),
        );
    };
    let Some(next) = creates(t).find(|e| e.seq >= moved_on.at) else {
        return Outcome::Unobserved("no request followed the user's next message".into());
    };
    let id = response_id(origin).unwrap_or("?");
    for request in &requests {
        let rid = str_field(request, "id");
        match decision_on(next, rid) {
            Some(d) if d.get("approve").and_then(Value::as_bool) == Some(false) => {}
            Some(_) => {
                return Outcome::Violated {
                    message: format!(
                        "the user moved on without deciding, and the client approved `{rid}` ({})",
                        str_field(request, "name")
                    ),
                    evidence: vec![origin.seq, next.seq],
                };
            }
            None => {
                let how = if next.request_body.get("previous_response_id").is_none()
                    && decisions(next).is_empty()
                {
                    format!("started a new conversation, leaving {id} waiting")
                } else {
                    "carried no mcp_approval_response for it".to_owned()
                };
                return Outcome::Violated {
                    message: format!(
                        "the user moved on without deciding on `{rid}` ({}), and the request with their next message {how}: deny the pending call",
                        str_field(request, "name")
                    ),
                    evidence: vec![origin.seq, next.seq],
                };
            }
        }
    }
    Outcome::Pass(format!(
        "the user moved on; request #{} denied the {} pending call(s) of {id} along with the new message",
        next.seq,
        requests.len()
    ))
}

fn mcp_call_unchanged(t: &Transcript) -> Outcome {
    let asked = asking(t);
    let mut judged = 0;
    for cont in continuations(t) {
        let input = input_items(cont);
        let sent_back = |rid: &str| {
            input.iter().any(|i| {
                str_field(i, "type") == "mcp_approval_request" && str_field(i, "id") == rid
            })
        };
        // The responses this history holds: those whose approval requests it sends back.
        for (origin, requests) in &asked {
            if origin.seq >= cont.seq || !requests.iter().any(|r| sent_back(str_field(r, "id"))) {
                continue;
            }
            let items = super::agent_observe::output_items(origin);
            for call in items.iter().filter(|i| str_field(i, "type") == "mcp_call") {
                let cid = str_field(call, "id");
                let back = input
                    .iter()
                    .find(|i| str_field(i, "type") == "mcp_call" && str_field(i, "id") == cid);
                let Some(back) = back else {
                    return Outcome::Violated {
                        message: format!(
                            "the history sent in request #{} leaves out mcp_call `{cid}` ({}), which response #{} returned",
                            cont.seq,
                            str_field(call, "name"),
                            origin.seq
                        ),
                        evidence: vec![origin.seq, cont.seq],
                    };
                };
                if back != call {
                    let changed: Vec<&str> = call
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(k, v)| back.get(k.as_str()) != Some(v))
                        .map(|(k, _)| k.as_str())
                        .collect();
                    return Outcome::Violated {
                        message: format!(
                            "the history sent in request #{} changes mcp_call `{cid}` (fields {}): send it back as the API issued it",
                            cont.seq,
                            if changed.is_empty() {
                                "added".to_owned()
                            } else {
                                changed.join(", ")
                            }
                        ),
                        evidence: vec![origin.seq, cont.seq],
                    };
                }
                judged += 1;
            }
        }
    }
    if judged > 0 {
        return Outcome::Pass(format!(
            "{judged} mcp_call item(s) sent back unchanged in the history"
        ));
    }
    if !asked
        .iter()
        .any(|(origin, _)| !decisions(origin).is_empty())
        && let Some(why) = first_round_went_wrong(t)
    {
        return Outcome::NotReached(why);
    }
    let unanswered_round = asked.iter().any(|(origin, requests)| {
        !decisions(origin).is_empty()
            && !continuations(t).iter().any(|c| {
                requests
                    .iter()
                    .any(|r| decision_on(c, str_field(r, "id")).is_some())
            })
    });
    if unanswered_round {
        return Outcome::NotReached(format!(
            "the client never answered the second round of approvals ({}), so no history held an mcp_call",
            ids::AGENT_APPROVAL_LATER_ROUNDS
        ));
    }
    Outcome::Unobserved(
        "no history sent after an mcp_call ran (the second round of approvals never came)".into(),
    )
}

fn never_filter(t: &Transcript) -> Outcome {
    let chosen = choices(t);
    if chosen.is_empty() {
        return Outcome::Unobserved(
            "the user never chose Always allow (an ask of kind confirm answered with always: true naming the server_label and the tool)".into(),
        );
    }
    let mut judged = 0;
    for choice in &chosen {
        for e in later_turns(t, choice.at) {
            for tool in mcp_tools(e)
                .into_iter()
                .filter(|tool| str_field(tool, "server_url") == choice.server_url)
            {
                if !never_names(tool).is_some_and(|n| n.contains(&choice.name.as_str())) {
                    return Outcome::Violated {
                        message: format!(
                            "the user chose Always allow for {}/{}, and request #{} sent that server with require_approval {} (no never filter naming {})",
                            choice.label,
                            choice.name,
                            e.seq,
                            tool.get("require_approval").cloned().unwrap_or(Value::Null),
                            choice.name
                        ),
                        evidence: vec![e.seq],
                    };
                }
                judged += 1;
            }
        }
    }
    if judged == 0 {
        return Outcome::Unobserved(
            "no later request named the server the user chose Always allow for".into(),
        );
    }
    Outcome::Pass(format!(
        "{judged} later request(s) listed the always-allowed tool in require_approval.never"
    ))
}

fn by_server_url(t: &Transcript) -> Outcome {
    let chosen = choices(t);
    if chosen.is_empty() {
        return Outcome::Unobserved(
            "the user never chose Always allow (an ask of kind confirm answered with always: true naming the server_label and the tool)".into(),
        );
    }
    let mut judged = 0;
    for choice in &chosen {
        for e in later_turns(t, choice.at) {
            for tool in mcp_tools(e).into_iter().filter(|tool| {
                str_field(tool, "server_label") == choice.label
                    && str_field(tool, "server_url") != choice.server_url
            }) {
                if never_names(tool).is_some_and(|n| n.contains(&choice.name.as_str())) {
                    return Outcome::Violated {
                        message: format!(
                            "request #{} exempts {} from approval on server {} ({}), but the user chose Always allow for it on {}: the choice was keyed by server_label alone",
                            e.seq,
                            choice.name,
                            choice.label,
                            str_field(tool, "server_url"),
                            choice.server_url
                        ),
                        evidence: vec![e.seq],
                    };
                }
                judged += 1;
            }
        }
    }
    if judged == 0 {
        return Outcome::Unobserved(
            "no later request named another server under the label the user chose Always allow on"
                .into(),
        );
    }
    Outcome::Pass(format!(
        "{judged} server(s) under the same label but another server_url got no never filter"
    ))
}

fn every_pending(t: &Transcript) -> Outcome {
    let several: Vec<_> = asking(t)
        .into_iter()
        .filter(|(_, requests)| requests.len() > 1)
        .collect();
    if several.is_empty() {
        return Outcome::Unobserved(
            "no response held two or more mcp_approval_request items at once".into(),
        );
    }
    for (origin, requests) in &several {
        let id = response_id(origin).unwrap_or("?");
        let pending: Vec<&str> = requests.iter().map(|r| str_field(r, "id")).collect();
        let decided_on = |e: &Exchange| -> Vec<String> {
            decisions(e)
                .iter()
                .map(|d| str_field(d, "approval_request_id").to_owned())
                .filter(|rid| pending.contains(&rid.as_str()))
                .collect()
        };
        let Some(next) = creates(t).find(|e| e.seq > origin.seq && !decided_on(e).is_empty())
        else {
            return Outcome::Violated {
                message: format!(
                    "response {id} waited on {} approval requests at once, and no later request decided any of them",
                    pending.len()
                ),
                evidence: vec![origin.seq],
            };
        };
        let decided = decided_on(next);
        let missing: Vec<&str> = pending
            .iter()
            .copied()
            .filter(|rid| !decided.iter().any(|d| d == rid))
            .collect();
        if !missing.is_empty() {
            let refusal = if next.status == 400 {
                format!(
                    "; the mock refused it with 400 {}",
                    next.response_body
                        .pointer("/error/type")
                        .and_then(Value::as_str)
                        .unwrap_or("(no error type)")
                )
            } else {
                String::new()
            };
            return Outcome::Violated {
                message: format!(
                    "the continuation of {id} (#{}) decides {} of the {} approval requests pending at once; `{}` got no mcp_approval_response{refusal}",
                    next.seq,
                    pending.len() - missing.len(),
                    pending.len(),
                    missing.join("`, `")
                ),
                evidence: vec![origin.seq, next.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} response(s) with several approval requests pending at once, each continued with a decision for every one",
        several.len()
    ))
}
