//! Bad input to the Sonar routes: every refusal is in the API's envelope
//! (`{"error": {"message", "type", "code"}}`, `code` the HTTP status, `param` the field), says
//! what to send instead, spends nothing and leaves no job behind.

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::ALICE;
use crate::common::sonar::{ask, with};

/// Sends `body` (raw) to `path` and checks the refusal: status, type, `param` and a phrase of
/// its sentence.
async fn refused(
    mock: &Mock,
    path: &str,
    body: &str,
    status: u16,
    kind: &str,
    param: Option<&str>,
    says: &str,
) -> Value {
    let before = mock.handle.world().credits("alice");
    let reply = mock
        .agent_send("POST", path, ALICE, Some(body.to_owned()))
        .await;
    assert_eq!(reply.status, status, "{path} {body}: {:?}", reply.body);
    let error = &reply.body["error"];
    assert_eq!(error["type"], kind, "{body}: {error}");
    assert_eq!(error["code"], status, "{error}");
    assert_eq!(error["param"].as_str(), param, "{body}: {error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(says),
        "{body}: {message:?} should say {says:?}"
    );
    assert_eq!(
        mock.handle.world().credits("alice"),
        before,
        "a refusal spends nothing"
    );
    reply.body
}

async fn chat_refused(mock: &Mock, body: Value, kind: &str, param: Option<&str>, says: &str) {
    refused(
        mock,
        "/chat/completions",
        &body.to_string(),
        400,
        kind,
        param,
        says,
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_body_that_is_not_a_json_object_says_what_to_send() {
    let mock = Mock::new();
    for body in ["", "{\"model\": ", "[1, 2]", "\"sonar\""] {
        let reply = mock
            .agent_send("POST", "/chat/completions", ALICE, Some(body.into()))
            .await;
        assert_eq!(reply.status, 400, "{body:?}");
        let message = reply.body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(r#"{"model": "sonar", "messages""#),
            "{message}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn the_model_must_be_a_sonar_model() {
    let mock = Mock::new();
    let no_model = json!({"messages": [{"role": "user", "content": "hi"}]});
    chat_refused(
        &mock,
        no_model,
        "invalid_request",
        Some("model"),
        "use sonar, sonar-pro",
    )
    .await;
    chat_refused(
        &mock,
        ask("gpt-4o", "hi"),
        "invalid_model",
        Some("model"),
        "Invalid model 'gpt-4o'. Permitted models: sonar, sonar-pro, sonar-reasoning-pro or sonar-deep-research.",
    )
    .await;
    chat_refused(
        &mock,
        ask("", "hi"),
        "invalid_model",
        Some("model"),
        "Invalid model ''",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn messages_must_alternate_and_end_with_the_user() {
    let mock = Mock::new();
    let with_messages = |messages: Value| json!({"model": "sonar", "messages": messages});
    chat_refused(
        &mock,
        with_messages(json!([])),
        "invalid_request",
        Some("messages"),
        "at least one message",
    )
    .await;
    let twice = json!([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]);
    chat_refused(
        &mock,
        with_messages(twice),
        "invalid_message",
        Some("messages[1]"),
        "user and assistant roles should be alternating; a user message cannot follow user",
    )
    .await;
    let ends_with_assistant = json!([{"role": "system", "content": "be brief"},
        {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]);
    chat_refused(
        &mock,
        with_messages(ends_with_assistant),
        "invalid_message",
        Some("messages[2]"),
        "Last message must have role `user` or `tool`",
    )
    .await;
    chat_refused(
        &mock,
        with_messages(json!([{"role": "robot", "content": "a"}])),
        "invalid_request",
        Some("messages[0].role"),
        "system, user, assistant or tool",
    )
    .await;
    chat_refused(
        &mock,
        with_messages(json!([{"role": "user", "content": "  "}])),
        "invalid_request",
        Some("messages[0].content"),
        "a user message needs content",
    )
    .await;
    chat_refused(
        &mock,
        with_messages(json!([{"role": "user", "content": [{"type": "image", "url": "x"}]}])),
        "invalid_request",
        Some("messages[0].content[0]"),
        "unknown variant `image`",
    )
    .await;
    // Chunks of every kind are read.
    let parts = json!([{"role": "user", "content": [{"type": "text", "text": "what is this?"},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "pdf_url", "pdf_url": "https://example.com/a.pdf"}]}]);
    assert_eq!(mock.chat(with_messages(parts)).await.status, 200);
}

#[tokio::test(start_paused = true)]
async fn sampling_parameters_and_counts_must_be_in_range() {
    let mock = Mock::new();
    for (field, value, says) in [
        ("temperature", json!(2.0), "from 0 up to (not including) 2"),
        ("top_p", json!(1.5), "from 0 to 1"),
        ("presence_penalty", json!(-3), "from -2 to 2"),
        ("top_k", json!(5000), "from 0 to 2048"),
        ("max_tokens", json!(0), "from 1 to"),
        ("num_images", json!(50), "from 1 to 20"),
    ] {
        chat_refused(
            &mock,
            with(ask("sonar", "hi"), field, value),
            "invalid_request",
            Some(field),
            says,
        )
        .await;
    }
    chat_refused(
        &mock,
        with(ask("sonar", "hi"), "temperature", json!("warm")),
        "invalid_request",
        Some("temperature"),
        "invalid type: string \"warm\", expected f64",
    )
    .await;
    chat_refused(
        &mock,
        with(ask("sonar", "hi"), "stream_mode", json!("compact")),
        "invalid_request",
        Some("stream_mode"),
        "expected `full` or `concise`",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn search_filters_must_be_readable() {
    let mock = Mock::new();
    chat_refused(
        &mock,
        with(ask("sonar", "hi"), "search_recency_filter", json!("decade")),
        "invalid_request",
        Some("search_recency_filter"),
        "expected one of `hour`, `day`, `week`, `month`, `year`",
    )
    .await;
    chat_refused(
        &mock,
        with(
            ask("sonar", "hi"),
            "search_after_date_filter",
            json!("last week"),
        ),
        "invalid_request",
        Some("search_after_date_filter"),
        "write it as %m/%d/%Y, e.g. \"3/1/2025\"",
    )
    .await;
    let many: Vec<String> = (0..21).map(|i| format!("site{i}.org")).collect();
    chat_refused(
        &mock,
        with(ask("sonar", "hi"), "search_domain_filter", json!(many)),
        "invalid_request",
        Some("search_domain_filter"),
        "at most 20 domains",
    )
    .await;
    chat_refused(
        &mock,
        with(
            ask("sonar", "hi"),
            "search_language_filter",
            json!(["english"]),
        ),
        "invalid_request",
        Some("search_language_filter[0]"),
        "use two letters like \"en\"",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_response_format_must_be_a_schema_or_an_expression_that_compiles() {
    let mock = Mock::new();
    let format = |f: Value| with(ask("sonar", "hi"), "response_format", f);
    chat_refused(
        &mock,
        format(json!({"type": "json_object"})),
        "invalid_request",
        Some("response_format"),
        "expected one of `text`, `json_schema`, `regex`",
    )
    .await;
    chat_refused(
        &mock,
        format(json!({"type": "json_schema", "json_schema": {"schema": {"type": "nonsense"}}})),
        "invalid_request",
        Some("response_format.json_schema.schema"),
        "not a valid JSON Schema",
    )
    .await;
    chat_refused(
        &mock,
        format(json!({"type": "json_schema", "json_schema": {"schema": "string"}})),
        "invalid_request",
        Some("response_format.json_schema.schema"),
        "must be a JSON Schema object",
    )
    .await;
    chat_refused(
        &mock,
        format(json!({"type": "regex", "regex": {"regex": "(unclosed"}})),
        "invalid_request",
        Some("response_format.regex.regex"),
        "not a valid regular expression",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_request_without_a_usable_key_is_a_401_saying_what_to_send() {
    let mock = Mock::new();
    for token in ["", "not-a-key"] {
        let reply = mock
            .agent_send("POST", "/search", token, Some(r#"{"query": "x"}"#.into()))
            .await;
        assert_eq!(reply.status, 401, "{token:?}");
        assert_eq!(reply.body["error"]["type"], "authentication_error");
        assert_eq!(reply.body["error"]["code"], 401);
        let message = reply.body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("PERPLEXITY_API_KEY=alice-dev-token"),
            "{message}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_wrong_method_is_a_405_naming_the_methods_the_path_takes() {
    let mock = Mock::new();
    for (method, path, allowed) in [
        ("GET", "/chat/completions", "POST"),
        ("DELETE", "/async/chat/completions", "GET, POST"),
        ("POST", "/async/chat/completions/abc", "GET"),
        ("GET", "/v1/embeddings", "POST"),
    ] {
        let reply = mock.agent_send(method, path, ALICE, None).await;
        assert_eq!(reply.status, 405, "{method} {path}");
        assert_eq!(reply.body["error"]["code"], 405);
        assert_eq!(reply.headers["allow"], allowed, "{method} {path}");
        assert!(
            reply.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.ends_with(&format!("use {allowed}"))),
            "{:?}",
            reply.body
        );
    }
}

#[tokio::test(start_paused = true)]
async fn search_needs_one_to_five_queries_and_bounded_counts() {
    let mock = Mock::new();
    let search = |body: Value| body.to_string();
    refused(
        &mock,
        "/search",
        &search(json!({})),
        400,
        "invalid_request",
        Some("query"),
        "a query is required",
    )
    .await;
    refused(
        &mock,
        "/search",
        &search(json!({"query": ["a", "b", "c", "d", "e", "f"]})),
        400,
        "invalid_request",
        Some("query"),
        "a list of 1 to 5",
    )
    .await;
    refused(
        &mock,
        "/search",
        &search(json!({"query": ["a", ""]})),
        400,
        "invalid_request",
        Some("query[1]"),
        "an empty query",
    )
    .await;
    refused(
        &mock,
        "/search",
        &search(json!({"query": "a", "max_results": 21})),
        400,
        "invalid_request",
        Some("max_results"),
        "from 1 to 20",
    )
    .await;
    refused(
        &mock,
        "/search",
        &search(json!({"query": "a", "country": "USA"})),
        400,
        "invalid_request",
        Some("country"),
        "two letters like \"US\"",
    )
    .await;
    refused(
        &mock,
        "/search",
        &search(json!({"query": "a", "search_type": "deep"})),
        400,
        "invalid_request",
        Some("search_type"),
        "expected one of `web`, `fast`, `people`",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn embeddings_refuse_what_the_models_cannot_take() {
    let mock = Mock::new();
    let embed = |body: Value| body.to_string();
    let path = "/v1/embeddings";
    refused(
        &mock,
        path,
        &embed(json!({"input": "a"})),
        400,
        "invalid_request",
        Some("model"),
        "pplx-embed-v1-0.6b or pplx-embed-v1-4b",
    )
    .await;
    refused(
        &mock,
        path,
        &embed(json!({"model": "text-embedding-3-small", "input": "a"})),
        400,
        "invalid_model",
        Some("model"),
        "Invalid model 'text-embedding-3-small'",
    )
    .await;
    refused(
        &mock,
        path,
        &embed(json!({"model": "pplx-embed-v1-0.6b", "input": ["a", ""]})),
        400,
        "invalid_request",
        Some("input[1]"),
        "an empty string",
    )
    .await;
    refused(
        &mock,
        path,
        &embed(json!({"model": "pplx-embed-v1-0.6b", "input": "a", "dimensions": 2048})),
        400,
        "invalid_request",
        Some("dimensions"),
        "use 128 to 1024",
    )
    .await;
    refused(
        &mock,
        path,
        &embed(json!({"model": "pplx-embed-v1-0.6b", "input": "a", "encoding_format": "float"})),
        400,
        "invalid_request",
        Some("encoding_format"),
        "expected `base64_int8` or `base64_binary`",
    )
    .await;
    let many: Vec<&str> = vec!["x"; 513];
    refused(
        &mock,
        path,
        &embed(json!({"model": "pplx-embed-v1-0.6b", "input": many})),
        400,
        "invalid_request",
        Some("input"),
        "send 1 to 512",
    )
    .await;
    let long = "word ".repeat(24_000);
    refused(
        &mock,
        path,
        &embed(json!({"model": "pplx-embed-v1-0.6b", "input": vec![long.clone(); 5]})),
        400,
        "invalid_request",
        Some("input"),
        "about 150000 tokens in all: a request may carry at most 120000",
    )
    .await;
    refused(
        &mock,
        path,
        &embed(json!({"model": "pplx-embed-v1-0.6b", "input": long.repeat(2)})),
        400,
        "invalid_request",
        Some("input"),
        "a text may have at most 32768",
    )
    .await;
    let context = "/v1/contextualizedembeddings";
    refused(
        &mock,
        context,
        &embed(json!({"model": "pplx-embed-context-v1-0.6b", "input": [["a"], []]})),
        400,
        "invalid_request",
        Some("input[1]"),
        "at least one chunk",
    )
    .await;
    refused(
        &mock,
        context,
        &embed(json!({"model": "pplx-embed-context-v1-0.6b", "input": ["a"]})),
        400,
        "invalid_request",
        Some("input[0]"),
        "expected a sequence",
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn an_async_job_needs_a_request_that_does_not_stream_and_a_sane_key() {
    let mock = Mock::new();
    let path = "/async/chat/completions";
    let jobs = |body: Value| body.to_string();
    refused(
        &mock,
        path,
        &jobs(json!({})),
        400,
        "invalid_request",
        Some("request"),
        "the chat completion request to run is required",
    )
    .await;
    refused(
        &mock,
        path,
        &jobs(json!({"request": ask("sonar-huge", "hi")})),
        400,
        "invalid_model",
        Some("request.model"),
        "Invalid model 'sonar-huge'",
    )
    .await;
    refused(
        &mock,
        path,
        &jobs(json!({"request": with(ask("sonar", "hi"), "temperature", json!(9))})),
        400,
        "invalid_request",
        Some("request.temperature"),
        "request.temperature: 9 is out of range",
    )
    .await;
    refused(
        &mock,
        path,
        &jobs(json!({"request": with(ask("sonar", "hi"), "stream", json!(true))})),
        400,
        "invalid_request",
        Some("request.stream"),
        "an async request cannot stream",
    )
    .await;
    refused(
        &mock,
        path,
        &jobs(json!({"request": ask("sonar", "hi"), "idempotency_key": ""})),
        400,
        "invalid_request",
        Some("idempotency_key"),
        "use 1 to 256 characters",
    )
    .await;
    let listed = mock.agent_get(ALICE, path).await;
    assert_eq!(listed.body["requests"], json!([]), "no job was left behind");

    let unknown = mock
        .agent_get(ALICE, "/async/chat/completions/no-such-job")
        .await;
    assert_eq!(unknown.status, 404);
    assert!(
        unknown.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("GET /async/chat/completions lists yours"))
    );
    let bad_page = mock
        .agent_get(ALICE, "/async/chat/completions?limit=0")
        .await;
    assert_eq!(bad_page.status, 400);
    assert_eq!(bad_page.body["error"]["param"], "limit");
    let bad_query = mock
        .agent_get(ALICE, "/async/chat/completions?limit=many")
        .await;
    assert_eq!(bad_query.status, 400);
    let forged = mock
        .agent_get(ALICE, "/async/chat/completions?next_token=forged")
        .await;
    assert_eq!(forged.status, 400);
    assert_eq!(forged.body["error"]["param"], "next_token");
}

#[tokio::test(start_paused = true)]
async fn a_body_over_the_limit_is_refused_before_routing_in_the_apis_envelope() {
    let mock = Mock::new();
    let big = format!(r#"{{"query": "{}"}}"#, "x".repeat(33 * 1024 * 1024));
    let reply = mock.agent_send("POST", "/search", ALICE, Some(big)).await;
    assert_eq!(reply.status, 413);
    assert_eq!(reply.body["error"]["type"], "payload_too_large");
    assert_eq!(reply.body["error"]["code"], 413);
    // A body between axum's 2 MB default and the limit is read.
    let large = format!(r#"{{"query": "{}"}}"#, "x ".repeat(2 * 1024 * 1024));
    assert_eq!(
        mock.agent_send("POST", "/search", ALICE, Some(large))
            .await
            .status,
        200
    );
}
