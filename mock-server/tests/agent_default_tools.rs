//! The default model (no scenario named) uses the tools it is given: "Both connectors and MCP
//! servers let the Agent API call external tools" (Agent API, Connectors, "Connectors and MCP").
//! It calls the tool whose name and description fit the user's message, with arguments built from
//! the tool's `input_schema`, through the same path scripted calls take, and answers from what the
//! tool really returned; when the tool cannot be used, the answer says why ("the model still
//! answers — it just cannot use that connector", "Error handling").

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB, item_types};

fn answer(response: &Value) -> String {
    response["output"]
        .as_array()
        .and_then(|o| o.iter().find(|i| i["type"] == "message"))
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn item<'a>(response: &'a Value, kind: &str) -> &'a Value {
    response["output"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} item in {response:#}"))
}

fn slack() -> Value {
    json!({"type": "connector", "id": "connector_slack", "server_label": "team-chat"})
}

async fn ask(mock: &Mock, token: &str, input: &str, tools: Value) -> Value {
    let reply = mock
        .agent_create(
            token,
            json!({"model": "openai/gpt-5.6-terra", "input": input, "max_steps": 6,
                   "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed", "{:#}", reply.body);
    reply.body
}

#[tokio::test(start_paused = true)]
async fn a_connector_is_searched_and_its_fitting_tool_called() {
    let mock = Mock::new();
    let response = ask(
        &mock,
        ALICE,
        "Search for messages about the launch",
        json!([slack()]),
    )
    .await;
    // "Connectors are deferred by default, so the model searches the catalog
    // (tool_search_output) before it calls a tool."
    assert_eq!(
        item_types(&response),
        [
            "mcp_list_tools",
            "tool_search_output",
            "mcp_call",
            "message"
        ]
    );
    let call = item(&response, "mcp_call");
    assert_eq!(
        call["name"], "slack_search_public",
        "the search fits the message"
    );
    let arguments: Value =
        serde_json::from_str(call["arguments"].as_str().unwrap_or_default()).expect("JSON");
    assert!(arguments["query"].is_string(), "{arguments}");
    let output = call["output"].as_str().expect("an output");
    let text = answer(&response);
    assert!(
        text.contains(output),
        "the answer comes from the output: {text}"
    );
    assert!(!text.contains("from what I already know"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn an_mcp_servers_tool_that_fits_is_called_for_real() {
    let remote = MockServer::builder()
        .start()
        .await
        .expect("the remote MCP server starts");
    let mock = Mock::new();
    let tool = json!({"type": "mcp", "server_label": "computer", "server_url": remote.mcp_url(),
                      "authorization": "alice-dev-token",
                      "allowed_tools": ["read_thread", "projects_list"]});
    let response = ask(&mock, ALICE, "Which projects do I have?", json!([tool])).await;
    let call = item(&response, "mcp_call");
    assert_eq!(
        call["name"], "projects_list",
        "not the first listed (read_thread): the one whose name fits"
    );
    let called: Vec<Value> = remote
        .journal()
        .exchanges()
        .into_iter()
        .filter(|e| e.request_body["method"] == "tools/call")
        .map(|e| e.request_body["params"]["name"].clone())
        .collect();
    assert_eq!(called, [json!("projects_list")], "the server ran that tool");
    let output = call["output"].as_str().expect("the server's output");
    assert!(answer(&response).contains(output), "{}", answer(&response));
}

#[tokio::test(start_paused = true)]
async fn a_lapsed_connector_leaves_an_answer_naming_auth_required() {
    // bob's Slack authorization has lapsed in the world fixture.
    let mock = Mock::new();
    let response = ask(&mock, BOB, "Summarize recent messages", json!([slack()])).await;
    assert_eq!(item(&response, "mcp_call")["error"], "AUTH_REQUIRED");
    let text = answer(&response);
    assert!(text.contains("AUTH_REQUIRED"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_connector_that_is_not_connected_is_named_not_ignored() {
    // alice's Notion is not connected: "A connector that is not connected lists no tools".
    let mock = Mock::new();
    let notion = json!({"type": "connector", "id": "connector_notion", "server_label": "notes"});
    let response = ask(&mock, ALICE, "What are my notes about?", json!([notion])).await;
    assert_eq!(item_types(&response), ["mcp_list_tools", "message"]);
    let text = answer(&response);
    assert!(
        text.contains("notes connector") && text.contains("not connected"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_that_cannot_be_reached_is_named_with_connector_unavailable() {
    let scenario = r#"{"name": "slack-unreachable", "description": "Slack cannot be listed.",
      "agent": {"connector_errors": {"connector_slack": "CONNECTOR_UNAVAILABLE"},
        "turns": [{"steps": [{"type": "mcp_call"},
          {"type": "message", "text": "Dana said the eval harness is ready."}]}]}}"#;
    let mock = Mock::with(
        MockServer::builder()
            .scenario_json(scenario)
            .expect("scenario"),
    );
    let response = ask(&mock, ALICE, "#slack-unreachable news?", json!([slack()])).await;
    let text = answer(&response);
    assert!(text.contains("CONNECTOR_UNAVAILABLE"), "{text}");
    assert!(!text.contains("Dana"), "{text}");
}
