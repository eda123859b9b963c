//! The sandbox's GitHub credentials come from the GitHub connector: "It uses the git and gh
//! CLIs in the sandbox with the GitHub credentials from the connector" (Agent API, Connectors,
//! "Connector with the sandbox"). Without the connector, or with its authorization lapsed, git
//! and gh fail in the sandbox output ("failures appear as git or gh output"), and the answer
//! says it could not work with GitHub.

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, item_types};

fn github() -> Value {
    json!({"type": "connector", "id": "connector_github", "server_label": "github"})
}

fn slack() -> Value {
    json!({"type": "connector", "id": "connector_slack", "server_label": "slack"})
}

async fn run(mock: &Mock, tools: Value) -> Value {
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#github-sandbox open PRs?",
                                    "max_steps": 12, "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(
        reply.body["status"], "completed",
        "the request still succeeds"
    );
    reply.body
}

fn sandbox_results(response: &Value) -> Vec<Value> {
    response["output"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter(|i| i["type"] == "sandbox_results")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn answer(response: &Value) -> String {
    response["output"]
        .as_array()
        .and_then(|o| o.iter().find(|i| i["type"] == "message"))
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(start_paused = true)]
async fn with_the_connected_github_connector_git_and_gh_work() {
    let mock = Mock::new();
    let response = run(&mock, json!([{"type": "sandbox"}, github()])).await;
    let results = sandbox_results(&response);
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| r["results"][0]["exit_code"] == 0));
    assert!(answer(&response).contains("pull request #42"));
}

#[tokio::test(start_paused = true)]
async fn the_sandbox_alone_or_with_another_connector_has_no_github_credentials() {
    let mock = Mock::new();
    for tools in [
        json!([{"type": "sandbox"}]),
        json!([{"type": "sandbox"}, slack()]),
    ] {
        let response = run(&mock, tools.clone()).await;
        let clone = &sandbox_results(&response)[0];
        assert_eq!(
            clone["code"],
            "gh repo clone acme/widgets && cd widgets && git log --oneline -3"
        );
        assert_eq!(clone["status"], "failed", "{tools}: {clone:#}");
        let result = &clone["results"][0];
        assert_eq!(result["exit_code"], 4);
        assert_eq!(result["stdout"], "");
        assert!(
            result["stderr"]
                .as_str()
                .is_some_and(|e| e.contains("gh auth login")),
            "{result:#}"
        );
        let text = answer(&response);
        assert!(!text.contains("#42"), "the answer pretends: {text}");
        assert!(text.contains("GitHub"), "{text}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_lapsed_github_connector_leaves_git_and_gh_failing_with_bad_credentials() {
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    world["accounts"][0]["agent_api"]["connectors"]["connector_github"] = json!("lapsed");
    let mock = Mock::with(
        MockServer::builder()
            .world_json(&world.to_string())
            .expect("world"),
    );
    let response = run(&mock, json!([{"type": "sandbox"}, github()])).await;
    assert_eq!(
        item_types(&response),
        ["sandbox_results", "sandbox_results", "message"]
    );
    for result in sandbox_results(&response) {
        assert_eq!(result["status"], "failed");
        assert!(
            result["results"][0]["stderr"]
                .as_str()
                .is_some_and(|e| e.contains("Bad credentials")),
            "{result:#}"
        );
    }
    let text = answer(&response);
    assert!(!text.contains("#42"), "the answer pretends: {text}");
    assert!(text.contains("lapsed"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn commands_that_do_not_touch_github_run_without_credentials() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#shared-file",
                                    "tools": [{"type": "sandbox"}]}),
        )
        .await;
    let result = &sandbox_results(&reply.body)[0];
    assert_eq!(result["status"], "completed");
    assert_eq!(answer(&reply.body), "I wrote report.md and shared it.");
}

#[tokio::test(start_paused = true)]
async fn a_lapsed_github_connector_is_explained_once_however_many_commands_failed() {
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    world["accounts"][0]["agent_api"]["connectors"]["connector_github"] = json!("lapsed");
    let mock = Mock::with(
        MockServer::builder()
            .world_json(&world.to_string())
            .expect("world"),
    );
    let response = run(&mock, json!([{"type": "sandbox"}, github()])).await;
    assert_eq!(
        sandbox_results(&response).len(),
        2,
        "two commands were refused"
    );
    let text = answer(&response);
    assert_eq!(
        text.matches("authorization has lapsed").count(),
        1,
        "one reason, said once: {text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_tool_run_through_the_sandbox_is_a_real_gh_command() {
    // "It uses the git and gh CLIs in the sandbox": list_pull_requests is `gh pr list`.
    let mock = Mock::new();
    let response = run(&mock, json!([{"type": "sandbox"}, github()])).await;
    let codes: Vec<String> = sandbox_results(&response)
        .iter()
        .filter_map(|r| r["code"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        codes[1],
        "gh pr list --repo acme/widgets --state open --json number,title,state"
    );
}

#[tokio::test(start_paused = true)]
async fn a_stream_sends_response_sandbox_results_with_what_the_command_printed() {
    // The Agent API's "shape output" page lists the `response.sandbox.results` event; its
    // fields are not documented, so it carries its item's `call_id` and `results` (see
    // docs/where-documents-are-silent.md, "The sandbox and GitHub").
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#github-sandbox open PRs?",
                   "max_steps": 12, "stream": true,
                   "tools": [{"type": "sandbox"}, github()]}),
        )
        .await;
    let sandbox_events: Vec<&Value> = reply
        .events
        .iter()
        .filter(|e| e["type"] == "response.sandbox.results")
        .collect();
    let items: Vec<&Value> = reply
        .events
        .iter()
        .filter(|e| {
            e["type"] == "response.output_item.done" && e["item"]["type"] == "sandbox_results"
        })
        .map(|e| &e["item"])
        .collect();
    assert_eq!(sandbox_events.len(), 2, "one per command");
    assert_eq!(items.len(), 2);
    for (event, item) in sandbox_events.iter().zip(&items) {
        assert_eq!(event["call_id"], item["call_id"]);
        assert_eq!(event["results"], item["results"]);
    }
    assert!(
        sandbox_events[0]["results"][0]["stdout"]
            .as_str()
            .is_some_and(|s| s.contains("Fix rounding")),
        "{:#}",
        sandbox_events[0]
    );
    // The event comes before its item is added.
    let position = |pred: &dyn Fn(&Value) -> bool| reply.events.iter().position(pred);
    let event_at = position(&|e| e["type"] == "response.sandbox.results");
    let item_at = position(&|e| {
        e["type"] == "response.output_item.added" && e["item"]["type"] == "sandbox_results"
    });
    assert!(event_at < item_at, "{event_at:?} {item_at:?}");
}
