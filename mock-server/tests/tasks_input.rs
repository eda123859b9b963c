//! MCP Tasks input: `input_required` lists every outstanding request as an elicitation, and
//! `tasks/update` answers them per the document's mapping (questions and approvals as forms,
//! sign-ins and credits as URLs); the answer is an acknowledgement, never a result.

use std::time::Duration;

use serde_json::json;

use crate::common::modern::{input_key, task_id};
use crate::common::{self, Mock, keys, text_json};

async fn at_input(
    mock: &Mock,
    message: &str,
) -> (common::modern::ModernClient, String, serde_json::Value) {
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let task = task_id(&client.start_task(message, None).await);
    mock.advance(Duration::from_secs(120));
    let state = client.task(&task).await;
    assert_eq!(state["status"], "input_required", "{state}");
    (client, task, state)
}

#[tokio::test(start_paused = true)]
async fn a_question_is_a_form_and_an_accepted_answer_continues_the_same_task() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#ask-user-question Build the report").await;

    let key = input_key(&state, "answer:");
    let request = &state["inputRequests"][&key];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(
        request["params"]["requestedSchema"]["properties"]["q1"]["enum"],
        json!(["PDF", "DOCX"])
    );
    assert!(
        state["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("Which format"))
    );

    let ack = client
        .update_task(
            &task,
            json!({key.clone(): {"action": "accept", "content": {"q1": "PDF"}}}),
        )
        .await;
    assert_eq!(ack.body["result"]["resultType"], "complete", "{ack:?}");
    assert!(
        ack.body["result"].get("status").is_none(),
        "an ack, not a result"
    );

    let working = client.task(&task).await;
    assert_eq!(working["status"], "working", "{working}");
    mock.advance(Duration::from_secs(120));
    let done = client.task(&task).await;
    assert_eq!(done["status"], "completed");
    assert!(
        text_json(&done["result"])["text"]
            .as_str()
            .is_some_and(|t| t.contains("sales report is ready"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_declined_question_stays_open_under_a_new_key() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#ask-user-question Build the report").await;
    let key = input_key(&state, "answer:");

    client
        .update_task(&task, json!({key.clone(): {"action": "decline"}}))
        .await;

    let again = client.task(&task).await;
    assert_eq!(again["status"], "input_required");
    let new_key = input_key(&again, "answer:");
    assert_ne!(new_key, key, "keys are never reused");

    // The old key is no longer waiting: answering it is ignored.
    client
        .update_task(
            &task,
            json!({key: {"action": "accept", "content": {"q1": "PDF"}}}),
        )
        .await;
    assert_eq!(client.task(&task).await["status"], "input_required");
}

#[tokio::test(start_paused = true)]
async fn schema_invalid_content_is_refused_and_changes_nothing() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#ask-user-question Build the report").await;
    let key = input_key(&state, "answer:");

    for content in [
        json!({"q1": "PNG"}),
        json!({}),
        json!({"q1": 3}),
        json!({"q1": "PDF", "x": "y"}),
    ] {
        let reply = client
            .update_task(
                &task,
                json!({key.clone(): {"action": "accept", "content": content}}),
            )
            .await;
        assert_eq!(reply.body["error"]["code"], -32602, "{content}: {reply:?}");
    }
    let still = client.task(&task).await;
    assert_eq!(still["status"], "input_required");
    assert_eq!(input_key(&still, "answer:"), key);
}

#[tokio::test(start_paused = true)]
async fn unknown_keys_are_ignored() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#ask-user-question Build the report").await;
    let reply = client
        .update_task(
            &task,
            json!({"answer:nope": {"action": "accept", "content": {"q1": "PDF"}}}),
        )
        .await;
    assert_eq!(reply.body["result"]["resultType"], "complete");
    assert_eq!(
        client.task(&task).await["inputRequests"],
        state["inputRequests"]
    );
}

#[tokio::test(start_paused = true)]
async fn an_approval_is_a_form_without_fields_accept_approves() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#confirm-action Email the report").await;
    let key = input_key(&state, "confirm:");
    let params = &state["inputRequests"][&key]["params"];
    assert_eq!(params["mode"], "form");
    assert_eq!(params["requestedSchema"]["properties"], json!({}));

    client
        .update_task(&task, json!({key: {"action": "accept"}}))
        .await;
    mock.advance(Duration::from_secs(600));
    let done = client.task(&task).await;
    assert_eq!(done["status"], "completed", "{done}");
}

#[tokio::test(start_paused = true)]
async fn declining_an_approval_denies_it_and_cancel_leaves_it_pending() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#confirm-action Email the report").await;
    let key = input_key(&state, "confirm:");

    client
        .update_task(&task, json!({key.clone(): {"action": "cancel"}}))
        .await;
    let pending = client.task(&task).await;
    assert_eq!(pending["status"], "input_required");
    let key2 = input_key(&pending, "confirm:");
    assert_ne!(key2, key);

    client
        .update_task(&task, json!({key2: {"action": "decline"}}))
        .await;
    mock.advance(Duration::from_secs(600));
    let done = client.task(&task).await;
    assert_eq!(done["status"], "completed", "{done}");
    let thread = done["_meta"]["ai.perplexity/threadId"]
        .as_str()
        .expect("thread")
        .to_owned();
    let mut legacy = mock.session("alice-dev-token").await;
    let transcript = legacy.read(&thread).await;
    assert!(
        transcript["text"].as_str().unwrap_or("").contains("Denied")
            || transcript["text"]
                .as_str()
                .unwrap_or("")
                .contains("Declined"),
        "{transcript}"
    );
}

/// "Perplexity Computer MCP Server, Answer questions and approvals": "For URL requests, accept
/// does not complete the action. The user must finish on the linked page." Until then the task
/// still waits on the sign-in, so it keeps listing it.
#[tokio::test(start_paused = true)]
async fn a_sign_in_is_a_url_that_accept_does_not_complete_but_the_page_does() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#auth-required Summarize my Slack").await;
    let key = input_key(&state, "sign-in:");
    let params = &state["inputRequests"][&key]["params"];
    assert_eq!(params["mode"], "url");
    assert_eq!(keys(params), ["message", "mode", "url"]);
    let url = params["url"].as_str().expect("url").to_owned();

    client
        .update_task(&task, json!({key.clone(): {"action": "accept"}}))
        .await;
    let waiting = client.task(&task).await;
    assert_eq!(
        waiting["status"], "input_required",
        "accept alone does not sign in"
    );
    assert_eq!(
        waiting["inputRequests"][&key], state["inputRequests"][&key],
        "the accepted sign-in is still listed, under the same key: {waiting}"
    );

    let page = mock.get(&url).await;
    assert_eq!(page.status, 200, "{page:?}");
    let resumed = client.task(&task).await;
    assert_eq!(resumed["status"], "working", "{resumed}");
    mock.advance(Duration::from_secs(600));
    assert_eq!(client.task(&task).await["status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn declining_a_sign_in_dismisses_it_and_the_task_goes_on_without_it() {
    let mock = Mock::new();
    let (mut client, task, state) = at_input(&mock, "#auth-required Summarize my Slack").await;
    let key = input_key(&state, "sign-in:");
    let thread = state["_meta"]["ai.perplexity/threadId"]
        .as_str()
        .expect("threadId")
        .to_owned();

    client
        .update_task(&task, json!({key: {"action": "decline"}}))
        .await;

    let after = client.task(&task).await;
    assert_eq!(
        after["status"], "working",
        "nothing is waiting any more: {after}"
    );
    let read = client
        .call("read_thread", json!({"thread_id": thread}))
        .await;
    let auth_requests = &common::text_json(&read)["web_state"]["entries"][0]["auth_requests"];
    assert_eq!(auth_requests, &json!([]), "a dismissed sign-in is left out");
    mock.advance(Duration::from_secs(600));
    let done = client.task(&task).await;
    assert_eq!(done["status"], "completed");
    // "`decline` dismisses the sign-in": the work went on without Slack, and says so.
    let answer = text_json(&done["result"]);
    let said = answer["text"].as_str().unwrap_or_default();
    assert!(said.contains("couldn't use Slack"), "{answer}");
    assert!(!said.contains("Sent the summary"), "{answer}");
}

#[tokio::test(start_paused = true)]
async fn credits_running_out_is_a_url_and_a_top_up_continues_the_task() {
    let mock = Mock::new();
    let (mut client, task, state) =
        at_input(&mock, "#insufficient-credits-during-task Crunch the data").await;
    let key = input_key(&state, "credits:");
    let params = &state["inputRequests"][&key]["params"];
    assert_eq!(params["mode"], "url");
    assert!(
        params["url"]
            .as_str()
            .is_some_and(|u| u.contains("/_mock/billing/alice"))
    );

    client
        .update_task(&task, json!({key.clone(): {"action": "accept"}}))
        .await;
    let waiting = client.task(&task).await;
    assert_eq!(waiting["status"], "input_required");
    assert!(
        waiting["inputRequests"].get(&key).is_some(),
        "accepted but not topped up: the billing page is still listed: {waiting}"
    );
    mock.post_form("/_mock/billing/alice/top-up").await;
    let resumed = client.task(&task).await;
    assert_eq!(resumed["status"], "working", "{resumed}");
}

/// "Perplexity Computer MCP Server, Answer questions and approvals": "When the task is
/// input_required, inputRequests contains elicitation/create requests", and a step only
/// Perplexity can complete ("Credentials, payments, file inputs, richer forms") is a URL:
/// "Open the URL and complete the required action in Perplexity." Its statusMessage says so, not
/// the event text's "Reply on this thread" ("Each new message starts a new task").
#[tokio::test(start_paused = true)]
async fn two_factor_in_a_task_is_a_url_request_the_page_finishes() {
    let mock = Mock::new();
    let (mut client, task, state) =
        at_input(&mock, "#two-factor-required Get my boarding pass").await;
    let key = input_key(&state, "two-factor:");
    // "Each new message starts a new task": the status line does not tell the user to reply.
    let status = state["statusMessage"].as_str().expect("statusMessage");
    assert!(!status.to_lowercase().contains("reply"), "{status}");
    assert!(status.contains("Perplexity"), "{status}");
    let params = &state["inputRequests"][&key]["params"];
    assert_eq!(params["mode"], "url", "{state}");
    let url = params["url"].as_str().expect("url").to_owned();

    client
        .update_task(&task, json!({key.clone(): {"action": "accept"}}))
        .await;
    let waiting = client.task(&task).await;
    assert_eq!(
        waiting["status"], "input_required",
        "accept alone finishes nothing"
    );
    assert!(waiting["inputRequests"].get(&key).is_some(), "{waiting}");

    let page = mock.get(&url).await;
    assert_eq!(page.status, 200, "{page:?}");
    assert_eq!(
        client.task(&task).await["status"],
        "input_required",
        "opening the page is not finishing it"
    );
    let done = mock.post_form(&url).await;
    assert_eq!(done.status, 200, "{done:?}");
    let resumed = client.task(&task).await;
    assert_eq!(resumed["status"], "working", "{resumed}");
    mock.advance(Duration::from_secs(600));
    let finished = client.task(&task).await;
    assert_eq!(finished["status"], "completed", "{finished}");
    assert_eq!(text_json(&finished["result"])["event"], "complete");
}
