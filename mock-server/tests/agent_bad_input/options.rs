//! Response formats, web search filters, truncation, input items and enumerated options, each
//! refused naming the field.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_response_format_without_an_object_schema_is_refused() {
    let mock = Mock::new();
    refused(
        &mock,
        with("response_format", json!({"type": "json_object"})),
        "invalid_parameter",
        Some("response_format.type"),
        "must be \"json_schema\"",
    )
    .await;
    refused(
        &mock,
        with(
            "response_format",
            json!({"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "string"}}}),
        ),
        "invalid_parameter",
        Some("response_format.json_schema.schema"),
        "root is",
    )
    .await;
    refused(
        &mock,
        with("response_format", json!({"type": "json_schema"})),
        "invalid_parameter",
        Some("response_format.json_schema"),
        "json_schema is required",
    )
    .await;
}

fn with_search(tool: Value) -> Value {
    let mut body = ok_body();
    body["tools"] = json!([tool]);
    body
}

#[tokio::test(start_paused = true)]
async fn web_search_filters_are_checked_as_the_live_api_does() {
    let mock = Mock::new();
    // The recorded live wording.
    refused(
        &mock,
        with_search(json!({"type": "web_search", "filters": {"search_recency_filter": "decade"}})),
        "invalid_request",
        Some("tools[0].filters.search_recency_filter"),
        "validation failed: tools[0]: search recency filter must be one of: hour day week month year",
    )
    .await;
    refused(
        &mock,
        with_search(
            json!({"type": "web_search", "filters": {"search_after_date_filter": "2025-03-01"}}),
        ),
        "invalid_date_format",
        Some("tools[0].filters.search_after_date_filter"),
        "MM/DD/YYYY",
    )
    .await;
    let domains: Vec<String> = (0..21).map(|i| format!("site{i}.example")).collect();
    refused(
        &mock,
        with_search(json!({"type": "web_search", "filters": {"search_domain_filter": domains}})),
        "invalid_search_domain_filter",
        Some("tools[0].filters.search_domain_filter"),
        "at most 20 domains",
    )
    .await;
    refused(
        &mock,
        with_search(json!({"type": "web_search", "filters": {"recency": "week"}})),
        "invalid_request",
        Some("tools[0].filters.recency"),
        "unknown field \"recency\"",
    )
    .await;
    refused(
        &mock,
        with_search(json!({"type": "web_search", "search_context_size": "huge"})),
        "invalid_request",
        Some("tools[0].search_context_size"),
        "low medium high",
    )
    .await;
    // Well-formed filters go through.
    let ok = with_search(json!({"type": "web_search", "search_context_size": "high",
        "filters": {"search_recency_filter": "week", "search_domain_filter": ["-reddit.com", "nature.com"],
                    "search_before_date_filter": "3/1/2026", "last_updated_after_filter": "01/15/2025"}}));
    assert_eq!(mock.agent_create(ALICE, ok).await.status, 200);
}

#[tokio::test(start_paused = true)]
async fn truncation_and_max_tool_calls_are_checked() {
    let mock = Mock::new();
    refused(
        &mock,
        with("truncation", json!("sometimes")),
        "invalid_request",
        Some("truncation"),
        "truncation must be auto or disabled",
    )
    .await;
    refused(
        &mock,
        with("max_tool_calls", json!(-1)),
        "invalid_request",
        Some("max_tool_calls"),
        "max_tool_calls must be at least 0",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn input_items_are_checked_naming_the_item() {
    let mock = Mock::new();
    for (input, param, needle) in [
        (
            json!([{"type": "bogus"}]),
            "input[0].type",
            "unknown input item type \"bogus\"",
        ),
        (json!(["hi"]), "input[0]", "must be an input item object"),
        (
            json!([{"content": "hi"}]),
            "input[0].type",
            "`type` (or a message's `role`) is required",
        ),
        (
            json!([{"role": "robot", "content": "hi"}]),
            "input[0].role",
            "role must be one of",
        ),
        (
            json!([{"role": "user"}]),
            "input[0].content",
            "a message needs `content`",
        ),
        (
            json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]),
            "input[0].content[0].type",
            "content part's type",
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"type": "function_call_output", "output": "20C"}]),
            "input[1].call_id",
            "needs `call_id`",
        ),
        (
            json!([{"role": "user", "content": "hi"}, {"type": "mcp_call", "id": "call_1", "name": "x", "arguments": "{}"}]),
            "input[1].server_label",
            "needs `server_label`",
        ),
    ] {
        refused(
            &mock,
            with("input", input),
            "invalid_request",
            Some(param),
            needle,
        )
        .await;
    }
    // What clients send: bare and typed messages, content parts, an assistant turn as written.
    let ok = with(
        "input",
        json!([{"role": "system", "content": "Be brief."},
               {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
               {"role": "assistant", "content": [{"type": "output_text", "text": "Hello"}]},
               {"role": "user", "content": "again"}]),
    );
    assert_eq!(mock.agent_create(ALICE, ok).await.status, 200);
}

#[tokio::test(start_paused = true)]
async fn enumerated_options_are_checked_naming_the_field() {
    let mock = Mock::new();
    for (field, value, param, needle) in [
        (
            "service_tier",
            json!("turbo"),
            "service_tier",
            "service_tier must be one of",
        ),
        (
            "tool_choice",
            json!("sometimes"),
            "tool_choice",
            "tool_choice must be one of: none auto required",
        ),
        (
            "reasoning",
            json!({"effort": "extreme"}),
            "reasoning.effort",
            "reasoning.effort must be one of",
        ),
        (
            "reasoning",
            json!({"summary": "auto"}),
            "reasoning.summary",
            "unknown field \"summary\"",
        ),
        (
            "stream_options",
            json!({"include_usage": "yes"}),
            "stream_options.include_usage",
            "true or false",
        ),
        (
            "stream_options",
            json!({"include_obfuscation": true}),
            "stream_options.include_obfuscation",
            "unknown field",
        ),
    ] {
        refused(
            &mock,
            with(field, value),
            "invalid_request",
            Some(param),
            needle,
        )
        .await;
    }
    let mut ok = ok_body();
    ok["service_tier"] = json!("flex");
    ok["tool_choice"] = json!({"type": "function", "name": "get_weather"});
    ok["reasoning"] = json!({"effort": "minimal"});
    ok["stream_options"] = json!({"include_usage": true});
    let reply = mock.agent_create(ALICE, ok).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["service_tier"], "flex");
    assert_eq!(reply.body["reasoning"], json!({"effort": "minimal"}));
}
