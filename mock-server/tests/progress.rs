//! Status updates: with a progress token the call streams `notifications/progress`, then the
//! result; without one it answers a plain JSON body.

use serde_json::json;

use crate::common::{Mock, text_json};

#[tokio::test(start_paused = true)]
async fn a_progress_token_streams_step_titles_with_increasing_progress_then_the_result() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let reply = client
        .rpc(
            "tools/call",
            json!({
                "name": "call_perplexity_computer",
                "arguments": {"message": "#complete Summarize the top 5 stories"},
                "_meta": {"progressToken": "tok-1"}
            }),
        )
        .await;

    assert_eq!(reply.status, 200);
    let content_type = reply.headers["content-type"].to_str().expect("ascii");
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let (last, notifications) = reply.events.split_last().expect("events");
    assert!(
        last.get("result").is_some(),
        "the result comes last: {last}"
    );
    assert_eq!(text_json(&last["result"])["event"], "complete");
    assert!(!notifications.is_empty());
    let mut previous = 0.0;
    for note in notifications {
        assert_eq!(note["method"], "notifications/progress", "{note}");
        assert_eq!(note["params"]["progressToken"], "tok-1");
        let progress = note["params"]["progress"].as_f64().expect("progress");
        assert!(progress > previous, "progress increases: {notifications:?}");
        previous = progress;
    }
    let messages: Vec<&str> = notifications
        .iter()
        .filter_map(|n| n["params"]["message"].as_str())
        .collect();
    let titles = [
        "Searching Hacker News front page",
        "Reading the top 5 stories",
        "Writing the summary",
    ];
    let positions: Vec<usize> = titles
        .iter()
        .map(|t| {
            messages
                .iter()
                .position(|m| m == t)
                .unwrap_or_else(|| panic!("step `{t}` reported: {messages:?}"))
        })
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "in step order: {messages:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_harness_splits_progress_from_the_final_result() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let (progress, result) = client
        .call_with_progress(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize the top 5 stories"}),
        )
        .await;

    assert!(progress.len() >= 3, "{progress:?}");
    assert_eq!(text_json(&result)["task_status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn without_a_progress_token_the_answer_is_a_plain_json_body() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let reply = client
        .rpc(
            "tools/call",
            json!({
                "name": "call_perplexity_computer",
                "arguments": {"message": "#complete Summarize the top 5 stories"}
            }),
        )
        .await;

    assert_eq!(reply.status, 200);
    let content_type = reply.headers["content-type"].to_str().expect("ascii");
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    assert!(reply.events.is_empty());
    assert_eq!(reply.body["jsonrpc"], "2.0");
    assert_eq!(text_json(&reply.body["result"])["event"], "complete");
}

#[tokio::test(start_paused = true)]
async fn answering_a_question_with_a_progress_token_streams_the_steps_that_follow() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client
        .start("#ask-user-question Build the sales report")
        .await;

    let (progress, result) = client
        .call_with_progress(
            "answer_question",
            json!({
                "thread_id": asked["thread_id"],
                "answers": {"q1": "PDF"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    let messages: Vec<&str> = progress
        .iter()
        .filter_map(|n| n["params"]["message"].as_str())
        .collect();
    assert!(
        messages.contains(&"Writing the sales report"),
        "{messages:?}"
    );
    assert!(
        !messages.contains(&"Collecting last quarter's sales figures"),
        "steps from before the answer are not repeated: {messages:?}"
    );
    assert_eq!(text_json(&result)["event"], "complete");
}
