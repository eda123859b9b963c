//! The remaining `notify_connected` branches: when the call sends `message` as a new message and
//! waits for the result, like `call_perplexity_computer`.

use serde_json::json;

use crate::common::{Mock, text, thread_id};

#[tokio::test(start_paused = true)]
async fn when_the_request_already_ended_the_message_is_sent_as_a_new_turn_and_the_call_waits() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#complete Summarize the top 5 stories").await;
    let thread = thread_id(&done);
    assert_eq!(done["task_status"], "completed");
    let before = mock.now();

    let result = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "GitHub connected", "connector": "github"}),
        )
        .await;

    assert_ne!(mock.now(), before, "the call waited for the new turn");
    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    assert!(text(&result).contains("GitHub connected"), "{result}");
    let read = client.read(&thread).await;
    assert!(text(&read).contains("**User:** GitHub connected"), "{read}");
    assert_eq!(
        read["web_state"]["entries"].as_array().map(Vec::len),
        Some(2)
    );
}

#[tokio::test(start_paused = true)]
async fn attachment_urls_always_send_a_new_message() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let attachment = client.attach("notes.txt", b"my notes").await;
    let asked = client
        .start("Email me a summary of my unread Slack messages")
        .await;
    assert_eq!(asked["event"], "auth_required");
    let thread = thread_id(&asked);
    let before = mock.now();

    let result = client
        .call_json(
            "notify_connected",
            json!({
                "thread_id": thread,
                "message": "Slack connected, and here are my notes",
                "connector": "slack",
                "attachment_urls": [attachment],
            }),
        )
        .await;

    assert_ne!(mock.now(), before, "the call waited for the result");
    assert_eq!(result["thread_id"], thread);
    assert_ne!(result["event"], "auth_required");
    let read = client.read(&thread).await;
    assert!(
        text(&read).contains("Slack connected, and here are my notes"),
        "{read}"
    );
    assert!(text(&read).contains(&attachment), "{read}");
}

#[tokio::test(start_paused = true)]
async fn a_sleeping_request_gets_the_message_as_a_new_message() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asleep = client.start("#sleep Watch the fare to Rome").await;
    assert_eq!(asleep["event"], "sleep");
    let thread = thread_id(&asleep);

    let result = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "Kayak connected", "connector": "kayak"}),
        )
        .await;

    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "complete");
    let read = client.read(&thread).await;
    assert!(text(&read).contains("**User:** Kayak connected"), "{read}");
}

#[tokio::test(start_paused = true)]
async fn when_no_sign_in_is_waiting_the_message_is_sent() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client
        .start("#ask-user-question Build the sales report")
        .await;
    let thread = thread_id(&asked);

    let result = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "Drive connected"}),
        )
        .await;

    assert_eq!(result["thread_id"], thread);
    let read = client.read(&thread).await;
    assert!(text(&read).contains("**User:** Drive connected"), "{read}");
}
