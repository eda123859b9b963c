//! Resuming a dropped stream (MCP transport, "Resumability and Redelivery"): each event of a
//! call's stream has an id unique in the session, and a `GET` with `Last-Event-ID` replays what
//! came after it, on that stream only, through to the call's response.

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::{Client, MCP, Mock, text_json};

const ALICE: &str = "alice-dev-token";

/// One event as sent: its `id:` and its data.
#[derive(Debug)]
struct Sent {
    id: Option<String>,
    data: Value,
}

/// The events of a raw SSE body.
fn sent(text: &str) -> Vec<Sent> {
    text.split("\n\n")
        .filter(|frame| frame.contains("data:"))
        .map(|frame| Sent {
            id: frame
                .lines()
                .find_map(|l| l.strip_prefix("id: "))
                .map(str::to_owned),
            data: frame
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .and_then(|d| serde_json::from_str(d).ok())
                .unwrap_or(Value::Null),
        })
        .collect()
}

/// Sends `request` with the session's headers; the status and the raw body.
async fn raw(client: &Client, request: http::request::Builder, body: Body) -> (StatusCode, String) {
    let request = request
        .header("authorization", format!("Bearer {ALICE}"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header(
            "mcp-session-id",
            client.session.as_deref().expect("a session"),
        )
        .header("mcp-protocol-version", &client.version)
        .body(body)
        .expect("request");
    let (status, _, text) = client.mock.send_raw(request).await;
    (status, text)
}

/// A `#complete` call with a progress token: its stream's events.
async fn call(client: &Client, id: u64) -> Vec<Sent> {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "call_perplexity_computer",
        "arguments": {"message": "#complete Summarize the top 5 stories"},
        "_meta": {"progressToken": format!("p{id}")}}});
    let (status, text) = raw(client, Request::post(MCP), Body::from(body.to_string())).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    sent(&text)
}

async fn resume(client: &Client, last: &str) -> (StatusCode, String) {
    raw(
        client,
        Request::get(MCP).header("last-event-id", last),
        Body::empty(),
    )
    .await
}

#[tokio::test(start_paused = true)]
async fn every_event_of_a_session_has_its_own_id_naming_its_stream() {
    let mock = Mock::new();
    let client = mock.session(ALICE).await;
    let first = call(&client, 1).await;
    let second = call(&client, 2).await;
    let ids: Vec<&str> = first
        .iter()
        .chain(&second)
        .filter_map(|e| e.id.as_deref())
        .collect();
    assert_eq!(
        ids.len(),
        first.len() + second.len(),
        "every event has an id"
    );
    let unique: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "no id twice in a session: {ids:?}");
    let stream = |e: &Sent| {
        e.id.as_deref()
            .and_then(|id| id.split_once('-'))
            .map(|(s, _)| s.to_owned())
    };
    assert!(first.iter().all(|e| stream(e) == stream(&first[0])));
    assert_ne!(
        stream(&first[0]),
        stream(&second[0]),
        "each stream its own prefix"
    );
}

#[tokio::test(start_paused = true)]
async fn a_stream_cut_short_is_resumed_with_last_event_id_through_to_the_response() {
    let spec = "end-after-events=1,tool=call_perplexity_computer,times=1";
    let mock = Mock::with(MockServer::builder().fault(spec).expect("the spec reads"));
    let client = mock.session(ALICE).await;
    let cut = call(&client, 1).await;
    assert_eq!(
        cut.len(),
        1,
        "the fault ends the stream after one event: {cut:?}"
    );
    assert_eq!(cut[0].data["method"], "notifications/progress", "{cut:?}");
    let last = cut[0].id.clone().expect("an id to resume from");

    let (status, text) = resume(&client, &last).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let rest = sent(&text);
    let (answer, progress) = rest.split_last().expect("events after the cut");
    assert!(
        progress
            .iter()
            .all(|e| e.data["method"] == "notifications/progress")
    );
    assert!(
        rest.iter().all(|e| e.id.as_deref() != Some(last.as_str())),
        "nothing before the id again"
    );
    assert_eq!(
        answer.data["id"], 1,
        "the call's response ends the resumed stream"
    );
    assert_eq!(text_json(&answer.data["result"])["event"], "complete");

    // The stream is kept after its answer: resuming again from the cut replays the same.
    let (_, again) = resume(&client, &last).await;
    let again = sent(&again);
    assert_eq!(again.len(), rest.len());
    assert_eq!(again.last().map(|e| &e.data), Some(&answer.data));
}

#[tokio::test(start_paused = true)]
async fn an_unknown_last_event_id_is_a_400_that_says_what_to_send() {
    let mock = Mock::new();
    let client = mock.session(ALICE).await;
    call(&client, 1).await;
    for last in ["9-1", "not-an-id"] {
        let (status, text) = resume(&client, last).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{text}");
        let body: Value = serde_json::from_str(&text).expect("a JSON-RPC error");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("names no stream of this session"),
            "{message}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn another_session_cannot_resume_a_stream_it_did_not_open() {
    let mock = Mock::new();
    let alice = mock.session(ALICE).await;
    let events = call(&alice, 1).await;
    let last = events[0].id.clone().expect("an id");
    // Stream numbers count in each session: a second session's `1-1` would name its own
    // first stream, which it has not opened.
    let other = mock.session(ALICE).await;
    let (status, _) = resume(&other, &last).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test(start_paused = true)]
async fn a_resumed_stream_ends_when_the_session_does() {
    let mock = Mock::new();
    let client = mock.session(ALICE).await;
    let events = call(&client, 1).await;
    let last = events.last().and_then(|e| e.id.clone()).expect("an id");
    let (status, _) = raw(&client, Request::delete(MCP), Body::empty()).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = resume(&client, &last).await;
    assert_eq!(
        status,
        StatusCode::NOT_FOUND,
        "the session is gone, and its streams with it"
    );
}
