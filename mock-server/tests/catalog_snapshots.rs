//! Every catalog scenario, driven the way a well-behaved client follows the document, with the
//! whole exchange snapshotted under `snapshots/` (ids numbered in order of appearance).
//!
//! In a snapshot, a text block whose JSON equals `structuredContent` shows
//! `"(same JSON as structuredContent)"`; any other text block that holds JSON shows it parsed.

use std::time::Duration;

use serde_json::{Value, json};

mod account_world;
mod script;

use script::{Script, field, thread};

#[tokio::test(start_paused = true)]
async fn complete() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize the top 5 stories on Hacker News right now"}),
        )
        .await;
    s.call("read_thread", json!({"thread_id": thread(&r)}))
        .await;
    s.snapshot("complete");
}

#[tokio::test(start_paused = true)]
async fn follow_up() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#follow-up Summarize the top 5 stories on Hacker News right now"}),
        )
        .await;
    let id = thread(&r);
    s.call(
        "call_perplexity_computer",
        json!({"message": "Turn that into a PDF report", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("follow-up");
}

// The sign-in scenarios' turns, once signed in (the OAuth flow itself is tested in oauth.rs and
// judged by the conformance suite): what the mock answers on their thread.

#[tokio::test(start_paused = true)]
async fn sign_in() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#sign-in What is on the team calendar this week?"}),
        )
        .await;
    s.call("read_thread", json!({"thread_id": thread(&r)}))
        .await;
    s.snapshot("sign-in");
}

#[tokio::test(start_paused = true)]
async fn sign_in_refresh() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#sign-in-refresh What is on the team calendar this week?"}),
        )
        .await;
    let id = thread(&r);
    for message in ["And next week?", "Thanks. A one-line recap, please."] {
        s.call(
            "call_perplexity_computer",
            json!({"message": message, "thread_id": id}),
        )
        .await;
    }
    s.snapshot("sign-in-refresh");
}

#[tokio::test(start_paused = true)]
async fn sign_in_revoked() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#sign-in-revoked What is on the team calendar this week?"}),
        )
        .await;
    let id = thread(&r);
    s.call(
        "call_perplexity_computer",
        json!({"message": "And next week?", "thread_id": id}),
    )
    .await;
    s.snapshot("sign-in-revoked");
}

#[tokio::test(start_paused = true)]
async fn timeout_then_complete() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#timeout-then-complete Summarize the top 5 stories on Hacker News right now"}),
        )
        .await;
    let id = thread(&r);
    s.call("read_thread", json!({"thread_id": id})).await;
    s.advance(Duration::from_secs(120));
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("timeout-then-complete");
}

/// Perplexity Computer MCP Server, read_thread: "web_state_error | string | Present when
/// web_state couldn't be loaded. Retry read_thread."
#[tokio::test(start_paused = true)]
async fn read_thread_state_error() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#read-thread-state-error Summarize the top 5 stories on Hacker News right now"}),
        )
        .await;
    let id = thread(&r);
    let unloaded = s.call("read_thread", json!({"thread_id": id})).await;
    assert_eq!(unloaded["web_state"], Value::Null, "{unloaded}");
    assert!(unloaded["web_state_error"].is_string(), "{unloaded}");
    let retried = s.call("read_thread", json!({"thread_id": id})).await;
    assert_eq!(retried.get("web_state_error"), None, "{retried}");
    assert_eq!(retried["web_state"]["task_status"], "working", "{retried}");
    s.advance(Duration::from_secs(120));
    let done = s.call("read_thread", json!({"thread_id": id})).await;
    assert_eq!(done["web_state"]["task_status"], "completed", "{done}");
    s.snapshot("read-thread-state-error");
}

/// Perplexity Computer MCP Server, Events: "`complete` | The tool call returned a result. |
/// Check `task_status` to determine whether Computer has finished."
#[tokio::test(start_paused = true)]
async fn complete_waiting_on_user() {
    let mut s = Script::new().await;
    let asked = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#complete-waiting-on-user Find direct flights from Berlin to Lisbon for one of the next two weekends"}),
        )
        .await;
    assert_eq!(asked["event"], "complete", "{asked}");
    assert_eq!(asked["task_status"], "input_required", "{asked}");
    let id = thread(&asked);
    let read = s.call("read_thread", json!({"thread_id": id})).await;
    assert_eq!(read["web_state"]["task_status"], "input_required", "{read}");
    let answered = s
        .call(
            "call_perplexity_computer",
            json!({"message": "The 19-21 March weekend, please.", "thread_id": id}),
        )
        .await;
    assert_eq!(answered["event"], "complete", "{answered}");
    assert_eq!(answered["task_status"], "completed", "{answered}");
    s.snapshot("complete-waiting-on-user");
}

#[tokio::test(start_paused = true)]
async fn ask_user_question() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#ask-user-question Make a report of Q3 sales"}),
        )
        .await;
    let id = thread(&r);
    let followup = field(&r, "/interactive/followup_uuid");
    s.call(
        "answer_question",
        json!({"thread_id": id, "answers": {"Which format should I use?": "PDF"}, "followup_uuid": followup}),
    )
    .await;
    s.advance(Duration::from_secs(120));
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("ask-user-question");
}

#[tokio::test(start_paused = true)]
async fn confirm_action() {
    let mut s = Script::new().await;
    for (message, tool, reason) in [
        (
            "#confirm-action Email me a summary of my unread Slack messages",
            "confirm_action_approve",
            "Yes, send it.",
        ),
        (
            "#confirm-action Email me a summary of my unread Slack messages",
            "confirm_action_deny",
            "No, don't send anything.",
        ),
    ] {
        let r = s
            .call("call_perplexity_computer", json!({"message": message}))
            .await;
        let id = thread(&r);
        let followup = field(&r, "/interactive/followup_uuid");
        s.call(
            tool,
            json!({"thread_id": id, "result": reason, "followup_uuid": followup}),
        )
        .await;
        s.advance(Duration::from_secs(120));
        s.call("read_thread", json!({"thread_id": id})).await;
    }
    s.snapshot("confirm-action");
}

#[tokio::test(start_paused = true)]
async fn auth_required() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#auth-required Email me a summary of my unread Slack messages"}),
        )
        .await;
    let id = thread(&r);
    let auth_url = field(&r, "/interactive/auth_url");
    let connector = field(&r, "/interactive/connector");
    s.sign_in(&auth_url).await;
    s.call(
        "notify_connected",
        json!({"thread_id": id, "message": "Slack connected", "connector": connector}),
    )
    .await;
    s.advance(Duration::from_secs(120));
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("auth-required");
}

#[tokio::test(start_paused = true)]
async fn multiple_sign_ins() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#multiple-sign-ins File a Linear bug for the failing GitHub workflow"}),
        )
        .await;
    let id = thread(&r);
    let waiting = s.call("read_thread", json!({"thread_id": id})).await;
    let requests = waiting["web_state"]["entries"][0]["auth_requests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(requests.len(), 2, "{waiting}");
    for request in requests {
        let url = field(&request, "/auth_url");
        let connector = field(&request, "/connector");
        s.sign_in(&url).await;
        s.call(
            "notify_connected",
            json!({"thread_id": id, "message": format!("{connector} connected"), "connector": connector}),
        )
        .await;
    }
    s.advance(Duration::from_secs(120));
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("multiple-sign-ins");
}

#[tokio::test(start_paused = true)]
async fn optional_auth() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#optional-auth Find offsite venues in Lisbon for 20 people"}),
        )
        .await;
    // Optional reconnections never block the task: no notify_connected.
    s.call("read_thread", json!({"thread_id": thread(&r)}))
        .await;
    s.snapshot("optional-auth");
}

#[tokio::test(start_paused = true)]
async fn sleep() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#sleep Watch the fare to Rome and tell me if it drops"}),
        )
        .await;
    let id = thread(&r);
    s.call("read_thread", json!({"thread_id": id})).await;
    s.advance(Duration::from_secs(3600 + 60));
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("sleep");
}

#[tokio::test(start_paused = true)]
async fn waiting() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#waiting Get the vendor to fix our invoice"}),
        )
        .await;
    let id = thread(&r);
    s.call(
        "call_perplexity_computer",
        json!({"message": "The vendor replied; please check the ticket.", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("waiting");
}

#[tokio::test(start_paused = true)]
async fn pending_interactions() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#pending-interactions Schedule the team offsite invite"}),
        )
        .await;
    let id = thread(&r);
    let pending = r["pending_interactions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(pending.len(), 2, "{r}");
    for item in pending {
        let followup = field(&item, "/followup_uuid");
        match item["type"].as_str() {
            Some("ask_user_question") => {
                s.call(
                    "answer_question",
                    json!({"thread_id": id, "answers": {"Which day works best: Tuesday or Thursday?": "Thursday"}, "followup_uuid": followup}),
                )
                .await;
            }
            _ => {
                s.call(
                    "confirm_action_approve",
                    json!({"thread_id": id, "result": "Yes, email them.", "followup_uuid": followup}),
                )
                .await;
            }
        }
    }
    s.advance(Duration::from_secs(120));
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("pending-interactions");
}

#[tokio::test(start_paused = true)]
async fn insufficient_credits_before_send() {
    let mut s = Script::new().await;
    let message = "#insufficient-credits-before-send Plan a week in Kyoto";
    let r = s
        .call("call_perplexity_computer", json!({"message": message}))
        .await;
    let billing = field(&r, "/interactive/billing_url");
    assert!(
        s.open(&billing).await,
        "the billing page has a top-up button"
    );
    s.submit(&format!("{billing}/top-up")).await;
    s.call("call_perplexity_computer", json!({"message": message}))
        .await;
    s.snapshot("insufficient-credits-before-send");
}

#[tokio::test(start_paused = true)]
async fn insufficient_credits_during_task() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#insufficient-credits-during-task Build a pricing table of 40 competitors"}),
        )
        .await;
    let id = thread(&r);
    let billing = field(&r, "/interactive/billing_url");
    assert!(
        s.open(&billing).await,
        "the billing page has a top-up button"
    );
    s.submit(&format!("{billing}/top-up")).await;
    s.call(
        "call_perplexity_computer",
        json!({"message": "I topped up, please continue.", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("insufficient-credits-during-task");
}

#[tokio::test(start_paused = true)]
async fn quota_exhausted() {
    let mut s = Script::new().await;
    let message = "#quota-exhausted Plan a week in Kyoto";
    let r = s
        .call("call_perplexity_computer", json!({"message": message}))
        .await;
    assert!(r["interactive"]["quota_reset_date"].is_string(), "{r}");
    // The quota comes back at the reset date (2026-11-01), eight days after the epoch.
    s.advance(Duration::from_secs(8 * 24 * 3600));
    s.call("call_perplexity_computer", json!({"message": message}))
        .await;
    s.snapshot("quota-exhausted");
}

#[tokio::test(start_paused = true)]
async fn credit_check_outage() {
    let mut s = Script::new().await;
    let message = "#credit-check-outage Plan a week in Kyoto";
    let r = s
        .call("call_perplexity_computer", json!({"message": message}))
        .await;
    assert!(r["interactive"].get("billing_url").is_none(), "{r}");
    s.call("call_perplexity_computer", json!({"message": message}))
        .await;
    s.snapshot("credit-check-outage");
}

#[tokio::test(start_paused = true)]
async fn short_download_links() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#short-download-links Plan a week in Kyoto"}),
        )
        .await;
    let thread = field(&r, "/thread_id");
    let listed = s
        .call("list_thread_assets", json!({"thread_id": thread}))
        .await;
    let asset = field(&listed, "/assets/0/asset_id");
    s.call(
        "create_asset_download",
        json!({"thread_id": thread, "asset_id": asset}),
    )
    .await;
    s.snapshot("short-download-links");
}

#[tokio::test(start_paused = true)]
async fn unknown_file_facts() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#unknown-file-facts Export the records"}),
        )
        .await;
    let thread = field(&r, "/thread_id");
    s.call("list_thread_assets", json!({"thread_id": thread}))
        .await;
    s.snapshot("unknown-file-facts");
}

#[tokio::test(start_paused = true)]
async fn access_denied() {
    let mut s = Script::new().await;
    s.call(
        "call_perplexity_computer",
        json!({"message": "#access-denied Plan a week in Kyoto"}),
    )
    .await;
    s.snapshot("access-denied");
}

#[tokio::test(start_paused = true)]
async fn computer_error() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#computer-error Map the bike lanes in Lisbon with geopandas"}),
        )
        .await;
    s.call("read_thread", json!({"thread_id": thread(&r)}))
        .await;
    s.snapshot("computer-error");
}

#[tokio::test(start_paused = true)]
async fn cancel() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#cancel Build a catalog of 500 product pages"}),
        )
        .await;
    let id = thread(&r);
    s.call("cancel_task", json!({"thread_id": id})).await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("cancel");
}

#[tokio::test(start_paused = true)]
async fn cancel_fails_once() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#cancel-fails-once Build a catalog of 500 product pages"}),
        )
        .await;
    let id = thread(&r);
    s.call("cancel_task", json!({"thread_id": id})).await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.call("cancel_task", json!({"thread_id": id})).await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("cancel-fails-once");
}

#[tokio::test(start_paused = true)]
async fn cancel_paused_unread() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#cancel-paused-unread Draft the quarterly report"}),
        )
        .await;
    let id = thread(&r);
    s.call("cancel_task", json!({"thread_id": id})).await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.call("cancel_task", json!({"thread_id": id})).await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("cancel-paused-unread");
}

#[tokio::test(start_paused = true)]
async fn two_factor_required() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#two-factor-required Check me in for my flight"}),
        )
        .await;
    let id = thread(&r);
    s.call(
        "call_perplexity_computer",
        json!({"message": "The code is 481516", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("two-factor-required");
}

#[tokio::test(start_paused = true)]
async fn interaction_required() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#interaction-required Book Hotel Artemide in Rome for 3 nights from March 12"}),
        )
        .await;
    let id = thread(&r);
    let url = field(&r, "/interactive/url");
    // The page has a Done button for the user who completed it there.
    assert!(s.open(&url).await);
    s.submit(&url).await;
    s.call(
        "call_perplexity_computer",
        json!({"message": "I entered the card details.", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("interaction-required");
}

#[tokio::test(start_paused = true)]
async fn files() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#files Analyze the survey and publish the results"}),
        )
        .await;
    let id = thread(&r);
    let first_file = field(&r, "/files/0/url");
    s.open(&first_file).await;
    s.call(
        "call_perplexity_computer",
        json!({"message": "Add the new chart to the report", "thread_id": id}),
    )
    .await;
    let assets = s.call("list_thread_assets", json!({"thread_id": id})).await;
    let asset = field(&assets, "/assets/0/asset_id");
    let download = s
        .call(
            "create_asset_download",
            json!({"thread_id": id, "asset_id": asset}),
        )
        .await;
    s.open(&field(&download, "/url")).await;
    // A published website's preview link has no expiry to report.
    let site = assets["assets"]
        .as_array()
        .and_then(|all| all.iter().find(|a| a["asset_type"] == "app"))
        .map(|a| field(a, "/asset_id"))
        .expect("the published site is an asset");
    s.call(
        "create_asset_download",
        json!({"thread_id": id, "asset_id": site}),
    )
    .await;
    s.snapshot("files");
}

#[tokio::test(start_paused = true)]
async fn long_transcript() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#long-transcript Summarize our last 30 changes"}),
        )
        .await;
    s.call("read_thread", json!({"thread_id": thread(&r)}))
        .await;
    s.snapshot("long-transcript");
}

#[test]
fn every_catalog_scenario_has_a_snapshot_test() {
    let source = concat!(
        include_str!("catalog_snapshots.rs"),
        include_str!("catalog_snapshots/account_world.rs"),
        include_str!("task_snapshots.rs")
    );
    let catalog = mock_server::Catalog::load(&[], None).expect("catalog");
    for scenario in catalog.iter() {
        let name = &scenario.scenario.name;
        assert!(
            source.contains(&format!("s.snapshot(\"{name}\")")),
            "no snapshot test for `{name}`"
        );
    }
}
