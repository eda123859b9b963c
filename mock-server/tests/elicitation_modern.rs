//! In-call elicitation in the 2026-07-28 era (MRTR): a client that declared elicitation gets
//! `resultType: "input_required"` with `inputRequests` and an opaque `requestState`, and
//! retries the call with `inputResponses`; only declared modes are used.

use serde_json::{Value, json};

use crate::common::modern::ModernClient;
use crate::common::{self, Mock, text_json};

fn client(mock: &Mock, elicitation: Value) -> ModernClient {
    mock.modern("alice-dev-token")
        .with_capabilities(json!({"elicitation": elicitation}))
}

async fn first(client: &mut ModernClient, message: &str) -> Value {
    client
        .call("call_perplexity_computer", json!({"message": message}))
        .await
}

fn only_key(result: &Value) -> String {
    let requests = result["inputRequests"].as_object().expect("inputRequests");
    assert_eq!(requests.len(), 1, "{result}");
    requests.keys().next().cloned().unwrap_or_default()
}

async fn retry(
    client: &mut ModernClient,
    message: &str,
    state: &Value,
    responses: Value,
) -> common::Reply {
    client
        .rpc(
            "tools/call",
            json!({
                "name": "call_perplexity_computer",
                "arguments": {"message": message},
                "inputResponses": responses,
                "requestState": state,
            }),
        )
        .await
}

const QUESTION: &str = "#elicitation-question Build the sales report";

#[tokio::test(start_paused = true)]
async fn a_question_becomes_a_form_and_the_accepted_retry_continues_the_call() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}, "url": {}}));

    let asked = first(&mut client, QUESTION).await;

    assert_eq!(asked["resultType"], "input_required", "{asked}");
    let key = only_key(&asked);
    assert!(key.starts_with("answer:"));
    let request = &asked["inputRequests"][&key];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(
        request["params"]["requestedSchema"]["properties"]["q1"]["enum"],
        json!(["PDF", "DOCX"])
    );
    let state = asked["requestState"].clone();
    assert!(state.is_string());

    let done = retry(
        &mut client,
        QUESTION,
        &state,
        json!({key: {"action": "accept", "content": {"q1": "PDF"}}}),
    )
    .await;
    let result = &done.body["result"];
    assert_eq!(result["resultType"], "complete", "{done:?}");
    assert_eq!(text_json(result)["event"], "complete");
}

#[tokio::test(start_paused = true)]
async fn declining_a_question_returns_the_event_to_answer_later() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({}));
    let asked = first(&mut client, QUESTION).await;
    let key = only_key(&asked);

    let reply = retry(
        &mut client,
        QUESTION,
        &asked["requestState"],
        json!({key: {"action": "decline"}}),
    )
    .await;

    let event = text_json(&reply.body["result"]);
    assert_eq!(event["event"], "ask_user_question");
    assert_eq!(event["task_status"], "input_required");
}

#[tokio::test(start_paused = true)]
async fn declining_a_confirmation_denies_the_action() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}}));
    let message = "#elicitation-confirm Email the report";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);
    assert!(key.starts_with("confirm:"));
    assert_eq!(
        asked["inputRequests"][&key]["params"]["requestedSchema"]["properties"],
        json!({})
    );

    let reply = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "decline"}}),
    )
    .await;
    let result = text_json(&reply.body["result"]);
    assert_ne!(result["event"], "confirm_action", "{result}");
    let thread = result["thread_id"].as_str().expect("thread").to_owned();
    let mut legacy = mock.session("alice-dev-token").await;
    let transcript = legacy.read(&thread).await;
    assert!(
        transcript["text"]
            .as_str()
            .unwrap_or("")
            .contains("Declined"),
        "{transcript}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_sign_in_is_a_url_and_the_retry_after_the_page_continues() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}, "url": {}}));
    let message = "#elicitation-sign-in Summarize my Slack";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);
    let params = &asked["inputRequests"][&key]["params"];
    assert_eq!(params["mode"], "url");
    assert!(
        params.get("elicitationId").is_none(),
        "removed in 2026-07-28"
    );
    let url = params["url"].as_str().expect("url").to_owned();

    // Accepting without finishing on the page does not sign in: the event comes back.
    let early = first(&mut client, message).await;
    let early_key = only_key(&early);
    let not_yet = retry(
        &mut client,
        message,
        &early["requestState"],
        json!({early_key: {"action": "accept"}}),
    )
    .await;
    assert_eq!(text_json(&not_yet.body["result"])["event"], "auth_required");

    assert_eq!(mock.get(&url).await.status, 200);
    let done = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "accept"}}),
    )
    .await;
    assert_eq!(
        text_json(&done.body["result"])["event"],
        "complete",
        "{done:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn only_declared_modes_are_used() {
    let mock = Mock::new();
    let mut form_only = client(&mock, json!({"form": {}}));
    let result = first(&mut form_only, "#elicitation-sign-in Summarize my Slack").await;
    assert_eq!(result["resultType"], "complete");
    assert_eq!(text_json(&result)["event"], "auth_required");

    let mut none = mock.modern("alice-dev-token");
    let result = first(&mut none, QUESTION).await;
    assert_eq!(text_json(&result)["event"], "ask_user_question");
}

#[tokio::test(start_paused = true)]
async fn a_tampered_or_replayed_request_state_is_refused_and_changes_nothing() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}}));
    let asked = first(&mut client, QUESTION).await;
    let key = only_key(&asked);
    let good = json!({key.clone(): {"action": "accept", "content": {"q1": "PDF"}}});

    let tampered = format!("{}x", asked["requestState"].as_str().unwrap_or(""));
    let reply = retry(&mut client, QUESTION, &json!(tampered), good.clone()).await;
    assert_eq!(reply.body["error"]["code"], -32602, "{reply:?}");

    let unknown_key = retry(
        &mut client,
        QUESTION,
        &asked["requestState"],
        json!({"answer:other": {"action": "accept", "content": {"q1": "PDF"}}}),
    )
    .await;
    assert_eq!(unknown_key.body["error"]["code"], -32602);

    let invalid = retry(
        &mut client,
        QUESTION,
        &asked["requestState"],
        json!({key.clone(): {"action": "accept", "content": {"q1": "PNG"}}}),
    )
    .await;
    assert_eq!(invalid.body["error"]["code"], -32602);

    let ok = retry(&mut client, QUESTION, &asked["requestState"], good.clone()).await;
    assert_eq!(text_json(&ok.body["result"])["event"], "complete");

    let replay = retry(&mut client, QUESTION, &asked["requestState"], good).await;
    assert_eq!(replay.body["error"]["code"], -32602, "{replay:?}");
}

#[tokio::test(start_paused = true)]
async fn a_perplexity_only_form_is_a_url_and_accepting_after_the_page_continues() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"url": {}}));
    let message = "#interaction-required Book the hotel";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);
    assert!(key.starts_with("page:"));
    let params = &asked["inputRequests"][&key]["params"];
    assert_eq!(params["mode"], "url");
    let url = params["url"].as_str().expect("url").to_owned();
    assert!(url.contains("/_mock/forms/"));
    assert_eq!(mock.get(&url).await.status, 200);

    let done = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "accept"}}),
    )
    .await;
    assert_eq!(
        text_json(&done.body["result"])["event"],
        "complete",
        "{done:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn credits_running_out_during_a_task_is_a_url_to_the_billing_page() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}, "url": {}}));
    let message = "#insufficient-credits-during-task Crunch the data";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);
    let params = &asked["inputRequests"][&key]["params"];
    assert!(
        params["url"]
            .as_str()
            .is_some_and(|u| u.contains("/_mock/billing/alice")),
        "{params}"
    );
    mock.post_form("/_mock/billing/alice/top-up").await;

    let done = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "accept"}}),
    )
    .await;
    let result = &done.body["result"];
    assert_eq!(result["resultType"], "complete", "{done:?}");
    assert_ne!(text_json(result)["event"], "insufficient_credits");
}

#[tokio::test(start_paused = true)]
async fn an_answer_to_a_result_with_sources_returns_at_once_with_task_status_working() {
    let mock = common::mock_with_scenario(&common::question_after_a_source());
    let mut client = client(&mock, json!({"form": {}}));
    let message = "#question-after-source Build the report";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);
    let before = mock.now();

    let answered = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "accept", "content": {"q1": "PDF"}}}),
    )
    .await;

    let result = text_json(&answered.body["result"]);
    assert_eq!(result["event"], "complete", "{result}");
    assert_eq!(result["task_status"], "working");
    assert_eq!(result["sources"][0]["url"], "https://example.com/q3");
    assert_eq!(
        mock.now(),
        before,
        "the call did not wait for the rest of the task"
    );
    let thread = result["thread_id"].as_str().expect("thread_id").to_owned();
    mock.advance(std::time::Duration::from_secs(60));
    let read = client
        .call("read_thread", json!({"thread_id": thread}))
        .await;
    assert_eq!(text_json(&read)["web_state"]["task_status"], "completed");
}

/// "Perplexity Computer MCP Server, Interactive objects for account events": "During a task:
/// the thread keeps its state and task_status is input_required." Accepting the billing page
/// without topping up sends nothing, so the call returns the event with its thread.
#[tokio::test(start_paused = true)]
async fn accepting_the_billing_page_without_a_top_up_keeps_the_thread() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}, "url": {}}));
    let message = "#insufficient-credits-during-task Crunch the data";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);

    let done = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "accept"}}),
    )
    .await;
    let result = &done.body["result"];
    assert_eq!(result["resultType"], "complete", "{done:?}");
    let body = text_json(result);
    assert_eq!(body["event"], "insufficient_credits", "{body}");
    assert_eq!(body["task_status"], "input_required", "{body}");
    assert!(body["thread_id"].is_string(), "{body}");
}

/// MCP specification 2026-07-28, Multi round-trip requests: the client retries "the original
/// request" with `inputResponses` and `requestState`, so a second round (a confirmation after
/// the answered question) is retried as `call_perplexity_computer`, not as the follow-up tool
/// that answered the first round.
#[tokio::test(start_paused = true)]
async fn a_second_round_is_retried_as_the_original_tool() {
    let scenario = json!({
        "name": "question-then-confirm",
        "description": "A question, then a confirmation.",
        "turns": [{
            "steps": [{"title": "Drafting", "duration": "5s"}],
            "outcome": {
                "event": "ask_user_question",
                "text": "Which format?",
                "interactions": [{"kind": "question", "questions": [
                    {"id": "q1", "question": "Which format?", "options": ["PDF", "DOCX"]}]}],
                "then": {"outcome": {
                    "event": "confirm_action",
                    "text": "Send it to the team?",
                    "interactions": [{"kind": "confirm", "action": "Email the report to the team"}],
                    "then": {"outcome": {"event": "complete", "text": "Sent."}}
                }}
            }
        }]
    });
    let mock = common::mock_with_scenario(&scenario);
    let mut client = client(&mock, json!({"form": {}}));
    let message = "#question-then-confirm Write the report";
    let asked = first(&mut client, message).await;
    let key = only_key(&asked);

    let second = retry(
        &mut client,
        message,
        &asked["requestState"],
        json!({key: {"action": "accept", "content": {"q1": "PDF"}}}),
    )
    .await;
    let second = second.body["result"].clone();
    assert_eq!(second["resultType"], "input_required", "{second}");
    let confirm = only_key(&second);
    assert!(confirm.starts_with("confirm:"), "{second}");

    let done = retry(
        &mut client,
        message,
        &second["requestState"],
        json!({confirm: {"action": "accept"}}),
    )
    .await;
    let result = &done.body["result"];
    assert_eq!(result["resultType"], "complete", "{done:?}");
    assert_eq!(text_json(result)["event"], "complete", "{result}");
}

/// docs/where-documents-are-silent.md, "A question and a confirmation waiting together are not
/// elicited in a call": "an elicitation client gets the event with `pending_interactions`
/// listing both, and answers each with `answer_question` and `confirm_action_approve`/`_deny`".
#[tokio::test(start_paused = true)]
async fn a_question_and_a_confirmation_together_return_the_event_with_both_pending() {
    let mock = Mock::new();
    let mut client = client(&mock, json!({"form": {}, "url": {}}));

    let asked = first(&mut client, "#pending-interactions Send the meeting invite").await;

    assert!(asked.get("inputRequests").is_none(), "{asked}");
    let result = text_json(&asked);
    assert_eq!(result["event"], "ask_user_question", "{result}");
    let kinds: Vec<&str> = result["pending_interactions"]
        .as_array()
        .expect("pending_interactions")
        .iter()
        .filter_map(|i| i["type"].as_str())
        .collect();
    assert_eq!(kinds, ["ask_user_question", "confirm_action"], "{result}");
}
