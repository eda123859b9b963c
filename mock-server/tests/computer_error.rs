//! `error`: the Computer run failed.

use serde_json::json;

use crate::common::{Mock, keys, text_json, thread_id};

#[tokio::test(start_paused = true)]
async fn a_failed_run_answers_error_with_computer_error_and_task_status_failed() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#computer-error Map the parcels with GEOS"}),
        )
        .await;
    let result = text_json(&raw);

    assert_eq!(raw["isError"], true);
    assert_eq!(raw["structuredContent"], result);
    assert_eq!(
        keys(&result),
        ["error_code", "event", "task_status", "text", "thread_id"]
    );
    assert_eq!(result["event"], "error");
    assert_eq!(result["error_code"], "computer_error");
    assert_eq!(result["task_status"], "failed");
    assert!(
        result["text"]
            .as_str()
            .unwrap_or("")
            .starts_with("The task failed")
    );
}

#[tokio::test(start_paused = true)]
async fn read_thread_shows_the_failed_step_and_a_terminal_workflow_error() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#computer-error Map the parcels with GEOS")
        .await;

    let read = client.read(&thread_id(&result)).await;

    let entry = &read["web_state"]["entries"][0];
    assert_eq!(read["web_state"]["task_status"], "failed");
    assert_eq!(entry["status"], "failed");
    assert_eq!(entry["steps"][0]["status"], "completed");
    assert_eq!(entry["steps"][1]["title"], "Installing dependencies");
    assert_eq!(entry["steps"][1]["status"], "failed");
    assert!(
        entry["interactions"]
            .as_array()
            .expect("interactions")
            .iter()
            .any(|i| i["status"] == "WORKFLOW_ERROR"),
        "{entry}"
    );
}
