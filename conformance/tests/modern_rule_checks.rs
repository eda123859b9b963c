//! Task and elicitation checks over hand-made 2026-07-28 journals, for the variants the
//! reference client never plays: the two grades of an early poll, a made-up or twice-answered
//! `tasks/update` key, a changed `requestState`, the stop page instead of `cancel_task`, and a
//! `cancel_task` on a thread id parsed from the task id.

use chrono::{DateTime, TimeDelta, Utc};
use conformance::report::Status;
use conformance::rules::{self, Outcome, Transcript, UserRecord};
use conformance::runner::status_of;
use mock_server::Exchange;
use serde_json::{Value, json};

const EXT: &str = "io.modelcontextprotocol/tasks";

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH + TimeDelta::milliseconds(ms)
}

/// A modern request at `ms` (real time) answered with `result` (or `error` when it has `code`).
fn rpc(seq: usize, ms: i64, method: &str, params: Value, answer: Value) -> Exchange {
    let mut params = params;
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {EXT: {}}, "elicitation": {"form": {}, "url": {}}});
    let mut headers = serde_json::Map::new();
    headers.insert("mcp-method".into(), json!(method));
    let name = params.get("taskId").or(params.get("name")).cloned();
    if let Some(name) = name {
        headers.insert("mcp-name".into(), name);
    }
    let key = if answer.get("code").is_some() {
        "error"
    } else {
        "result"
    };
    Exchange {
        request_headers: headers,
        request_body: json!({"jsonrpc": "2.0", "id": seq, "method": method, "params": params}),
        response_body: json!({"jsonrpc": "2.0", "id": seq, key: answer}),
        ..Exchange::new(seq, "POST", mock_server::MCP_PATH, 200, at(ms))
    }
}

fn create(ms: i64) -> Exchange {
    rpc(
        0,
        ms,
        "tools/call",
        json!({"name": "call_perplexity_computer", "arguments": {"message": "m"}}),
        json!({"resultType": "task", "taskId": "task-1", "status": "working", "pollIntervalMs": 100,
               "_meta": {"ai.perplexity/threadId": "T"}}),
    )
}

fn get(seq: usize, ms: i64, state: Value) -> Exchange {
    let mut state = state;
    state["taskId"] = json!("task-1");
    state["pollIntervalMs"] = json!(100);
    rpc(seq, ms, "tasks/get", json!({"taskId": "task-1"}), state)
}

fn check(rule: &str, scenario: &str, exchanges: Vec<Exchange>, user: Vec<UserRecord>) -> Outcome {
    let rule = rules::find(rule).expect("rule");
    (rule.check)(&Transcript::new(scenario, exchanges, user))
}

fn status(rule: &str, exchanges: Vec<Exchange>) -> Status {
    let found = rules::find(rule).expect("rule");
    status_of(
        found.level,
        &check(rule, "task-question", exchanges, Vec::new()),
    )
}

#[test]
fn an_early_poll_is_graded_failure_when_far_too_early_and_warning_when_slightly() {
    let polls = |gaps: &[i64]| {
        let mut journal = vec![create(0)];
        let mut t = 0;
        for (i, gap) in gaps.iter().enumerate() {
            t += gap;
            journal.push(get(i + 1, t, json!({"status": "working"})));
        }
        journal
    };
    let far = "tasks.poll.far-too-early";
    let slight = "tasks.poll.interval";
    // On time (the first poll counts from the task's creation).
    assert_eq!(status(far, polls(&[100, 150])), Status::Success);
    assert_eq!(status(slight, polls(&[100, 150])), Status::Success);
    // Within the tolerance: 95 ms of a 100 ms interval.
    assert_eq!(status(slight, polls(&[100, 95])), Status::Success);
    // Slightly early: a WARNING from the SHOULD rule, nothing from the MUST one.
    assert_eq!(status(slight, polls(&[100, 70])), Status::Warning);
    assert_eq!(status(far, polls(&[100, 70])), Status::Success);
    // Far too early (the first poll 10 ms after creation): a FAILURE, and no warning as well.
    assert_eq!(status(far, polls(&[10, 100])), Status::Failure);
    assert_eq!(status(slight, polls(&[10, 100])), Status::Skipped);
    // A client that polled far too early is not warned about its other early polls as well:
    // how early they came says how busy the machine was, and the MUST rule already failed it.
    assert_eq!(status(far, polls(&[10, 70])), Status::Failure);
    assert_eq!(status(slight, polls(&[10, 70])), Status::Skipped);
    // No poll at all is unobserved, which fails even the SHOULD rule.
    assert_eq!(status(slight, vec![create(0)]), Status::Failure);
}

#[test]
fn tasks_update_answers_only_outstanding_keys_once_with_content_that_fits() {
    let asking = json!({"status": "input_required", "inputRequests": {"answer:1": {"method": "elicitation/create",
        "params": {"mode": "form", "message": "Which format?", "requestedSchema": {"type": "object",
            "properties": {"q1": {"type": "string", "enum": ["PDF", "DOCX"]}}, "required": ["q1"]}}}}});
    let update = |seq: usize, key: &str, content: Value| {
        rpc(
            seq,
            seq as i64 * 100,
            "tasks/update",
            json!({"taskId": "task-1", "inputResponses": {key: {"action": "accept", "content": content}}}),
            json!({"resultType": "complete"}),
        )
    };
    let journal = |updates: Vec<Exchange>| {
        let mut j = vec![create(0), get(1, 100, asking.clone())];
        j.extend(updates);
        j
    };
    let rule = "tasks.update.input-responses";
    let good = journal(vec![update(2, "answer:1", json!({"q1": "PDF"}))]);
    assert!(matches!(
        check(rule, "task-question", good, Vec::new()),
        Outcome::Pass(_)
    ));
    let made_up = journal(vec![update(2, "answer:2", json!({"q1": "PDF"}))]);
    assert!(matches!(
        check(rule, "task-question", made_up, Vec::new()),
        Outcome::Violated { .. }
    ));
    let twice = journal(vec![
        update(2, "answer:1", json!({"q1": "PDF"})),
        update(3, "answer:1", json!({"q1": "DOCX"})),
    ]);
    assert!(matches!(
        check(rule, "task-question", twice, Vec::new()),
        Outcome::Violated { .. }
    ));
    let off_schema = journal(vec![update(2, "answer:1", json!({"q1": "Markdown"}))]);
    let Outcome::Violated { message, .. } = check(rule, "task-question", off_schema, Vec::new())
    else {
        panic!("content outside the enum must be a violation");
    };
    assert!(
        message.contains("not one of the offered choices"),
        "{message}"
    );
}

#[test]
fn a_retry_must_echo_request_state_exactly_with_a_new_id() {
    let asked = rpc(
        1,
        0,
        "tools/call",
        json!({"name": "call_perplexity_computer", "arguments": {"message": "m"}}),
        json!({"resultType": "input_required", "requestState": "s-1", "inputRequests": {"answer:1":
            {"method": "elicitation/create", "params": {"mode": "form", "message": "?",
             "requestedSchema": {"type": "object", "properties": {"q1": {"type": "string"}}}}}}}),
    );
    let retry = |seq: usize, state: &str| {
        rpc(
            seq,
            10,
            "tools/call",
            json!({"name": "call_perplexity_computer", "arguments": {"message": "m"}, "requestState": state,
                   "inputResponses": {"answer:1": {"action": "accept", "content": {"q1": "PDF"}}}}),
            json!({"content": [], "structuredContent": {"thread_id": "T", "event": "complete"}}),
        )
    };
    let rule = "elicitation.mrtr.request-state";
    let run = |r: Exchange| {
        check(
            rule,
            "elicitation-question",
            vec![asked.clone(), r],
            Vec::new(),
        )
    };
    assert!(matches!(run(retry(2, "s-1")), Outcome::Pass(_)));
    assert!(matches!(run(retry(2, "s-1 ")), Outcome::Violated { .. }));
    // The journal gives each exchange its seq as JSON-RPC id: seq 1 again is a reused id.
    let mut reused = retry(2, "s-1");
    reused.request_body["id"] = json!(1);
    assert!(matches!(run(reused), Outcome::Violated { .. }));
    // Never retried at all.
    assert!(matches!(
        check(
            rule,
            "elicitation-question",
            vec![asked.clone()],
            Vec::new()
        ),
        Outcome::Violated { .. }
    ));
}

#[test]
fn pressing_stop_on_the_stop_page_also_stops_a_task() {
    let interrupt = UserRecord {
        at: 2,
        kind: "interrupt".into(),
        request: Value::Null,
        response: json!({"action": "cancel"}),
    };
    let cancel = rpc(
        2,
        200,
        "tasks/cancel",
        json!({"taskId": "task-1"}),
        json!({"resultType": "complete"}),
    );
    let mut stop = rpc(3, 210, "x", json!({}), json!({}));
    stop.path = "/_mock/stop/T".into();
    stop.request_body = Value::Null;
    let journal = vec![create(0), get(1, 100, json!({"status": "working"})), cancel];
    let rule = "tasks.cancel.cancel-task";
    assert!(matches!(
        check(
            rule,
            "task-cancel",
            journal.clone(),
            vec![interrupt.clone()]
        ),
        Outcome::Violated { .. }
    ));
    let mut pressed = journal.clone();
    pressed.push(stop);
    assert!(matches!(
        check(rule, "task-cancel", pressed, vec![interrupt]),
        Outcome::Pass(_)
    ));
    assert!(matches!(
        check(rule, "task-cancel", journal, Vec::new()),
        Outcome::Unobserved(_)
    ));
}

#[test]
fn a_cancel_task_with_a_thread_id_parsed_from_the_task_id_is_reported_as_a_wrong_id() {
    let interrupt = UserRecord {
        at: 2,
        kind: "interrupt".into(),
        request: Value::Null,
        response: json!({"action": "cancel"}),
    };
    let wrong = rpc(
        2,
        200,
        "tools/call",
        json!({"name": "cancel_task", "arguments": {"thread_id": "1"}}),
        json!({"isError": true, "content": [{"type": "text", "text": "{\"error\":\"not_found\",\"text\":\"Thread not found.\"}"}]}),
    );
    let journal = vec![create(0), get(1, 100, json!({"status": "working"})), wrong];
    match check(
        "tasks.cancel.cancel-task",
        "task-cancel",
        journal,
        vec![interrupt],
    ) {
        Outcome::Violated { message, evidence } => {
            assert!(
                message.contains("cancel_task was sent with the wrong thread id 1")
                    && message.contains("the task's thread is T")
                    && message.contains("Thread not found."),
                "{message}"
            );
            assert_eq!(evidence, vec![2]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_url_accept_carries_no_content_and_an_undeclared_mode_is_not_answered() {
    let asked = rpc(
        1,
        0,
        "tools/call",
        json!({"name": "call_perplexity_computer", "arguments": {"message": "m"}}),
        json!({"resultType": "input_required", "requestState": "s", "inputRequests": {"sign-in:1":
            {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "http://x/"}}}}),
    );
    let retry = |response: Value| {
        rpc(
            2,
            10,
            "tools/call",
            json!({"name": "call_perplexity_computer", "arguments": {"message": "m"}, "requestState": "s",
                   "inputResponses": {"sign-in:1": response}}),
            json!({"content": []}),
        )
    };
    let rule = "elicitation.modes.declared";
    let run = |journal: Vec<Exchange>| check(rule, "elicitation-sign-in", journal, Vec::new());
    assert!(matches!(
        run(vec![asked.clone(), retry(json!({"action": "accept"}))]),
        Outcome::Pass(_)
    ));
    assert!(matches!(
        run(vec![
            asked.clone(),
            retry(json!({"action": "accept", "content": {"done": "yes"}}))
        ]),
        Outcome::Violated { .. }
    ));
    // `elicitation: {}` declares form only, so answering the URL request breaks the rule.
    let mut form_only = asked.clone();
    form_only.request_body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"elicitation": {}});
    assert!(matches!(
        run(vec![form_only, retry(json!({"action": "accept"}))]),
        Outcome::Violated { .. }
    ));
}

#[test]
fn polling_must_go_on_after_an_update_until_the_task_is_terminal() {
    let update = rpc(
        2,
        200,
        "tasks/update",
        json!({"taskId": "task-1", "inputResponses": {"confirm:1": {"action": "accept", "content": {}}}}),
        json!({"resultType": "complete"}),
    );
    let asking = json!({"status": "input_required", "inputRequests": {}});
    let base = vec![create(0), get(1, 100, asking), update];
    let rule = "tasks.poll.after-ack";
    let run = |journal: Vec<Exchange>| check(rule, "task-approval", journal, Vec::new());
    assert!(matches!(run(base.clone()), Outcome::Violated { .. }));
    let mut stopped = base.clone();
    stopped.push(get(3, 300, json!({"status": "working"})));
    assert!(matches!(run(stopped.clone()), Outcome::Violated { .. }));
    let mut finished = stopped;
    finished.push(get(
        4,
        400,
        json!({"status": "completed", "result": {"content": []}}),
    ));
    assert!(matches!(run(finished), Outcome::Pass(_)));
}
