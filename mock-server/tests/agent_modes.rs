//! Sync, stream and background modes of `POST /v1/agent` (≡ `/v1/responses` ≡ `/responses`),
//! GET while running, and the usage/cost of terminal responses.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::agent::{ALICE, event_types, item_types};
use crate::common::{self, Mock};

fn body(input: &str) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": input, "tools": [{"type": "web_search"}]})
}

#[tokio::test(start_paused = true)]
async fn sync_create_answers_the_completed_response_with_usage_and_cost() {
    let mock = Mock::new();
    let reply = mock.agent_create(ALICE, body("What is new?")).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let r = &reply.body;
    assert_eq!(r["object"], "response");
    assert_eq!(r["status"], "completed");
    assert_eq!(r["model"], "openai/gpt-5.6-terra");
    assert!(r["id"].as_str().is_some_and(|id| id.starts_with("resp_")));
    assert_eq!(item_types(r), ["search_results", "message"]);
    // The default model answers about the input, citing what it found.
    let answer = r["output"][1]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        answer.starts_with("Here is what I found about “What is new”") && answer.contains("[1]"),
        "{answer}"
    );
    let usage = &r["usage"];
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(
            usage["input_tokens"].as_u64().unwrap_or(0)
                + usage["output_tokens"].as_u64().unwrap_or(0)
        )
    );
    assert_eq!(usage["cost"]["currency"], "USD");
    // Whole amounts are integers on the wire, like the recorded `"input_cost":0`.
    assert_eq!(usage["cost"]["cache_read_cost"].to_string(), "0");
    assert_eq!(usage["tool_calls_details"]["search_web"]["invocation"], 1);
    assert!(r["completed_at"].is_i64());
    let request_id = reply.headers["x-request-id"].to_str().expect("header");
    assert_eq!(
        format!("resp_{request_id}"),
        r["id"].as_str().unwrap_or_default()
    );
    assert!(reply.headers.contains_key("x-ratelimit-limit"));
}

#[tokio::test(start_paused = true)]
async fn every_alias_path_serves_the_same_api() {
    let mock = Mock::new();
    for path in ["/v1/agent", "/v1/responses", "/responses"] {
        let reply = mock
            .agent_send("POST", path, ALICE, Some(body("hi").to_string()))
            .await;
        assert_eq!(reply.status, 200, "{path}: {:#}", reply.body);
        let id = reply.body["id"].as_str().expect("id").to_owned();
        let again = mock.agent_get(ALICE, &format!("{path}/{id}")).await;
        assert_eq!(again.body["id"], id.as_str(), "{path}");
    }
}

#[tokio::test(start_paused = true)]
async fn streaming_is_decided_by_the_body_and_ends_with_one_terminal_event() {
    let mock = Mock::new();
    let mut request = body("hi");
    request["stream"] = json!(true);
    // Both SDKs send Accept: application/json even when streaming.
    let reply = mock
        .send(
            http::Request::post("/v1/responses")
                .header("authorization", "Bearer alice-dev-token")
                .header("accept", "application/json")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(request.to_string()))
                .expect("request"),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert!(
        reply.headers["content-type"]
            .to_str()
            .is_ok_and(|v| v.starts_with("text/event-stream"))
    );
    let types = event_types(&reply.events);
    assert_eq!(types.first().map(String::as_str), Some("response.created"));
    assert_eq!(
        types.get(1).map(String::as_str),
        Some("response.in_progress")
    );
    assert_eq!(types.last().map(String::as_str), Some("response.completed"));
    let terminals = types
        .iter()
        .filter(|t| {
            matches!(
                t.as_str(),
                "response.completed"
                    | "response.failed"
                    | "response.incomplete"
                    | "response.cancelled"
            )
        })
        .count();
    assert_eq!(terminals, 1);
    for (i, event) in reply.events.iter().enumerate() {
        assert_eq!(event["sequence_number"], i, "{event}");
    }
    let text: String = reply
        .events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .filter_map(|e| e["delta"].as_str())
        .collect();
    let done = reply.events.last().expect("terminal");
    assert_eq!(
        done["response"]["output"][1]["content"][0]["text"],
        json!(text),
        "the deltas spell the answer"
    );
    assert!(text.starts_with("Here is what I found about"), "{text}");
    assert_eq!(done["response"]["status"], "completed");
    assert!(done["response"]["usage"]["total_tokens"].is_u64());
}

#[tokio::test(start_paused = true)]
async fn background_is_queued_at_once_then_runs_on_the_virtual_clock() {
    let mock = Mock::with(mock_server::MockServer::builder().manual_clock());
    let mut request = body("#background-research solid-state batteries");
    request["background"] = json!(true);
    request["tools"] = json!([{"type": "web_search"}, {"type": "fetch_url"}]);
    let reply = mock.agent_create(ALICE, request).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["status"], "queued");
    assert_eq!(reply.body["output"], json!([]));
    assert_eq!(reply.body["usage"], Value::Null);
    let id = reply.body["id"].as_str().expect("id").to_owned();
    let path = format!("/v1/responses/{id}");

    mock.advance(Duration::from_secs(6));
    settle().await;
    let running = mock.agent_get(ALICE, &path).await;
    assert_eq!(running.body["status"], "in_progress");

    mock.advance(Duration::from_secs(60));
    settle().await;
    let running = mock.agent_get(ALICE, &path).await;
    assert_eq!(running.body["status"], "in_progress");
    // Like the live snapshot: the items found so far are already there.
    assert_eq!(item_types(&running.body), ["search_results"]);
    assert_eq!(running.body["usage"], Value::Null);

    mock.advance(Duration::from_secs(600));
    settle().await;
    let done = mock.agent_get(ALICE, &path).await;
    assert_eq!(done.body["status"], "completed");
    assert_eq!(done.body["model"], "openai/gpt-5.6-terra");
    assert_eq!(
        item_types(&done.body),
        [
            "search_results",
            "fetch_url_results",
            "search_results",
            "fetch_url_results",
            "message"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_preset_run_shows_the_preset_until_it_completes_with_the_served_model() {
    let mock = Mock::with(mock_server::MockServer::builder().manual_clock());
    let request = json!({"preset": "medium", "input": "#background-research batteries", "background": true, "store": true});
    let reply = mock.agent_create(ALICE, request).await;
    assert_eq!(reply.body["model"], "medium");
    let path = format!("/v1/agent/{}", reply.body["id"].as_str().expect("id"));
    mock.advance(Duration::from_secs(3600));
    settle().await;
    let done = mock.agent_get(ALICE, &path).await;
    assert_eq!(done.body["status"], "completed");
    assert_eq!(done.body["model"], "openai/gpt-6-sol");
}

/// Lets spawned runs catch up with a manual clock advance.
async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(start_paused = true)]
async fn every_agent_exchange_is_journaled_with_its_stream_events() {
    let mock = Mock::new();
    let mut request = body("hi");
    request["stream"] = json!(true);
    let reply = mock.agent_create(ALICE, request.clone()).await;
    let missing = mock.agent_get(ALICE, "/v1/agent/resp_nope").await;
    assert_eq!(missing.status, 404);
    let exchanges = mock.handle.journal().exchanges();
    let create = exchanges
        .iter()
        .find(|e| e.path == "/v1/responses")
        .expect("create journaled");
    assert_eq!(create.request_body, request);
    assert_eq!(create.status, 200);
    assert_eq!(
        create.request_headers["authorization"],
        format!("Bearer {}", mock_server::fingerprint(ALICE))
    );
    let journaled: Vec<Value> = create.sse_events.iter().map(|e| e.data.clone()).collect();
    assert_eq!(journaled, reply.events);
    let get = exchanges
        .iter()
        .find(|e| e.path == "/v1/agent/resp_nope")
        .expect("GET journaled");
    assert_eq!(get.status, 404);
    assert_eq!(get.response_body["error"]["type"], "not_found");
}

#[tokio::test(start_paused = true)]
async fn rate_limit_headers_count_an_accounts_requests_in_the_minute() {
    let mock = Mock::new();
    let first = mock.agent_create(ALICE, body("hi")).await;
    assert_eq!(first.headers["x-ratelimit-limit"], "50");
    assert_eq!(first.headers["x-ratelimit-used"], "1");
    assert_eq!(first.headers["x-ratelimit-remaining"], "49");
    let second = mock.agent_create(ALICE, body("hi")).await;
    assert_eq!(second.headers["x-ratelimit-used"], "2");
    assert_eq!(second.headers["x-ratelimit-remaining"], "48");
    let bob = mock.agent_create(common::agent::BOB, body("hi")).await;
    assert_eq!(bob.headers["x-ratelimit-used"], "1", "per account");
}

#[tokio::test(start_paused = true)]
async fn accept_event_stream_without_stream_true_still_answers_json() {
    let mock = Mock::new();
    let reply = mock
        .send(
            http::Request::post("/v1/agent")
                .header("authorization", "Bearer alice-dev-token")
                .header("accept", "text/event-stream")
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body("hi").to_string()))
                .expect("request"),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert!(
        reply.headers["content-type"]
            .to_str()
            .is_ok_and(|v| v.starts_with("application/json"))
    );
    assert_eq!(reply.body["status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn response_format_is_echoed_as_text_format_and_the_answer_fits_the_schema() {
    let mock = Mock::new();
    let schema = json!({"type": "object", "properties": {
        "answer": {"type": "string"}, "confidence": {"type": "number"}}, "required": ["answer"]});
    let mut request = body("#agent-default What is new?");
    request["response_format"] =
        json!({"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}});
    let reply = mock.agent_create(ALICE, request.clone()).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(
        reply.body["text"],
        json!({"format": {"type": "json_schema", "name": "answer", "schema": schema}})
    );
    let text = reply.body["output"][1]["content"][0]["text"]
        .as_str()
        .expect("message text");
    let parsed: Value = serde_json::from_str(text).expect("the answer is JSON");
    assert_eq!(parsed["confidence"], 0);
    assert!(
        parsed["answer"]
            .as_str()
            .is_some_and(|a| a.starts_with("Here is what I found about “What is new”")),
        "{parsed}"
    );

    // The stream's deltas spell the same document, and its snapshots carry the same format.
    request["stream"] = json!(true);
    let stream = mock.agent_create(ALICE, request).await;
    let deltas: String = stream
        .events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .filter_map(|e| e["delta"].as_str())
        .collect();
    assert_eq!(deltas, text);
    assert_eq!(stream.events[0]["response"]["text"], reply.body["text"]);

    // Without a response_format the format stays plain text.
    let plain = mock.agent_create(ALICE, body("hi")).await;
    assert_eq!(plain.body["text"], json!({"format": {"type": "text"}}));
}

#[tokio::test(start_paused = true)]
async fn max_tool_calls_caps_the_tool_calls_and_truncation_is_echoed() {
    let mock = Mock::new();
    let request = json!({"model": "openai/gpt-5.6-terra", "input": "#background-research batteries",
        "tools": [{"type": "web_search"}, {"type": "fetch_url"}], "max_tool_calls": 1,
        "truncation": "auto"});
    let reply = mock.agent_create(ALICE, request).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(item_types(&reply.body), ["search_results", "message"]);
    assert_eq!(reply.body["max_tool_calls"], 1);
    assert_eq!(reply.body["truncation"], "auto");

    let plain = mock.agent_create(ALICE, body("hi")).await;
    assert_eq!(plain.body["truncation"], "");

    // tool_choice "none": the model answers without its tools.
    let mut none = body("#agent-default What is new?");
    none["tool_choice"] = json!("none");
    let reply = mock.agent_create(ALICE, none).await;
    assert_eq!(item_types(&reply.body), ["message"]);
    assert_eq!(reply.body["tool_choice"], "none");
}

#[tokio::test(start_paused = true)]
async fn a_zero_data_retention_response_is_not_stored_and_says_so() {
    // Agent API, MCP tool: "Organizations with Zero Data Retention (ZDR) cannot use
    // previous_response_id". Nothing is retained for a later GET either: `store` reports
    // false and the response is hidden from retrieve calls, as for `store: false`.
    let mock = Mock::new();
    let mut request = body("hi");
    request["store"] = json!(true);
    let reply = mock.agent_create(common::agent::BOB, request.clone()).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["store"], false);
    let id = reply.body["id"].as_str().expect("id");
    let get = mock
        .agent_get(common::agent::BOB, &format!("/v1/agent/{id}"))
        .await;
    assert_eq!(get.status, 404);
    assert_eq!(get.body["error"]["type"], "not_found");
    // A background run is accepted but cannot be polled, like a background run with store false.
    request["background"] = json!(true);
    let queued = mock.agent_create(common::agent::BOB, request).await;
    assert_eq!(queued.body["status"], "queued");
    assert_eq!(queued.body["store"], false);
    let id = queued.body["id"].as_str().expect("id");
    let poll = mock
        .agent_get(common::agent::BOB, &format!("/v1/agent/{id}"))
        .await;
    assert_eq!(poll.status, 404);
    // An account that keeps data gets what it asked for.
    let kept = mock.agent_create(ALICE, body("hi")).await;
    assert_eq!(kept.body["store"], true);
}
