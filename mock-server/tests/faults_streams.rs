//! Faults on a response body, whatever the surface: a stream ended after N events, one event's
//! JSON broken, a reset after the head, a body cut short of its `Content-Length`, bytes
//! dribbled on the virtual clock.

use std::time::Duration;

use axum::body::Body;
use http::Request;
use http_body_util::BodyExt;
use mock_server::MockServer;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::Mock;
use crate::common::agent::ALICE;
use crate::common::sonar::{ask, with};

fn faulted(spec: &str) -> Mock {
    Mock::with(MockServer::builder().fault(spec).expect("the spec reads"))
}

fn streamed() -> Value {
    with(
        ask("sonar", "What is new in solar power?"),
        "stream",
        json!(true),
    )
}

/// Every byte of the answer to `body` on `path` as alice, and whether the body failed.
async fn raw(mock: &Mock, path: &str, body: Value) -> (http::HeaderMap, Vec<u8>, bool) {
    let request = Request::post(path)
        .header("authorization", format!("Bearer {ALICE}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let response = mock.router.clone().oneshot(request).await.expect("answer");
    let headers = response.headers().clone();
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(frame) => bytes.extend_from_slice(frame.data_ref().map_or(&[][..], |d| d)),
            Err(_) => return (headers, bytes, true),
        }
    }
    (headers, bytes, false)
}

fn events(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .split("\n\n")
        .filter(|frame| frame.contains("data:"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_stream_ends_cleanly_after_its_first_events() {
    let (_, whole, _) = raw(&Mock::new(), "/chat/completions", streamed()).await;
    let all = events(&whole);
    assert!(all.len() > 3, "{} events", all.len());
    let mock = faulted("end-after-events=2,path=/chat/completions");
    let (_, cut, failed) = raw(&mock, "/chat/completions", streamed()).await;
    assert!(!failed, "the stream ends, it is not reset");
    // Each answer has its own id: compare what the events say apart from it.
    let without_id = |event: &str| {
        let data: Value =
            serde_json::from_str(event.trim_start_matches("data: ")).unwrap_or_default();
        data["choices"].clone()
    };
    let kept: Vec<Value> = events(&cut).iter().map(|e| without_id(e)).collect();
    let first_two: Vec<Value> = all[..2].iter().map(|e| without_id(e)).collect();
    assert_eq!(kept, first_two);
    let journal = mock.handle.journal().exchanges();
    assert_eq!(journal[0].sse_events.len(), 2);
    assert_eq!(
        journal[0].fault.as_deref(),
        Some("fault-1 end-after-events=2")
    );
}

#[tokio::test(start_paused = true)]
async fn one_event_carries_broken_json_and_the_rest_of_the_stream_is_whole() {
    let mock = faulted("malformed-event=2,path=/chat/completions");
    let (_, bytes, failed) = raw(&mock, "/chat/completions", streamed()).await;
    assert!(!failed);
    let sent = events(&bytes);
    assert!(serde_json::from_str::<Value>(sent[0].trim_start_matches("data: ")).is_ok());
    let broken = sent[1].trim_start_matches("data: ");
    assert!(
        serde_json::from_str::<Value>(broken).is_err(),
        "event 2 is not JSON: {broken}"
    );
    let last = sent
        .last()
        .map(|e| e.trim_start_matches("data: "))
        .unwrap_or_default();
    let last: Value = serde_json::from_str(last).unwrap_or(Value::Null);
    assert!(
        last["usage"].is_object(),
        "the stream went on to its end: {last}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_reset_after_the_head_sends_the_bytes_it_says_then_fails() {
    let mock = faulted("reset=mid-body,after-bytes=10,path=/search");
    let (headers, bytes, failed) = raw(&mock, "/search", json!({"query": "solar"})).await;
    assert!(headers.contains_key("content-type"), "the head was sent");
    assert_eq!((bytes.len(), failed), (10, true));
}

#[tokio::test(start_paused = true)]
async fn a_body_cut_short_declares_its_whole_length() {
    let (_, whole, _) = raw(&Mock::new(), "/search", json!({"query": "solar"})).await;
    let mock = faulted("cut-body=20,path=/search");
    let (headers, bytes, _) = raw(&mock, "/search", json!({"query": "solar"})).await;
    assert_eq!(headers["content-length"], whole.len().to_string());
    assert_eq!(bytes.len(), 20);
    assert!(whole.len() > 20);
}

#[tokio::test(start_paused = true)]
async fn a_dribble_sends_its_pieces_as_the_manual_clock_moves() {
    let mock = Mock::with(
        MockServer::builder()
            .manual_clock()
            .fault("dribble=8,every=1s,path=/v1/models")
            .expect("the spec reads"),
    );
    let request = Request::get("/v1/models")
        .header("authorization", format!("Bearer {ALICE}"))
        .body(Body::empty())
        .expect("request");
    let response = mock.router.clone().oneshot(request).await.expect("answer");
    let mut body = response.into_body();
    let first = body
        .frame()
        .await
        .and_then(Result::ok)
        .and_then(|f| f.into_data().ok());
    assert_eq!(first.map(|d| d.len()), Some(8));
    let waiting = tokio::time::timeout(Duration::from_secs(60), body.frame()).await;
    assert!(
        waiting.is_err(),
        "the next piece waits for the virtual clock"
    );
    mock.advance(Duration::from_secs(1));
    let second = body
        .frame()
        .await
        .and_then(Result::ok)
        .and_then(|f| f.into_data().ok());
    assert_eq!(second.map(|d| d.len()), Some(8));
}
