//! `sleep`: Computer pauses itself until `wake_at`, then resumes on its own.

use std::time::Duration;

use serde_json::Value;

use crate::common::{Mock, keys, text, thread_id};

#[tokio::test(start_paused = true)]
async fn a_sleeping_task_answers_sleep_with_wake_at_and_task_status_working() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client.start("#sleep Watch the fare to Rome").await;

    assert_eq!(
        keys(&result),
        [
            "event",
            "sources",
            "task_status",
            "text",
            "thread_id",
            "wake_at"
        ]
    );
    assert_eq!(result["event"], "sleep");
    assert_eq!(result["task_status"], "working");
    // Computer sleeps an hour from the end of its step (the clock starts at 00:11:18).
    let read = client.read(&thread_id(&result)).await;
    let slept_at = read["web_state"]["entries"][0]["steps"][0]["completed_at"]
        .as_str()
        .expect("the step ended");
    assert!(slept_at.starts_with("2026-10-24T00:11:33"), "{slept_at}");
    assert_eq!(result["wake_at"], slept_at.replace("T00:", "T01:"));
}

#[tokio::test(start_paused = true)]
async fn read_thread_shows_the_same_wake_at_and_task_status_working() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client.start("#sleep Watch the fare to Rome").await;

    let read = client.read(&thread_id(&result)).await;

    assert_eq!(read["web_state"]["wake_at"], result["wake_at"]);
    assert_eq!(read["web_state"]["task_status"], "working");
    assert_eq!(read["web_state"]["thread_status"], read["status"]);
}

#[tokio::test(start_paused = true)]
async fn after_wake_at_the_task_completes_on_its_own() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client.start("#sleep Watch the fare to Rome").await;
    let thread = thread_id(&result);

    mock.advance(Duration::from_secs(30 * 60));
    let halfway = client.read(&thread).await;
    assert_eq!(halfway["web_state"]["task_status"], "working");
    assert_eq!(halfway["web_state"]["wake_at"], result["wake_at"]);

    // Past wake_at plus the 15 s step it runs on waking; no call in between.
    mock.advance(Duration::from_secs(30 * 60 + 20));
    let read = client.read(&thread).await;

    assert_eq!(read["web_state"]["task_status"], "completed");
    assert_eq!(read["web_state"]["wake_at"], Value::Null);
    assert!(text(&read).contains("The fare dropped to $548."), "{read}");
    let steps = read["web_state"]["entries"][0]["steps"]
        .as_array()
        .expect("steps");
    let last = steps.last().expect("a step");
    assert_eq!(last["title"], "Checking the flight price to Rome again");
    assert_eq!(last["status"], "completed");
    assert_eq!(last["started_at"], result["wake_at"]);
}
