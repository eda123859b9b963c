//! Choosing a mode or a model: the documented combinations, and refusals naming the argument.

mod common;

use common::{Mock, text, text_json};
use serde_json::{Value, json};

async fn refused(token: &str, args: Value) -> String {
    let mock = Mock::new();
    let mut client = mock.session(token).await;
    let raw = client.call("call_perplexity_computer", args).await;
    assert_eq!(raw["isError"], true, "{raw}");
    let result = text_json(&raw);
    assert_eq!(result["event"], "error");
    assert!(result.get("task_status").is_none(), "{result}");
    assert!(
        result.get("error_code").is_none(),
        "a server-side refusal: {result}"
    );
    text(&result).to_owned()
}

#[tokio::test(start_paused = true)]
async fn mode_and_model_together_are_refused_naming_both() {
    let message = refused(
        "alice-dev-token",
        json!({"message": "Plan my week", "mode": "light", "model": "sonar-fast"}),
    )
    .await;
    assert!(
        message.contains("`mode`") && message.contains("`model`"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn effort_without_model_is_refused_naming_effort() {
    let message = refused(
        "alice-dev-token",
        json!({"message": "Plan my week", "effort": "high"}),
    )
    .await;
    assert!(
        message.contains("`effort`") && message.contains("`model`"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn project_visibility_without_project_uuid_is_refused_naming_it() {
    let message = refused(
        "alice-dev-token",
        json!({"message": "Plan my week", "project_visibility": "project"}),
    )
    .await;
    assert!(message.contains("`project_visibility`"), "{message}");
    assert!(message.contains("`project_uuid`"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn project_uuid_with_thread_id_is_refused_naming_both() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#complete Summarize the top stories").await;
    let projects = client.call_json("projects_list", json!({})).await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({
                "message": "Move this into the project",
                "thread_id": done["thread_id"],
                "project_uuid": projects["projects"][0]["project_uuid"],
            }),
        )
        .await;

    assert_eq!(raw["isError"], true);
    let message = text(&text_json(&raw)).to_owned();
    assert!(
        message.contains("`project_uuid`") && message.contains("`thread_id`"),
        "{message}"
    );
    let read = client
        .read(done["thread_id"].as_str().expect("thread"))
        .await;
    assert!(
        !text(&read).contains("Move this into the project"),
        "nothing was sent"
    );
}

#[tokio::test(start_paused = true)]
async fn an_unknown_model_is_refused_naming_the_model_argument() {
    let message = refused(
        "alice-dev-token",
        json!({"message": "Plan my week", "model": "gpt-2"}),
    )
    .await;
    assert!(message.contains("`model`"), "{message}");
    assert!(message.contains("gpt-2"), "{message}");
    assert!(message.contains("models_list"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_model_outside_the_free_plan_is_refused_for_bob() {
    let message = refused(
        "bob-dev-token",
        json!({"message": "Plan my week", "model": "claude-opus-4-5"}),
    )
    .await;
    assert!(message.contains("`model`"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn an_effort_the_model_does_not_offer_is_refused_naming_effort() {
    let message = refused(
        "alice-dev-token",
        json!({"message": "Plan my week", "model": "sonar-fast", "effort": "high"}),
    )
    .await;
    assert!(message.contains("`effort`"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_mode_outside_the_plan_is_refused_naming_mode() {
    let message = refused(
        "bob-dev-token",
        json!({"message": "Plan my week", "mode": "ultra"}),
    )
    .await;
    assert!(message.contains("`mode`"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_mode_or_a_model_with_an_offered_effort_runs_the_task() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let with_mode = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize", "mode": "light"}),
        )
        .await;
    let with_model = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize", "model": "gpt-5-1", "effort": "minimal"}),
        )
        .await;
    let model_only = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize", "model": "claude-opus-4-5"}),
        )
        .await;

    for result in [with_mode, with_model, model_only] {
        assert_eq!(result["event"], "complete", "{result}");
    }
}
