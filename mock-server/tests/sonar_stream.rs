//! Streamed chat completions: server-sent events the SDKs parse (one `data:` line of JSON per
//! chunk, no `event:` line, no `[DONE]`), the first delta carrying the assistant role, the
//! deltas adding up to the message, one last chunk with the finish reason and the whole usage;
//! `concise` mode's four chunk types; each chunk at its time on the virtual clock.

use std::time::Duration;

use axum::body::Body;
use http::Request;
use http_body_util::BodyExt;
use mock_server::MockServer;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::Mock;
use crate::common::sonar::{ask, with};

fn streamed(model: &str, question: &str) -> Value {
    with(ask(model, question), "stream", json!(true))
}

/// The next chunk of a stream within ten seconds (of paused tokio time, which the manual
/// clock does not follow), keep-alive comments skipped.
async fn next(body: &mut Body) -> Option<bytes::Bytes> {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), body.frame())
            .await
            .ok()??;
        let data = frame.ok()?.into_data().ok()?;
        if !data.starts_with(b":") {
            return Some(data);
        }
    }
}

fn deltas(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["choices"][0]["delta"]["content"].as_str())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_stream_starts_with_the_assistant_role_adds_up_and_ends_with_the_whole_usage() {
    let mock = Mock::new();
    let reply = mock
        .chat(streamed("sonar", "What is new in solar power?"))
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    let events = &reply.events;
    assert!(events.len() > 5, "{} chunks", events.len());
    assert!(
        events.iter().all(Value::is_object),
        "every data line is JSON (no [DONE])"
    );
    assert!(
        events
            .iter()
            .all(|e| e["object"] == "chat.completion.chunk")
    );
    let id = &events[0]["id"];
    assert!(
        events.iter().all(|e| &e["id"] == id),
        "one id for the whole stream"
    );
    assert_eq!(events[0]["choices"][0]["delta"]["role"], "assistant");
    let last = events.last().expect("a last chunk");
    let message = last["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(deltas(events), message);
    assert!(message.contains("solar power[1]"));
    let finished: Vec<&Value> = events
        .iter()
        .map(|e| &e["choices"][0]["finish_reason"])
        .filter(|f| !f.is_null())
        .collect();
    assert_eq!(finished, [&json!("stop")]);
    // Interim chunks carry the tokens so far and the zero cost skeleton; the last one the bill.
    let interim = &events[1]["usage"];
    assert_eq!(interim["cost"]["total_cost"], 0.0);
    assert!(interim["cost"].get("request_cost").is_none());
    assert_eq!(last["usage"]["cost"]["request_cost"], 0.005);
    assert!(
        events[1]["choices"][0]["message"]["content"]
            .as_str()
            .is_some_and(|so_far| message.starts_with(so_far)),
        "each chunk carries the message so far"
    );
    assert_eq!(
        events[0]["citations"], last["citations"],
        "sources on every chunk"
    );
}

#[tokio::test(start_paused = true)]
async fn images_and_related_questions_come_on_the_last_chunk() {
    let mock = Mock::new();
    let mut body = streamed("sonar", "volcanoes");
    body["return_images"] = json!(true);
    body["return_related_questions"] = json!(true);
    let events = mock.chat(body).await.events;
    let (last, rest) = events.split_last().expect("chunks");
    assert_eq!(last["images"].as_array().map(Vec::len), Some(3));
    assert_eq!(last["related_questions"].as_array().map(Vec::len), Some(3));
    assert!(rest.iter().all(|e| e.get("images").is_none()));
}

#[tokio::test(start_paused = true)]
async fn concise_mode_sends_reasoning_then_deltas_then_a_done_chunk_with_the_sources() {
    let mock = Mock::new();
    let body = with(
        streamed("sonar-pro", "fusion"),
        "stream_mode",
        json!("concise"),
    );
    let events = mock.chat(body).await.events;
    let objects: Vec<&str> = events.iter().filter_map(|e| e["object"].as_str()).collect();
    assert_eq!(objects[..2], ["chat.reasoning", "chat.reasoning.done"]);
    assert_eq!(objects.last(), Some(&"chat.completion.done"));
    assert!(
        objects[2..objects.len() - 1]
            .iter()
            .all(|o| *o == "chat.completion.chunk")
    );
    let step = &events[0]["choices"][0]["delta"]["reasoning_steps"][0];
    assert_eq!(step["type"], "web_search");
    assert_eq!(step["web_search"]["search_keywords"], json!(["fusion"]));
    let chunks = &events[2..events.len() - 1];
    assert!(chunks.iter().all(|e| e.get("search_results").is_none()));
    assert!(
        chunks
            .iter()
            .all(|e| e["choices"][0]["message"]["content"] == "")
    );
    let done = events.last().expect("done");
    assert_eq!(
        deltas(chunks),
        done["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or("")
    );
    assert_eq!(done["search_results"].as_array().map(Vec::len), Some(6));
    assert_eq!(done["choices"][0]["finish_reason"], "stop");
    assert!(done["usage"]["cost"]["request_cost"].is_number());
}

#[tokio::test(start_paused = true)]
async fn a_reasoning_models_stream_starts_with_its_think_block() {
    let mock = Mock::new();
    let events = mock
        .chat(streamed("sonar-reasoning-pro", "tides"))
        .await
        .events;
    assert!(deltas(&events).starts_with("<think>\nThe question is about tides."));
    assert!(
        events[0]["choices"][0]["delta"]["content"]
            .as_str()
            .is_some_and(|first| first.starts_with("<think>"))
    );
}

#[tokio::test(start_paused = true)]
async fn the_long_answer_streams_many_chunks_each_at_its_time_on_the_virtual_clock() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let request = Request::post("/chat/completions")
        .header("authorization", "Bearer alice-dev-token")
        .header("content-type", "application/json")
        .body(Body::from(
            streamed("sonar", "#long-answer the history of computing").to_string(),
        ))
        .expect("request");
    let response = mock.router.clone().oneshot(request).await.expect("router");
    assert_eq!(response.status(), 200, "the head comes at once");
    let mut body = response.into_body();
    assert!(
        next(&mut body).await.is_none(),
        "no chunk before the first token"
    );
    mock.advance(Duration::from_secs(2));
    let first = next(&mut body)
        .await
        .expect("the first chunk at two seconds");
    assert!(first.starts_with(b"data: {"), "{first:?}");
    assert!(
        next(&mut body).await.is_none(),
        "the next chunk waits 150 ms"
    );
    mock.advance(Duration::from_millis(150));
    assert!(next(&mut body).await.is_some());
    // Let the rest out: the answer has about seventy chunks.
    mock.advance(Duration::from_secs(60));
    let mut chunks = 2;
    let mut text = String::new();
    while let Some(bytes) = next(&mut body).await {
        text.push_str(&String::from_utf8_lossy(&bytes));
        chunks += 1;
    }
    assert!(chunks > 60, "{chunks} chunks");
    assert!(!text.contains("[DONE]") && !text.contains("event:"));
    assert!(text.contains(r#""finish_reason":"stop""#));
}
