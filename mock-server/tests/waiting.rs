//! `waiting`: Computer waits on an external condition; a message on the thread continues it.

use serde_json::json;

use crate::common::{Mock, keys, text, thread_id};

#[tokio::test(start_paused = true)]
async fn a_waiting_task_answers_waiting_with_task_status_working() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client.start("#waiting Get my refund from the vendor").await;

    assert_eq!(keys(&result), ["event", "task_status", "text", "thread_id"]);
    assert_eq!(result["event"], "waiting");
    assert_eq!(result["task_status"], "working");
    assert!(text(&result).contains("ticket #8812"));
    let read = client.read(&thread_id(&result)).await;
    assert_eq!(read["web_state"]["task_status"], "working");
}

#[tokio::test(start_paused = true)]
async fn a_message_with_the_same_thread_id_continues_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client.start("#waiting Get my refund from the vendor").await;
    let thread = thread_id(&result);

    let continued = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "They replied, please check", "thread_id": thread}),
        )
        .await;

    assert_eq!(continued["thread_id"], thread);
    assert_eq!(continued["event"], "complete");
    assert_eq!(continued["task_status"], "completed");
    assert_eq!(
        continued["text"],
        "The vendor replied: the refund was approved and will arrive in 5 business days."
    );
    let read = client.read(&thread).await;
    assert!(text(&read).contains("They replied, please check"));
}
