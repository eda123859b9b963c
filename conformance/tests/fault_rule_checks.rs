//! The transport-fault rules (issue 26) over hand-made journals, for the variants the reference
//! client never plays: a retry a little early after a 429's retry-after-ms, a 5xx retried at
//! once, a request tried past the bound or given up in silence, an answered create sent again,
//! a stream that ended early taken for the answer or created again, and a continuation that
//! decides only the first of two pending approval requests.

use chrono::{DateTime, TimeDelta, Utc};
use conformance::rules::UserRecord;
use mock_server::{Exchange, SseRecord};
use serde_json::{Value, json};

use crate::common::rule_checks::{check, passed, unobserved, violated};

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH + TimeDelta::milliseconds(ms)
}

/// A request to `path` that arrived at `ms` of real time and was answered `status` at once.
fn request(seq: usize, path: &str, ms: i64, status: u16, body: Value) -> Exchange {
    let mut e = Exchange::new(seq, "POST", path, status, at(ms));
    e.request_body = body;
    e
}

fn create(seq: usize, ms: i64, status: u16) -> Exchange {
    let mut e = request(
        seq,
        "/v1/responses",
        ms,
        status,
        json!({"model": "m", "input": "What can the Agent API do?"}),
    );
    if status == 200 {
        e.response_body = json!({"id": "resp_1", "status": "completed", "output": []});
    }
    e
}

fn chat(seq: usize, ms: i64, status: u16) -> Exchange {
    request(
        seq,
        "/chat/completions",
        ms,
        status,
        json!({"model": "sonar", "messages": [{"role": "user", "content": "solar?"}]}),
    )
}

fn with_header(mut e: Exchange, name: &str, value: &str) -> Exchange {
    e.response_headers.insert(name.into(), json!(value));
    e
}

/// The person was shown an error once `at` exchanges were recorded.
fn shown_error(at: usize) -> UserRecord {
    UserRecord {
        at,
        kind: "show".into(),
        request: json!({"kind": "error", "text": "HTTP 500"}),
        response: Value::Null,
    }
}

const RETRY_AFTER: &str = "agent.rate-limit.retry-after";
const BACKOFF: &str = "agent.server-error.backoff";
const GIVE_UP: &str = "agent.server-error.give-up";
const NO_RESEND: &str = "agent.answered.no-resend";
const UNFINISHED: &str = "agent.stream.unfinished-resume";
const EVERY_PENDING: &str = "agent.approval.every-pending";
const SONAR_BACKOFF: &str = "sonar.server-error.backoff";
const SONAR_GIVE_UP: &str = "sonar.server-error.give-up";

#[test]
fn a_429_s_retry_after_ms_is_waited_out_from_the_answer() {
    let refused = || with_header(create(0, 0, 429), "retry-after-ms", "1500");
    passed(&check(
        RETRY_AFTER,
        vec![refused(), create(1, 1500, 200)],
        vec![],
    ));
    // retry-after-ms is read first: 1.5 s, not the whole second of Retry-After.
    violated(
        &check(
            RETRY_AFTER,
            vec![
                with_header(refused(), "retry-after", "1"),
                create(1, 1200, 200),
            ],
            vec![],
        ),
        "1.200 s later",
    );
    // Measured from the answer: a slow answer does not count as the client's wait.
    let mut slow = with_header(create(0, 0, 429), "retry-after", "1");
    slow.real_responded_at = at(800);
    violated(
        &check(RETRY_AFTER, vec![slow, create(1, 1000, 200)], vec![]),
        "0.200 s later",
    );
    unobserved(&check(RETRY_AFTER, vec![create(0, 0, 200)], vec![]));
    unobserved(&check(RETRY_AFTER, vec![refused()], vec![]));
}

#[test]
fn a_5xx_is_retried_only_after_a_backoff() {
    passed(&check(
        BACKOFF,
        vec![create(0, 0, 503), create(1, 500, 503), create(2, 1500, 200)],
        vec![],
    ));
    violated(
        &check(
            BACKOFF,
            vec![create(0, 0, 503), create(1, 500, 503), create(2, 510, 200)],
            vec![],
        ),
        "the 503 at #1 was followed by the next create 0.010 s later (#2)",
    );
    // A 5xx that announced a longer wait is judged against that wait.
    violated(
        &check(
            BACKOFF,
            vec![
                with_header(create(0, 0, 502), "retry-after", "2"),
                create(1, 1000, 200),
            ],
            vec![],
        ),
        "at least 2 s",
    );
    // A connection reset (status 0) is no 5xx; nothing was retried after the 500.
    unobserved(&check(BACKOFF, vec![create(0, 0, 0)], vec![]));
    unobserved(&check(
        BACKOFF,
        vec![create(0, 0, 500)],
        vec![shown_error(1)],
    ));
    // The same judgement on chat completions.
    violated(
        &check(
            SONAR_BACKOFF,
            vec![chat(0, 0, 500), chat(1, 100, 500)],
            vec![],
        ),
        "next chat completion 0.100 s later",
    );
}

#[test]
fn a_failing_request_is_given_up_within_six_tries_with_the_error_shown() {
    let tries =
        |n: usize| -> Vec<Exchange> { (0..n).map(|i| create(i, i as i64 * 1000, 500)).collect() };
    passed(&check(GIVE_UP, tries(3), vec![shown_error(3)]));
    violated(
        &check(GIVE_UP, tries(7), vec![shown_error(7)]),
        "was sent 7 times",
    );
    violated(
        &check(GIVE_UP, tries(3), vec![]),
        "stopped without showing the person an error",
    );
    // An error shown before the last try is not the answer to giving up.
    violated(
        &check(GIVE_UP, tries(3), vec![shown_error(1)]),
        "without showing",
    );
    // Answered in the end: nothing was given up.
    unobserved(&check(
        GIVE_UP,
        vec![create(0, 0, 500), create(1, 1000, 200)],
        vec![],
    ));
    unobserved(&check(GIVE_UP, vec![create(0, 0, 200)], vec![]));
    violated(
        &check(SONAR_GIVE_UP, vec![chat(0, 0, 500)], vec![]),
        "the chat completion failed 1 time(s)",
    );
}

#[test]
fn an_answered_create_is_not_sent_again() {
    passed(&check(
        NO_RESEND,
        vec![create(0, 0, 503), create(1, 500, 200)],
        vec![],
    ));
    violated(
        &check(
            NO_RESEND,
            vec![create(0, 0, 503), create(1, 500, 200), create(2, 600, 200)],
            vec![],
        ),
        "answered at #1 (it spent credits) was sent again unchanged at #2",
    );
    // A 200 without a response id is not an answer the client could continue.
    let mut empty = create(0, 0, 200);
    empty.response_body = Value::Null;
    unobserved(&check(NO_RESEND, vec![empty], vec![]));
}

/// A streamed background create answered with the events numbered `0..events`, none terminal.
fn unfinished_stream(events: u64) -> Exchange {
    let mut e = create(0, 0, 200);
    e.request_body["stream"] = json!(true);
    e.request_body["background"] = json!(true);
    e.response_body = Value::Null;
    e.sse_events = (0..events)
        .map(|n| SseRecord {
            data: json!({"type": if n == 0 { "response.created" } else { "response.in_progress" },
                         "sequence_number": n,
                         "response": {"id": "resp_1", "status": "in_progress"}}),
            virtual_time: at(0),
        })
        .collect();
    e
}

fn resume(seq: usize, query: &str) -> Exchange {
    let mut e = Exchange::new(seq, "GET", "/v1/responses/resp_1", 200, at(10));
    e.query = Some(query.to_owned());
    e
}

#[test]
fn a_stream_that_ended_early_is_resumed_from_its_last_event() {
    passed(&check(
        UNFINISHED,
        vec![
            unfinished_stream(3),
            resume(1, "stream=true&starting_after=2"),
        ],
        vec![],
    ));
    violated(
        &check(UNFINISHED, vec![unfinished_stream(3)], vec![]),
        "ended before its terminal event after sequence_number 2, and the client never reconnected",
    );
    violated(
        &check(
            UNFINISHED,
            vec![
                unfinished_stream(3),
                resume(1, "stream=true&starting_after=0"),
            ],
            vec![],
        ),
        "starting_after=0",
    );
    let mut again = unfinished_stream(3);
    again.seq = 1;
    violated(
        &check(UNFINISHED, vec![unfinished_stream(3), again], vec![]),
        "created the response again",
    );
}

fn approval_request(id: &str) -> Value {
    json!({"type": "mcp_approval_request", "id": id, "name": "models_list",
           "server_label": "computer", "arguments": "{}"})
}

/// A response holding approval requests `ids`, then a continuation deciding `decided`,
/// answered `status`.
fn approvals(ids: &[&str], decided: &[&str], status: u16) -> Vec<Exchange> {
    let mut asking = create(0, 0, 200);
    asking.response_body = json!({"id": "resp_1", "status": "completed",
        "output": ids.iter().map(|id| approval_request(id)).collect::<Vec<_>>()});
    let mut continuing = create(1, 10, status);
    continuing.request_body = json!({"model": "m", "previous_response_id": "resp_1",
        "input": decided.iter().map(|id| json!({"type": "mcp_approval_response",
            "approval_request_id": id, "approve": true})).collect::<Vec<_>>()});
    continuing.response_body = if status == 400 {
        json!({"error": {"message": "missing decision", "type": "invalid_request", "code": 400}})
    } else {
        json!({"id": "resp_2", "status": "completed", "output": []})
    };
    vec![asking, continuing]
}

#[test]
fn every_request_pending_at_once_gets_its_decision() {
    passed(&check(
        EVERY_PENDING,
        approvals(&["a", "b"], &["b", "a"], 200),
        vec![],
    ));
    violated(
        &check(EVERY_PENDING, approvals(&["a", "b"], &["a"], 400), vec![]),
        "decides 1 of the 2 approval requests pending at once; `b` got no mcp_approval_response; the mock refused it with 400 invalid_request",
    );
    violated(
        &check(
            EVERY_PENDING,
            approvals(&["a", "b"], &[], 200)[..1].to_vec(),
            vec![],
        ),
        "no later request decided any of them",
    );
    // One request at a time is agent.approval.respond-each's business.
    unobserved(&check(
        EVERY_PENDING,
        approvals(&["a"], &["a"], 200),
        vec![],
    ));
}
