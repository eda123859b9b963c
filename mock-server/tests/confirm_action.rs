//! `confirm_action`: approve carries on, deny takes the scripted denied branch.

use serde_json::{Value, json};

use crate::common::{Client, Mock, keys, text, text_json, thread_id};

async fn asked(client: &mut Client) -> Value {
    client
        .start("#confirm-action Email me a summary of my unread Slack messages")
        .await
}

#[tokio::test(start_paused = true)]
async fn a_confirmation_answers_confirm_action_with_its_interactive_object() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = asked(&mut client).await;

    assert_eq!(result["event"], "confirm_action");
    assert_eq!(result["task_status"], "input_required");
    let interactive = &result["interactive"];
    assert_eq!(
        keys(interactive),
        ["followup_uuid", "respond_with_tool", "thread_id", "type"]
    );
    assert_eq!(interactive["type"], "confirm_action");
    assert_eq!(interactive["thread_id"], thread_id(&result));
    assert_eq!(interactive["respond_with_tool"], "confirm_action_approve");
}

#[tokio::test(start_paused = true)]
async fn approving_completes_the_action() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;
    let thread = thread_id(&asked);

    let result = client
        .call_json(
            "confirm_action_approve",
            json!({
                "thread_id": thread,
                "result": "Yes, send it.",
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    assert_eq!(result["text"], "Done! Sent the summary to your email.");
    let transcript = client.read(&thread).await;
    assert!(text(&transcript).contains("Sending the email now."));
    assert!(text(&transcript).contains("Yes, send it."));
}

#[tokio::test(start_paused = true)]
async fn denying_takes_the_denied_branch() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;
    let thread = thread_id(&asked);

    let result = client
        .call_json(
            "confirm_action_deny",
            json!({
                "thread_id": thread,
                "result": "Don't send it.",
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    assert!(
        text(&result).starts_with("Okay, I didn't send the email."),
        "{result}"
    );
    let transcript = client.read(&thread).await;
    assert!(!text(&transcript).contains("Sending the email now."));
}

#[tokio::test(start_paused = true)]
async fn a_question_followup_uuid_used_with_a_confirm_tool_is_an_error() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client
        .start("#pending-interactions Set up the meeting")
        .await;
    let thread = thread_id(&asked);
    let pending = asked["pending_interactions"]
        .as_array()
        .expect("pending_interactions");
    let question = pending
        .iter()
        .find(|p| p["type"] == "ask_user_question")
        .expect("a question");

    let raw = client
        .call(
            "confirm_action_approve",
            json!({"thread_id": thread, "result": "ok", "followup_uuid": question["followup_uuid"]}),
        )
        .await;

    assert_eq!(raw["isError"], true);
    assert!(text(&text_json(&raw)).contains("answer_question"), "{raw}");
    let read = client.read(&thread).await;
    let open = read["web_state"]["entries"][0]["interactions"]
        .as_array()
        .map(Vec::len);
    assert_eq!(open, Some(2), "both prompts still wait");
}

#[tokio::test(start_paused = true)]
async fn a_confirmation_followup_uuid_used_with_answer_question_is_an_error() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;

    let raw = client
        .call(
            "answer_question",
            json!({
                "thread_id": thread_id(&asked),
                "answers": {"q": "yes"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(raw["isError"], true);
    assert!(
        text(&text_json(&raw)).contains("confirm_action_approve"),
        "{raw}"
    );
}
