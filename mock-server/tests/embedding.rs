//! The embedding API: scenarios and worlds written in the test (no files), refused with the same
//! JSON-pointer errors as files, and the URLs a test points its client at.

use std::time::Duration;

use mock_server::{
    BOB_DEV_TOKEN, ClientError, Expectation, McpSession, MockServer, world::WORLD_FIXTURE,
};
use serde_json::{Value, json};

use crate::common::{self, Mock};

/// What a test that uses `?` on the mock's errors returns.
type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A one-turn Computer scenario whose outcome is `outcome`.
fn computer(name: &str, outcome: Value) -> String {
    json!({
        "name": name,
        "description": "Written in the test.",
        "turns": [{"steps": [{"title": "Working", "duration": "5s"}], "outcome": outcome}],
    })
    .to_string()
}

/// A one-turn Agent API scenario that answers `text`.
fn agent(name: &str, text: &str) -> String {
    json!({
        "name": name,
        "description": "Written in the test.",
        "agent": {"turns": [{"steps": [{"type": "message", "text": text}]}]},
    })
    .to_string()
}

#[test]
fn an_in_memory_computer_scenario_is_refused_with_the_pointer_a_file_would_get() {
    let text = computer("bad", json!({"event": "finished", "text": "ok"}));
    let refused = MockServer::builder()
        .scenario_json(&text)
        .expect_err("an unknown event is refused");
    assert_eq!(refused.pointer(), Some("/turns/0/outcome"));
    let shown = refused.to_string();
    assert!(
        shown.starts_with("scenario_json: at /turns/0/outcome"),
        "{shown}"
    );
    assert!(shown.contains("unknown variant `finished`"), "{shown}");
}

#[test]
fn an_in_memory_agent_scenario_is_refused_with_its_pointer() {
    let text = json!({"name": "bad", "description": "d",
                      "agent": {"turns": [{"steps": [{"type": "dance"}]}]}})
    .to_string();
    let refused = MockServer::builder()
        .scenario_json(&text)
        .expect_err("an unknown step is refused");
    assert_eq!(refused.pointer(), Some("/agent/turns/0/steps/0/type"));
    assert!(
        refused
            .to_string()
            .starts_with("scenario_json: at /agent/turns/0/steps/0/type")
    );
}

#[test]
fn text_that_is_not_json_is_refused_without_a_pointer() {
    let refused = MockServer::builder()
        .scenario_json("{\"name\": ")
        .expect_err("not JSON");
    assert_eq!(refused.pointer(), None);
    assert!(
        refused
            .to_string()
            .starts_with("scenario_json: not valid JSON")
    );
}

#[tokio::test(start_paused = true)]
async fn an_in_memory_scenario_is_followed_by_name_and_replaces_a_built_in_one() {
    let mine = computer(
        "mine",
        json!({"event": "complete", "text": "Done in memory."}),
    );
    let complete = computer(
        "complete",
        json!({"event": "complete", "text": "Replaced in memory."}),
    );
    let builder = MockServer::builder()
        .scenario_json(&mine)
        .expect("valid")
        .scenario_json(&complete)
        .expect("valid");
    let mock = Mock::with(builder);
    let catalog = mock.handle.catalog();
    assert_eq!(
        catalog.get("mine").map(|s| s.source.clone()),
        Some("scenario_json".into())
    );

    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#mine Go").await;
    assert_eq!(started["text"], "Done in memory.", "{started}");
    let fallback = client.start("Something that names nothing").await;
    assert_eq!(fallback["text"], "Replaced in memory.", "{fallback}");
}

#[tokio::test(start_paused = true)]
async fn an_in_memory_scenario_can_be_the_fallback() {
    let mine = computer("mine", json!({"event": "complete", "text": "My fallback."}));
    let mock = Mock::with(
        MockServer::builder()
            .scenario_json(&mine)
            .expect("valid")
            .scenario("mine"),
    );
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("Hello").await;
    assert_eq!(started["text"], "My fallback.", "{started}");
}

#[test]
fn an_in_memory_world_is_refused_with_its_pointer() {
    let mut world: Value = serde_json::from_str(WORLD_FIXTURE).expect("built-in world");
    world["accounts"][0]["plan"] = json!("platinum");
    let refused = MockServer::builder()
        .world_json(&world.to_string())
        .expect_err("an unknown plan is refused");
    assert_eq!(refused.pointer(), Some("/accounts/0/plan"));
    assert!(
        refused
            .to_string()
            .starts_with("world_json: at /accounts/0/plan")
    );
}

#[test]
fn an_in_memory_world_replaces_the_built_in_one_and_a_world_file_replaces_it_again() {
    let mut world: Value = serde_json::from_str(WORLD_FIXTURE).expect("built-in world");
    world["accounts"][1]["credits"] = json!(3);
    let builder = MockServer::builder()
        .world_json(&world.to_string())
        .expect("valid");
    let (_, mock) = builder.clone().router(common::BASE).expect("mock");
    assert_eq!(mock.world().credits("bob"), 3);

    // The last world given wins: a file after the JSON replaces it.
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("embedding-world.json");
    std::fs::write(&file, WORLD_FIXTURE).expect("world file");
    let (_, mock) = builder.world(&file).router(common::BASE).expect("mock");
    assert!(mock.world().credits("bob") > 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_url_is_the_agent_api_create_endpoint() {
    let mock = MockServer::builder()
        .scenario_json(&agent("hello", "Hello from memory."))
        .expect("valid")
        .start()
        .await
        .expect("mock starts");
    assert_eq!(mock.agent_url(), format!("{}/v1/agent", mock.uri()));
    assert_eq!(mock.handle().agent_url(), mock.agent_url());

    let response: Value = reqwest::Client::new()
        .post(mock.agent_url())
        .bearer_auth("alice-dev-token")
        .json(&json!({"model": "openai/gpt-5.6-terra", "input": "#hello Hi"}))
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .expect("answered")
        .json()
        .await
        .expect("JSON");
    assert_eq!(response["status"], "completed", "{response}");
    assert_eq!(
        response["output"][0]["content"][0]["text"], "Hello from memory.",
        "{response}"
    );
    let exchanges = mock.journal().exchanges();
    assert_eq!(exchanges.len(), 1);
    assert_eq!(
        (exchanges[0].method.as_str(), exchanges[0].path.as_str()),
        ("POST", "/v1/agent")
    );
}

#[test]
fn a_built_in_scenario_changed_in_the_test_replaces_the_built_in_one() {
    let built_in = mock_server::fixtures::embedded_scenario("task-question").expect("built in");
    let mut text: Value = serde_json::from_str(built_in).expect("JSON");
    text["settings"]["poll_interval_ms"] = json!(100);
    let (_, mock) = MockServer::builder()
        .scenario_json(&text.to_string())
        .expect("valid")
        .router(common::BASE)
        .expect("mock");
    let announced = mock
        .catalog()
        .get("task-question")
        .and_then(|s| s.scenario.settings.poll_interval_ms);
    assert_eq!(announced, Some(100));
    assert!(mock_server::fixtures::embedded_scenario("slack-summary").is_some());
    assert!(mock_server::fixtures::embedded_scenario("no-such-scenario").is_none());
}

/// The embedding API's promise: a test starts a mock, states what its client must do, and drives
/// a `#timeout-then-complete` conversation in under 15 lines; the drop checks the expectation.
#[tokio::test]
async fn an_embedded_mock_drives_timeout_then_complete_through_mcp_session() -> TestResult {
    let mock = MockServer::builder()
        .driven_clock(Duration::from_secs(60))
        .start()
        .await?;
    mock.expect(Expectation::tool_call("read_thread").after_event("timeout"));
    let session = mock.mcp_session().await?;
    let started = session.call_computer("#timeout-then-complete Go").await?;
    assert_eq!(started["event"], "timeout", "{started}");
    let thread = started["thread_id"].as_str().ok_or("a thread id")?;
    let read = session.read_thread(thread).await?;
    assert_eq!(read["web_state"]["task_status"], "completed");
    let transcript = read["text"].as_str().unwrap_or_default();
    assert!(transcript.contains("Postgres 19 released"), "{read}");
    Ok(())
}

#[tokio::test]
async fn a_stateless_session_calls_tools_with_the_2026_envelope_and_headers() -> TestResult {
    let mock = MockServer::builder()
        .driven_clock(Duration::from_secs(60))
        .start()
        .await?;
    let session = McpSession::builder(mock.mcp_url())
        .token(BOB_DEV_TOKEN)
        .protocol_version(mock_server::MODERN_VERSION)
        .connect()
        .await?;
    let done = session.call_computer("#complete Summarize HN").await?;
    assert_eq!(done["event"], "complete", "{done}");
    let exchanges = mock.journal().exchanges();
    let methods: Vec<&str> = exchanges
        .iter()
        .filter_map(|e| e.request_body["method"].as_str())
        .collect();
    assert_eq!(methods, ["server/discover", "tools/call"]);
    let call = &exchanges[1];
    assert_eq!(call.request_headers["mcp-method"], "tools/call");
    assert_eq!(call.request_headers["mcp-name"], "call_perplexity_computer");
    assert_eq!(call.request_headers["mcp-protocol-version"], "2026-07-28");
    assert_eq!(
        call.request_body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(call.response_headers.get("mcp-session-id").is_none());
    Ok(())
}

#[tokio::test]
async fn a_session_reports_a_refused_token_a_json_rpc_error_and_a_tool_error_apart() -> TestResult {
    let mock = MockServer::start().await?;
    let refused = McpSession::builder(mock.mcp_url())
        .token("wrong-token")
        .connect()
        .await
        .expect_err("an unknown token is refused");
    assert_eq!(refused.status(), Some(401), "{refused}");

    let session = mock.mcp_session().await?;
    let unknown_tool = session
        .call_tool("no_such_tool", json!({}))
        .await
        .expect_err("an unknown tool is a JSON-RPC error");
    assert!(
        matches!(&unknown_tool, ClientError::JsonRpc { code: -32602, message, .. }
                 if message.contains("no_such_tool")),
        "{unknown_tool}"
    );
    let tool_error = session
        .call_tool("read_thread", json!({"thread_id": "nope"}))
        .await?;
    assert!(tool_error.is_error, "{tool_error:?}");
    let shortcut = session
        .read_thread("nope")
        .await
        .map(|read| read["event"].clone())?;
    assert_eq!(shortcut, "error");
    Ok(())
}

#[tokio::test]
async fn the_agent_client_creates_streams_retrieves_and_reports_the_error_envelope() -> TestResult {
    let mock = MockServer::builder()
        .driven_clock(Duration::from_secs(60))
        .scenario_json(&agent("in-memory-agent", "Hello from memory."))?
        .start()
        .await?;
    let request = json!({"model": "openai/gpt-5.6-terra", "input": "#in-memory-agent Hi"});
    let agent = mock.agent_client();
    let created = agent.create(request.clone()).await?;
    assert_eq!(created["status"], "completed", "{created}");
    let id = created["id"].as_str().ok_or("an id")?;
    assert_eq!(agent.retrieve(id).await?["id"], id);
    let events = agent.stream(request).await?;
    let types: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(types.first(), Some(&"response.created"));
    assert_eq!(types.last(), Some(&"response.completed"));
    assert!(
        events
            .iter()
            .any(|e| e.to_string().contains("Hello from memory."))
    );

    let missing = agent
        .retrieve("resp_missing")
        .await
        .expect_err("unknown id");
    let ClientError::Status { status, body, .. } = &missing else {
        panic!("a status error: {missing}");
    };
    assert_eq!(*status, 404);
    assert!(body["error"]["message"].is_string(), "{body}");
    Ok(())
}
