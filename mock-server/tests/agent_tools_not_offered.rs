//! A scripted step whose tool the request does not offer runs nothing, and the answer says what
//! it could not do instead of reporting a result that never happened. The Connectors document's
//! rule for a failed connector holds for every missing tool: "the model still answers — it just
//! cannot use that connector" (Agent API, Connectors, "Error handling"); and for a connector that
//! is not connected, "A connector that is not connected lists no tools ... so also watch for an
//! empty tool list".

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, item_types};

fn answer(response: &Value) -> String {
    response["output"]
        .as_array()
        .and_then(|o| o.iter().find(|i| i["type"] == "message"))
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

async fn run(input: &str, tools: Value) -> Value {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": input, "max_steps": 6,
                   "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed", "the request still works");
    reply.body
}

#[tokio::test(start_paused = true)]
async fn the_slack_summary_without_slack_reports_no_messages() {
    let response = run("#slack-summary what's new about AI?", json!([])).await;
    assert_eq!(item_types(&response), ["message"], "nothing was called");
    let text = answer(&response);
    assert!(
        !text.contains("Dana") && !text.contains("eval harness"),
        "no summary of messages never read: {text}"
    );
    assert!(
        text.contains("slack_search_public") && text.contains("connector_slack"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_weather_without_the_function_has_no_empty_placeholder() {
    let response = run("#function-weather in Paris?", json!([])).await;
    assert_eq!(item_types(&response), ["message"]);
    let text = answer(&response);
    assert!(!text.starts_with("The weather in Paris:"), "{text}");
    assert!(
        text.contains("get_weather function") && text.contains("do not include it"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_deepwiki_question_without_a_server_says_it_had_none() {
    let response = run("#deepwiki-question transports?", json!([])).await;
    let text = answer(&response);
    assert!(!text.starts_with("According to the MCP server"), "{text}");
    assert!(
        text.contains("ask_question") && text.contains("no MCP server or connector"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_that_is_not_connected_leaves_an_answer_that_says_so() {
    // alice's Notion is not connected: it lists no tools.
    let notion = json!({"type": "connector", "id": "connector_notion", "server_label": "notion"});
    let response = run("#slack-summary", json!([notion])).await;
    let text = answer(&response);
    assert!(!text.contains("Dana"), "{text}");
    // The script names connector_slack, which the request does not bring.
    assert!(text.contains("connector_slack"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_sandbox_step_without_the_sandbox_says_it_could_not_run_code() {
    let github = json!({"type": "connector", "id": "connector_github", "server_label": "github",
                        "allowed_tools": ["get_file_contents"]});
    let response = run("#github-sandbox open PRs?", json!([github])).await;
    assert!(
        !item_types(&response).contains(&"sandbox_results".to_owned()),
        "{response:#}"
    );
    let text = answer(&response);
    assert!(!text.contains("#42"), "{text}");
    assert!(text.contains("sandbox tool"), "{text}");
    // list_pull_requests is not on the allowlist: no other tool stands in for it.
    assert!(
        text.contains("list_pull_requests") && text.contains("allowed_tools"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn every_in_band_connector_error_is_named_in_the_answer() {
    // Agent API, Connectors, "Error handling": each value a harness can branch on, among them
    // `CONNECTOR_UNAVAILABLE`, "The connector service could not be reached".
    let slack = json!({"type": "connector", "id": "connector_slack", "server_label": "slack"});
    let response = run("#connector-errors", json!([slack])).await;
    let text = answer(&response);
    for value in [
        "INVALID_ARGUMENTS",
        "POLICY_DENIED",
        "CONNECTOR_UNAVAILABLE",
        "CONNECTOR_INTERNAL_ERROR",
        "TOOL_ERROR",
    ] {
        assert!(text.contains(value), "{value} missing from: {text}");
    }
}
