//! In-call elicitation in the handshake era: for a session that declared elicitation, the
//! call's SSE stream carries `elicitation/create`, the client POSTs its response back, and the
//! same call continues (or returns the event when the user declined a question).

mod common;

use axum::body::Body;
use common::{Client, MCP, Mock, text_json};
use http::Request;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

/// Calls `call_perplexity_computer` with `message` and answers each `elicitation/create` on the
/// stream with `respond(params)` (after opening its `url` first, when `open` is set, as a user
/// who finishes on the page); returns the elicitation params seen and the final result.
async fn call_answering(
    client: &Client,
    message: &str,
    open: bool,
    respond: impl Fn(&Value) -> Value,
) -> (Vec<Value>, Value) {
    let session = client.session.clone().expect("session");
    let body = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
                      "params": {"name": "call_perplexity_computer", "arguments": {"message": message}}});
    let request = Request::post(MCP)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer alice-dev-token")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", &client.version)
        .body(Body::from(body.to_string()))
        .expect("request");
    let response = client
        .mock
        .router
        .clone()
        .oneshot(request)
        .await
        .expect("infallible");
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/event-stream")
    );
    let mut body = response.into_body();
    let mut buffer = String::new();
    let mut seen = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("frame");
        let Some(data) = frame.data_ref() else {
            continue;
        };
        buffer.push_str(&String::from_utf8_lossy(data));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let Some(json) = event
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .filter(|d| !d.is_empty())
            else {
                continue;
            };
            let message: Value = serde_json::from_str(json).expect("json");
            if message["method"] == "elicitation/create" {
                seen.push(message["params"].clone());
                if open {
                    let url = message["params"]["url"].as_str().unwrap_or("");
                    assert_eq!(client.mock.get(url).await.status, 200);
                }
                let reply = client
                    .post(json!({"jsonrpc": "2.0", "id": message["id"],
                                 "result": respond(&message["params"])}))
                    .await;
                assert_eq!(reply.status, 202);
            } else if message["id"] == 77 {
                return (seen, message["result"].clone());
            }
        }
    }
    panic!("the stream ended without a result; elicitations: {seen:?}");
}

const QUESTION: &str = "#elicitation-question Build the sales report";

#[tokio::test(start_paused = true)]
async fn a_question_is_sent_as_a_form_on_the_stream_and_the_answer_continues_the_call() {
    let mock = Mock::new();
    let client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"elicitation": {"form": {}}}),
        )
        .await;

    let (seen, result) = call_answering(
        &client,
        QUESTION,
        false,
        |_| json!({"action": "accept", "content": {"q1": "PDF"}}),
    )
    .await;

    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["mode"], "form");
    assert_eq!(
        seen[0]["requestedSchema"]["properties"]["q1"]["enum"],
        json!(["PDF", "DOCX"])
    );
    assert_eq!(text_json(&result)["event"], "complete", "{result}");
}

#[tokio::test(start_paused = true)]
async fn a_declined_question_returns_the_event() {
    let mock = Mock::new();
    let client = mock
        .session_with("alice-dev-token", "2025-11-25", json!({"elicitation": {}}))
        .await;
    let (_, result) =
        call_answering(&client, QUESTION, false, |_| json!({"action": "decline"})).await;
    assert_eq!(text_json(&result)["event"], "ask_user_question");
}

#[tokio::test(start_paused = true)]
async fn a_2025_06_18_form_has_no_mode_field() {
    let mock = Mock::new();
    let client = mock
        .session_with("alice-dev-token", "2025-06-18", json!({"elicitation": {}}))
        .await;
    let (seen, _) = call_answering(
        &client,
        "#elicitation-confirm Email it",
        false,
        |_| json!({"action": "accept"}),
    )
    .await;
    assert_eq!(seen.len(), 1);
    assert!(seen[0].get("mode").is_none(), "{seen:?}");
}

#[tokio::test(start_paused = true)]
async fn a_sign_in_is_a_url_with_an_elicitation_id_and_the_page_continues_it() {
    let mock = Mock::new();
    let client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"elicitation": {"form": {}, "url": {}}}),
        )
        .await;
    let (seen, result) = call_answering(
        &client,
        "#elicitation-sign-in Summarize my Slack",
        true,
        |_| json!({"action": "accept"}),
    )
    .await;
    assert_eq!(seen[0]["mode"], "url");
    assert!(seen[0]["elicitationId"].is_string());
    assert_eq!(text_json(&result)["event"], "complete", "{result}");
}

#[tokio::test(start_paused = true)]
async fn a_session_without_elicitation_gets_the_event_as_before() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .call_json("call_perplexity_computer", json!({"message": QUESTION}))
        .await;
    assert_eq!(result["event"], "ask_user_question");
}
