//! Every catalog scenario, driven the way a well-behaved client follows the document, with the
//! whole exchange snapshotted under `snapshots/` (ids numbered in order of appearance).
//!
//! In a snapshot, a text block whose JSON equals `structuredContent` shows
//! `"(same JSON as structuredContent)"`; any other text block that holds JSON shows it parsed.

use std::collections::HashMap;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use crate::common::{self, Client, Mock, text_json};

/// A scripted client conversation and everything it saw.
struct Script {
    mock: Mock,
    client: Client,
    log: Vec<Value>,
    /// Each tool's `outputSchema`, from `tools/list`.
    output_schemas: HashMap<String, Value>,
}

impl Script {
    async fn new() -> Self {
        let mock = Mock::new();
        let mut client = mock.session("alice-dev-token").await;
        let list = client.rpc("tools/list", json!({})).await;
        let output_schemas = list.body["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| {
                let schema = tool.get("outputSchema")?.clone();
                Some((tool["name"].as_str()?.to_owned(), schema))
            })
            .collect();
        Self {
            mock,
            client,
            log: Vec::new(),
            output_schemas,
        }
    }

    /// Calls a tool, records it, and returns the task JSON (first text block).
    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.client.call(tool, arguments.clone()).await;
        self.check_output_schema(tool, &result);
        self.log.push(json!({
            "tool": tool,
            "arguments": arguments,
            "result": shown(&result),
        }));
        text_json(&result)
    }

    /// What SDK clients enforce: a tool that declares an `outputSchema` returns conforming
    /// `structuredContent` on every result that is not an error.
    fn check_output_schema(&self, tool: &str, result: &Value) {
        let Some(schema) = self.output_schemas.get(tool) else {
            return;
        };
        if result["isError"] == true {
            return;
        }
        let structured = result
            .get("structuredContent")
            .unwrap_or_else(|| panic!("{tool} declares an outputSchema but sent none: {result}"));
        let validator = jsonschema::validator_for(schema).expect("outputSchema compiles");
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            problems.is_empty(),
            "{tool} result does not match its outputSchema: {problems:?}\n{structured}"
        );
    }

    /// Opens a URL the mock handed out, as a browser would (GET), records the status, and
    /// says whether the page has a button to press.
    async fn open(&mut self, url: &str) -> bool {
        let reply = self.mock.get(url).await;
        self.log
            .push(json!({"open": url, "status": reply.status.as_u16()}));
        reply
            .body
            .as_str()
            .is_some_and(|page| page.contains("<form"))
    }

    /// Opens a sign-in page and, when it asks for it, presses its button.
    async fn sign_in(&mut self, url: &str) {
        if self.open(url).await {
            self.submit(url).await;
        }
    }

    /// Presses the button on a page the mock served (POST), and records the status.
    async fn submit(&mut self, url: &str) {
        let reply = self.mock.post_json(url, json!({})).await;
        self.log
            .push(json!({"submit": url, "status": reply.status.as_u16()}));
    }

    /// Lets virtual time pass.
    fn advance(&mut self, by: Duration) {
        self.mock.advance(by);
        self.log
            .push(json!({"advance_clock_seconds": by.as_secs()}));
    }

    fn snapshot(self, scenario: &str) {
        let log = number_ids(&Value::Array(self.log));
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "catalog scenario `{scenario}`: the client's calls and what the mock answered"
        ));
        // A safety net: any id the numbering missed is still redacted.
        settings.add_filter(
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[uuid]",
        );
        settings.add_filter(r"asset_[0-9a-f]{32}", "[asset]");
        settings.add_filter(r"\b[0-9a-f]{32}\b", "[token]");
        // An upload policy is base64 of JSON holding the envelope's random key.
        settings.add_filter(
            r#""policy": "[A-Za-z0-9+/=]+""#,
            r#""policy": "[base64 policy]""#,
        );
        settings.bind(|| {
            insta::assert_json_snapshot!(format!("catalog-{scenario}"), log);
        });
    }
}

/// A `CallToolResult` as shown in a snapshot.
fn shown(result: &Value) -> Value {
    let mut result = result.clone();
    let structured = result.get("structuredContent").cloned();
    if let Some(blocks) = result.get_mut("content").and_then(Value::as_array_mut) {
        for block in blocks {
            let Some(text) = block.get("text").and_then(Value::as_str) else {
                continue;
            };
            let Ok(parsed) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            block["text"] = if Some(&parsed) == structured.as_ref() {
                json!("(same JSON as structuredContent)")
            } else {
                parsed
            };
        }
    }
    result
}

/// Replaces every UUID, asset id and 32-hex token with a numbered placeholder, the same id
/// always getting the same number, so a snapshot still shows which ids are equal.
fn number_ids(value: &Value) -> Value {
    let pattern = Regex::new(
        r"asset_[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b",
    )
    .expect("id pattern");
    let text = serde_json::to_string(value).expect("serializable");
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    let numbered = pattern.replace_all(&text, |caps: &regex::Captures<'_>| {
        let id = caps[0].to_owned();
        seen.entry(id.clone())
            .or_insert_with(|| {
                let kind = if id.starts_with("asset_") {
                    "asset"
                } else if id.contains('-') {
                    "uuid"
                } else {
                    "token"
                };
                let n = counts.entry(kind).or_default();
                *n += 1;
                format!("[{kind}-{n}]")
            })
            .clone()
    });
    serde_json::from_str(&numbered).expect("still JSON")
}

fn thread(result: &Value) -> String {
    common::thread_id(result)
}

fn field(value: &Value, pointer: &str) -> String {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{pointer} in {value}"))
        .to_owned()
}

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

// ---- the account-world scenarios of the conformance suite ----

#[tokio::test(start_paused = true)]
async fn attachments() {
    let mut s = Script::new().await;
    let csv = b"region,revenue\nEMEA,1200\nAmericas,2450\nAPAC,980\n";
    let envelope = s
        .call(
            "create_attachment_upload",
            json!({"filename": "q3-sales.csv", "mime_type": "text/csv", "size_bytes": csv.len()}),
        )
        .await;
    let fields = envelope["upload_fields"]
        .as_object()
        .cloned()
        .expect("upload_fields");
    let reply = s.mock.upload(&envelope, &fields, csv).await;
    s.log.push(json!({
        "upload": "POST upload_url with every upload_fields key, then the file",
        "status": reply.status.as_u16(),
        "location": reply.headers.get("location").and_then(|v| v.to_str().ok()),
    }));
    s.call(
        "call_perplexity_computer",
        json!({"message": "#attachments Summarize the attached sales figures.",
               "attachment_urls": [field(&envelope, "/attachment_url")]}),
    )
    .await;
    s.snapshot("attachments");
}

#[tokio::test(start_paused = true)]
async fn project_settings() {
    let mut s = Script::new().await;
    let projects = s.call("projects_list", json!({})).await;
    let project = projects["projects"]
        .as_array()
        .and_then(|all| all.iter().find(|p| p["name"] == "Competitor research"))
        .map(|p| field(p, "/project_uuid"))
        .expect("alice sees Competitor research");
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#project-settings Draft the competitor pricing summary.",
                   "project_uuid": project, "project_visibility": "project", "mode": "ultra"}),
        )
        .await;
    let id = thread(&r);
    s.call(
        "call_perplexity_computer",
        json!({"message": "Now go deeper on the two cheapest.", "thread_id": id,
               "model": "claude-opus-4-5", "effort": "high"}),
    )
    .await;
    s.call(
        "call_perplexity_computer",
        json!({"message": "Thanks. A short recap, please.", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("project-settings");
}

#[tokio::test(start_paused = true)]
async fn thread_assets() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#thread-assets Collect product photos for all 41 catalog items."}),
        )
        .await;
    let id = thread(&r);
    let second = s
        .call(
            "call_perplexity_computer",
            json!({"message": "Now write the catalog from them.", "thread_id": id}),
        )
        .await;
    let read = s.call("read_thread", json!({"thread_id": id})).await;
    let latest = read
        .pointer("/web_state/entries")
        .and_then(Value::as_array)
        .and_then(|e| e.last())
        .map(|e| field(e, "/entry_id"))
        .expect("an entry");
    // The latest turn's files: two empty filtered pages before the one that holds them.
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"thread_id": id, "entry_id": latest});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = s.call("list_thread_assets", args).await;
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    // Two hours later the link in the result has expired; a fresh one works.
    s.advance(Duration::from_secs(7200));
    s.open(&field(&second, "/files/0/url")).await;
    let mut cursor: Option<String> = None;
    let catalog = loop {
        let mut args = json!({"thread_id": id});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = s.call("list_thread_assets", args).await;
        if let Some(a) = page["assets"]
            .as_array()
            .and_then(|all| all.iter().find(|a| a["filename"] == "catalog.pdf"))
        {
            break field(a, "/asset_id");
        }
        cursor = Some(field(&page, "/next_cursor"));
    };
    let fresh = s
        .call(
            "create_asset_download",
            json!({"thread_id": id, "asset_id": catalog}),
        )
        .await;
    s.open(&field(&fresh, "/url")).await;
    s.snapshot("thread-assets");
}
