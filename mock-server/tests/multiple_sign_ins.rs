//! Two sign-ins waiting at once: `notify_connected` needs the `connector`.

use std::time::Duration;

use serde_json::json;

use crate::common::{self, Client, Mock, text, text_json, thread_id};

async fn started(client: &mut Client) -> String {
    let result = client
        .start("#multiple-sign-ins File a bug for the failing CI run")
        .await;
    assert_eq!(result["event"], "auth_required");
    assert_eq!(result["task_status"], "input_required");
    thread_id(&result)
}

#[tokio::test(start_paused = true)]
async fn both_sign_ins_are_listed_by_read_thread() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = started(&mut client).await;

    let read = client.read(&thread).await;
    let connectors: Vec<&str> = read["web_state"]["entries"][0]["auth_requests"]
        .as_array()
        .expect("auth_requests")
        .iter()
        .filter_map(|r| r["connector"].as_str())
        .collect();
    assert_eq!(connectors, ["github", "linear"]);
}

#[tokio::test(start_paused = true)]
async fn notify_connected_without_a_connector_while_two_wait_sends_the_message_as_a_new_turn() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = started(&mut client).await;
    let before = mock.now();

    let result = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "I connected everything"}),
        )
        .await;

    assert_ne!(mock.now(), before, "the call waited for the result");
    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "complete");
    let read = client.read(&thread).await;
    assert!(text(&read).contains("I connected everything"), "{read}");
    assert_eq!(
        read["web_state"]["entries"].as_array().map(Vec::len),
        Some(2),
        "a new turn"
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_that_is_not_waiting_is_an_error_listing_the_waiting_ones() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = started(&mut client).await;

    let raw = client
        .call(
            "notify_connected",
            json!({"thread_id": thread, "message": "Slack connected", "connector": "slack"}),
        )
        .await;

    assert_eq!(raw["isError"], true);
    let result = text_json(&raw);
    let message = text(&result);
    assert!(message.contains("`github`"), "{message}");
    assert!(message.contains("`linear`"), "{message}");
    assert!(result.get("task_status").is_none());
    let read = client.read(&thread).await;
    assert!(!text(&read).contains("Slack connected"));
    assert_eq!(
        read["web_state"]["entries"][0]["auth_requests"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[tokio::test(start_paused = true)]
async fn after_the_first_sign_in_the_task_is_input_required_and_after_both_it_works_and_completes()
{
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = started(&mut client).await;

    let first = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "GitHub connected", "connector": "github"}),
        )
        .await;
    assert_eq!(first["event"], "complete");
    assert_eq!(first["task_status"], "input_required");
    assert!(text(&first).contains("Linear"), "{first}");
    let read = client.read(&thread).await;
    let waiting = read["web_state"]["entries"][0]["auth_requests"].clone();
    assert_eq!(waiting.as_array().map(Vec::len), Some(1));
    assert_eq!(waiting[0]["connector"], "linear");

    let before = mock.now();
    let second = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "Linear connected", "connector": "Linear"}),
        )
        .await;
    assert_eq!(mock.now(), before, "returned at once");
    assert_eq!(second["task_status"], "working", "the display name works");

    mock.advance(Duration::from_secs(31));
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "completed");
    assert!(text(&read).contains("Created ENG-482"));
    assert!(!text(&read).contains("GitHub connected"));
    assert!(!text(&read).contains("Linear connected"));
}

/// "`auth_required`: Open the OAuth URL, then call `notify_connected` with the event's
/// `connector`": the connect button connects GitHub, and `notify_connected` then answers that
/// sign-in: "If the task is waiting on other input, such as another sign-in, the call returns
/// task_status: \"input_required\" instead".
#[tokio::test(start_paused = true)]
async fn a_sign_in_page_waits_for_its_connect_button_and_notify_connected_then_answers_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = started(&mut client).await;
    let read = client.read(&thread).await;
    let github_url = read["web_state"]["entries"][0]["auth_requests"][0]["auth_url"]
        .as_str()
        .expect("auth_url")
        .to_owned();

    let page = mock.get(&github_url).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.as_str().unwrap_or("").contains("Connect GitHub"),
        "opening the page alone does not sign in: {page:?}"
    );
    let action = common::form_action(&page.body, &github_url);
    assert_eq!(mock.post_form(&action).await.status, 200);
    let after = client.read(&thread).await;
    assert_eq!(
        after["web_state"]["entries"][0]["auth_requests"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "connected, but the task waits for notify_connected: {after}"
    );

    let notified = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "GitHub connected", "connector": "github"}),
        )
        .await;

    assert!(
        text(&notified).starts_with("Sign-in recorded."),
        "{notified}"
    );
    assert!(text(&notified).contains("Linear"), "{notified}");
    assert_eq!(notified["task_status"], "input_required");
    assert!(!text(&client.read(&thread).await).contains("GitHub connected"));
}

/// "Perplexity Computer MCP Server, read_thread": `auth_requests` lists "connector sign-ins that
/// still need action", and "The latest entry also lists its `steps`": after GitHub is
/// connected its "Connect GitHub" step is completed while "Connect Linear" still waits.
#[tokio::test(start_paused = true)]
async fn a_connected_sign_in_completes_its_step_while_the_other_still_waits() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = started(&mut client).await;

    client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "GitHub connected", "connector": "github"}),
        )
        .await;

    let read = client.read(&thread).await;
    let entry = &read["web_state"]["entries"][0];
    let step = |title: &str| {
        entry["steps"]
            .as_array()
            .expect("steps")
            .iter()
            .find(|s| s["title"] == title)
            .cloned()
            .unwrap_or_else(|| panic!("a step `{title}`: {entry}"))
    };
    let github = step("Connect GitHub");
    assert_eq!(github["status"], "completed", "{github}");
    assert!(github["completed_at"].is_string(), "{github}");
    let linear = step("Connect Linear");
    assert_eq!(linear["status"], "input_required", "{linear}");
    assert!(linear["completed_at"].is_null(), "{linear}");
    let waiting: Vec<&str> = entry["auth_requests"]
        .as_array()
        .expect("auth_requests")
        .iter()
        .filter_map(|r| r["connector"].as_str())
        .collect();
    assert_eq!(waiting, ["linear"]);
}
