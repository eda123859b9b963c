//! The `mcp` tool against a real MCP server: the mock's own Computer MCP endpoint, started on a
//! socket in each test, is the remote server of an Agent API request. Discovery lists its tools
//! for real, the scripted model's calls reach it as real `tools/call`s, a discovery failure fails
//! the run in every mode, tool failures stay in-band, and `defer_loading`/`allowed_tools` shape
//! what the model sees.

use mock_server::{Exchange, MockServer};
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, event_types, item_types};

/// A second mock, on a socket, whose Computer MCP endpoint plays the remote server.
async fn remote() -> MockServer {
    MockServer::builder()
        .start()
        .await
        .expect("the remote MCP server starts")
}

/// An `mcp` tool entry for `url`, with alice's token for the remote Computer endpoint.
fn mcp(url: &str) -> Value {
    json!({
        "type": "mcp",
        "server_label": "computer",
        "server_url": url,
        "authorization": "alice-dev-token",
    })
}

fn request(input: &str, tools: Value) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": input, "tools": tools})
}

/// The JSON-RPC exchanges the remote server received for `method`.
fn rpc(remote: &MockServer, method: &str) -> Vec<Exchange> {
    remote
        .journal()
        .exchanges()
        .into_iter()
        .filter(|e| e.request_body["method"] == method)
        .collect()
}

/// The first output item of `kind`.
fn item<'a>(response: &'a Value, kind: &str) -> &'a Value {
    response["output"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} item in {response:#}"))
}

/// A port nobody listens on.
fn closed_port_url() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    format!("http://127.0.0.1:{port}/mcp")
}

#[tokio::test(start_paused = true)]
async fn discovery_lists_the_remote_servers_tools_with_their_annotations() {
    let remote = remote().await;
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            request("#mcp-approval list them", json!([mcp(&remote.mcp_url())])),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let listed = item(&reply.body, "mcp_list_tools");
    assert_eq!(listed["server_label"], "computer");
    assert!(
        listed.get("connector_id").is_none(),
        "an mcp tool is no connector"
    );
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, mock_server::TOOL_NAMES);
    let read_thread = listed["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "read_thread"))
        .expect("read_thread");
    assert_eq!(read_thread["annotations"], json!({"read_only": true}));
    assert_eq!(read_thread["input_schema"]["type"], "object");
    assert!(read_thread["description"].is_string());
    // The remote saw a real handshake, a tools/list with the bearer token, and the session end.
    assert_eq!(
        rpc(&remote, "initialize").len(),
        2,
        "discovery and the call each open one"
    );
    let list = &rpc(&remote, "tools/list")[0];
    assert_eq!(list.status, 200);
    // The journal shows which token was sent by its fingerprint, never the token.
    assert_eq!(
        list.request_headers["authorization"],
        format!("Bearer {}", mock_server::fingerprint("alice-dev-token"))
    );
}

#[tokio::test(start_paused = true)]
async fn the_models_call_runs_on_the_remote_server_and_its_output_is_the_mcp_call() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    tool["allowed_tools"] = json!(["models_list"]);
    tool["headers"] = json!({"X-Trace-Id": "trace-42"});
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval which models?", json!([tool])))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    assert_eq!(
        item_types(&reply.body),
        ["mcp_list_tools", "mcp_call", "message"]
    );
    let call = item(&reply.body, "mcp_call");
    assert_eq!(call["name"], "models_list");
    assert_eq!(call["server_label"], "computer");
    assert_eq!(call["error"], Value::Null);
    let output: Value =
        serde_json::from_str(call["output"].as_str().expect("output")).expect("JSON output");
    assert!(
        output["models"].as_array().is_some_and(|m| !m.is_empty()),
        "{output}"
    );
    assert!(call.get("approval_request_id").is_none());
    // The model answers with what the tool returned.
    let text = reply.body["output"][2]["content"][0]["text"]
        .as_str()
        .expect("text");
    assert!(text.contains("\"models\""), "{text}");

    // The call really happened, with the request's extra header on every exchange.
    let calls = rpc(&remote, "tools/call");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].request_body["params"]["name"], "models_list");
    for exchange in remote.journal().exchanges() {
        assert_eq!(
            exchange.request_headers["x-trace-id"], "trace-42",
            "{}",
            exchange.method
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_streamed_run_sends_the_discovered_list_and_the_real_call_as_items() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    tool["allowed_tools"] = json!(["models_list"]);
    let mut body = request("#mcp-approval which models?", json!([tool]));
    body["stream"] = json!(true);
    let reply = mock.agent_create(ALICE, body).await;
    assert_eq!(reply.status, 200);
    let done: Vec<&Value> = reply
        .events
        .iter()
        .filter(|e| e["type"] == "response.output_item.done")
        .map(|e| &e["item"])
        .collect();
    let kinds: Vec<&str> = done.iter().filter_map(|i| i["type"].as_str()).collect();
    assert_eq!(kinds, ["mcp_list_tools", "mcp_call", "message"]);
    assert!(
        done[1]["output"]
            .as_str()
            .is_some_and(|o| o.contains("\"models\"")),
        "{:#}",
        done[1]
    );
    let last = reply.events.last().expect("terminal event");
    assert_eq!(last["type"], "response.completed");
    assert_eq!(last["response"]["output"][1], *done[1]);
    assert_eq!(rpc(&remote, "tools/call").len(), 1);
}

#[tokio::test(start_paused = true)]
async fn allowed_tools_limits_what_is_listed_and_called() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    tool["allowed_tools"] = json!(["read_thread", "projects_list"]);
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval go", json!([tool])))
        .await;
    let listed: Vec<&str> = item(&reply.body, "mcp_list_tools")["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(listed, ["read_thread", "projects_list"]);
    // The scripted model calls the first tool it may use.
    assert_eq!(item(&reply.body, "mcp_call")["name"], "read_thread");
}

#[tokio::test(start_paused = true)]
async fn a_failing_tool_call_is_reported_in_band_and_the_run_completes() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    // The scenario calls read_thread with arguments built from its schema: a thread id that
    // the remote does not know, so the tool answers isError.
    tool["allowed_tools"] = json!(["read_thread"]);
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval read it", json!([tool])))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    let call = item(&reply.body, "mcp_call");
    let error = call["error"].as_str().expect("an in-band error");
    assert!(!error.is_empty());
    assert!(call.get("output").is_none_or(Value::is_null), "{call:#}");
    let answered = rpc(&remote, "tools/call");
    assert_eq!(answered.len(), 1);
    // The remote streamed its answer (the client sends a progress token); the last event is
    // the result, and it says the tool failed.
    let result = &answered[0]
        .sse_events
        .last()
        .expect("a streamed result")
        .data;
    assert_eq!(result["result"]["isError"], true, "{result}");
    assert_eq!(
        item_types(&reply.body).last().map(String::as_str),
        Some("message")
    );
}

#[tokio::test(start_paused = true)]
async fn defer_loading_searches_the_catalog_before_the_call() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    tool["defer_loading"] = json!(true);
    tool["allowed_tools"] = json!(["models_list", "projects_list"]);
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval models?", json!([tool])))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(
        item_types(&reply.body),
        [
            "mcp_list_tools",
            "tool_search_output",
            "mcp_call",
            "message"
        ]
    );
    // The list still records the full (allowed) catalog; the search loads only what it found.
    assert_eq!(
        item(&reply.body, "mcp_list_tools")["tools"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let search = item(&reply.body, "tool_search_output");
    assert_eq!(search["status"], "completed");
    assert_eq!(search["execution"], "server");
    let namespace = &search["tools"][0];
    assert_eq!(namespace["type"], "namespace");
    assert_eq!(namespace["name"], "computer");
    assert!(namespace["description"].is_string());
    let found: Vec<&str> = namespace["tools"]
        .as_array()
        .expect("found tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(found.contains(&"models_list"), "{found:?}");
    assert_eq!(namespace["tools"][0]["type"], "function");
    assert_eq!(item(&reply.body, "mcp_call")["name"], "models_list");
    assert_eq!(rpc(&remote, "tools/call").len(), 1);
}

#[tokio::test(start_paused = true)]
async fn without_defer_loading_there_is_no_catalog_search() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    tool["defer_loading"] = json!(false);
    tool["allowed_tools"] = json!(["models_list"]);
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval models?", json!([tool])))
        .await;
    assert!(!item_types(&reply.body).contains(&"tool_search_output".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_server_fails_a_sync_run_with_424() {
    let mock = Mock::new();
    let url = closed_port_url();
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval hi", json!([mcp(&url)])))
        .await;
    assert_eq!(reply.status, 424, "{:#}", reply.body);
    let error = &reply.body["error"];
    assert_eq!(error["type"], "external_connector_error");
    assert_eq!(error["code"], 424);
    let message = error["message"].as_str().expect("message");
    assert!(message.contains("'computer'"), "{message}");
    assert!(message.contains(&url), "{message}");
    assert!(message.contains("connection failed"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_server_refusing_the_token_is_a_discovery_failure() {
    let remote = remote().await;
    let mock = Mock::new();
    let mut tool = mcp(&remote.mcp_url());
    tool["authorization"] = json!("expired-token");
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval hi", json!([tool])))
        .await;
    assert_eq!(reply.status, 424, "{:#}", reply.body);
    let message = reply.body["error"]["message"].as_str().expect("message");
    assert!(message.contains("HTTP 401"), "{message}");
    assert!(rpc(&remote, "tools/list").is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_discovery_failure_ends_a_stream_with_response_failed_over_http_200() {
    let mock = Mock::new();
    let mut body = request("#mcp-approval hi", json!([mcp(&closed_port_url())]));
    body["stream"] = json!(true);
    let reply = mock.agent_create(ALICE, body).await;
    assert_eq!(reply.status, 200);
    let types = event_types(&reply.events);
    assert_eq!(types.first().map(String::as_str), Some("response.created"));
    assert_eq!(
        types.last().map(String::as_str),
        Some("response.failed"),
        "{types:?}"
    );
    assert!(!types.iter().any(|t| t == "response.completed"));
    let failed = reply.events.last().expect("terminal event");
    assert_eq!(failed["response"]["status"], "failed");
    assert_eq!(
        failed["response"]["error"]["type"],
        "external_connector_error"
    );
    assert!(
        failed["response"]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("'computer'"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_discovery_failure_ends_a_background_run_failed() {
    let mock = Mock::new();
    let mut body = request("#mcp-approval hi", json!([mcp(&closed_port_url())]));
    body["background"] = json!(true);
    let reply = mock.agent_create(ALICE, body).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["status"], "queued");
    let id = reply.body["id"].as_str().expect("id").to_owned();
    let done = mock.agent_finished(&id).await;
    assert_eq!(done["status"], "failed");
    assert_eq!(done["error"]["type"], "external_connector_error");
    assert!(item_types(&done).is_empty(), "nothing ran: {done:#}");
}

#[tokio::test(start_paused = true)]
async fn a_discovery_failure_reports_no_usage_because_no_model_ran() {
    // Agent API, MCP tool, "Error handling": "Because discovery runs before the model, the
    // whole run fails with external_connector_error." No model ran, so nothing was used.
    let mock = Mock::new();
    let tools = json!([mcp(&closed_port_url())]);
    let mut body = request("#mcp-approval hi", tools);
    body["background"] = json!(true);
    let reply = mock.agent_create(ALICE, body.clone()).await;
    let done = mock
        .agent_finished(reply.body["id"].as_str().expect("id"))
        .await;
    assert_eq!(done["status"], "failed");
    assert_eq!(done["usage"], Value::Null, "{done:#}");
    body["background"] = json!(false);
    body["stream"] = json!(true);
    let streamed = mock.agent_create(ALICE, body).await;
    let failed = streamed.events.last().expect("terminal event");
    assert_eq!(failed["type"], "response.failed");
    assert_eq!(failed["response"]["usage"], Value::Null);
    // A model failure, by contrast, ran a model and reports what it used.
    let model_failure = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#model-failure", "tools": [{"type": "web_search"}]}),
        )
        .await;
    assert_eq!(model_failure.body["status"], "failed");
    assert!(model_failure.body["usage"]["cost"]["total_cost"].is_number());
}

#[tokio::test(start_paused = true)]
async fn a_url_that_is_no_mcp_endpoint_is_a_discovery_failure() {
    let remote = remote().await;
    let mock = Mock::new();
    // The remote's control API answers, but it is no MCP endpoint.
    let url = format!("{}/_mock/journal", remote.uri());
    let reply = mock
        .agent_create(ALICE, request("#mcp-approval hi", json!([mcp(&url)])))
        .await;
    assert_eq!(reply.status, 424, "{:#}", reply.body);
    let message = reply.body["error"]["message"].as_str().expect("message");
    assert!(message.contains(&url), "{message}");
}

/// A world where alice's Project has a custom connector at `url` (the remote server), with
/// `state` in her connector map when given. (Listing and calling one that is connected is in
/// agent_custom_connector.rs.)
fn world_with_custom_connector(url: &str, state: Option<&str>) -> std::path::PathBuf {
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    let alice = world["accounts"]
        .as_array_mut()
        .and_then(|accounts| accounts.iter_mut().find(|a| a["id"] == "alice"))
        .expect("alice");
    alice["agent_api"]["custom_connectors"] = json!([
        {"id": "connector_team_tools", "url": url, "authorization": "alice-dev-token"}
    ]);
    if let Some(state) = state {
        alice["agent_api"]["connectors"]["connector_team_tools"] = json!(state);
    }
    let file = std::env::temp_dir().join(format!(
        "agent-mcp-world-{}-{}.json",
        std::process::id(),
        port_of(url)
    ));
    std::fs::write(&file, world.to_string()).expect("write the world file");
    file
}

/// The digits of a URL (its host and port), to keep temporary file names apart.
fn port_of(url: &str) -> String {
    url.chars().filter(char::is_ascii_digit).collect()
}

fn connector(allowed: &[&str]) -> Value {
    json!({"type": "connector", "id": "connector_team_tools", "server_label": "team", "allowed_tools": allowed})
}

#[tokio::test(start_paused = true)]
async fn a_lapsed_custom_connector_fails_its_call_in_band_without_calling_the_server() {
    let remote = remote().await;
    let world = world_with_custom_connector(&remote.mcp_url(), Some("lapsed"));
    let mock = Mock::with(MockServer::builder().world(&world));
    let reply = mock
        .agent_create(
            ALICE,
            request(
                "#mcp-approval team models",
                json!([connector(&["models_list"])]),
            ),
        )
        .await;
    let _ = std::fs::remove_file(&world);
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    assert_eq!(item(&reply.body, "mcp_call")["error"], "AUTH_REQUIRED");
    assert!(rpc(&remote, "tools/call").is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_custom_connector_that_is_not_connected_lists_no_tools_and_no_error() {
    let remote = remote().await;
    let world = world_with_custom_connector(&remote.mcp_url(), Some("not_connected"));
    let mock = Mock::with(MockServer::builder().world(&world));
    let reply = mock
        .agent_create(
            ALICE,
            request("#mcp-approval team models", json!([connector(&[])])),
        )
        .await;
    let _ = std::fs::remove_file(&world);
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let listed = item(&reply.body, "mcp_list_tools");
    assert_eq!(listed["tools"], json!([]));
    assert!(listed.get("error").is_none_or(Value::is_null));
    assert!(rpc(&remote, "tools/list").is_empty(), "nothing to discover");
    assert!(!item_types(&reply.body).contains(&"mcp_call".to_owned()));
}

/// A scenario whose model calls `models_list` on the `team` connector, then answers.
const TEAM_CALL: &str = r#"{"name": "team-call", "description": "Calls the team connector.",
  "agent": {"turns": [{"steps": [
    {"type": "mcp_call", "server": "team", "tool": "models_list"},
    {"type": "message", "text": "The team connector answered: {tool_output}"}]}]}}"#;

/// A mock whose world gives alice the custom connector `connector_team_tools` at `url`, sent
/// `authorization`, and which knows the `team-call` scenario.
fn team_mock(url: &str, authorization: &str) -> (Mock, std::path::PathBuf) {
    let world = world_with_custom_connector(url, None);
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&world).expect("world")).expect("JSON");
    value["accounts"][0]["agent_api"]["custom_connectors"][0]["authorization"] =
        json!(authorization);
    std::fs::write(&world, value.to_string()).expect("write the world file");
    let builder = MockServer::builder()
        .world(&world)
        .scenario_json(TEAM_CALL)
        .expect("scenario");
    (Mock::with(builder), world)
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_custom_connector_fails_in_band_and_the_request_keeps_working() {
    // Agent API, Connectors, "Error handling": "A connector tool call can fail as an mcp_call
    // item with an error field. This does not fail the request"; CONNECTOR_UNAVAILABLE: "The
    // connector service could not be reached."
    let (mock, world) = team_mock(&closed_port_url(), "alice-dev-token");
    let body = request("#team-call", json!([connector(&[])]));
    let reply = mock.agent_create(ALICE, body.clone()).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    let listed = item(&reply.body, "mcp_list_tools");
    assert_eq!(listed["connector_id"], "connector_team_tools");
    assert_eq!(listed["tools"], json!([]));
    assert_eq!(listed["error"], "CONNECTOR_UNAVAILABLE");
    let call = item(&reply.body, "mcp_call");
    assert_eq!(call["name"], "models_list");
    assert_eq!(call["error"], "CONNECTOR_UNAVAILABLE");
    assert!(call.get("output").is_none());
    // A stream ends completed too, not with response.failed.
    let mut streamed = body;
    streamed["stream"] = json!(true);
    let stream = mock.agent_create(ALICE, streamed).await;
    let _ = std::fs::remove_file(&world);
    assert_eq!(
        stream.events.last().map(|e| e["type"].clone()),
        Some(json!("response.completed"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_custom_connector_whose_server_refuses_the_stored_key_fails_in_band_with_auth_required() {
    // AUTH_REQUIRED: "The connector's authorization has lapsed or been revoked."
    let remote = remote().await;
    let (mock, world) = team_mock(&remote.mcp_url(), "revoked-token");
    let reply = mock
        .agent_create(ALICE, request("#team-call", json!([connector(&[])])))
        .await;
    let _ = std::fs::remove_file(&world);
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    assert_eq!(
        item(&reply.body, "mcp_list_tools")["error"],
        "AUTH_REQUIRED"
    );
    assert_eq!(item(&reply.body, "mcp_call")["error"], "AUTH_REQUIRED");
    assert!(rpc(&remote, "tools/call").is_empty(), "nothing ran");
}

#[tokio::test(start_paused = true)]
async fn a_custom_connectors_tool_error_comes_back_as_a_documented_value() {
    // The remote's read_thread refuses an unknown thread with isError: for a connector that is
    // TOOL_ERROR ("The tool failed for another reason"); the same call through the `mcp` tool
    // passes the server's own words on.
    let remote = remote().await;
    let scenario = r#"{"name": "team-thread", "description": "Reads a thread that does not exist.",
      "agent": {"turns": [{"steps": [
        {"type": "mcp_call", "tool": "read_thread", "arguments": {"thread_id": "no-such-thread"}},
        {"type": "message", "text": "done"}]}]}}"#;
    let world = world_with_custom_connector(&remote.mcp_url(), None);
    let mock = Mock::with(
        MockServer::builder()
            .world(&world)
            .scenario_json(scenario)
            .expect("scenario"),
    );
    let reply = mock
        .agent_create(
            ALICE,
            request("#team-thread", json!([connector(&["read_thread"])])),
        )
        .await;
    let mut direct = mcp(&remote.mcp_url());
    direct["allowed_tools"] = json!(["read_thread"]);
    let through_mcp = mock
        .agent_create(ALICE, request("#team-thread", json!([direct])))
        .await;
    let _ = std::fs::remove_file(&world);
    assert_eq!(
        item(&reply.body, "mcp_call")["error"],
        "TOOL_ERROR",
        "{:#}",
        reply.body
    );
    let words = item(&through_mcp.body, "mcp_call")["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(!words.is_empty() && words != "TOOL_ERROR", "{words}");
}
