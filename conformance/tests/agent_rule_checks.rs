//! Agent API checks over hand-made journals, for the variants the reference client never plays:
//! a missing, duplicated or unknown decision, changed tools, a decision the user never gave, a
//! ZDR history without the request item, a run recreated instead of polled or resumed, a resume
//! from the wrong cursor, a cancel never confirmed, an AUTH_REQUIRED retried or kept quiet.

use conformance::rules::UserRecord;
use mock_server::{Exchange, SseRecord};
use serde_json::{Value, json};

use crate::common::rule_checks::{check, passed, unobserved, violated};

fn exchange(seq: usize, method: &str, path: &str, query: Option<&str>) -> Exchange {
    Exchange {
        query: query.map(str::to_owned),
        ..Exchange::new(seq, method, path, 200, chrono::Utc::now())
    }
}

/// `POST /v1/responses` with `body`, answered with `response`.
fn create(seq: usize, body: Value, response: Value) -> Exchange {
    let mut e = exchange(seq, "POST", "/v1/responses", None);
    e.request_body = body;
    e.response_body = response;
    e
}

/// `GET /v1/responses/{id}` answered with `status`.
fn get(seq: usize, id: &str, status: &str) -> Exchange {
    let mut e = exchange(seq, "GET", &format!("/v1/responses/{id}"), None);
    e.response_body = json!({"id": id, "object": "response", "status": status, "output": []});
    e
}

fn user(at: usize, kind: &str, request: Value, response: Value) -> UserRecord {
    UserRecord {
        at,
        kind: kind.into(),
        request,
        response,
    }
}

// ---- approvals ----

fn tools() -> Value {
    json!([{"type": "mcp", "server_label": "computer", "server_url": "http://h/mcp",
            "require_approval": "always"}])
}

fn approval_request(id: &str) -> Value {
    json!({"type": "mcp_approval_request", "id": id, "name": "models_list",
           "server_label": "computer", "arguments": "{}"})
}

/// The first request, answered with approval requests `ids`.
fn asking(ids: &[&str]) -> Exchange {
    let output: Vec<Value> = ids.iter().map(|id| approval_request(id)).collect();
    create(
        0,
        json!({"input": "list my models", "model": "m", "tools": tools()}),
        json!({"id": "resp_1", "status": "completed", "output": output}),
    )
}

fn decision(id: &str, approve: bool) -> Value {
    json!({"type": "mcp_approval_response", "approval_request_id": id, "approve": approve})
}

/// A continuation of `resp_1` at `seq` carrying `input`.
fn continuing(seq: usize, input: Vec<Value>) -> Exchange {
    create(
        seq,
        json!({"previous_response_id": "resp_1", "input": input, "model": "m", "tools": tools()}),
        json!({"id": "resp_2", "status": "completed", "output": []}),
    )
}

/// The user asked about the call at journal position `at`, answering `action`.
fn confirm(at: usize, action: &str) -> UserRecord {
    user(
        at,
        "ask",
        json!({"kind": "confirm", "message": "Allow computer to run models_list?",
               "server_label": "computer", "name": "models_list"}),
        json!({"action": action}),
    )
}

#[test]
fn respond_each_wants_one_decision_per_request_on_the_previous_response() {
    let rule = "agent.approval.respond-each";
    passed(&check(
        rule,
        vec![
            asking(&["a", "b"]),
            continuing(1, vec![decision("a", true), decision("b", false)]),
        ],
        vec![],
    ));
    // One of two requests left undecided.
    violated(
        &check(
            rule,
            vec![
                asking(&["a", "b"]),
                continuing(1, vec![decision("a", true)]),
            ],
            vec![],
        ),
        "0 mcp_approval_response item(s) for approval request `b`",
    );
    // The same request decided twice.
    violated(
        &check(
            rule,
            vec![
                asking(&["a"]),
                continuing(1, vec![decision("a", true), decision("a", true)]),
            ],
            vec![],
        ),
        "2 mcp_approval_response item(s)",
    );
    // A decision on a request nobody made.
    violated(
        &check(
            rule,
            vec![
                asking(&["a"]),
                continuing(1, vec![decision("a", true), decision("z", true)]),
            ],
            vec![],
        ),
        "never asked for",
    );
    // Continued without previous_response_id (a non-ZDR account).
    let mut detached = continuing(1, vec![decision("a", true)]);
    detached.request_body["previous_response_id"] = Value::Null;
    violated(
        &check(rule, vec![asking(&["a"]), detached], vec![]),
        "no later request continued it",
    );
    unobserved(&check(rule, vec![], vec![]));
}

#[test]
fn resend_tools_wants_the_same_tools_on_the_continuation() {
    let rule = "agent.approval.resend-tools";
    passed(&check(
        rule,
        vec![asking(&["a"]), continuing(1, vec![decision("a", true)])],
        vec![],
    ));
    let mut without = continuing(1, vec![decision("a", true)]);
    without
        .request_body
        .as_object_mut()
        .expect("object")
        .remove("tools");
    violated(
        &check(rule, vec![asking(&["a"]), without], vec![]),
        "sent no tools",
    );
    // The document lets a continuation carry a new policy and the credentials the call runs with.
    let mut new_policy = continuing(1, vec![decision("a", true)]);
    new_policy.request_body["tools"][0]["require_approval"] =
        json!({"never": {"tool_names": ["models_list"]}});
    new_policy.request_body["tools"][0]["authorization"] = json!("refreshed-token");
    passed(&check(rule, vec![asking(&["a"]), new_policy], vec![]));
    let mut changed = continuing(1, vec![decision("a", true)]);
    changed.request_body["tools"][0]["server_url"] = json!("http://elsewhere/mcp");
    violated(
        &check(rule, vec![asking(&["a"]), changed], vec![]),
        "changed the tools",
    );
    unobserved(&check(rule, vec![asking(&["a"])], vec![]));
}

#[test]
fn user_decision_wants_the_answer_the_user_gave_after_seeing_the_call() {
    let rule = "agent.approval.user-decision";
    let journal = || vec![asking(&["a"]), continuing(1, vec![decision("a", false)])];
    passed(&check(rule, journal(), vec![confirm(1, "decline")]));
    // The user declined; the client approved.
    let approved = vec![asking(&["a"]), continuing(1, vec![decision("a", true)])];
    violated(
        &check(rule, approved, vec![confirm(1, "decline")]),
        "the user answered deny on `a` (computer/models_list), and the client sent approve: true",
    );
    // Never asked at all, or asked before the request existed.
    violated(
        &check(rule, journal(), vec![]),
        "without the user being asked",
    );
    violated(
        &check(rule, journal(), vec![confirm(0, "decline")]),
        "without the user being asked",
    );
    // Asked without naming the server and the tool.
    let vague = user(
        1,
        "ask",
        json!({"kind": "confirm", "message": "OK?"}),
        json!({"action": "decline"}),
    );
    violated(
        &check(rule, journal(), vec![vague]),
        "naming the server_label",
    );
    unobserved(&check(rule, vec![asking(&["a"])], vec![]));
}

#[test]
fn zdr_history_wants_the_history_in_input_and_no_previous_response_id() {
    let rule = "agent.zdr.history";
    let history = |request: Value| {
        create(
            1,
            json!({"model": "m", "tools": tools(), "input": [
                {"type": "message", "role": "user", "content": "list my models"},
                request, decision("a", true)]}),
            json!({"id": "resp_2", "status": "completed", "output": []}),
        )
    };
    passed(&check(
        rule,
        vec![asking(&["a"]), history(approval_request("a"))],
        vec![],
    ));
    violated(
        &check(
            rule,
            vec![asking(&["a"]), continuing(1, vec![decision("a", true)])],
            vec![],
        ),
        "sent previous_response_id",
    );
    // The request item rebuilt with other arguments is not the one the API issued.
    let mut altered = approval_request("a");
    altered["arguments"] = json!("{\"x\":1}");
    violated(
        &check(rule, vec![asking(&["a"]), history(altered)], vec![]),
        "does not send that mcp_approval_request item back",
    );
    // No user message.
    let bare = create(
        1,
        json!({"model": "m", "tools": tools(),
               "input": [approval_request("a"), decision("a", true)]}),
        json!({"id": "resp_2", "status": "completed", "output": []}),
    );
    violated(
        &check(rule, vec![asking(&["a"]), bare], vec![]),
        "no user message",
    );
    unobserved(&check(rule, vec![asking(&["a"])], vec![]));
}

// ---- background runs and cancellation ----

fn background(seq: usize) -> Exchange {
    create(
        seq,
        json!({"input": "research", "preset": "medium", "background": true, "store": true}),
        json!({"id": "resp_bg", "status": "queued", "output": []}),
    )
}

#[test]
fn background_poll_wants_gets_until_a_terminal_status() {
    let rule = "agent.background.poll";
    passed(&check(
        rule,
        vec![
            background(0),
            get(1, "resp_bg", "in_progress"),
            get(2, "resp_bg", "completed"),
        ],
        vec![],
    ));
    violated(&check(rule, vec![background(0)], vec![]), "never polled");
    violated(
        &check(
            rule,
            vec![background(0), get(1, "resp_bg", "in_progress")],
            vec![],
        ),
        "stopped polling",
    );
    // Created a second time rather than polled.
    let mut again = background(1);
    again.response_body["id"] = json!("resp_bg2");
    violated(
        &check(
            rule,
            vec![background(0), again, get(2, "resp_bg2", "completed")],
            vec![],
        ),
        "created again",
    );
    // A GET of another run does not count.
    violated(
        &check(
            rule,
            vec![background(0), get(1, "resp_other", "completed")],
            vec![],
        ),
        "never polled",
    );
    unobserved(&check(rule, vec![], vec![]));
}

fn interrupt(at: usize) -> UserRecord {
    user(at, "interrupt", Value::Null, json!({"action": "cancel"}))
}

fn cancel(seq: usize) -> Exchange {
    let mut e = exchange(seq, "POST", "/v1/responses/resp_bg/cancel", None);
    e.response_body = json!({"response_id": "resp_bg", "status": "cancelling"});
    e
}

#[test]
fn cancel_confirm_wants_a_get_showing_cancelled_after_the_cancel() {
    let rule = "agent.cancel.confirm";
    passed(&check(
        rule,
        vec![background(0), cancel(1), get(2, "resp_bg", "cancelled")],
        vec![interrupt(1)],
    ));
    // The acknowledgement (`cancelling`) taken for the outcome.
    violated(
        &check(rule, vec![background(0), cancel(1)], vec![interrupt(1)]),
        "no GET confirmed",
    );
    violated(
        &check(
            rule,
            vec![background(0), cancel(1), get(2, "resp_bg", "in_progress")],
            vec![interrupt(1)],
        ),
        "stopped polling",
    );
    // The user asked; nothing was cancelled.
    violated(
        &check(
            rule,
            vec![background(0), get(1, "resp_bg", "completed")],
            vec![interrupt(1)],
        ),
        "never cancelled",
    );
    // A cancel sent before the user asked is not the user's.
    violated(
        &check(
            rule,
            vec![background(0), cancel(1), get(2, "resp_bg", "cancelled")],
            vec![interrupt(3)],
        ),
        "never cancelled",
    );
    unobserved(&check(rule, vec![background(0), cancel(1)], vec![]));
}

// ---- streams ----

fn event(data: Value) -> SseRecord {
    SseRecord {
        data,
        virtual_time: chrono::Utc::now(),
    }
}

/// A streamed create whose client received events 0..=`last` (terminal when `done`).
fn streamed(seq: usize, last: u64, done: bool) -> Exchange {
    let mut e = create(
        seq,
        json!({"input": "hi", "model": "m", "stream": true, "background": true}),
        Value::Null,
    );
    e.sse_events.push(event(
        json!({"type": "response.created", "sequence_number": 0,
        "response": {"id": "resp_s", "status": "in_progress"}}),
    ));
    for n in 1..=last {
        e.sse_events.push(event(
            json!({"type": "response.output_text.delta", "sequence_number": n, "delta": "x"}),
        ));
    }
    if done {
        e.sse_events.push(event(
            json!({"type": "response.completed", "sequence_number": last + 1}),
        ));
    }
    e
}

fn resume(seq: usize, query: &str) -> Exchange {
    exchange(seq, "GET", "/v1/responses/resp_s", Some(query))
}

#[test]
fn stream_resume_wants_starting_after_the_last_sequence_number_received() {
    let rule = "agent.stream.resume";
    passed(&check(
        rule,
        vec![
            streamed(0, 2, false),
            resume(1, "stream=true&starting_after=2"),
        ],
        vec![],
    ));
    // Events 1 and 2 replayed, or the cursor forgotten.
    violated(
        &check(
            rule,
            vec![
                streamed(0, 2, false),
                resume(1, "stream=true&starting_after=0"),
            ],
            vec![],
        ),
        "starting_after=0",
    );
    violated(
        &check(
            rule,
            vec![streamed(0, 2, false), resume(1, "stream=true")],
            vec![],
        ),
        "starting_after=(none)",
    );
    // A plain GET is not a resumed stream; a new create is not a resume.
    violated(
        &check(
            rule,
            vec![streamed(0, 2, false), get(1, "resp_s", "completed")],
            vec![],
        ),
        "never reconnected",
    );
    violated(
        &check(
            rule,
            vec![streamed(0, 2, false), streamed(1, 5, true)],
            vec![],
        ),
        "created the response again",
    );
    // Nothing dropped, or nothing streamed: nothing to judge.
    unobserved(&check(rule, vec![streamed(0, 4, true)], vec![]));
    unobserved(&check(rule, vec![background(0)], vec![]));
}

// ---- in-band connector errors ----

fn lapsed(seq: usize) -> Exchange {
    create(
        seq,
        json!({"input": "slack", "model": "m",
               "tools": [{"type": "connector", "id": "connector_slack", "server_label": "slack"}]}),
        json!({"id": "resp_c", "status": "completed", "output": [
            {"type": "mcp_call", "id": "c1", "server_label": "slack", "name": "slack_search_public",
             "arguments": "{}", "error": "AUTH_REQUIRED"},
            {"type": "message", "content": [{"type": "output_text", "text": "I could not read Slack."}]}]}),
    )
}

fn show(at: usize, kind: &str, text: &str) -> UserRecord {
    user(at, "show", json!({"kind": kind, "text": text}), Value::Null)
}

#[test]
fn auth_required_wants_an_error_shown_and_no_retry() {
    let rule = "agent.connector.auth-required-shown";
    passed(&check(
        rule,
        vec![lapsed(0)],
        vec![show(1, "error", "Slack needs reconnecting (AUTH_REQUIRED)")],
    ));
    // Only the model's answer shown: the error is easy to miss, as the document warns.
    violated(
        &check(
            rule,
            vec![lapsed(0)],
            vec![show(1, "final", "I could not read Slack.")],
        ),
        "never showed it",
    );
    violated(
        &check(
            rule,
            vec![lapsed(0), lapsed(1)],
            vec![show(2, "error", "AUTH_REQUIRED")],
        ),
        "sent the same request again",
    );
    unobserved(&check(rule, vec![background(0)], vec![]));
}
