//! Sonar checks over hand-made journals, for the variants the reference client never plays: a
//! retry a little early, a 429 never sent again, sources shown only in part, a stream's
//! citations, a request resent after a 429 (allowed) and after an answer (not).

use chrono::{DateTime, TimeDelta, Utc};
use conformance::rules::UserRecord;
use mock_server::{Exchange, SseRecord};
use serde_json::{Value, json};

use crate::common::rule_checks::{check, passed, unobserved, violated};

fn at(ms: i64) -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH + TimeDelta::milliseconds(ms)
}

/// `POST /chat/completions` at `ms` of real time with `body`, answered `status`.
fn chat(seq: usize, ms: i64, status: u16, body: Value) -> Exchange {
    let mut e = Exchange::new(seq, "POST", "/chat/completions", status, at(ms));
    e.real_time = at(ms);
    e.request_body = body;
    e
}

fn refused(seq: usize, ms: i64, retry_after: &str) -> Exchange {
    let mut e = chat(seq, ms, 429, question());
    e.response_headers
        .insert("retry-after".into(), json!(retry_after));
    e
}

fn answered(seq: usize, ms: i64, citations: &[&str]) -> Exchange {
    let mut e = chat(seq, ms, 200, question());
    e.response_body = json!({"choices": [{"message": {"content": "Water [1]."}}],
                             "citations": citations});
    e
}

fn question() -> Value {
    json!({"model": "sonar", "messages": [{"role": "user", "content": "#cited-answer Webb?"}]})
}

fn shown(text: &str) -> UserRecord {
    UserRecord {
        at: 1,
        kind: "show".into(),
        request: json!({"kind": "final", "text": text}),
        response: Value::Null,
    }
}

const RETRY: &str = "sonar.rate-limit.retry-after";
const CITED: &str = "sonar.citations.shown";
const RESEND: &str = "sonar.answered.no-resend";

#[test]
fn retry_after_is_waited_out_in_real_time() {
    passed(&check(
        RETRY,
        vec![refused(0, 0, "1"), answered(1, 1000, &[])],
        vec![],
    ));
    violated(
        &check(
            RETRY,
            vec![refused(0, 0, "1"), answered(1, 950, &[])],
            vec![],
        ),
        "0.950 s later",
    );
    // The second of two 429s is judged too.
    violated(
        &check(
            RETRY,
            vec![
                refused(0, 0, "1"),
                refused(1, 1000, "2"),
                answered(2, 1500, &[]),
            ],
            vec![],
        ),
        "Retry-After: 2",
    );
}

#[test]
fn retry_after_without_a_429_or_a_retry_is_unobserved() {
    unobserved(&check(RETRY, vec![answered(0, 0, &[])], vec![]));
    unobserved(&check(RETRY, vec![refused(0, 0, "1")], vec![]));
    // A 429 without Retry-After announces no wait.
    unobserved(&check(
        RETRY,
        vec![chat(0, 0, 429, question()), answered(1, 10, &[])],
        vec![],
    ));
}

#[test]
fn every_citation_of_an_answer_is_shown() {
    let sources = ["https://a.example/1", "https://b.example/2"];
    passed(&check(
        CITED,
        vec![answered(0, 0, &sources)],
        vec![shown(
            "Water [1].\n\n[1] https://a.example/1\n[2] https://b.example/2",
        )],
    ));
    violated(
        &check(
            CITED,
            vec![answered(0, 0, &sources)],
            vec![shown("Water [1].\n\n[1] https://a.example/1")],
        ),
        "https://b.example/2",
    );
    unobserved(&check(CITED, vec![answered(0, 0, &[])], vec![]));
}

#[test]
fn a_streamed_answer_s_citations_come_from_its_chunks() {
    let mut e = chat(0, 0, 200, question());
    e.sse_events = vec![
        SseRecord {
            data: json!({"choices": [{"delta": {"content": "Water"}}]}),
            virtual_time: at(0),
        },
        SseRecord {
            data: json!({"choices": [{"delta": {}}], "citations": ["https://c.example/3"]}),
            virtual_time: at(10),
        },
    ];
    violated(
        &check(CITED, vec![e.clone()], vec![shown("Water")]),
        "https://c.example/3",
    );
    passed(&check(
        CITED,
        vec![e],
        vec![shown("Water\n[1] https://c.example/3")],
    ));
}

#[test]
fn an_answered_request_is_not_sent_again() {
    // Sent again after a 429: that one spent nothing.
    passed(&check(
        RESEND,
        vec![refused(0, 0, "1"), answered(1, 1000, &[])],
        vec![],
    ));
    violated(
        &check(
            RESEND,
            vec![answered(0, 0, &[]), answered(1, 10, &[])],
            vec![],
        ),
        "sent again unchanged at #1",
    );
    // A follow-up (another body) is a new request.
    let mut follow_up = answered(1, 10, &[]);
    follow_up.request_body["messages"]
        .as_array_mut()
        .expect("messages")
        .push(json!({"role": "assistant", "content": "Water [1]."}));
    passed(&check(RESEND, vec![answered(0, 0, &[]), follow_up], vec![]));
    unobserved(&check(RESEND, vec![refused(0, 0, "1")], vec![]));
}
