//! Credits a scenario's steps cost are spent as virtual time passes them.

use std::time::Duration;

use serde_json::json;

use crate::common::{self, mock_with_scenario};

fn costly() -> serde_json::Value {
    json!({
        "name": "costly",
        "description": "Three steps of ten minutes, each costing credits.",
        "turns": [{
            "steps": [
                {"title": "Searching", "type": "search_web", "duration": "10m", "credits": 4},
                {"title": "Reading", "type": "browse", "duration": "10m", "credits": 6},
                {"title": "Writing", "type": "create_file", "duration": "10m", "credits": 10}
            ],
            "outcome": {"event": "complete", "text": "Done."}
        }]
    })
}

#[tokio::test(start_paused = true)]
async fn steps_spend_their_credits_as_virtual_time_passes_them() {
    let mock = mock_with_scenario(&costly());
    let mut alice = mock.session("alice-dev-token").await;
    let world = mock.handle.world();
    let before = world.credits("alice");

    // The call waits two minutes, then answers timeout: no step has ended yet.
    let started = alice.start("#costly Research the market").await;
    assert_eq!(started["event"], "timeout", "{started}");
    let thread = common::thread_id(&started);
    assert_eq!(
        world.credits("alice"),
        before - 1,
        "only the message so far"
    );

    mock.advance(Duration::from_secs(9 * 60));
    alice.read(&thread).await;
    assert_eq!(
        world.credits("alice"),
        before - 1 - 4,
        "the first step ended"
    );

    mock.advance(Duration::from_secs(20 * 60));
    let done = alice.read(&thread).await;
    assert_eq!(done["web_state"]["task_status"], "completed", "{done}");
    assert_eq!(
        world.credits("alice"),
        before - 1 - 20,
        "every step billed once"
    );
    alice.read(&thread).await;
    assert_eq!(
        world.credits("alice"),
        before - 1 - 20,
        "reading again bills nothing"
    );
}

#[tokio::test(start_paused = true)]
async fn credits_spent_by_steps_count_toward_the_refusal_before_the_next_send() {
    let mock = mock_with_scenario(&costly());
    let mut bob = mock.session("bob-dev-token").await;
    let started = bob.start("#costly Research the market").await;
    let thread = common::thread_id(&started);
    mock.advance(Duration::from_secs(30 * 60));
    let done = bob.read(&thread).await;
    assert_eq!(done["web_state"]["task_status"], "completed", "{done}");
    assert_eq!(mock.handle.world().credits("bob"), 4, "25 - 1 - 20");

    mock.handle.world().spend("bob", 4);
    let refused = bob
        .call_json(
            "call_perplexity_computer",
            json!({"message": "More", "thread_id": thread}),
        )
        .await;
    assert_eq!(refused["event"], "insufficient_credits", "{refused}");
}

#[tokio::test(start_paused = true)]
async fn steps_that_use_up_the_balance_stop_the_task_as_out_of_credits_until_a_top_up() {
    let scenario = json!({
        "name": "hungry",
        "description": "Three steps that cost more than a free plan holds.",
        "turns": [{
            "steps": [
                {"title": "Crawling", "type": "browse", "duration": "10m", "credits": 10},
                {"title": "Extracting", "type": "run_code", "duration": "10m", "credits": 15},
                {"title": "Writing", "type": "create_file", "duration": "10m", "credits": 5}
            ],
            "outcome": {"event": "complete", "text": "Done."}
        }]
    });
    let mock = mock_with_scenario(&scenario);
    let mut bob = mock.session("bob-dev-token").await;
    let started = bob.start("#hungry Build the price list").await;
    let thread = common::thread_id(&started);

    // 25 credits: 1 for the message, 10 + 15 for the first two steps, nothing left for the third.
    mock.advance(Duration::from_secs(30 * 60));
    let stopped = bob.read(&thread).await;
    assert_eq!(
        stopped["web_state"]["task_status"], "input_required",
        "{stopped}"
    );
    assert_eq!(mock.handle.world().credits("bob"), 0);
    let steps = &stopped["web_state"]["entries"][0]["steps"];
    assert!(
        !steps.to_string().contains("Writing"),
        "the third step never started: {steps}"
    );

    let refused = bob
        .call_json(
            "call_perplexity_computer",
            json!({"thread_id": thread, "message": "Please continue"}),
        )
        .await;
    assert_eq!(refused["event"], "insufficient_credits", "{refused}");
    assert!(refused.get("thread_id").is_none());

    mock.post_json("/_mock/accounts/bob/top-up", json!({}))
        .await;
    let resumed = bob
        .call_json(
            "call_perplexity_computer",
            json!({"thread_id": thread, "message": "Topped up, please continue"}),
        )
        .await;
    assert_eq!(resumed["thread_id"], thread.as_str());
    mock.advance(Duration::from_secs(10 * 60));
    let done = bob.read(&thread).await;
    assert_eq!(done["web_state"]["task_status"], "completed", "{done}");
    assert_eq!(
        done["web_state"]["entries"].as_array().map(Vec::len),
        Some(1),
        "the same request went on"
    );
}
