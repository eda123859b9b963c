//! Every Agent API catalog scenario in each mode — sync, stream and background — snapshotted
//! under `snapshots/agent-*.snap`, ids and timestamps redacted. The MCP scenarios use the mock's
//! own Computer MCP endpoint (a second mock on a socket) as the remote server.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::agent::{ALICE, redact};
use crate::common::{self, Mock};

/// The tools each scenario is shown with, as in the documents' examples.
fn tools_for(scenario: &str, mcp_url: &str) -> Value {
    let mcp = json!({"type": "mcp", "server_label": "computer", "server_url": mcp_url,
                     "authorization": "alice-dev-token", "allowed_tools": ["models_list"]});
    match scenario {
        "slack-summary"
        | "connector-auth-lapsed"
        | "connector-errors"
        | "connector-transient"
        | "connector-unknown-error" => {
            json!([{"type": "connector", "id": "connector_slack", "server_label": "slack"}])
        }
        "deepwiki-question" | "discovery-failure" => json!([mcp]),
        "mcp-approval"
        | "mcp-approval-parallel"
        | "mcp-approval-rounds"
        | "mcp-approval-always-allow" => {
            let mut mcp = mcp;
            mcp["require_approval"] = json!("always");
            json!([mcp])
        }
        "github-sandbox" => json!([{"type": "sandbox"},
                                   {"type": "connector", "id": "connector_github", "server_label": "github"}]),
        "function-weather" => json!([{"type": "function", "name": "get_weather",
                                      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]),
        "shared-file" => json!([{"type": "sandbox"}]),
        _ => json!([{"type": "web_search"}, {"type": "fetch_url"}]),
    }
}

/// A stream event with the response snapshot cut down to its status, except on the terminal
/// event (which carries the whole response).
fn compact(event: &Value) -> Value {
    let mut event = event.clone();
    let terminal = matches!(
        event["type"].as_str(),
        Some(
            "response.completed" | "response.failed" | "response.incomplete" | "response.cancelled"
        )
    );
    if !terminal && let Some(response) = event.get_mut("response") {
        *response = json!({"status": response["status"], "output": response["output"]});
    }
    event
}

#[tokio::test(start_paused = true)]
async fn every_catalog_scenario_in_every_mode() {
    let target = MockServer::builder().start().await.expect("mcp target");
    let mcp_url = target.mcp_url();
    let mock = Mock::with(MockServer::builder().manual_clock());
    let names: Vec<String> = mock
        .handle
        .catalog()
        .agent_iter()
        .map(|s| s.name.clone())
        .collect();
    assert!(names.len() >= 7);
    for name in names {
        let tools = tools_for(&name, &mcp_url);
        let body = json!({"model": "openai/gpt-5.6-terra", "input": format!("#{name} tell me more"), "tools": tools});

        let sync = run_sync(&mock, body.clone()).await;
        let mut streamed = body.clone();
        streamed["stream"] = json!(true);
        let stream = finish_stream(&mock, streamed).await;
        let mut background = body.clone();
        background["background"] = json!(true);
        let submitted = mock.agent_create(ALICE, background).await;
        let final_state = match submitted.body["id"].as_str() {
            Some(id) => {
                mock.advance(Duration::from_secs(3600));
                settle().await;
                mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await.body
            }
            None => Value::Null,
        };
        let record = json!({
            "request": body,
            "sync": {"status": sync.0, "body": redact(&sync.1)},
            "stream": {
                "status": stream.status.as_u16(),
                "body": redact(&stream.body),
                "events": stream.events.iter().map(|e| redact(&compact(e))).collect::<Vec<_>>(),
            },
            "background": {
                "status": submitted.status.as_u16(),
                "submitted": redact(&submitted.body),
                "final": redact(&final_state),
            },
        });
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "Agent API scenario `{name}`: sync, stream and background"
        ));
        settings.add_filter(r"127\.0\.0\.1:[0-9]+", "127.0.0.1:[port]");
        settings.add_filter(
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[uuid]",
        );
        settings.add_filter(r"call_[0-9a-f]{24}", "call_[id]");
        let snapshot = if name.starts_with("agent-") {
            name.clone()
        } else {
            format!("agent-{name}")
        };
        settings.bind(|| insta::assert_json_snapshot!(snapshot, record));
    }
}

/// A sync create; runs on a manual clock need the clock moved while the request waits.
async fn run_sync(mock: &Mock, body: Value) -> (u16, Value) {
    let task = {
        let mock = mock.clone();
        tokio::spawn(async move { mock.agent_create(ALICE, body).await })
    };
    let reply = drive(mock, task).await;
    (reply.status.as_u16(), reply.body)
}

async fn finish_stream(mock: &Mock, body: Value) -> common::Reply {
    let task = {
        let mock = mock.clone();
        tokio::spawn(async move { mock.agent_create(ALICE, body).await })
    };
    drive(mock, task).await
}

async fn drive(mock: &Mock, task: tokio::task::JoinHandle<common::Reply>) -> common::Reply {
    loop {
        if task.is_finished() {
            return task.await.expect("request task");
        }
        mock.advance(Duration::from_secs(60));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}
