//! `two_factor_required`: the user follows the instructions and continues the same thread.

use serde_json::json;

use crate::common::{Mock, keys, text, thread_id};

#[tokio::test(start_paused = true)]
async fn two_factor_required_answers_its_interactive_object_and_input_required() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client
        .start("#two-factor-required Download my boarding pass")
        .await;

    assert_eq!(result["event"], "two_factor_required");
    assert_eq!(result["task_status"], "input_required");
    assert_eq!(keys(&result["interactive"]), ["thread_id", "type"]);
    assert_eq!(result["interactive"]["type"], "two_factor_required");
    assert_eq!(result["interactive"]["thread_id"], thread_id(&result));
    assert!(text(&result).contains("6-digit code"));
}

#[tokio::test(start_paused = true)]
async fn a_message_on_the_same_thread_continues_the_request() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#two-factor-required Download my boarding pass")
        .await;
    let thread = thread_id(&result);

    let continued = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "The code is 482913", "thread_id": thread}),
        )
        .await;

    assert_eq!(continued["thread_id"], thread);
    assert_eq!(continued["event"], "complete");
    assert_eq!(continued["task_status"], "completed");
    assert_eq!(continued["files"][0]["filename"], "boarding-pass.pdf");
    let read = client.read(&thread).await;
    assert!(text(&read).contains("The code is 482913"));
    assert_eq!(
        read["web_state"]["entries"].as_array().map(Vec::len),
        Some(1),
        "the same request continued"
    );
}
