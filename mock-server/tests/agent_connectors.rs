//! Managed connectors: deferred discovery (`mcp_list_tools` with the full catalog, a
//! `tool_search_output`, then `mcp_call`), `allowed_tools`, a connector that is not connected
//! (`tools: []`, no error), a lapsed one (`AUTH_REQUIRED` in-band), the other in-band errors on
//! demand, and GitHub with the sandbox (`sandbox_results` instead of MCP items).

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, item_types};

fn slack(extra: Value) -> Value {
    let mut tool = json!({"type": "connector", "id": "connector_slack", "server_label": "slack"});
    if let (Some(map), Value::Object(extra)) = (tool.as_object_mut(), extra) {
        map.extend(extra);
    }
    tool
}

fn body(input: &str, tools: Value) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": input, "max_steps": 6, "tools": tools})
}

fn tool_names(item: &Value) -> Vec<String> {
    item["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn the_slack_example_lists_searches_calls_and_answers() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            body(
                "Find and summarize recent messages about AI in my Slack workspace.",
                json!([slack(json!({}))]),
            ),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let r = &reply.body;
    assert_eq!(
        item_types(r),
        [
            "mcp_list_tools",
            "tool_search_output",
            "mcp_call",
            "message"
        ]
    );
    let list = &r["output"][0];
    assert_eq!(list["connector_id"], "connector_slack");
    assert_eq!(list["server_label"], "slack");
    assert!(
        list["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("mcpl_"))
    );
    let names = tool_names(list);
    assert!(names.len() >= 10, "the full catalog is recorded: {names:?}");
    assert!(names.contains(&"slack_search_public".to_owned()));
    assert!(names.contains(&"slack_send_message".to_owned()));

    let search = &r["output"][1];
    assert_eq!(search["call_id"], Value::Null);
    assert_eq!(search["status"], "completed");
    assert_eq!(search["execution"], "server");
    assert_eq!(
        search["arguments"],
        "{\"paths\":[\"slack\"],\"queries\":[\"search\",\"messages\"]}"
    );
    assert!(
        search["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("tso_call_"))
    );
    let namespace = &search["tools"][0];
    assert_eq!(namespace["type"], "namespace");
    assert_eq!(namespace["name"], "slack");
    assert!(
        namespace["description"].is_string(),
        "required by the SDK type"
    );
    // "it returns only the tools it matches" (Agent API, MCP tool, "Defer tool definitions");
    // the Connectors document's example search returns `slack_search_public` alone.
    assert_eq!(tool_names(namespace), ["slack_search_public"]);

    let call = &r["output"][2];
    assert_eq!(call["connector_id"], "connector_slack");
    assert_eq!(call["name"], "slack_search_public");
    assert_eq!(call["error"], Value::Null);
    assert!(
        call["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("call_"))
    );
    let args: Value = serde_json::from_str(call["arguments"].as_str().unwrap_or_default())
        .expect("arguments are JSON text");
    assert_eq!(args["query"], "AI");
    assert!(
        call["output"]
            .as_str()
            .is_some_and(|o| o.contains("eval harness"))
    );
}

#[tokio::test(start_paused = true)]
async fn allowed_tools_limits_what_is_listed_and_called() {
    // Connector parameters: `allowed_tools` is "An exact-name allowlist". The script's tool
    // (slack_search_public) is not on it, so the model calls nothing: another tool would not
    // give the scripted summary its data, and the answer says why instead of summarizing.
    let mock = Mock::new();
    let tools = json!([slack(json!({"allowed_tools": ["slack_read_channel"]}))]);
    let reply = mock
        .agent_create(ALICE, body("#slack-summary", tools))
        .await;
    let list = &reply.body["output"][0];
    assert_eq!(tool_names(list), ["slack_read_channel"]);
    assert!(calls(&reply.body).is_empty(), "{:#}", reply.body["output"]);
    let text = answer_text(&reply.body);
    assert!(
        text.contains("slack_search_public") && text.contains("allowed_tools"),
        "{text}"
    );
    assert!(
        !text.contains("Dana"),
        "no summary of messages never read: {text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_that_is_not_connected_lists_no_tools_and_no_error() {
    let mock = Mock::new();
    // alice's world: connector_notion is not connected.
    let tools = json!([{"type": "connector", "id": "connector_notion", "server_label": "notion"}]);
    let reply = mock
        .agent_create(ALICE, body("#slack-summary", tools))
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["status"], "completed");
    let list = &reply.body["output"][0];
    assert_eq!(list["type"], "mcp_list_tools");
    assert_eq!(list["tools"], json!([]));
    assert!(list.get("error").is_none_or(Value::is_null));
    assert_eq!(item_types(&reply.body), ["mcp_list_tools", "message"]);
}

#[tokio::test(start_paused = true)]
async fn a_lapsed_connector_fails_its_calls_in_band_with_auth_required() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            body(
                "#connector-auth-lapsed what's new?",
                json!([slack(json!({}))]),
            ),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["status"], "completed");
    let call = &reply.body["output"][2];
    assert_eq!(call["type"], "mcp_call");
    assert_eq!(call["error"], "AUTH_REQUIRED");
    assert!(call.get("output").is_none());
    // The catalog is still listed.
    assert!(!tool_names(&reply.body["output"][0]).is_empty());
    // The world fixture's own lapsed connector (alice's Datadog) behaves the same.
    let dd = json!([{"type": "connector", "id": "connector_datadog", "server_label": "dd"}]);
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval logs", "tools": dd}),
        )
        .await;
    let call = reply.body["output"]
        .as_array()
        .and_then(|o| o.iter().find(|i| i["type"] == "mcp_call"))
        .cloned()
        .expect("call");
    assert_eq!(call["error"], "AUTH_REQUIRED");
}

#[tokio::test(start_paused = true)]
async fn every_other_in_band_error_can_be_scripted_and_the_run_still_completes() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(ALICE, body("#connector-errors", json!([slack(json!({}))])))
        .await;
    assert_eq!(reply.body["status"], "completed");
    let errors: Vec<&str> = reply.body["output"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter(|i| i["type"] == "mcp_call")
                .filter_map(|i| i["error"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        errors,
        [
            "INVALID_ARGUMENTS",
            "POLICY_DENIED",
            "CONNECTOR_UNAVAILABLE",
            "CONNECTOR_INTERNAL_ERROR",
            "TOOL_ERROR"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn github_with_the_sandbox_runs_through_git_and_gh_unless_allowed_tools_is_set() {
    let mock = Mock::new();
    let github = json!({"type": "connector", "id": "connector_github", "server_label": "github"});
    let sandboxed = mock
        .agent_create(
            ALICE,
            body("#github-sandbox", json!([{"type": "sandbox"}, github])),
        )
        .await;
    assert_eq!(
        item_types(&sandboxed.body),
        ["sandbox_results", "sandbox_results", "message"]
    );
    let first = &sandboxed.body["output"][0];
    assert_eq!(first["language"], "bash");
    assert_eq!(first["status"], "completed");
    assert_eq!(first["results"][0]["exit_code"], 0);

    let mut allowed = github.clone();
    allowed["allowed_tools"] = json!(["list_pull_requests"]);
    let connector = mock
        .agent_create(
            ALICE,
            body("#github-sandbox", json!([{"type": "sandbox"}, allowed])),
        )
        .await;
    assert_eq!(
        item_types(&connector.body),
        [
            "mcp_list_tools",
            "sandbox_results",
            "tool_search_output",
            "mcp_call",
            "message"
        ]
    );
    assert_eq!(connector.body["output"][3]["name"], "list_pull_requests");

    let without_sandbox = mock
        .agent_create(ALICE, body("#github-sandbox", json!([github])))
        .await;
    assert_eq!(
        item_types(&without_sandbox.body),
        [
            "mcp_list_tools",
            "tool_search_output",
            "mcp_call",
            "message"
        ]
    );
}

fn calls(response: &Value) -> Vec<Value> {
    response["output"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter(|i| i["type"] == "mcp_call")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn answer_text(response: &Value) -> String {
    response["output"]
        .as_array()
        .and_then(|o| o.iter().rev().find(|i| i["type"] == "message"))
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_transient_connector_error_works_when_retried_later() {
    // CONNECTOR_UNAVAILABLE: "The connector service could not be reached. Transient. Retry
    // later."
    let mock = Mock::new();
    let first = mock
        .agent_create(
            ALICE,
            body(
                "#connector-transient what's new?",
                json!([slack(json!({}))]),
            ),
        )
        .await;
    assert_eq!(first.body["status"], "completed");
    assert_eq!(calls(&first.body)[0]["error"], "CONNECTOR_UNAVAILABLE");
    assert!(answer_text(&first.body).contains("CONNECTOR_UNAVAILABLE"));
    let id = first.body["id"].as_str().expect("id");
    let mut retry = body("Try again?", json!([slack(json!({}))]));
    retry["previous_response_id"] = json!(id);
    let second = mock.agent_create(ALICE, retry).await;
    assert_eq!(second.status, 200, "{:#}", second.body);
    let call = &calls(&second.body)[0];
    assert!(call.get("error").is_none_or(Value::is_null), "{call:#}");
    assert!(call["output"].as_str().is_some_and(|o| o.contains("Dana")));
    assert!(answer_text(&second.body).contains("Dana"));

    // The same retry sent as history in `input` (as a ZDR client or a chat framework does).
    let mut history: Vec<Value> = vec![
        json!({"type": "message", "role": "user", "content": "#connector-transient what's new?"}),
    ];
    history.extend(
        first.body["output"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| i["type"] == "mcp_call" || i["type"] == "message")
            .cloned(),
    );
    history.push(json!({"type": "message", "role": "user", "content": "Try again?"}));
    let mut request = body("", json!([slack(json!({}))]));
    request["input"] = Value::Array(history);
    let third = mock.agent_create(ALICE, request).await;
    assert_eq!(third.status, 200, "{:#}", third.body);
    let call = &calls(&third.body)[0];
    assert!(call.get("error").is_none_or(Value::is_null), "{call:#}");
    assert!(
        answer_text(&third.body).contains("Dana"),
        "{:#}",
        third.body
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_value_no_document_lists_is_passed_on_and_answered_as_a_failure() {
    // mcp_call.error is a free-form string: a client must treat a value it does not know as a
    // failure.
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            body("#connector-unknown-error", json!([slack(json!({}))])),
        )
        .await;
    assert_eq!(reply.body["status"], "completed");
    assert_eq!(calls(&reply.body)[0]["error"], "RATE_LIMITED");
    let text = answer_text(&reply.body);
    assert!(
        text.contains("RATE_LIMITED") && text.starts_with("I could not"),
        "{text}"
    );
}
