//! Request validation as the live API applies it: each rule answers 400 in the error envelope
//! (`code` = the HTTP status) with a message and `param` naming the field, and creates nothing.

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};

mod options;

fn ok_body() -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": "hi"})
}

/// Sends `body`, expects a 400 of `kind` whose message contains `needle`, and that no response
/// was created.
async fn refused(mock: &Mock, body: Value, kind: &str, param: Option<&str>, needle: &str) {
    let before = mock.handle.agent_responses();
    let reply = mock.agent_create(ALICE, body.clone()).await;
    assert_eq!(reply.status, 400, "{body}: {:#}", reply.body);
    let error = &reply.body["error"];
    assert_eq!(error["type"], kind, "{body}: {error}");
    assert_eq!(error["code"], 400, "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(needle),
        "{body}: `{message}` lacks `{needle}`"
    );
    if let Some(param) = param {
        assert_eq!(error["param"], param, "{error}");
    }
    assert!(reply.headers.contains_key("x-request-id"));
    assert_eq!(
        mock.handle.agent_responses(),
        before,
        "a refused request created a response"
    );
}

fn with(field: &str, value: Value) -> Value {
    let mut body = ok_body();
    body[field] = value;
    body
}

#[tokio::test(start_paused = true)]
async fn input_is_required_and_not_empty() {
    let mock = Mock::new();
    refused(
        &mock,
        json!({"model": "openai/gpt-5.6-terra"}),
        "invalid_request",
        Some("input"),
        "validation failed: input is required",
    )
    .await;
    refused(
        &mock,
        with("input", json!("")),
        "invalid_request",
        Some("input"),
        "validation failed: input cannot be empty",
    )
    .await;
    refused(
        &mock,
        with("input", json!([])),
        "invalid_request",
        Some("input"),
        "input cannot be empty",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn max_steps_is_between_1_and_100() {
    let mock = Mock::new();
    refused(
        &mock,
        with("max_steps", json!(0)),
        "invalid_request",
        Some("max_steps"),
        "validation failed: max steps must be at least 1",
    )
    .await;
    refused(
        &mock,
        with("max_steps", json!(101)),
        "invalid_request",
        Some("max_steps"),
        "at most 100",
    )
    .await;
    assert_eq!(
        mock.agent_create(ALICE, with("max_steps", json!(100)))
            .await
            .status,
        200
    );
    assert_eq!(
        mock.agent_create(ALICE, with("max_steps", json!(1)))
            .await
            .status,
        200
    );
}

#[tokio::test(start_paused = true)]
async fn at_most_five_models_each_known() {
    let mock = Mock::new();
    let six = json!(vec!["openai/gpt-5.6-terra"; 6]);
    refused(
        &mock,
        with("models", six),
        "invalid_request",
        Some("models"),
        "at most 5",
    )
    .await;
    refused(
        &mock,
        with("model", json!("acme/unknown-1")),
        "invalid_model",
        Some("model"),
        "acme/unknown-1",
    )
    .await;
    let five = json!(vec!["openai/gpt-5.6-terra"; 5]);
    assert_eq!(
        mock.agent_create(ALICE, with("models", five)).await.status,
        200
    );
}

#[tokio::test(start_paused = true)]
async fn a_model_a_preset_or_an_effort_is_required_and_presets_must_exist() {
    let mock = Mock::new();
    refused(
        &mock,
        json!({"input": "hi"}),
        "invalid_request",
        Some("model"),
        "one of model, models, preset or effort",
    )
    .await;
    refused(
        &mock,
        json!({"input": "hi", "preset": "turbo"}),
        "invalid_request",
        Some("preset"),
        "unknown preset",
    )
    .await;
    assert_eq!(
        mock.agent_create(ALICE, json!({"input": "hi", "preset": "fast"}))
            .await
            .status,
        200
    );
    refused(
        &mock,
        json!({"input": "hi", "effort": "turbo"}),
        "invalid_request",
        Some("effort"),
        "unknown effort \"turbo\"",
    )
    .await;
    // wide-research runs only in the background (recorded by a third party).
    refused(
        &mock,
        json!({"input": "hi", "preset": "wide-research"}),
        "invalid_request",
        Some("preset"),
        "runs only in the background",
    )
    .await;
    let wide = json!({"input": "hi", "preset": "wide-research", "background": true});
    assert_eq!(mock.agent_create(ALICE, wide).await.status, 200);
    refused(
        &mock,
        json!({"input": "hi", "model": "anthropic/claude-sonnet-4-5"}),
        "invalid_request",
        Some("max_output_tokens"),
        "max_output_tokens is required when using Anthropic models",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn unknown_fields_are_refused_like_the_live_api() {
    let mock = Mock::new();
    refused(
        &mock,
        with("temprature", json!(0.2)),
        "invalid_request",
        Some("temprature"),
        "invalid request body: json: unknown field \"temprature\"",
    )
    .await;
    let tools = json!([{"type": "web_search", "max_result": 3}]);
    refused(
        &mock,
        with("tools", tools),
        "invalid_request",
        Some("tools[0].max_result"),
        "unknown field \"max_result\"",
    )
    .await;
    let tools = json!([{"type": "bogus_tool"}]);
    refused(
        &mock,
        with("tools", tools),
        "invalid_request",
        Some("tools[0].type"),
        "unknown tool type \"bogus_tool\"",
    )
    .await;
    refused(
        &mock,
        with("text", json!({"format": {"type": "text"}})),
        "invalid_parameter",
        Some("text"),
        "response_format",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn at_most_sixteen_mcp_servers_with_unique_well_formed_labels() {
    let mock = Mock::new();
    let servers: Vec<Value> = (0..17)
        .map(|i| json!({"type": "mcp", "server_label": format!("s{i}"), "server_url": "http://127.0.0.1:9/mcp"}))
        .collect();
    refused(
        &mock,
        with("tools", json!(servers)),
        "invalid_request",
        Some("tools"),
        "at most 16 MCP servers",
    )
    .await;
    let bad = json!([{"type": "mcp", "server_label": "has space", "server_url": "http://127.0.0.1:9/mcp"}]);
    refused(
        &mock,
        with("tools", bad),
        "invalid_request",
        Some("tools[0].server_label"),
        "must match ^[a-zA-Z0-9_-]{1,64}$",
    )
    .await;
    let long = "x".repeat(65);
    let bad = json!([{"type": "connector", "id": "connector_slack", "server_label": long}]);
    refused(
        &mock,
        with("tools", bad),
        "invalid_request",
        Some("tools[0].server_label"),
        "must match",
    )
    .await;
    let twice = json!([
        {"type": "connector", "id": "connector_slack", "server_label": "team"},
        {"type": "mcp", "server_label": "team", "server_url": "http://127.0.0.1:9/mcp"}
    ]);
    refused(
        &mock,
        with("tools", twice),
        "invalid_request",
        Some("tools[1].server_label"),
        "already used by tools[0]",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn function_names_of_built_in_tools_are_reserved() {
    let mock = Mock::new();
    for name in [
        "web_search",
        "search_web",
        "people_search",
        "search_people",
        "fetch_url",
        "finance_search",
        "sandbox",
    ] {
        let tools = json!([{"type": "function", "name": name, "parameters": {"type": "object"}}]);
        refused(
            &mock,
            with("tools", tools),
            "invalid_request",
            Some("tools[0].name"),
            &format!("function name \"{name}\" is reserved"),
        )
        .await;
    }
}

#[tokio::test(start_paused = true)]
async fn an_unknown_connector_and_a_bad_fetch_limit_are_refused() {
    let mock = Mock::new();
    let tools = json!([{"type": "connector", "id": "connector_nope", "server_label": "nope"}]);
    refused(
        &mock,
        with("tools", tools),
        "invalid_request",
        Some("tools[0].id"),
        "unknown connector \"connector_nope\"",
    )
    .await;
    let tools = json!([{"type": "web_search", "max_results": 51}]);
    refused(
        &mock,
        with("tools", tools),
        "invalid_request",
        Some("tools[0].max_results"),
        "between 1 and 50",
    )
    .await;
    let tools = json!([{"type": "fetch_url", "max_urls": 11}]);
    refused(
        &mock,
        with("tools", tools),
        "invalid_request",
        Some("tools[0].max_urls"),
        "between 1 and 10",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_malformed_body_is_refused_with_the_parse_error() {
    let mock = Mock::new();
    let before = mock.handle.agent_responses();
    for raw in ["{\"input\": \"hi\",", "[1, 2]", ""] {
        let reply = mock
            .agent_send("POST", "/v1/agent", ALICE, Some(raw.to_owned()))
            .await;
        assert_eq!(reply.status, 400, "{raw}");
        assert_eq!(reply.body["error"]["type"], "invalid_request");
        assert!(
            reply.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("invalid request body")),
            "{:#}",
            reply.body
        );
    }
    assert_eq!(mock.handle.agent_responses(), before);
}

#[tokio::test(start_paused = true)]
async fn a_body_over_32_mib_is_a_413_in_the_envelope() {
    let mock = Mock::new();
    let big = format!(
        "{{\"model\":\"openai/gpt-5.6-terra\",\"input\":\"{}\"}}",
        "a".repeat(32 * 1024 * 1024)
    );
    let reply = mock
        .agent_send("POST", "/v1/responses", ALICE, Some(big))
        .await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.body["error"]["type"], "payload_too_large");
    assert_eq!(reply.body["error"]["code"], 413);
    assert!(reply.headers.contains_key("x-request-id"));
    assert_eq!(mock.handle.agent_responses(), 0);
    // Just under the limit is accepted (no Computer-side 4 MiB cap on this path).
    let fits = format!(
        "{{\"model\":\"openai/gpt-5.6-terra\",\"input\":\"{}\"}}",
        "a".repeat(5 * 1024 * 1024)
    );
    let reply = mock
        .agent_send("POST", "/v1/responses", ALICE, Some(fits))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
}

#[tokio::test(start_paused = true)]
async fn a_missing_or_unknown_key_is_a_401_in_the_envelope() {
    let mock = Mock::new();
    for (token, says) in [("", "missing API key"), ("not-a-key", "invalid API key")] {
        let reply = mock.agent_create(token, ok_body()).await;
        assert_eq!(reply.status, 401, "{token}");
        assert_eq!(reply.body["error"]["code"], 401);
        assert_eq!(reply.body["error"]["type"], "forbidden");
        let message = reply.body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with(says), "{token}: {message}");
        assert!(
            message.contains("Authorization: Bearer") && message.contains("alice-dev-token"),
            "{token}: the message says what to send: {message}"
        );
        assert!(reply.headers.contains_key("x-request-id"));
    }
    assert_eq!(mock.handle.agent_responses(), 0);
}

#[tokio::test(start_paused = true)]
async fn models_are_listed_without_a_key() {
    let mock = Mock::new();
    let reply = mock.agent_get("", "/v1/models").await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["object"], "list");
    let terra = reply.body["data"]
        .as_array()
        .and_then(|d| d.iter().find(|m| m["id"] == "openai/gpt-5.6-terra"))
        .cloned()
        .expect("terra listed");
    assert_eq!(
        terra,
        json!({"id": "openai/gpt-5.6-terra", "object": "model", "created": 0, "owned_by": "openai",
               "pricing": {"input": 2, "output": 12, "cache_write": 2.5, "cache_read": 0.2, "unit": "usd_per_1m_tokens"}})
    );
    // Byte for byte as recorded: whole prices have no fraction.
    let raw = serde_json::to_string(&terra).unwrap_or_default();
    assert!(raw.contains(r#""input":2,"output":12,"#), "{raw}");
}

#[tokio::test(start_paused = true)]
async fn auth_none_acts_as_alice() {
    let mock = Mock::with(mock_server::MockServer::builder().auth(mock_server::AuthMode::None));
    let reply = mock.agent_create("", ok_body()).await;
    assert_eq!(reply.status, 200);
    let id = reply.body["id"].as_str().expect("id");
    assert_eq!(
        mock.agent_get(ALICE, &format!("/v1/agent/{id}"))
            .await
            .status,
        200
    );
}

#[tokio::test(start_paused = true)]
async fn another_accounts_response_is_not_found_and_stays_untouched() {
    // Bob's organization keeps data here, so his own response can be read back afterwards
    // (a zero-data-retention response is never retrievable).
    let mut world: serde_json::Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    if let Some(bob) = world["accounts"]
        .as_array_mut()
        .and_then(|a| a.iter_mut().find(|a| a["id"] == "bob"))
    {
        bob["agent_api"]["zero_data_retention"] = json!(false);
    }
    let builder = mock_server::MockServer::builder()
        .world_json(&world.to_string())
        .expect("world");
    let mock = Mock::with(builder);
    let reply = mock.agent_create(ALICE, ok_body()).await;
    let id = reply.body["id"].as_str().expect("id").to_owned();
    let theirs = mock.agent_get(BOB, &format!("/v1/agent/{id}")).await;
    assert_eq!(theirs.status, 404);
    assert_eq!(
        theirs.body,
        json!({"error": {"message": "resource not found", "type": "not_found", "code": 404}})
    );
    assert_eq!(
        mock.agent_get(BOB, &format!("/v1/agent/{id}/files"))
            .await
            .status,
        404
    );
    let mine = mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await;
    assert_eq!(mine.body, reply.body, "alice's response changed");

    // Continuing someone else's response is refused too.
    let bobs = mock.agent_create(BOB, ok_body()).await;
    let bobs_id = bobs.body["id"].as_str().expect("id").to_owned();
    let continued = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "more", "previous_response_id": bobs_id}),
        )
        .await;
    assert_eq!(continued.status, 400, "{:#}", continued.body);
    assert_eq!(continued.body["error"]["param"], "previous_response_id");
    let message = continued.body["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("is not a response of this account"),
        "{message}"
    );
    let theirs = mock.agent_get(BOB, &format!("/v1/agent/{bobs_id}")).await;
    assert_eq!(theirs.body, bobs.body, "bob's response changed");
}

#[tokio::test(start_paused = true)]
async fn unknown_and_malformed_ids_follow_the_recorded_answers() {
    let mock = Mock::new();
    let unknown = mock
        .agent_get(ALICE, "/v1/agent/resp_00000000-0000-0000-0000-000000000000")
        .await;
    assert_eq!(unknown.status, 404);
    let malformed = mock.agent_get(ALICE, "/v1/agent/not-an-id").await;
    assert_eq!(malformed.status, 400);
    assert_eq!(malformed.body["error"]["message"], "invalid response id");
}

#[tokio::test(start_paused = true)]
async fn a_malformed_approval_policy_is_refused_naming_the_tool() {
    let mock = Mock::new();
    let tools = json!([{"type": "connector", "id": "connector_slack", "server_label": "slack",
                        "require_approval": "sometimes"}]);
    refused(
        &mock,
        with("tools", tools),
        "invalid_request",
        Some("tools[0].require_approval"),
        "tools[0].require_approval",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn an_approval_response_with_nothing_pending_is_refused() {
    let mock = Mock::new();
    let input = json!([{"type": "mcp_approval_response", "approval_request_id": "mcpr_nope", "approve": true}]);
    refused(
        &mock,
        with("input", input),
        "invalid_request",
        None,
        "mcpr_nope",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn api_paths_the_mock_does_not_serve_are_404s_in_the_envelope() {
    let mock = Mock::new();
    for (method, path) in [
        ("GET", "/v1/agent/resp_x/unknown"),
        ("POST", "/v1/responses/resp_x/stop"),
        ("GET", "/responses/resp_x/files/file_1"),
        ("POST", "/v1/batches"),
        ("GET", "/v1/files"),
        ("POST", "/v1/sonar/extra"),
        ("POST", "/search/images"),
        ("POST", "/chat/completions/x"),
    ] {
        let reply = mock
            .agent_send(method, path, ALICE, Some("{}".into()))
            .await;
        assert_eq!(reply.status, 404, "{method} {path}");
        let error = &reply.body["error"];
        assert_eq!(error["type"], "not_found", "{method} {path}: {error}");
        assert_eq!(error["code"], 404, "{error}");
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(path) && message.contains("POST /v1/agent"),
            "{message}"
        );
        assert!(reply.headers.contains_key("x-request-id"), "{path}");
    }
    // Paths outside the API keep the plain 404 the rest of the mock answers.
    let reply = mock.agent_get(ALICE, "/nothing/here").await;
    assert_eq!(reply.status, 404);
    assert!(reply.body.get("error").is_none(), "{}", reply.body);
}

#[tokio::test(start_paused = true)]
async fn a_wrong_method_on_an_agent_path_is_a_405_in_the_envelope() {
    let mock = Mock::new();
    for (method, path, allowed) in [
        ("GET", "/v1/agent", "POST"),
        ("DELETE", "/v1/responses/resp_x", "GET"),
        ("GET", "/v1/agent/resp_x/cancel", "POST"),
        ("POST", "/v1/models", "GET"),
    ] {
        let reply = mock.agent_send(method, path, ALICE, None).await;
        assert_eq!(reply.status, 405, "{method} {path}");
        let error = &reply.body["error"];
        assert_eq!(error["type"], "invalid_request", "{error}");
        assert_eq!(error["code"], 405, "{error}");
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains(&format!("use {allowed}"))),
            "{error}"
        );
        assert_eq!(reply.headers["allow"], allowed, "{method} {path}");
        assert!(reply.headers.contains_key("x-request-id"), "{path}");
    }
}
