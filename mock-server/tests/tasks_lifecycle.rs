//! MCP Tasks: a declaring client gets `resultType: "task"` at once and polls `tasks/get` from
//! `working` to `completed` with the final tool result.

use std::time::Duration;

use serde_json::json;

use crate::common::modern::task_id;
use crate::common::{self, Mock, keys, text_json};

#[tokio::test(start_paused = true)]
async fn a_declaring_client_gets_a_task_with_every_documented_field() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();

    let created = client
        .start_task("#timeout-then-complete Summarize HN", None)
        .await;

    assert_eq!(
        keys(&created),
        [
            "_meta",
            "createdAt",
            "lastUpdatedAt",
            "pollIntervalMs",
            "resultType",
            "status",
            "statusMessage",
            "taskId",
            "ttlMs"
        ]
    );
    assert_eq!(created["resultType"], "task");
    assert_eq!(created["status"], "working");
    assert_eq!(created["pollIntervalMs"], 5000);
    assert_eq!(created["ttlMs"], 2_592_000_000u64);
    assert_eq!(created["createdAt"], mock.now());
    let thread = created["_meta"]["ai.perplexity/threadId"]
        .as_str()
        .expect("threadId")
        .to_owned();
    assert_eq!(
        created["_meta"]["ai.perplexity/stopUrl"],
        format!("{}/_mock/stop/{thread}", common::BASE)
    );
    let task = task_id(&created);
    assert!(
        !task.contains(&thread) && !task.contains(&thread.replace('-', "")),
        "the task id must not reveal the thread id: {task} / {thread}"
    );
}

#[tokio::test(start_paused = true)]
async fn polling_shows_working_with_steps_then_completed_with_the_tool_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client
        .start_task("#timeout-then-complete Summarize HN", None)
        .await;
    let task = task_id(&created);
    let thread = created["_meta"]["ai.perplexity/threadId"].clone();

    let working = client.task(&task).await;
    assert_eq!(working["resultType"], "complete");
    assert_eq!(working["status"], "working");
    assert!(
        working["statusMessage"]
            .as_str()
            .is_some_and(|m| m.starts_with("Working")),
        "{working}"
    );
    assert_eq!(working["_meta"]["ai.perplexity/threadId"], thread);
    let steps = working["_meta"]["ai.perplexity/steps"]
        .as_array()
        .expect("steps");
    assert!(!steps.is_empty());
    assert_eq!(
        keys(&steps[0]),
        [
            "completed_at",
            "id",
            "sources",
            "started_at",
            "status",
            "title",
            "type"
        ]
    );
    assert!(working.get("result").is_none());

    mock.advance(Duration::from_secs(600));
    let done = client.task(&task).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_ne!(done["lastUpdatedAt"], working["lastUpdatedAt"]);
    let result = &done["result"];
    assert_eq!(result["isError"], false);
    assert_eq!(result["structuredContent"]["thread_id"], thread);
    assert_eq!(text_json(result)["event"], "complete");
    assert_eq!(text_json(result)["task_status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn a_computer_failure_is_completed_with_an_error_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let task = task_id(&client.start_task("#computer-error Do it", None).await);

    mock.advance(Duration::from_secs(600));
    let done = client.task(&task).await;

    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], true);
    assert_eq!(
        done["result"]["structuredContent"]["error_code"],
        "computer_error"
    );
    assert!(
        done["statusMessage"]
            .as_str()
            .is_some_and(|m| m.contains("failed"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_request_that_cannot_start_answers_a_regular_tool_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();

    let invalid = client
        .call("call_perplexity_computer", json!({"mode": "light"}))
        .await;
    assert_eq!(invalid["resultType"], "complete");
    assert_eq!(invalid["isError"], true);

    let broke = client
        .start_task("#insufficient-credits-before-send Do it", None)
        .await;
    assert_eq!(broke["resultType"], "complete", "{broke}");
    assert_eq!(text_json(&broke)["event"], "insufficient_credits");
    assert!(broke.get("structuredContent").is_none());
}

#[tokio::test(start_paused = true)]
async fn a_client_without_the_extension_gets_a_plain_blocking_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    let result = client.start_task("#complete Summarize HN", None).await;
    assert_eq!(result["resultType"], "complete");
    assert_eq!(text_json(&result)["event"], "complete");
}

#[tokio::test(start_paused = true)]
async fn every_poll_is_in_the_journal_with_its_virtual_time() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let task = task_id(
        &client
            .start_task("#timeout-then-complete Summarize HN", None)
            .await,
    );
    client.task(&task).await;
    mock.advance(Duration::from_millis(100));
    client.task(&task).await;

    let polls: Vec<String> = mock
        .journal_lines()
        .await
        .into_iter()
        .map(|line| line.to_string())
        .filter(|line| line.contains("tasks/get"))
        .collect();
    assert_eq!(polls.len(), 2, "{polls:?}");
}

#[tokio::test(start_paused = true)]
async fn poll_interval_and_ttl_come_from_the_scenario() {
    let scenario = json!({
        "name": "quick-polls",
        "description": "Fast polling.",
        "settings": {"poll_interval_ms": 250, "ttl_ms": 60000},
        "turns": [{"steps": [{"title": "Working", "duration": "10s"}],
                   "outcome": {"event": "complete", "text": "Done."}}]
    });
    let mock = common::mock_with_scenario(&scenario);
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client.start_task("#quick-polls go", None).await;
    assert_eq!(created["pollIntervalMs"], 250);
    assert_eq!(created["ttlMs"], 60000);

    let task = task_id(&created);
    mock.advance(Duration::from_secs(61));
    let expired = client.get_task(&task).await;
    assert_eq!(expired.body["error"]["code"], -32602, "{expired:?}");
}

#[tokio::test(start_paused = true)]
async fn the_extension_is_not_honoured_in_the_handshake_era() {
    let mock = Mock::new();
    let mut client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}),
        )
        .await;
    let reply = client
        .rpc(
            "tools/call",
            json!({"name": "call_perplexity_computer",
                   "arguments": {"message": "#complete Summarize HN"},
                   "task": {"ttl": 60000}}),
        )
        .await;
    let result = &reply.body["result"];
    assert!(result.get("resultType").is_none(), "{result}");
    assert!(result.get("taskId").is_none() && result.get("task").is_none());
    assert_eq!(text_json(result)["event"], "complete");

    let get = client.rpc("tasks/get", json!({"taskId": "anything"})).await;
    assert_eq!(get.body["error"]["code"], -32601, "{get:?}");
}

#[tokio::test(start_paused = true)]
async fn a_reset_forgets_tasks_along_with_their_threads() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client
        .start_task("#timeout-then-complete Summarize HN", None)
        .await;
    let task = task_id(&created);
    assert_eq!(client.get_task(&task).await.status, 200);

    let reset = mock.post_json("/_mock/reset", json!({})).await;
    assert_eq!(reset.status, 200);

    let forgotten = client.get_task(&task).await;
    assert_eq!(forgotten.body["error"]["code"], -32602, "{forgotten:?}");
}

/// "Perplexity Computer MCP Server, Cancel a task": "Its response includes
/// `_meta["ai.perplexity/stopUrl"]`, also available from task creation and tasks/get."
#[tokio::test(start_paused = true)]
async fn tasks_get_carries_the_stop_url_in_every_status() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client
        .start_task("#timeout-then-complete Summarize HN", None)
        .await;
    let task = task_id(&created);
    let stop = created["_meta"]["ai.perplexity/stopUrl"].clone();
    assert!(stop.is_string(), "{created}");

    let working = client.task(&task).await;
    assert_eq!(working["status"], "working");
    assert_eq!(working["_meta"]["ai.perplexity/stopUrl"], stop, "{working}");

    mock.advance(Duration::from_secs(600));
    let done = client.task(&task).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["_meta"]["ai.perplexity/stopUrl"], stop, "{done}");
}

/// ext-tasks: `lastUpdatedAt` is when the task's state last changed. A finished task with files
/// polled again later is the same task: the same result, links included, and the same
/// `lastUpdatedAt`.
#[tokio::test(start_paused = true)]
async fn polling_a_finished_task_again_changes_nothing() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let task = task_id(&client.start_task("#files Analyze the survey", None).await);
    mock.advance(Duration::from_secs(600));
    let first = client.task(&task).await;
    assert_eq!(first["status"], "completed", "{first}");
    assert!(
        first["result"]["structuredContent"]["files"].is_array(),
        "{first}"
    );

    mock.advance(Duration::from_secs(60));
    let again = client.task(&task).await;
    assert_eq!(again["lastUpdatedAt"], first["lastUpdatedAt"]);
    assert_eq!(again["result"], first["result"], "the links did not move");
}
