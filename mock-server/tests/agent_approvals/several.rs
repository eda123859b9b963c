//! Several approval requests at once, and approvals over several rounds: one decision for each,
//! carried out one by one, by `previous_response_id` or by history under Zero Data Retention.

use super::*;

/// Two tools of the remote server, so a parallel turn proposes two different calls.
fn two_tools(url: &str) -> Value {
    let mut tool = mcp(url, Some(json!("always")));
    tool["allowed_tools"] = json!(["models_list", "projects_list"]);
    tool
}

fn requests(response: &Value) -> Vec<Value> {
    response["output"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == "mcp_approval_request")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn ids(requests: &[Value]) -> Vec<String> {
    requests
        .iter()
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn several_calls_of_one_model_turn_come_as_several_approval_requests_in_one_response() {
    let remote = remote().await;
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval-parallel models and projects?",
                   "tools": [two_tools(&remote.mcp_url())]}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(
        item_types(&reply.body),
        [
            "mcp_list_tools",
            "mcp_approval_request",
            "mcp_approval_request"
        ]
    );
    let pending = requests(&reply.body);
    let names: Vec<&str> = pending.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names, ["models_list", "projects_list"]);
    let ids = ids(&pending);
    assert_ne!(ids[0], ids[1], "each request has its own id");
    assert_eq!(calls(&remote), 0, "no call ran before its decision");
}

#[tokio::test(start_paused = true)]
async fn a_continuation_missing_one_of_several_decisions_is_a_400_naming_the_missing_one() {
    // Agent API, MCP tool, "Approvals": send "an mcp_approval_response for each approval
    // request"; "the request fails with type: \"invalid_request\" if a decision is missing".
    let remote = remote().await;
    let mock = Mock::new();
    let tools = json!([two_tools(&remote.mcp_url())]);
    let first = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval-parallel go", "tools": tools}))
        .await;
    let pending = ids(&requests(&first.body));
    let previous = first.body["id"].as_str().expect("id");
    let only_first = continuation(previous, json!([approve(&pending[0])]), tools.clone());
    refused_in_every_mode(&mock, &only_first, &pending[1]).await;
    assert_eq!(calls(&remote), 0, "no tool ran");
}

#[tokio::test(start_paused = true)]
async fn each_of_several_decisions_is_carried_out_approved_calls_run_and_denied_ones_do_not() {
    let remote = remote().await;
    let mock = Mock::new();
    let tools = json!([two_tools(&remote.mcp_url())]);
    let first = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval-parallel go", "tools": tools}))
        .await;
    let pending = ids(&requests(&first.body));
    let previous = first.body["id"].as_str().expect("id");
    // The decisions come in another order than the requests: each is matched by its id.
    let input = json!([
        {"type": "mcp_approval_response", "approval_request_id": pending[1], "approve": false, "reason": "not the projects"},
        approve(&pending[0]),
    ]);
    let reply = mock
        .agent_create(ALICE, continuation(previous, input, tools))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let ran: Vec<&Value> = reply.body["output"]
        .as_array()
        .map(|o| o.iter().filter(|i| i["type"] == "mcp_call").collect())
        .unwrap_or_default();
    assert_eq!(ran.len(), 1, "{:#}", reply.body);
    assert_eq!(ran[0]["approval_request_id"], pending[0].as_str());
    assert_eq!(ran[0]["name"], "models_list");
    assert_eq!(calls(&remote), 1);
    assert!(
        text(&reply.body).contains("not the projects"),
        "{}",
        text(&reply.body)
    );
    assert!(requests(&reply.body).is_empty());
}

#[tokio::test(start_paused = true)]
async fn approvals_over_several_rounds_each_bring_a_new_request() {
    // Agent API, MCP tool: "A later response can contain new approval requests, so handle
    // each one in the same way."
    let remote = remote().await;
    let mock = Mock::new();
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let first = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval-rounds go", "tools": tools}))
        .await;
    assert_eq!(
        item_types(&first.body),
        ["mcp_list_tools", "mcp_approval_request"]
    );
    let round_one = ids(&requests(&first.body));
    let second = mock
        .agent_create(
            ALICE,
            continuation(
                first.body["id"].as_str().expect("id"),
                json!([approve(&round_one[0])]),
                tools.clone(),
            ),
        )
        .await;
    assert_eq!(second.status, 200, "{:#}", second.body);
    assert_eq!(
        item_types(&second.body),
        ["mcp_list_tools", "mcp_call", "mcp_approval_request"]
    );
    let round_two = ids(&requests(&second.body));
    assert_ne!(round_two[0], round_one[0]);
    assert_eq!(calls(&remote), 1);
    // The first round's decision does not answer the second.
    let stale = continuation(
        second.body["id"].as_str().expect("id"),
        json!([approve(&round_one[0])]),
        tools.clone(),
    );
    refused_in_every_mode(&mock, &stale, &round_one[0]).await;
    let third = mock
        .agent_create(
            ALICE,
            continuation(
                second.body["id"].as_str().expect("id"),
                json!([approve(&round_two[0])]),
                tools,
            ),
        )
        .await;
    assert_eq!(
        item_types(&third.body),
        ["mcp_list_tools", "mcp_call", "message"]
    );
    assert_eq!(
        find(&third.body, "mcp_call").expect("call")["approval_request_id"],
        round_two[0].as_str()
    );
    assert!(text(&third.body).starts_with("Both rounds ran"));
    assert_eq!(calls(&remote), 2);
}

#[tokio::test(start_paused = true)]
async fn zero_data_retention_rounds_continue_by_history_round_after_round() {
    let remote = remote().await;
    let mock = Mock::new();
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let user = json!({"type": "message", "role": "user", "content": "#mcp-approval-rounds go"});
    let first = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": [user], "tools": tools}),
        )
        .await;
    let request_one = find(&first.body, "mcp_approval_request")
        .expect("round one")
        .clone();
    let mut history = vec![
        user,
        request_one.clone(),
        approve(request_one["id"].as_str().expect("id")),
    ];
    let second = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(second.status, 200, "{:#}", second.body);
    let call = find(&second.body, "mcp_call")
        .expect("round one ran")
        .clone();
    let request_two = find(&second.body, "mcp_approval_request")
        .expect("round two")
        .clone();
    assert_ne!(request_two["id"], request_one["id"]);
    // Everything goes back unchanged, the mcp_call included, with the second decision.
    history.push(call);
    history.push(request_two.clone());
    history.push(approve(request_two["id"].as_str().expect("id")));
    let third = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(third.status, 200, "{:#}", third.body);
    assert_eq!(
        item_types(&third.body),
        ["mcp_list_tools", "mcp_call", "message"]
    );
    assert_eq!(calls(&remote), 2, "round one did not run again");
}

#[tokio::test(start_paused = true)]
async fn zero_data_retention_history_carries_the_conversation_on_without_a_new_approval() {
    // Agent API, MCP tool: ZDR organizations "send the conversation history in input"; "An
    // mcp_call item in input is history only and does not run the tool again."
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, BOB, &remote.mcp_url()).await;
    let request_item = find(&response, "mcp_approval_request")
        .expect("request")
        .clone();
    let user = json!({"type": "message", "role": "user", "content": "#mcp-approval Which models can I use?"});
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let approved = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": [user, request_item, approve(&id)], "tools": tools}),
        )
        .await;
    let call = find(&approved.body, "mcp_call").expect("call").clone();
    let answer = find(&approved.body, "message").expect("answer").clone();
    // The history: user, request, decision, call, the assistant's answer, "thanks".
    let history = json!([user, request_item, approve(&id), call,
        {"type": "message", "role": "assistant", "content": answer["content"]},
        {"type": "message", "role": "user", "content": "thanks"}]);
    let reply = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": history, "tools": tools}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(item_types(&reply.body), ["mcp_list_tools", "message"]);
    assert_eq!(text(&reply.body), "Understood.");
    assert_eq!(calls(&remote), 1, "nothing ran again");
}

#[tokio::test(start_paused = true)]
async fn a_new_user_message_with_the_denial_of_a_pending_call_moves_the_conversation_on() {
    // Agent API, MCP tool: "If the user moves on without deciding, deny the pending call. You
    // can add the new user message after the mcp_approval_response in the same input."
    let remote = remote().await;
    let mock = Mock::new();
    let (response, id) = pending(&mock, ALICE, &remote.mcp_url()).await;
    let tools = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let input = json!([
        {"type": "mcp_approval_response", "approval_request_id": id, "approve": false, "reason": "the user moved on"},
        {"type": "message", "role": "user", "content": "Something else, please"},
    ]);
    let reply = mock
        .agent_create(
            ALICE,
            continuation(response["id"].as_str().expect("id"), input, tools),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(item_types(&reply.body), ["mcp_list_tools", "message"]);
    assert_eq!(
        text(&reply.body),
        "Understood: I did not run the tool (the user moved on)."
    );
    assert_eq!(calls(&remote), 0);
}

#[tokio::test(start_paused = true)]
async fn an_always_allow_choice_sent_as_a_never_filter_lets_the_later_call_run() {
    // Agent API, MCP tool, "Allow a tool for later calls": "The API does not remember an
    // approval"; "In later requests, add the tool to the never filter".
    let remote = remote().await;
    let mock = Mock::new();
    let always = json!([mcp(&remote.mcp_url(), Some(json!("always")))]);
    let first = mock
        .agent_create(ALICE, json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval-always-allow models?", "tools": always}))
        .await;
    let id = ids(&requests(&first.body)).remove(0);
    let approved = mock
        .agent_create(
            ALICE,
            continuation(
                first.body["id"].as_str().expect("id"),
                json!([approve(&id)]),
                always.clone(),
            ),
        )
        .await;
    assert_eq!(
        item_types(&approved.body),
        ["mcp_list_tools", "mcp_call", "message"]
    );
    let later = |tools: Value| {
        continuation(
            approved.body["id"].as_str().expect("id"),
            json!([{"type": "message", "role": "user", "content": "And again?"}]),
            tools,
        )
    };
    // Without the stored choice the same tool needs a new decision...
    let asked = mock.agent_create(ALICE, later(always)).await;
    assert_eq!(
        item_types(&asked.body),
        ["mcp_list_tools", "mcp_approval_request"]
    );
    // ...with it, as a never filter keyed by the tool's name, the call runs.
    let allowed = json!([mcp(
        &remote.mcp_url(),
        Some(json!({"never": {"tool_names": ["models_list"]}}))
    )]);
    let ran = mock.agent_create(ALICE, later(allowed)).await;
    assert_eq!(
        item_types(&ran.body),
        ["mcp_list_tools", "mcp_call", "message"]
    );
    assert!(text(&ran.body).starts_with("Again, the tool returned"));
    assert_eq!(calls(&remote), 2);
}
