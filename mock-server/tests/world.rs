//! The world fixture: schema validation at load, `--world` replacing it, and the plan rules it
//! carries (attachment limits per day and week, spending limits, a quota with its reset date).

use std::path::PathBuf;
use std::time::Duration;

use mock_server::{MockServer, world::WORLD_FIXTURE};
use serde_json::{Value, json};

use crate::common::{self, Mock, text, text_json};

/// The built-in world with `change` applied, written to a temp file.
fn world_file(name: &str, change: impl FnOnce(&mut Value)) -> PathBuf {
    let mut world: Value = serde_json::from_str(WORLD_FIXTURE).expect("built-in world");
    change(&mut world);
    let dir = std::env::temp_dir().join(format!(
        "mock-server-world-{}-{name}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("world.json");
    std::fs::write(&path, world.to_string()).expect("written");
    path
}

fn refused(path: PathBuf) -> String {
    let error = MockServer::builder()
        .world(&path)
        .router(common::BASE)
        .err()
        .expect("the world file is refused");
    let message = error.to_string();
    assert!(
        message.contains(&path.display().to_string()),
        "names the file: {message}"
    );
    message
}

#[test]
fn a_world_file_against_the_schema_is_refused_with_its_pointer() {
    let message = refused(world_file("bad-plan", |w| {
        w["accounts"][1]["plan"] = json!("gold")
    }));
    assert!(message.contains("/accounts/1/plan"), "{message}");

    let message = refused(world_file("extra", |w| {
        w["accounts"][0]["colour"] = json!("red")
    }));
    assert!(message.contains("/accounts/0"), "{message}");
    assert!(message.contains("colour"), "{message}");
}

#[test]
fn a_world_file_that_says_something_impossible_is_refused_with_its_pointer() {
    let message = refused(world_file("member", |w| {
        w["projects"][0]["members"][0]["account"] = json!("carol");
    }));
    assert!(
        message.contains("/projects/0/members/0/account"),
        "{message}"
    );
    assert!(message.contains("carol"), "{message}");

    let message = refused(world_file("mode-model", |w| {
        w["modes"][0]["model"] = json!("gpt-2")
    }));
    assert!(message.contains("/modes/0/model"), "{message}");

    let message = refused(world_file("token", |w| {
        w["accounts"][1]["token"] = w["accounts"][0]["token"].clone();
    }));
    assert!(message.contains("/accounts/1/token"), "{message}");

    let message = refused(world_file("default", |w| {
        w["default_model"]["free"] = json!("claude-opus-4-5")
    }));
    assert!(message.contains("/default_model/free"), "{message}");
}

#[test]
fn a_missing_world_file_is_refused_naming_it() {
    let message = refused(PathBuf::from("/nonexistent/world.json"));
    assert!(message.contains("cannot read"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn world_replaces_the_accounts_and_their_tokens() {
    let path = world_file("carol", |w| {
        w["accounts"][1]["id"] = json!("carol");
        w["accounts"][1]["name"] = json!("Carol Example");
        w["accounts"][1]["token"] = json!("carol-dev-token");
        w["projects"][1]["members"]
            .as_array_mut()
            .expect("members")
            .truncate(1);
        w["projects"][2]["members"][0]["account"] = json!("carol");
    });
    let mock = Mock::with(MockServer::builder().world(path));
    let mut carol = mock.session("carol-dev-token").await;
    let projects = carol.call_json("projects_list", json!({})).await;
    assert_eq!(projects["projects"][0]["name"], "Trip planning");
    assert!(mock.handle.world().account("bob").is_none());
}

async fn envelope(client: &mut common::Client) -> Value {
    client
        .call(
            "create_attachment_upload",
            json!({"filename": "notes.txt", "mime_type": "text/plain", "size_bytes": 10}),
        )
        .await
}

#[tokio::test(start_paused = true)]
async fn the_free_plans_daily_attachment_limit_refuses_the_next_envelope_until_a_day_passes() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    for _ in 0..5 {
        let ok = envelope(&mut bob).await;
        assert_ne!(ok["isError"], true, "{ok}");
    }
    let sixth = envelope(&mut bob).await;
    assert_eq!(sixth["isError"], true, "{sixth}");
    let message = text(&text_json(&sixth)).to_owned();
    assert!(message.contains("5 attachments per day"), "{message}");
    assert!(
        message.contains("2026-10-25T00:11:18"),
        "says when: {message}"
    );

    // Alice's paid plan is not affected by bob's count.
    let mut alice = mock.session("alice-dev-token").await;
    assert_ne!(envelope(&mut alice).await["isError"], true);

    mock.advance(Duration::from_secs(24 * 3600));
    let next_day = envelope(&mut bob).await;
    assert_ne!(next_day["isError"], true, "{next_day}");
}

#[tokio::test(start_paused = true)]
async fn the_weekly_attachment_limit_holds_across_days() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    for day in 0..3 {
        for _ in 0..5 {
            let ok = envelope(&mut bob).await;
            assert_ne!(ok["isError"], true, "day {day}: {ok}");
        }
        mock.advance(Duration::from_secs(24 * 3600));
    }
    let refused = envelope(&mut bob).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&text_json(&refused)).contains("15 attachments per week"));
    mock.advance(Duration::from_secs(4 * 24 * 3600));
    assert_ne!(envelope(&mut bob).await["isError"], true);
}

#[tokio::test(start_paused = true)]
async fn a_refused_envelope_does_not_use_up_the_plans_count() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    for _ in 0..3 {
        let bad = bob
            .call(
                "create_attachment_upload",
                json!({"filename": "a/b.txt", "mime_type": "text/plain", "size_bytes": 10}),
            )
            .await;
        assert_eq!(bad["isError"], true);
    }
    for _ in 0..5 {
        assert_ne!(envelope(&mut bob).await["isError"], true);
    }
}

#[tokio::test(start_paused = true)]
async fn a_spending_limit_refuses_the_message_before_it_is_sent_until_raised() {
    let path = world_file("limit", |w| w["accounts"][0]["spending_limit"] = json!(2));
    let mock = Mock::with(MockServer::builder().world(path));
    let mut alice = mock.session("alice-dev-token").await;
    let first = alice.start("#complete One").await;
    let thread = common::thread_id(&first);
    alice.start("#complete Two").await;
    let third = alice
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Three", "thread_id": thread}),
        )
        .await;
    assert_eq!(third["event"], "insufficient_credits", "{third}");
    assert!(
        text(&third).contains("spending limit of 2 credits"),
        "{third}"
    );
    assert_eq!(third["interactive"]["reason"], "insufficient_credits");
    assert!(third.get("thread_id").is_none(), "nothing was sent");

    let billing = third["interactive"]["billing_url"]
        .as_str()
        .expect("billing_url");
    let page = mock.get(billing).await;
    let action = common::form_action(&page.body, billing);
    mock.post_form(&action).await;
    let again = alice
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Three", "thread_id": thread}),
        )
        .await;
    assert_eq!(again["event"], "complete", "{again}");
}

#[tokio::test(start_paused = true)]
async fn a_quota_reset_date_in_the_world_holds_messages_until_then() {
    let path = world_file("quota", |w| {
        w["accounts"][1]["quota_reset_date"] = json!("2026-11-01T00:00:00Z");
    });
    let mock = Mock::with(MockServer::builder().world(path));
    let mut bob = mock.session("bob-dev-token").await;
    let refused = bob.start("#complete Hello").await;
    assert_eq!(refused["event"], "insufficient_credits", "{refused}");
    assert_eq!(refused["interactive"]["reason"], "quota_exhausted");
    assert_eq!(
        refused["interactive"]["quota_reset_date"],
        "2026-11-01T00:00:00Z"
    );
    mock.advance(Duration::from_secs(8 * 24 * 3600));
    let after = bob.start("#complete Hello").await;
    assert_eq!(after["event"], "complete", "{after}");
}

#[tokio::test(start_paused = true)]
async fn an_organization_policy_removes_models_and_their_modes_and_refuses_them() {
    let path = world_file("policy", |w| {
        w["accounts"][0]["organization_policy"] = json!({"blocked_models": ["claude-opus-4-5"]});
    });
    let mock = Mock::with(MockServer::builder().world(path));
    let mut alice = mock.session("alice-dev-token").await;
    let list = alice.call_json("models_list", json!({})).await;
    let modes: Vec<&str> = list["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .filter_map(|m| m["mode"].as_str())
        .collect();
    assert_eq!(
        modes,
        ["light", "standard", "high"],
        "ultra runs the blocked model"
    );
    assert!(!list.to_string().contains("claude-opus-4-5"), "{list}");
    assert_eq!(
        list["default_model"],
        Value::Null,
        "the paid default is blocked"
    );
    assert_eq!(list["default_mode"], "standard");

    for args in [
        json!({"message": "Go", "model": "claude-opus-4-5"}),
        json!({"message": "Go", "mode": "ultra"}),
    ] {
        let refused = alice.call("call_perplexity_computer", args).await;
        assert_eq!(refused["isError"], true, "{refused}");
        assert!(text(&text_json(&refused)).contains("isn't available to this account"));
    }
}

#[tokio::test(start_paused = true)]
async fn the_control_api_shows_each_accounts_plan_balance_and_connectors() {
    let mock = Mock::new();
    let reply = mock.get("/_mock/accounts").await;
    assert_eq!(reply.status, http::StatusCode::OK);
    let bob = &reply.body["accounts"][1];
    assert_eq!(bob["id"], "bob");
    assert_eq!(bob["plan"], "free");
    assert_eq!(bob["credits"], 25);
    assert_eq!(bob["attachments_per_day"], 5);
    assert_eq!(
        bob["connectors"][0],
        json!({"connector": "gmail", "display_name": "Gmail", "signed_in": false})
    );
    assert_eq!(bob["projects"].as_array().map(Vec::len), Some(2));
}

#[tokio::test(start_paused = true)]
async fn models_offered_only_in_some_regions_are_left_out_elsewhere() {
    let path = world_file("regions", |world| {
        world["accounts"][0]["region"] = json!("eu");
    });
    let mock = Mock::with(MockServer::builder().world(path));
    let mut alice = mock.session("alice-dev-token").await;

    let offered = alice.call_json("models_list", json!({})).await;
    let ids: Vec<&str> = offered["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert!(!ids.contains(&"gpt-5-1"), "gpt-5-1 is US-only: {ids:?}");
    assert!(ids.contains(&"claude-opus-4-5"), "{ids:?}");
    let modes: Vec<&str> = offered["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .filter_map(|m| m["mode"].as_str())
        .collect();
    assert!(
        !modes.contains(&"high"),
        "the mode running gpt-5-1 goes too: {modes:?}"
    );

    let refused = alice
        .call(
            "call_perplexity_computer",
            json!({"message": "hi", "model": "gpt-5-1"}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&text_json(&refused)).contains("gpt-5-1"), "{refused}");

    let mut home = Mock::new().session("alice-dev-token").await;
    let us = home.call_json("models_list", json!({})).await;
    assert!(
        us["models"].to_string().contains("gpt-5-1"),
        "offered in the US"
    );
}
