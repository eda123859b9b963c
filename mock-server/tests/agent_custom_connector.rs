//! A custom connector from the world fixture: a connector id backed by a real MCP server (here
//! the mock's own Computer MCP endpoint on a socket), discovered and called like a managed one.

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::agent::{ALICE, item_types};
use crate::common::{self, Mock};

#[tokio::test(start_paused = true)]
async fn a_custom_connector_lists_and_calls_its_real_server() {
    let target = MockServer::builder().start().await.expect("mcp target");
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    world["accounts"][0]["agent_api"]["custom_connectors"] = json!([{
        "id": "connector_acme_computer",
        "url": target.mcp_url(),
        "authorization": "alice-dev-token",
    }]);
    let path = std::env::temp_dir().join(format!("agent-world-{}.json", std::process::id()));
    std::fs::write(&path, world.to_string()).expect("write world");
    let mock = Mock::with(MockServer::builder().world(&path));
    let tools = json!([{"type": "connector", "id": "connector_acme_computer", "server_label": "acme",
                        "allowed_tools": ["models_list"]}]);
    let reply = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval which models?", "tools": tools}))
        .await;
    let _ = std::fs::remove_file(&path);
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
    let list = &reply.body["output"][0];
    assert_eq!(list["connector_id"], "connector_acme_computer");
    assert_eq!(list["tools"][0]["name"], "models_list");
    let call = &reply.body["output"][2];
    assert_eq!(call["name"], "models_list");
    assert_eq!(call["error"], Value::Null);
    let output: Value =
        serde_json::from_str(call["output"].as_str().expect("output")).expect("JSON output");
    assert!(output["models"].is_array(), "{output}");
    // Another account does not have it.
    let bob = mock
        .agent_create(
            common::agent::BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi", "tools": tools}),
        )
        .await;
    assert_eq!(bob.status, 400);
    assert_eq!(bob.body["error"]["param"], "tools[0].id");
}
