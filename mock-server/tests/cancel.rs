//! `cancel_task` and the stop page: stopping the current work of a thread.

use std::time::Duration;

use serde_json::json;

use crate::common::{self, Mock, keys, text, text_json, thread_id};

#[tokio::test(start_paused = true)]
async fn cancelling_a_running_task_answers_cancelled_and_read_thread_confirms_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel Build the product catalog").await;
    assert_eq!(started["event"], "timeout");
    let thread = thread_id(&started);

    let raw = client
        .call("cancel_task", json!({"thread_id": thread}))
        .await;
    let result = text_json(&raw);

    assert_eq!(raw["isError"], false);
    assert_eq!(keys(&result), ["event", "task_status", "text", "thread_id"]);
    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "cancelled");
    assert_eq!(result["task_status"], "cancelled");

    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "cancelled");
    assert_eq!(read["status"], "idle");
    let entry = &read["web_state"]["entries"][0];
    assert_eq!(entry["status"], "cancelled");
    let step = &entry["steps"][0];
    assert_eq!(step["title"], "Crawling 500 product pages");
    assert_eq!(step["status"], "cancelled");
    assert!(step["completed_at"].is_string());
    assert!(
        entry["interactions"]
            .as_array()
            .expect("interactions")
            .iter()
            .any(|i| i["status"] == "WORKFLOW_CANCELED")
    );

    mock.advance(Duration::from_secs(30 * 60));
    let later = client.read(&thread).await;
    assert_eq!(
        later["web_state"]["task_status"], "cancelled",
        "it stays stopped"
    );
    assert!(!text(&later).contains("The product catalog is ready."));
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_task_paused_on_a_question_stops_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client
        .start("#ask-user-question Build the sales report")
        .await;
    let thread = thread_id(&asked);

    let result = client
        .call_json("cancel_task", json!({"thread_id": thread}))
        .await;

    assert_eq!(result["event"], "cancelled");
    assert_eq!(result["task_status"], "cancelled");
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "cancelled");
    let waiting: Vec<_> = read["web_state"]["entries"][0]["interactions"]
        .as_array()
        .expect("interactions")
        .iter()
        .filter(|i| i["type"] == "ask_user_question")
        .collect();
    assert!(waiting.is_empty(), "the question no longer waits: {read}");
    let late = client
        .call(
            "answer_question",
            json!({
                "thread_id": thread,
                "answers": {"q1": "PDF"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;
    assert_eq!(late["isError"], true);
}

/// "Perplexity Computer MCP Server, cancel_task": "Returns a cancelled event with task_status:
/// "cancelled"." Also on a thread whose request already ended (a reading recorded in "Where the
/// documents are silent"); the request itself keeps its final state.
#[tokio::test(start_paused = true)]
async fn cancelling_an_already_finished_task_returns_the_documented_cancelled_event() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#complete Summarize the top 5 stories").await;
    let thread = thread_id(&done);

    let result = client
        .call_json("cancel_task", json!({"thread_id": thread}))
        .await;

    assert_eq!(result["event"], "cancelled", "{result}");
    assert_eq!(result["task_status"], "cancelled", "{result}");
    assert!(text(&result).contains("already ended"), "{result}");
    let read = client.read(&thread).await;
    assert_eq!(
        read["web_state"]["task_status"], "completed",
        "the finished request is not rewritten"
    );
}

#[tokio::test(start_paused = true)]
async fn opening_the_stop_page_does_not_stop_the_task_but_pressing_stop_does() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel Build the product catalog").await;
    let thread = thread_id(&started);
    let stop_url = format!("{}/_mock/stop/{thread}", common::BASE);

    let page = mock.get(&stop_url).await;
    assert_eq!(page.status, 200);
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "working");

    let stopped = mock.post_form(&stop_url).await;
    assert_eq!(stopped.status, 200);
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "cancelled");
}

#[tokio::test(start_paused = true)]
async fn a_follow_up_queued_behind_the_running_task_returns_cancelled_when_the_task_is_cancelled() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel Build the product catalog").await;
    let thread = thread_id(&started);
    let waiting = common::follow_up_in_background(&mock, &thread, "Only the first 100 pages").await;

    let cancelled = client
        .call_json("cancel_task", json!({"thread_id": thread}))
        .await;
    let waited = waiting.await.expect("the waiting call finishes");

    assert_eq!(cancelled["event"], "cancelled");
    assert_eq!(waited["thread_id"], thread);
    assert_eq!(waited["event"], "cancelled", "{waited}");
    assert_eq!(waited["task_status"], "cancelled");
}

#[tokio::test(start_paused = true)]
async fn a_failed_cancel_request_is_an_error_without_task_status_and_the_task_keeps_running() {
    let scenario = json!({
        "name": "cancel-fails",
        "description": "cancel_task fails.",
        "settings": {"cancel_fails": true},
        "turns": [{"steps": [{"title": "Crawling", "duration": "10m"}],
                   "outcome": {"event": "complete", "text": "Crawled."}}]
    });
    let mock = common::mock_with_scenario(&scenario);
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel-fails crawl everything").await;
    let thread = thread_id(&started);

    let raw = client
        .call("cancel_task", json!({"thread_id": thread}))
        .await;

    assert_eq!(raw["isError"], true);
    let result = text_json(&raw);
    assert!(result.get("task_status").is_none(), "{result}");
    assert!(text(&result).contains("read_thread"), "{result}");
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "working");
}

/// "Perplexity Computer MCP Server, cancel_task": "If the cancel request itself fails, the call
/// returns an error without task_status, because the task may still be running. [...] Confirm
/// cancellation with read_thread or tasks/get, and retry if the task remains active."
#[tokio::test(start_paused = true)]
async fn a_cancel_that_fails_once_succeeds_on_the_retry() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel-fails-once crawl everything").await;
    let thread = thread_id(&started);

    let first = client
        .call("cancel_task", json!({"thread_id": thread}))
        .await;
    assert_eq!(first["isError"], true, "{first}");
    assert!(text_json(&first).get("task_status").is_none(), "{first}");
    assert_eq!(
        client.read(&thread).await["web_state"]["task_status"],
        "working"
    );

    let retry = client
        .call_json("cancel_task", json!({"thread_id": thread}))
        .await;
    assert_eq!(retry["event"], "cancelled", "{retry}");
    assert_eq!(
        client.read(&thread).await["web_state"]["task_status"],
        "cancelled"
    );
}

/// "Perplexity Computer MCP Server, cancel_task": "If Computer cannot read the thread state, the
/// tool still sends a cancellation request. A paused task may remain input_required in this
/// case. Confirm cancellation with read_thread or tasks/get, and retry if the task remains
/// active."
#[tokio::test(start_paused = true)]
async fn a_paused_task_may_remain_input_required_after_an_accepted_cancel() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client.start("#cancel-paused-unread Draft the report").await;
    assert_eq!(asked["event"], "ask_user_question", "{asked}");
    let thread = thread_id(&asked);

    let first = client
        .call_json("cancel_task", json!({"thread_id": thread}))
        .await;
    assert_eq!(first["event"], "cancelled", "{first}");
    assert_eq!(
        client.read(&thread).await["web_state"]["task_status"],
        "input_required",
        "the paused task remained input_required"
    );

    client
        .call_json("cancel_task", json!({"thread_id": thread}))
        .await;
    assert_eq!(
        client.read(&thread).await["web_state"]["task_status"],
        "cancelled"
    );
}
