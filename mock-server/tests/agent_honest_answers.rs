//! Answers never pretend. A connector failure "does not fail the request", so "this is easy to
//! miss": the model "still answers — it just cannot use that connector" (Agent API,
//! Connectors, "Error handling"). After AUTH_REQUIRED, with a connector that lists no tools, or
//! when `max_steps` runs out before a tool is called ("a run can end right after the search and
//! answer without ever calling a tool", Agent API, MCP tool), the answer says what it could not
//! get instead of reporting data it never saw.

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB, item_types};

fn slack() -> Value {
    json!({"type": "connector", "id": "connector_slack", "server_label": "slack"})
}

fn answer(response: &Value) -> String {
    response["output"]
        .as_array()
        .and_then(|o| o.iter().find(|i| i["type"] == "message"))
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The Slack example's summary names what the messages said; an honest answer cannot.
fn pretends(text: &str) -> bool {
    text.contains("Dana") || text.contains("eval harness")
}

#[tokio::test(start_paused = true)]
async fn after_auth_required_the_answer_says_the_connector_needs_reconnecting() {
    // bob's Slack authorization has lapsed in the world fixture.
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": "#slack-summary what's new about AI?",
                                  "max_steps": 6, "tools": [slack()]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let call = reply.body["output"]
        .as_array()
        .and_then(|o| o.iter().find(|i| i["type"] == "mcp_call"))
        .cloned()
        .expect("the call");
    assert_eq!(call["error"], "AUTH_REQUIRED");
    let text = answer(&reply.body);
    assert!(!pretends(&text), "{text}");
    assert!(text.contains("slack connector"), "{text}");
    assert!(
        text.contains("AUTH_REQUIRED") && text.contains("reconnect"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn with_max_steps_too_low_to_call_the_tool_the_answer_says_it_did_not_get_the_data() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#slack-summary what's new?",
                                    "max_steps": 1, "tools": [slack()]}),
        )
        .await;
    assert_eq!(
        item_types(&reply.body),
        ["mcp_list_tools", "tool_search_output", "message"],
        "the run ends right after the search"
    );
    let text = answer(&reply.body);
    assert!(!pretends(&text), "{text}");
    assert!(
        text.contains("slack_search_public") && text.contains("max_steps 1"),
        "{text}"
    );
    // With enough steps the same request reads Slack and summarizes it.
    let enough = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#slack-summary what's new?",
                                    "max_steps": 2, "tools": [slack()]}),
        )
        .await;
    assert!(pretends(&answer(&enough.body)), "{}", answer(&enough.body));
}

#[tokio::test(start_paused = true)]
async fn deferred_discovery_spends_a_step_before_the_first_call() {
    // Agent API, Connectors: "Connector tools use deferred discovery by default. Set max_steps
    // high enough to discover and use them."
    let mock = Mock::new();
    let one = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval read Slack",
                                    "max_steps": 1, "tools": [slack()]}),
        )
        .await;
    assert_eq!(
        item_types(&one.body),
        ["mcp_list_tools", "tool_search_output", "message"]
    );
    assert!(
        answer(&one.body).contains("max_steps 1"),
        "{}",
        answer(&one.body)
    );
    let two = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval read Slack",
                                    "max_steps": 2, "tools": [slack()]}),
        )
        .await;
    assert_eq!(
        item_types(&two.body),
        [
            "mcp_list_tools",
            "tool_search_output",
            "mcp_call",
            "message"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_that_lists_no_tools_leaves_an_answer_that_says_so() {
    // alice's Notion is not connected: "A connector that is not connected lists no tools
    // ("tools": []) and produces no error, so also watch for an empty tool list."
    let mock = Mock::new();
    let notion = json!({"type": "connector", "id": "connector_notion", "server_label": "notion"});
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval my notes?",
                                    "tools": [notion]}),
        )
        .await;
    assert_eq!(item_types(&reply.body), ["mcp_list_tools", "message"]);
    let text = answer(&reply.body);
    assert!(
        text.contains("notion connector") && text.contains("not connected"),
        "{text}"
    );
    assert!(!text.contains("The tool returned"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_scripts_own_failed_text_is_used_when_it_has_one() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#connector-auth-lapsed",
                                    "max_steps": 6, "tools": [slack()]}),
        )
        .await;
    assert_eq!(
        answer(&reply.body),
        "I could not read Slack: the connector needs to be reconnected by a Project administrator."
    );
}

#[tokio::test(start_paused = true)]
async fn a_run_whose_tools_worked_answers_with_its_data() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#slack-summary",
                                    "max_steps": 6, "tools": [slack()]}),
        )
        .await;
    assert!(pretends(&answer(&reply.body)), "{}", answer(&reply.body));
}

#[tokio::test(start_paused = true)]
async fn a_connector_whose_discovery_fails_lists_no_tools_and_the_answer_names_the_error() {
    // Agent API, Connectors, "Error handling": CONNECTOR_UNAVAILABLE, "The connector service
    // could not be reached"; the request still completes and the model "still answers — it
    // just cannot use that connector".
    let scenario = r#"{"name": "slack-down", "description": "Slack cannot be listed.",
      "agent": {"connector_errors": {"connector_slack": "CONNECTOR_UNAVAILABLE"},
        "turns": [{"steps": [
          {"type": "mcp_call", "server": "slack", "tool": "slack_search_public",
           "arguments": {"query": "AI"}},
          {"type": "message", "text": "Dana said the eval harness is ready."}]}]}}"#;
    let mock = Mock::with(
        MockServer::builder()
            .scenario_json(scenario)
            .expect("scenario"),
    );
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#slack-down",
                                    "max_steps": 6, "tools": [slack()]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    let output = reply.body["output"].as_array().cloned().unwrap_or_default();
    let listed = output
        .iter()
        .find(|i| i["type"] == "mcp_list_tools")
        .expect("the listing");
    assert_eq!(listed["tools"], json!([]));
    assert_eq!(listed["error"], "CONNECTOR_UNAVAILABLE");
    let call = output
        .iter()
        .find(|i| i["type"] == "mcp_call")
        .expect("the call");
    assert_eq!(call["error"], "CONNECTOR_UNAVAILABLE");
    let text = answer(&reply.body);
    assert!(!pretends(&text), "{text}");
    assert!(text.contains("CONNECTOR_UNAVAILABLE"), "{text}");
}
