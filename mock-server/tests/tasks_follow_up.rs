//! MCP Tasks across turns and callers: a new message starts a new task while the finished one
//! stays readable; task ids work after a reconnect and only for their owner.

use std::time::Duration;

use serde_json::json;

use crate::common::modern::task_id;
use crate::common::{Mock, text_json};

#[tokio::test(start_paused = true)]
async fn a_follow_up_message_starts_a_new_task_and_the_old_result_stays_readable() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let first = client.start_task("#follow-up Summarize HN", None).await;
    let first_task = task_id(&first);
    let thread = first["_meta"]["ai.perplexity/threadId"]
        .as_str()
        .expect("thread")
        .to_owned();
    mock.advance(Duration::from_secs(600));
    let done = client.task(&first_task).await;
    assert_eq!(done["status"], "completed");

    let second = client
        .start_task("Turn that into a PDF report", Some(&thread))
        .await;
    let second_task = task_id(&second);
    assert_ne!(second_task, first_task);
    assert_eq!(second["_meta"]["ai.perplexity/threadId"], thread);

    assert_eq!(client.task(&first_task).await["result"], done["result"]);
    mock.advance(Duration::from_secs(600));
    let later = client.task(&second_task).await;
    assert_eq!(later["status"], "completed", "{later}");
    assert_ne!(text_json(&later["result"]), text_json(&done["result"]));
    assert_eq!(client.task(&first_task).await["result"], done["result"]);
}

#[tokio::test(start_paused = true)]
async fn a_new_client_keeps_polling_the_same_task_id() {
    let mock = Mock::new();
    let mut first = mock.modern("alice-dev-token").with_tasks();
    let task = task_id(
        &first
            .start_task("#timeout-then-complete Summarize HN", None)
            .await,
    );
    drop(first);

    let mut again = mock.modern("alice-dev-token").with_tasks();
    mock.advance(Duration::from_secs(600));
    assert_eq!(again.task(&task).await["status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn another_accounts_or_an_unknown_task_id_is_invalid_params() {
    let mock = Mock::new();
    let mut alice = mock.modern("alice-dev-token").with_tasks();
    let task = task_id(
        &alice
            .start_task("#timeout-then-complete Summarize HN", None)
            .await,
    );

    let mut bob = mock.modern("bob-dev-token").with_tasks();
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let reply = bob
            .rpc(method, json!({"taskId": task, "inputResponses": {}}))
            .await;
        assert_eq!(reply.body["error"]["code"], -32602, "{method}: {reply:?}");
    }
    let unknown = alice.get_task("task-0000").await;
    assert_eq!(unknown.body["error"]["code"], -32602);
    assert_eq!(alice.task(&task).await["status"], "working");
}

#[tokio::test(start_paused = true)]
async fn a_message_queued_behind_a_working_task_gets_its_own_task_and_result() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let first = client.start_task("#follow-up Summarize HN", None).await;
    let first_task = task_id(&first);
    let thread = first["_meta"]["ai.perplexity/threadId"]
        .as_str()
        .expect("thread")
        .to_owned();

    let second = client
        .start_task("Turn that into a PDF report", Some(&thread))
        .await;
    let second_task = task_id(&second);
    let queued = client.task(&second_task).await;
    assert_eq!(queued["status"], "working", "{queued}");
    assert!(
        queued["statusMessage"]
            .as_str()
            .is_some_and(|m| m.starts_with("Queued")),
        "{queued}"
    );
    assert!(queued.get("result").is_none());

    mock.advance(Duration::from_secs(40));
    let first_done = client.task(&first_task).await;
    assert_eq!(first_done["status"], "completed", "{first_done}");
    assert!(
        text_json(&first_done["result"])["text"]
            .as_str()
            .is_some_and(|t| t.contains("top stories"))
    );
    assert_eq!(client.task(&second_task).await["status"], "working");

    mock.advance(Duration::from_secs(120));
    let second_done = client.task(&second_task).await;
    assert_eq!(second_done["status"], "completed", "{second_done}");
    assert!(
        text_json(&second_done["result"])["text"]
            .as_str()
            .is_some_and(|t| t.contains("report"))
    );
    assert_eq!(
        client.task(&first_task).await["result"],
        first_done["result"]
    );
}
