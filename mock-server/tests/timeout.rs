//! `timeout`: the call stops waiting after the call-wait window; Computer keeps working.

use serde_json::json;

use crate::common::{Mock, keys, thread_id};

#[tokio::test(start_paused = true)]
async fn a_task_longer_than_the_call_window_answers_timeout_with_task_status_working() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client
        .start("#timeout-then-complete Summarize the top 5 stories on Hacker News right now")
        .await;

    assert_eq!(result["event"], "timeout");
    assert_eq!(result["task_status"], "working");
    assert_eq!(keys(&result), ["event", "task_status", "text", "thread_id"]);
}

#[tokio::test(start_paused = true)]
async fn timeout_then_read_thread_reports_progress_and_then_completion() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client.start("#timeout-then-complete Summarize HN").await;
    let thread = thread_id(&result);

    let during = client.read(&thread).await;
    assert_eq!(during["web_state"]["task_status"], "working");
    assert_eq!(during["status"], "running");

    mock.advance(std::time::Duration::from_secs(120));
    let after = client.read(&thread).await;
    assert_eq!(after["web_state"]["task_status"], "completed");
    assert_eq!(after["status"], "idle");
    assert!(
        after["text"]
            .as_str()
            .unwrap_or("")
            .contains("Finished the report")
    );
}

#[tokio::test(start_paused = true)]
async fn the_call_window_is_configurable() {
    let mock = Mock::with(
        mock_server::MockServer::builder().call_wait(std::time::Duration::from_secs(600)),
    );
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "#timeout-then-complete Summarize HN"}),
        )
        .await;
    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
}
