//! `require_approval` on the `mcp` tool, with the mock's own Computer MCP endpoint (on a socket)
//! as the remote server: every policy form, the `mcp_approval_request` that holds a call, the
//! continuation that must carry one decision per pending request and the tools again, the
//! approved call running with the continuation's server, the denial, and the Zero Data
//! Retention continuation through the history in `input`.

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::agent::{ALICE, BOB, event_types, item_types};
use crate::common::{Mock, Reply};

mod several;

async fn remote() -> MockServer {
    MockServer::builder()
        .start()
        .await
        .expect("the remote MCP server starts")
}

/// An `mcp` tool whose only tool is `models_list` (read-only), so the scripted model calls it.
fn mcp(url: &str, require_approval: Option<Value>) -> Value {
    let mut tool = json!({
        "type": "mcp",
        "server_label": "computer",
        "server_url": url,
        "authorization": "alice-dev-token",
        "allowed_tools": ["models_list"],
    });
    if let Some(policy) = require_approval {
        tool["require_approval"] = policy;
    }
    tool
}

fn first_request(tool: Value) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval Which models can I use?", "tools": [tool]})
}

fn continuation(previous: &str, input: Value, tools: Value) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "previous_response_id": previous, "input": input, "tools": tools})
}

fn approve(id: &str) -> Value {
    json!({"type": "mcp_approval_response", "approval_request_id": id, "approve": true})
}

/// How many `tools/call`s the remote server has received.
fn calls(remote: &MockServer) -> usize {
    remote
        .journal()
        .exchanges()
        .iter()
        .filter(|e| e.request_body["method"] == "tools/call")
        .count()
}

fn find<'a>(response: &'a Value, kind: &str) -> Option<&'a Value> {
    response["output"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["type"] == kind))
}

fn text(response: &Value) -> String {
    find(response, "message")
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// A first request whose call waits for approval; returns the response and the request id.
async fn pending(mock: &Mock, token: &str, url: &str) -> (Value, String) {
    let reply = mock
        .agent_create(token, first_request(mcp(url, Some(json!("always")))))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let id = find(&reply.body, "mcp_approval_request")
        .and_then(|r| r["id"].as_str())
        .unwrap_or_else(|| panic!("no approval request in {:#}", reply.body))
        .to_owned();
    (reply.body, id)
}

#[tokio::test(start_paused = true)]
async fn every_require_approval_form_decides_as_documented() {
    let remote = remote().await;
    let mock = Mock::new();
    // models_list is annotated read-only by the remote server.
    let cases = [
        (None, false),
        (Some(json!("always")), true),
        (Some(json!("never")), false),
        (Some(json!({})), false),
        (Some(json!({"always": {}})), true),
        (Some(json!({"never": {}})), false),
        (Some(json!({"never": {"tool_names": []}})), false),
        (
            Some(json!({"never": {"tool_names": ["models_list"]}})),
            false,
        ),
        // Tools outside the never filter still require approval.
        (
            Some(json!({"never": {"tool_names": ["read_thread"]}})),
            true,
        ),
        (
            Some(json!({"always": {"tool_names": ["models_list"]}})),
            true,
        ),
        (
            Some(json!({"always": {"tool_names": ["read_thread"]}})),
            false,
        ),
        (Some(json!({"always": {"tool_names": null}})), true),
        (Some(json!({"always": {"read_only": true}})), true),
        (Some(json!({"always": {"read_only": false}})), false),
        (Some(json!({"never": {"read_only": true}})), false),
        (Some(json!({"never": {"read_only": false}})), true),
        // Both given: a tool must match both.
        (
            Some(json!({"always": {"tool_names": ["models_list"], "read_only": false}})),
            false,
        ),
        (
            Some(json!({"always": {"tool_names": ["models_list"], "read_only": true}})),
            true,
        ),
    ];
    for (policy, needs_approval) in cases {
        let before = calls(&remote);
        let reply = mock
            .agent_create(ALICE, first_request(mcp(&remote.mcp_url(), policy.clone())))
            .await;
        assert_eq!(reply.status, 200, "{policy:?}: {:#}", reply.body);
        let types = item_types(&reply.body);
        if needs_approval {
            assert_eq!(
                types,
                ["mcp_list_tools", "mcp_approval_request"],
                "{policy:?} should hold the call"
            );
            assert_eq!(calls(&remote), before, "{policy:?} ran the tool");
        } else {
            assert_eq!(
                types,
                ["mcp_list_tools", "mcp_call", "message"],
                "{policy:?} should run the call"
            );
            assert_eq!(
                calls(&remote),
                before + 1,
                "{policy:?} did not run the tool"
            );
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_bad_require_approval_is_a_400_naming_the_field() {
    let remote = remote().await;
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            first_request(mcp(
                &remote.mcp_url(),
                Some(json!({"always": {"tool_names": "models_list"}})),
            )),
        )
        .await;
    assert_eq!(reply.status, 400, "{:#}", reply.body);
    let message = reply.body["error"]["message"].as_str().expect("message");
    assert!(message.contains("tool_names"), "{message}");
    assert_eq!(reply.body["error"]["param"], "tools[0].require_approval");
    assert_eq!(calls(&remote), 0);
    assert!(
        remote.journal().exchanges().is_empty(),
        "nothing was discovered"
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_that_needs_approval_becomes_a_request_and_does_not_run() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let request = find(&response, "mcp_approval_request").expect("request");
    assert_eq!(request["name"], "models_list");
    assert_eq!(request["server_label"], "computer");
    assert_eq!(request["id"], id.as_str());
    let arguments: Value =
        serde_json::from_str(request["arguments"].as_str().expect("arguments string"))
            .expect("arguments are JSON");
    assert!(arguments.is_object());
    assert!(find(&response, "mcp_call").is_none());
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn an_approved_call_runs_with_the_continuations_server_url_authorization_and_headers() {
    let proposer = remote().await;
    // The runner knows alice only by another token, so the proposing request's token would
    // be refused there: a call that succeeds carried the continuation's token.
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    if let Some(alice) = world["accounts"]
        .as_array_mut()
        .and_then(|a| a.iter_mut().find(|a| a["id"] == "alice"))
    {
        alice["token"] = json!("runner-only-token");
    }
    let world_file = std::env::temp_dir().join(format!(
        "agent-approvals-runner-{}.json",
        std::process::id()
    ));
    std::fs::write(&world_file, world.to_string()).expect("write the runner's world");
    let runner = MockServer::builder()
        .world(&world_file)
        .start()
        .await
        .expect("the runner starts");
    let _ = std::fs::remove_file(&world_file);
    let mock = Mock::new();
    let mut first = mcp(&proposer.mcp_url(), Some(json!("always")));
    first["headers"] = json!({"X-Request-Tag": "first"});
    let reply = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval models?", "tools": [first]}))
        .await;
    let id = find(&reply.body, "mcp_approval_request").expect("request")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let previous = reply.body["id"].as_str().expect("response id").to_owned();

    // Same label, another server, another token and another header value.
    let mut again = mcp(&runner.mcp_url(), Some(json!("always")));
    again["headers"] = json!({"X-Request-Tag": "second"});
    again["authorization"] = json!("runner-only-token");
    let reply = mock
        .agent_create(
            ALICE,
            continuation(&previous, json!([approve(&id)]), json!([again])),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    assert_eq!(reply.body["previous_response_id"], previous.as_str());
    let call = find(&reply.body, "mcp_call").expect("the approved call");
    assert_eq!(call["approval_request_id"], id.as_str());
    assert_eq!(call["name"], "models_list");
    assert_eq!(call["error"], Value::Null);
    assert!(
        call["output"]
            .as_str()
            .is_some_and(|o| o.contains("\"models\""))
    );
    // No new approval request: the decision covered the call.
    assert!(find(&reply.body, "mcp_approval_request").is_none());

    assert_eq!(
        calls(&proposer),
        0,
        "the proposing request's server never ran the call"
    );
    assert_eq!(calls(&runner), 1);
    let call = runner
        .journal()
        .exchanges()
        .into_iter()
        .find(|e| e.request_body["method"] == "tools/call")
        .expect("tools/call");
    assert_eq!(call.request_headers["x-request-tag"], "second");
    assert_eq!(call.status, 200, "the continuation's token was accepted");
}

#[tokio::test(start_paused = true)]
async fn a_denial_skips_the_call_and_the_model_answers_with_the_reason() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let deny = json!([
        {"type": "mcp_approval_response", "approval_request_id": id, "approve": false, "reason": "not on a Friday"},
        {"type": "message", "role": "user", "content": "Move on"},
    ]);
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let reply = mock
        .agent_create(ALICE, continuation(previous, deny, tools))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "completed");
    assert!(find(&reply.body, "mcp_call").is_none());
    assert!(
        text(&reply.body).contains("not on a Friday"),
        "{}",
        text(&reply.body)
    );
    assert_eq!(calls(&remote), 0);
}

/// Sends `body` in sync, stream and background mode; each must be refused with 400.
async fn refused_in_every_mode(mock: &Mock, body: &Value, expected: &str) -> Vec<Reply> {
    let mut replies = Vec::new();
    for mode in ["sync", "stream", "background"] {
        let mut body = body.clone();
        if mode != "sync" {
            body[mode] = json!(true);
        }
        let reply = mock.agent_create(ALICE, body).await;
        assert_eq!(reply.status, 400, "{mode}: {:#}", reply.body);
        assert_eq!(reply.body["error"]["type"], "invalid_request", "{mode}");
        assert_eq!(reply.body["error"]["code"], 400, "{mode}");
        let message = reply.body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{mode}: {message}");
        assert!(
            reply.events.is_empty(),
            "{mode}: a refused request streams nothing"
        );
        replies.push(reply);
    }
    replies
}

#[tokio::test(start_paused = true)]
async fn a_continuation_without_a_decision_is_a_400_in_every_mode_and_changes_nothing() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id").to_owned();
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let body = continuation(&previous, json!("Just go ahead"), tools.clone());
    let replies = refused_in_every_mode(&mock, &body, &id).await;
    assert_eq!(replies[0].body["error"]["param"], "input");
    assert_eq!(calls(&remote), 0, "no tool ran");

    // The pending request is still there to decide.
    let reply = mock
        .agent_create(ALICE, continuation(&previous, json!([approve(&id)]), tools))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert!(find(&reply.body, "mcp_call").is_some());
    assert_eq!(calls(&remote), 1);
}

#[tokio::test(start_paused = true)]
async fn a_decision_for_an_unknown_request_is_a_400_naming_it() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let input = json!([approve(&id), approve("mcpr_made_up")]);
    let replies =
        refused_in_every_mode(&mock, &continuation(previous, input, tools), "mcpr_made_up").await;
    assert!(
        replies[0].body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(&id)),
        "the message lists what is pending"
    );
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn two_decisions_for_one_request_are_a_400() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let mut deny = approve(&id);
    deny["approve"] = json!(false);
    let input = json!([approve(&id), deny]);
    let replies =
        refused_in_every_mode(&mock, &continuation(previous, input, tools), "second").await;
    assert_eq!(
        replies[0].body["error"]["param"],
        "input[1].approval_request_id"
    );
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn a_malformed_decision_is_a_400_naming_the_item() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let input =
        json!([{"type": "mcp_approval_response", "approval_request_id": id, "approve": "yes"}]);
    let replies =
        refused_in_every_mode(&mock, &continuation(previous, input, tools), "`approve`").await;
    assert!(
        replies[0].body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("input[0]"))
    );
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn an_approval_without_the_tools_sent_again_runs_nothing() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let body = json!({"model": "openai/gpt-5.6-terra", "previous_response_id": previous, "input": [approve(&id)]});
    let reply = mock.agent_create(ALICE, body.clone()).await;
    assert_eq!(reply.status, 400, "{:#}", reply.body);
    assert_eq!(reply.body["error"]["type"], "invalid_request");
    let message = reply.body["error"]["message"].as_str().expect("message");
    assert!(message.contains("send the same tools again"), "{message}");

    // Checked when the run starts, so a stream reports it with response.failed.
    let mut streamed = body;
    streamed["stream"] = json!(true);
    let reply = mock.agent_create(ALICE, streamed).await;
    assert_eq!(reply.status, 200);
    let types = event_types(&reply.events);
    assert_eq!(
        types.last().map(String::as_str),
        Some("response.failed"),
        "{types:?}"
    );
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn zero_data_retention_cannot_use_previous_response_id() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, BOB, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let reply = mock
        .agent_create(BOB, continuation(previous, json!([approve(&id)]), tools))
        .await;
    assert_eq!(reply.status, 400, "{:#}", reply.body);
    assert_eq!(reply.body["error"]["type"], "invalid_request");
    assert_eq!(reply.body["error"]["param"], "previous_response_id");
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn zero_data_retention_continues_with_the_history_in_input() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, BOB, &remote.mcp_url()).await;
    let request_item = find(&response, "mcp_approval_request")
        .expect("request")
        .clone();
    let user = json!({"type": "message", "role": "user", "content": "#mcp-approval Which models can I use?"});
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);

    let history = json!([user, request_item, approve(&id)]);
    let reply = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let call = find(&reply.body, "mcp_call")
        .expect("the approved call ran")
        .clone();
    assert_eq!(call["approval_request_id"], id.as_str());
    assert_eq!(calls(&remote), 1);

    // The mcp_call sent back is history: nothing runs again for it.
    let mut history = history.as_array().cloned().expect("history");
    history.push(call);
    history.push(json!({"type": "message", "role": "user", "content": "Thanks"}));
    let reply = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(
        calls(&remote),
        1,
        "the call in the history did not run again"
    );
    assert!(
        find(&reply.body, "mcp_call").is_none_or(|c| c["approval_request_id"] != id.as_str()),
        "{:#}",
        reply.body
    );
}

#[tokio::test(start_paused = true)]
async fn zero_data_retention_history_missing_its_decision_is_a_400() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, BOB, &remote.mcp_url()).await;
    let request_item = find(&response, "mcp_approval_request")
        .expect("request")
        .clone();
    let user = json!({"type": "message", "role": "user", "content": "#mcp-approval Which models can I use?"});
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let body =
        json!({"model": "openai/gpt-5.6-terra", "input": [user, request_item], "tools": tools});
    let reply = mock.agent_create(BOB, body).await;
    assert_eq!(reply.status, 400, "{:#}", reply.body);
    assert!(
        reply.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(&id))
    );
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn a_background_approval_continuation_runs_the_call_on_the_virtual_clock() {
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let previous = response["id"].as_str().expect("id");
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let mut body = continuation(previous, json!([approve(&id)]), tools);
    body["background"] = json!(true);
    let reply = mock.agent_create(ALICE, body).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "queued");
    let done = mock
        .agent_finished(reply.body["id"].as_str().expect("id"))
        .await;
    assert_eq!(done["status"], "completed", "{done:#}");
    let call = find(&done, "mcp_call").unwrap_or_else(|| panic!("no call in {done:#}"));
    assert_eq!(call["approval_request_id"], id.as_str());
    assert_eq!(calls(&remote), 1);
}
