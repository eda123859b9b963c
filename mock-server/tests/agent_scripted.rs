//! The scripted model: routing by `#name`, `match` and fallback; function calls and their
//! continuation; shared files; failed and incomplete runs; injected HTTP faults; scenario files
//! refused at load with their JSON pointer.

use std::io::Write;

use mock_server::MockServer;
use serde_json::json;

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB, event_types, item_types};

#[tokio::test(start_paused = true)]
async fn a_hashtag_selects_a_scenario_then_match_then_the_default() {
    let mock = Mock::new();
    let tools = json!([{"type": "function", "name": "get_weather", "parameters": {"type": "object"}},
                       {"type": "web_search"}]);
    let tagged = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#function-weather hi", "tools": tools}))
        .await;
    assert_eq!(item_types(&tagged.body), ["function_call"]);
    let matched = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "what's the weather like?", "tools": tools}))
        .await;
    assert_eq!(item_types(&matched.body), ["function_call"]);
    let fallback = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hello", "tools": [{"type": "web_search"}]}),
        )
        .await;
    assert_eq!(item_types(&fallback.body), ["search_results", "message"]);
    // The default model calls a function when the request offers one (agent_function_calls.rs).
    let with_function = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hello", "tools": tools}),
        )
        .await;
    assert_eq!(item_types(&with_function.body), ["function_call"]);
}

#[tokio::test(start_paused = true)]
async fn a_function_call_waits_for_its_output_in_a_continuation() {
    let mock = Mock::new();
    let tools = json!([{"type": "function", "name": "get_weather",
                        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]);
    let first = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#function-weather in Paris?", "tools": tools}))
        .await;
    assert_eq!(first.body["status"], "completed");
    let call = &first.body["output"][0];
    assert_eq!(call["type"], "function_call");
    assert_eq!(call["name"], "get_weather");
    assert_eq!(call["arguments"], "{\"city\":\"Paris\"}");
    assert_eq!(call["status"], "completed");
    let call_id = call["call_id"].as_str().expect("call_id");
    assert!(call_id.starts_with("call_"));

    let second = mock
        .agent_create(ALICE, json!({
            "model": "openai/gpt-5.6-terra",
            "previous_response_id": first.body["id"],
            "input": [{"type": "function_call_output", "call_id": call_id, "output": "18°C and sunny"}],
            "tools": tools,
        }))
        .await;
    assert_eq!(second.status, 200, "{:#}", second.body);
    assert_eq!(item_types(&second.body), ["message"]);
    assert_eq!(
        second.body["output"][0]["content"][0]["text"],
        "The weather in Paris: 18°C and sunny"
    );
    assert_eq!(second.body["previous_response_id"], first.body["id"]);
}

#[tokio::test(start_paused = true)]
async fn a_shared_file_is_listed_and_downloadable() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#shared-file", "tools": [{"type": "sandbox"}]}))
        .await;
    assert_eq!(
        item_types(&reply.body),
        ["sandbox_results", "share_file", "message"]
    );
    let id = reply.body["id"].as_str().expect("id");
    let shared = &reply.body["output"][1];
    let list = mock
        .agent_get(ALICE, &format!("/v1/agent/{id}/files"))
        .await;
    assert_eq!(list.body["object"], "list");
    let file = &list.body["data"][0];
    assert_eq!(file["id"], shared["file_id"]);
    assert_eq!(file["object"], "file");
    assert_eq!(file["filename"], "report.md");
    assert_eq!(file["bytes"], shared["size_bytes"]);
    let url = shared["url"].as_str().expect("url");
    assert_eq!(
        url,
        format!(
            "/v1/responses/{id}/files/{}/content",
            file["id"].as_str().unwrap_or_default()
        )
    );
    let content = mock.agent_get(ALICE, url).await;
    assert_eq!(content.status, 200);
    assert_eq!(content.body, json!("# Report\n\nAll systems nominal.\n"));
    let missing = mock
        .agent_get(
            ALICE,
            &format!("/v1/responses/{id}/files/file_nope/content"),
        )
        .await;
    assert_eq!(missing.status, 404);
    assert_eq!(mock.agent_get(BOB, url).await.status, 404);
}

#[tokio::test(start_paused = true)]
async fn a_failed_run_is_http_200_with_an_error_in_every_mode() {
    let mock = Mock::new();
    let body = json!({"model": "openai/gpt-5.6-terra", "input": "#model-failure", "tools": [{"type": "web_search"}]});
    let sync = mock.agent_create(ALICE, body.clone()).await;
    assert_eq!(sync.status, 200);
    assert_eq!(sync.body["status"], "failed");
    assert_eq!(
        sync.body["error"]["type"],
        "upstream_structured_output_failed"
    );
    assert_eq!(
        sync.body["error"]["message"],
        "the model did not produce a valid response"
    );
    // Only a completed run has a completion time (the recorded incomplete and cancelled
    // responses keep `completed_at` null).
    assert!(sync.body["completed_at"].is_null(), "{:#}", sync.body);
    let mut streamed = body.clone();
    streamed["stream"] = json!(true);
    let stream = mock.agent_create(ALICE, streamed).await;
    assert_eq!(stream.status, 200);
    let last = stream.events.last().expect("terminal");
    assert_eq!(last["type"], "response.failed");
    assert_eq!(last["error"], sync.body["error"]);
}

#[tokio::test(start_paused = true)]
async fn an_incomplete_run_reports_the_reason() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#incomplete", "stream": true}),
        )
        .await;
    let last = reply.events.last().expect("terminal");
    assert_eq!(last["type"], "response.incomplete");
    assert_eq!(last["response"]["status"], "incomplete");
    assert_eq!(
        last["response"]["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(last["response"]["completed_at"], serde_json::Value::Null);
    assert!(last["response"]["usage"]["input_tokens"].is_u64());
}

#[tokio::test(start_paused = true)]
async fn a_rate_limit_fault_sends_retry_headers_then_lets_the_request_through() {
    let mock = Mock::new();
    let body = json!({"model": "openai/gpt-5.6-terra", "input": "#rate-limited"});
    for attempt in 0..2 {
        let reply = mock.agent_create(ALICE, body.clone()).await;
        assert_eq!(reply.status, 429, "attempt {attempt}");
        assert_eq!(reply.body["error"]["type"], "request_rate_limit_exceeded");
        assert_eq!(reply.body["error"]["code"], 429);
        assert_eq!(reply.headers["retry-after-ms"], "1");
        assert_eq!(reply.headers["x-ratelimit-remaining"], "0");
        assert!(reply.headers.contains_key("x-ratelimit-reset"));
        assert!(reply.headers.contains_key("x-request-id"));
    }
    assert_eq!(mock.handle.agent_responses(), 0);
    let third = mock.agent_create(ALICE, body).await;
    assert_eq!(third.status, 200);
    assert_eq!(
        third.body["output"][0]["content"][0]["text"],
        "Hello after the rate limit."
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_error_fault_is_a_500_every_time() {
    let mock = Mock::new();
    for _ in 0..3 {
        let reply = mock
            .agent_create(
                ALICE,
                json!({"model": "openai/gpt-5.6-terra", "input": "#server-error"}),
            )
            .await;
        assert_eq!(reply.status, 500);
        assert_eq!(reply.body["error"]["type"], "internal_error");
    }
}

#[tokio::test(start_paused = true)]
async fn steps_for_tools_the_request_lacks_are_skipped_and_max_steps_caps_tool_steps() {
    let mock = Mock::new();
    let no_tools = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#background-research x"}),
        )
        .await;
    assert_eq!(item_types(&no_tools.body), ["message"]);
    let capped = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#background-research x", "max_steps": 2,
                                    "tools": [{"type": "web_search"}, {"type": "fetch_url"}]}))
        .await;
    assert_eq!(
        item_types(&capped.body),
        ["search_results", "fetch_url_results", "message"]
    );
}

#[tokio::test(start_paused = true)]
async fn reasoning_and_search_events_come_before_the_items() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "hi", "stream": true, "tools": [{"type": "web_search"}]}))
        .await;
    // The answer streams as several deltas; a run of them counts once here.
    let mut types = event_types(&reply.events);
    let deltas = types
        .iter()
        .filter(|t| *t == "response.output_text.delta")
        .count();
    assert!(deltas > 1, "{types:?}");
    types.dedup_by(|a, b| a == b && a == "response.output_text.delta");
    assert_eq!(
        types,
        [
            "response.created",
            "response.in_progress",
            "response.reasoning.started",
            "response.reasoning.stopped",
            "response.reasoning.search_queries",
            "response.reasoning.search_results",
            "response.output_item.added",
            "response.output_item.done",
            "response.output_item.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    assert_eq!(reply.events[4]["queries"], json!(["hi"]));
}

#[tokio::test(start_paused = true)]
async fn a_user_scenario_file_adds_to_the_catalog_and_a_bad_one_is_refused_with_its_pointer() {
    let dir = std::env::temp_dir().join(format!("agent-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let good = dir.join("mine.json");
    let mut file = std::fs::File::create(&good).expect("file");
    write!(
        file,
        "{}",
        json!({"name": "my-agent", "description": "d", "agent": {"turns": [{"steps": [{"type": "message", "text": "mine"}]}]}})
    )
    .expect("write");
    let mock = Mock::with(MockServer::builder().fixtures(&good));
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#my-agent"}),
        )
        .await;
    assert_eq!(reply.body["output"][0]["content"][0]["text"], "mine");

    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        json!({"name": "bad-agent", "description": "d", "agent": {"turns": [{"steps": [{"type": "message", "text": "x", "duration": "soon"}]}]}}).to_string(),
    )
    .expect("write");
    let error = MockServer::builder()
        .fixtures(&bad)
        .router("http://127.0.0.1:1")
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("bad.json"), "{error}");
    assert!(error.contains("/agent/turns/0/steps/0"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn the_catalog_has_the_issues_scenarios_and_lists_them_on_the_control_api() {
    let mock = Mock::new();
    let reply = mock.get("/_mock/scenarios").await;
    assert_eq!(reply.body["agent_fallback"], "agent-default");
    let names: Vec<&str> = reply.body["agent_scenarios"]
        .as_array()
        .map(|list| list.iter().filter_map(|s| s["name"].as_str()).collect())
        .unwrap_or_default();
    for name in [
        "slack-summary",
        "deepwiki-question",
        "github-sandbox",
        "mcp-approval",
        "connector-auth-lapsed",
        "discovery-failure",
        "background-research",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    // Computer scenarios are listed apart and do not include Agent API ones.
    let computer: Vec<&str> = reply.body["scenarios"]
        .as_array()
        .map(|list| list.iter().filter_map(|s| s["name"].as_str()).collect())
        .unwrap_or_default();
    assert!(!computer.contains(&"slack-summary"));
}
