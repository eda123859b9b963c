//! Choosing a mode or a model: the documented combinations, and refusals naming the argument.

use serde_json::{Value, json};

use crate::common::{self, Mock, text, text_json};

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

const SETTINGS: &str = "ai.perplexity/settings";

/// The thread's settings, from `read_thread`'s `_meta`.
async fn settings_of(client: &mut common::Client, thread: &str) -> Value {
    let read = client
        .call("read_thread", json!({"thread_id": thread}))
        .await;
    read["_meta"][SETTINGS].clone()
}

/// Calls `call_perplexity_computer`: the task JSON and the settings its request ran with.
async fn send(client: &mut common::Client, args: Value) -> (Value, Value) {
    let raw = client.call("call_perplexity_computer", args).await;
    (text_json(&raw), raw["_meta"][SETTINGS].clone())
}

#[tokio::test(start_paused = true)]
async fn a_conversation_that_chooses_nothing_runs_the_accounts_default_mode() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let (done, ran) = send(&mut client, json!({"message": "#complete Plan my week"})).await;
    let standard = json!({"mode": "standard", "model": "claude-sonnet-4-5", "effort": "high"});
    assert_eq!(ran, standard);
    assert_eq!(
        settings_of(&mut client, &common::thread_id(&done)).await,
        standard
    );
}

#[tokio::test(start_paused = true)]
async fn a_model_without_effort_runs_with_its_default_effort() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let (_, ran) = send(
        &mut client,
        json!({"message": "#complete Review this contract", "model": "gpt-5-1"}),
    )
    .await;
    assert_eq!(
        ran,
        json!({"mode": null, "model": "gpt-5-1", "effort": "medium"})
    );
}

#[tokio::test(start_paused = true)]
async fn a_follow_up_naming_a_mode_or_model_switches_the_thread_and_one_naming_neither_keeps_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let light = json!({"mode": "light", "model": "sonar-fast", "effort": "low"});
    let opus = json!({"mode": null, "model": "claude-opus-4-5", "effort": "low"});

    let (first, ran) = send(
        &mut client,
        json!({"message": "#follow-up Summarize the news", "mode": "light"}),
    )
    .await;
    let thread = common::thread_id(&first);
    assert_eq!(ran, light);
    let (switched, ran) = send(
        &mut client,
        json!({"message": "Now a PDF", "thread_id": thread, "model": "claude-opus-4-5", "effort": "low"}),
    )
    .await;
    assert_eq!(switched["thread_id"], thread.as_str(), "{switched}");
    assert_eq!(ran, opus);
    let (kept, ran) = send(
        &mut client,
        json!({"message": "And a shorter one", "thread_id": thread}),
    )
    .await;
    assert_eq!(kept["thread_id"], thread.as_str(), "{kept}");
    assert_eq!(ran, opus, "no mode or model: the thread keeps its settings");
    assert_eq!(settings_of(&mut client, &thread).await, opus);

    let (_, ran) = send(
        &mut client,
        json!({"message": "Ultra now", "thread_id": thread, "mode": "ultra"}),
    )
    .await;
    let ultra = json!({"mode": "ultra", "model": "claude-opus-4-5", "effort": "high"});
    assert_eq!(ran, ultra);
    assert_eq!(settings_of(&mut client, &thread).await, ultra);
}

#[tokio::test(start_paused = true)]
async fn a_refused_switch_leaves_the_thread_as_it_was() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    let first = bob.start("#complete Plan my trip").await;
    let thread = common::thread_id(&first);
    let before = settings_of(&mut bob, &thread).await;
    assert_eq!(before["mode"], "standard");
    let refused = bob
        .call(
            "call_perplexity_computer",
            json!({"message": "Go ultra", "thread_id": thread, "mode": "ultra"}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(settings_of(&mut bob, &thread).await, before);
    let read = bob.read(&thread).await;
    assert!(!text(&read).contains("Go ultra"), "nothing was sent");
}
