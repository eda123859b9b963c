//! In-call elicitation in the 2026-07-28 era (MRTR): only declared modes, accepted content that
//! fits `requestedSchema`, and retries that echo `requestState` with a new request id.

use serde_json::{Map, Value};

use crate::check::{DocRef, Level, Outcome};
use crate::suite::ELICITATION;
use crate::transcript::{Rpc, Transcript};

use super::documents::{COMPUTER_DOC, MCP_SPEC_MODERN};
use super::ids;
use super::rule::Rule;

const CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::ELICITATION_MODES_DECLARED,
            summary: "only elicitation modes the request declared are answered; a URL accept carries no content",
            level: Level::Must,
            doc: DocRef {
                document: MCP_SPEC_MODERN,
                section: "Client Features: Elicitation (capabilities, modes)",
                quote: "Servers MUST NOT send undeclared modes; the client answers an undeclared mode with -32602. [...] `content` appears only for form `accept`.",
            },
            scenarios: &[ELICITATION],
            check: modes_declared,
        },
        Rule {
            id: ids::ELICITATION_CONTENT_SCHEMA,
            summary: "accepted form content satisfies requestedSchema (fields, types, choices, required)",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "call_perplexity_computer (elicitation) / Answer questions and approvals",
                quote: "Form mode: ask_user_question and confirm_action are asked as a form. [...] For forms, build the fields from params.requestedSchema. [...] `accept` with values that match the schema sends the answers.",
            },
            scenarios: &["elicitation-question", "elicitation-confirm"],
            check: content_schema,
        },
        Rule {
            id: ids::ELICITATION_MRTR_REQUEST_STATE,
            summary: "an input_required call is retried with the same call, a new JSON-RPC id and requestState echoed exactly",
            level: Level::Must,
            doc: DocRef {
                document: MCP_SPEC_MODERN,
                section: "Multi Round-Trip Requests",
                quote: "The client retries the original request with a new JSON-RPC id, adding params.inputResponses (same keys) and params.requestState. requestState is echoed exactly, and omitted if it was absent.",
            },
            scenarios: &[ELICITATION],
            check: request_state,
        },
    ]
}

/// A `tools/call` answered `resultType: "input_required"`, and the retry that answered it.
struct Round<'a> {
    asked: &'a Rpc,
    retry: Option<&'a Rpc>,
}

fn is_input_required(r: &Rpc) -> bool {
    r.method.as_deref() == Some("tools/call")
        && r.response
            .pointer("/result/resultType")
            .and_then(Value::as_str)
            == Some("input_required")
}

fn is_retry(r: &Rpc) -> bool {
    r.method.as_deref() == Some("tools/call")
        && (r.params.get("inputResponses").is_some() || r.params.get("requestState").is_some())
}

/// Every MRTR round, each with the first later retry of the same tool.
fn rounds(t: &Transcript) -> Vec<Round<'_>> {
    t.rpcs
        .iter()
        .filter(|r| is_input_required(r))
        .map(|asked| {
            let tool = asked.params.get("name");
            let retry = t
                .rpcs
                .iter()
                .find(|r| r.seq > asked.seq && is_retry(r) && r.params.get("name") == tool);
            Round { asked, retry }
        })
        .collect()
}

fn no_round() -> Outcome {
    Outcome::Unobserved(
        "no call came back `input_required`: declare `elicitation` ({\"form\": {}, \"url\": {}}) \
         in _meta[\"io.modelcontextprotocol/clientCapabilities\"] and leave out the tasks extension"
            .into(),
    )
}

/// The modes a request declared (`elicitation: {}` means form only).
pub(crate) fn declared_modes(r: &Rpc) -> Vec<&'static str> {
    let Some(elicitation) = r
        .params
        .pointer("/_meta")
        .and_then(|m| m.get(CAPABILITIES))
        .and_then(|c| c.get("elicitation"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    if elicitation.is_empty() {
        return vec!["form"];
    }
    ["form", "url"]
        .into_iter()
        .filter(|m| elicitation.contains_key(*m))
        .collect()
}

/// The mode of an `elicitation/create` request (no `mode` means form).
pub(crate) fn mode_of(request: &Value) -> &str {
    request
        .pointer("/params/mode")
        .and_then(Value::as_str)
        .unwrap_or("form")
}

fn responses(r: &Rpc) -> Option<&Map<String, Value>> {
    r.params.get("inputResponses").and_then(Value::as_object)
}

fn modes_declared(t: &Transcript) -> Outcome {
    let rounds = rounds(t);
    if rounds.is_empty() {
        return no_round();
    }
    let mut answered = 0;
    for round in &rounds {
        let Some(retry) = round.retry else { continue };
        let Some(responses) = responses(retry) else {
            continue;
        };
        for (key, response) in responses {
            let Some(request) = round
                .asked
                .response
                .pointer("/result/inputRequests")
                .and_then(|i| i.get(key))
            else {
                continue;
            };
            answered += 1;
            let mode = mode_of(request);
            for (which, r) in [("the asking call", round.asked), ("the retry", retry)] {
                let modes = declared_modes(r);
                if !modes.contains(&mode) {
                    return Outcome::Violated {
                        message: format!(
                            "#{} answered `{key}`, a {mode}-mode request, but {which} (#{}) declared elicitation modes {modes:?}",
                            retry.seq, r.seq
                        ),
                        evidence: vec![round.asked.seq, retry.seq],
                    };
                }
            }
            if mode == "url"
                && response.get("action").and_then(Value::as_str) == Some("accept")
                && response.get("content").is_some()
            {
                return Outcome::Violated {
                    message: format!(
                        "#{} accepted the URL request `{key}` with `content`: a URL accept is consent to open the page and carries none",
                        retry.seq
                    ),
                    evidence: vec![round.asked.seq, retry.seq],
                };
            }
        }
    }
    if answered == 0 {
        return Outcome::Unobserved(
            "no retry answered an input request with inputResponses".into(),
        );
    }
    Outcome::Pass(format!(
        "{answered} elicitation answer(s), each in a mode the request declared"
    ))
}

fn content_schema(t: &Transcript) -> Outcome {
    let rounds = rounds(t);
    if rounds.is_empty() {
        return no_round();
    }
    let mut accepted = 0;
    for round in &rounds {
        let Some(retry) = round.retry else { continue };
        for (key, response) in responses(retry).into_iter().flatten() {
            let Some(request) = round
                .asked
                .response
                .pointer("/result/inputRequests")
                .and_then(|i| i.get(key))
            else {
                continue;
            };
            if mode_of(request) != "form"
                || response.get("action").and_then(Value::as_str) != Some("accept")
            {
                continue;
            }
            accepted += 1;
            let schema = request
                .pointer("/params/requestedSchema")
                .unwrap_or(&Value::Null);
            if let Some(problem) =
                mock_server::form_content_problem(schema, response.get("content"))
            {
                return Outcome::Violated {
                    message: format!(
                        "#{} accepted `{key}` with content {} that does not fit requestedSchema: {problem}",
                        retry.seq,
                        response.get("content").unwrap_or(&Value::Null)
                    ),
                    evidence: vec![round.asked.seq, retry.seq],
                };
            }
        }
    }
    if accepted == 0 {
        return Outcome::Unobserved("no retry accepted a form".into());
    }
    Outcome::Pass(format!(
        "{accepted} accepted form(s), each valid for its requestedSchema"
    ))
}

fn request_state(t: &Transcript) -> Outcome {
    let rounds = rounds(t);
    if rounds.is_empty() {
        return no_round();
    }
    for round in &rounds {
        let asked = round.asked;
        let Some(retry) = round.retry else {
            return Outcome::Violated {
                message: format!(
                    "the input_required result of #{} was never answered by retrying the call",
                    asked.seq
                ),
                evidence: vec![asked.seq],
            };
        };
        let expected = asked.response.pointer("/result/requestState");
        let echoed = retry.params.get("requestState");
        let problem = if echoed != expected {
            Some(format!(
                "requestState {} is not the {} the server returned",
                echoed.map_or("(absent)".to_owned(), Value::to_string),
                expected.map_or("(absent)".to_owned(), Value::to_string)
            ))
        } else if let Some(earlier) = t
            .rpcs
            .iter()
            .find(|r| r.seq < retry.seq && !r.id.is_null() && r.id == retry.id)
        {
            Some(format!(
                "the retry reuses JSON-RPC id {} of #{}",
                retry.id, earlier.seq
            ))
        } else if retry.params.get("arguments") != asked.params.get("arguments") {
            Some("the retry's arguments differ from the original call's".to_owned())
        } else {
            None
        };
        if let Some(problem) = problem {
            return Outcome::Violated {
                message: format!("#{} retried #{}: {problem}", retry.seq, asked.seq),
                evidence: vec![asked.seq, retry.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} input_required result(s) retried with a new id and the exact requestState",
        rounds.len()
    ))
}
