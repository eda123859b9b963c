//! MCP Tasks cancellation: `tasks/cancel` only acknowledges and hands out the stop URL;
//! `cancel_task` (or the stop page) really stops Computer, and polling then shows `cancelled`.

use serde_json::json;

use crate::common::modern::task_id;
use crate::common::{BASE, Mock};

#[tokio::test(start_paused = true)]
async fn tasks_cancel_acknowledges_with_the_stop_url_and_does_not_stop_computer() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client.start_task("#cancel Plan the offsite", None).await;
    let task = task_id(&created);
    let thread = created["_meta"]["ai.perplexity/threadId"]
        .as_str()
        .expect("thread")
        .to_owned();

    let ack = client.rpc("tasks/cancel", json!({"taskId": task})).await;

    let result = &ack.body["result"];
    assert_eq!(result["resultType"], "complete", "{ack:?}");
    assert_eq!(
        result["_meta"]["ai.perplexity/stopUrl"],
        format!("{BASE}/_mock/stop/{thread}")
    );
    assert_eq!(result["_meta"]["ai.perplexity/threadId"], thread);
    assert!(result.get("status").is_none());
    assert_eq!(client.task(&task).await["status"], "working");
}

#[tokio::test(start_paused = true)]
async fn cancel_task_stops_computer_and_polling_shows_cancelled() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client.start_task("#cancel Plan the offsite", None).await;
    let task = task_id(&created);
    let thread = created["_meta"]["ai.perplexity/threadId"].clone();

    client
        .call("cancel_task", json!({"thread_id": thread}))
        .await;

    let state = client.task(&task).await;
    assert_eq!(state["status"], "cancelled", "{state}");
    assert!(state.get("result").is_none());
}

#[tokio::test(start_paused = true)]
async fn the_stop_page_stops_computer_too() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client.start_task("#cancel Plan the offsite", None).await;
    let task = task_id(&created);
    let stop = created["_meta"]["ai.perplexity/stopUrl"]
        .as_str()
        .expect("stop url")
        .to_owned();

    mock.post_form(&stop).await;

    assert_eq!(client.task(&task).await["status"], "cancelled");
}
