//! `insufficient_credits`: the check before a message is sent, and credits running out mid-task.

use serde_json::{Value, json};

use crate::common::{BASE, Client, Mock, form_action, keys, text, text_json, thread_id};

/// Opens the billing page and presses its top-up button, as a user would.
async fn top_up(mock: &Mock, billing_url: &str) {
    let page = mock.get(billing_url).await;
    assert_eq!(page.status, 200, "{page:?}");
    let action = form_action(&page.body, billing_url);
    let done = mock.post_form(&action).await;
    assert_eq!(done.status, 200, "{done:?}");
}

#[tokio::test(start_paused = true)]
async fn before_send_the_refusal_has_no_thread_id_no_task_status_and_no_structured_content() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#insufficient-credits-before-send Research solid-state batteries"}),
        )
        .await;
    let result = text_json(&raw);

    assert_eq!(raw["isError"], false);
    assert!(raw.get("structuredContent").is_none(), "{raw}");
    assert_eq!(keys(&result), ["event", "interactive", "text"]);
    assert_eq!(result["event"], "insufficient_credits");
    let interactive = &result["interactive"];
    assert_eq!(keys(interactive), ["billing_url", "reason", "type"]);
    assert_eq!(interactive["type"], "insufficient_credits");
    assert_eq!(interactive["reason"], "insufficient_credits");
    assert!(
        interactive["billing_url"]
            .as_str()
            .unwrap_or("")
            .starts_with(BASE)
    );
}

#[tokio::test(start_paused = true)]
async fn after_a_top_up_on_the_billing_page_the_same_message_goes_through() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let message = "#insufficient-credits-before-send Research solid-state batteries";
    let refused = client.start(message).await;
    let billing_url = refused["interactive"]["billing_url"]
        .as_str()
        .expect("billing_url")
        .to_owned();

    top_up(&mock, &billing_url).await;
    let result = client.start(message).await;

    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    let read = client.read(&thread_id(&result)).await;
    assert_eq!(
        text(&read)
            .matches("Research solid-state batteries")
            .count(),
        1,
        "the refused attempt left nothing behind"
    );
}

#[tokio::test(start_paused = true)]
async fn an_outage_refusal_has_no_billing_url_and_the_resend_goes_through() {
    // "billing_url is present only when topping up or changing a limit would help; it's left
    // out for reasons like a temporary service outage."
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let message = "#credit-check-outage Research solid-state batteries";
    let raw = client
        .call("call_perplexity_computer", json!({"message": message}))
        .await;
    let refused = text_json(&raw);
    assert_eq!(raw["isError"], false);
    assert!(raw.get("structuredContent").is_none(), "{raw}");
    // "If that check fails, nothing is sent and the result has no thread_id or task_status."
    assert_eq!(keys(&refused), ["event", "interactive", "text"]);
    assert_eq!(refused["event"], "insufficient_credits");
    assert_eq!(
        refused["interactive"],
        json!({"type": "insufficient_credits", "reason": "insufficient_credits"})
    );
    let words = refused["text"].as_str().unwrap_or_default();
    assert!(
        words.contains("outage") && !words.contains("http"),
        "{words}"
    );

    // Nothing to top up: sending the same message again goes through.
    let result = client.start(message).await;
    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
}

async fn send(client: &mut Client, thread: &str, message: &str) -> Value {
    client
        .call_json(
            "call_perplexity_computer",
            json!({"message": message, "thread_id": thread}),
        )
        .await
}

#[tokio::test(start_paused = true)]
async fn bobs_few_credits_run_out_and_a_refused_follow_up_adds_nothing_to_the_thread() {
    let mock = Mock::new();
    let mut client = mock.session("bob-dev-token").await;
    let first = client.start("#complete Summarize the top 5 stories").await;
    let thread = thread_id(&first);

    // Bob starts with 25 credits; each message sent costs one.
    for i in 2..=25 {
        let result = send(&mut client, &thread, &format!("Follow-up number {i}")).await;
        assert_eq!(result["event"], "complete", "message {i}: {result}");
    }
    let before = client.read(&thread).await;
    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "One more follow-up", "thread_id": thread}),
        )
        .await;
    let refused = text_json(&raw);

    assert_eq!(refused["event"], "insufficient_credits", "{refused}");
    assert!(raw.get("structuredContent").is_none());
    assert!(refused.get("thread_id").is_none());
    assert!(refused.get("task_status").is_none());
    let after = client.read(&thread).await;
    assert_eq!(after, before, "nothing was sent");
    assert!(!text(&after).contains("One more follow-up"));

    let billing_url = refused["interactive"]["billing_url"]
        .as_str()
        .expect("billing_url")
        .to_owned();
    top_up(&mock, &billing_url).await;
    let result = send(&mut client, &thread, "One more follow-up").await;
    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "complete");
    assert!(text(&client.read(&thread).await).contains("One more follow-up"));
}

#[tokio::test(start_paused = true)]
async fn running_out_during_a_task_is_input_required_and_the_same_thread_continues_after_a_top_up()
{
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#insufficient-credits-during-task Build the competitor pricing table"}),
        )
        .await;
    let result = text_json(&raw);
    let thread = thread_id(&result);

    assert_eq!(
        raw["structuredContent"], result,
        "the thread keeps its state"
    );

    assert_eq!(result["event"], "insufficient_credits");
    assert_eq!(result["task_status"], "input_required");
    let interactive = &result["interactive"];
    assert_eq!(keys(interactive), ["billing_url", "reason", "type"]);
    assert_eq!(interactive["type"], "insufficient_credits");
    assert_eq!(interactive["reason"], "insufficient_credits");
    let billing_url = interactive["billing_url"]
        .as_str()
        .expect("billing_url")
        .to_owned();
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "input_required");

    top_up(&mock, &billing_url).await;
    let continued = send(&mut client, &thread, "Topped up, please continue").await;

    assert_eq!(continued["thread_id"], thread);
    assert_eq!(continued["event"], "complete");
    assert_eq!(continued["task_status"], "completed");
    assert_eq!(continued["files"][0]["filename"], "pricing.csv");
    let read = client.read(&thread).await;
    assert_eq!(
        read["web_state"]["entries"].as_array().map(Vec::len),
        Some(1),
        "the same request continued"
    );
}

#[tokio::test(start_paused = true)]
async fn after_running_out_during_a_task_a_message_without_a_top_up_is_refused_before_it_is_sent() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#insufficient-credits-during-task Build the competitor pricing table")
        .await;
    let thread = thread_id(&result);
    assert_eq!(result["task_status"], "input_required");

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"thread_id": thread, "message": "Please continue"}),
        )
        .await;

    let refused = text_json(&raw);
    assert_eq!(refused["event"], "insufficient_credits");
    assert_eq!(keys(&refused), ["event", "interactive", "text"]);
    assert!(raw.get("structuredContent").is_none());
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "input_required");
    assert!(
        !text(&read).contains("Please continue"),
        "nothing was sent: {}",
        text(&read)
    );
}

#[tokio::test(start_paused = true)]
async fn quota_exhausted_carries_the_reset_date_first_of_next_month_utc_and_a_billing_url() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let now = mock.now();

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#quota-exhausted Plan my week"}),
        )
        .await;
    let result = text_json(&raw);

    assert!(raw.get("structuredContent").is_none());
    assert_eq!(keys(&result), ["event", "interactive", "text"]);
    assert_eq!(result["event"], "insufficient_credits");
    let interactive = &result["interactive"];
    assert_eq!(
        keys(interactive),
        ["billing_url", "quota_reset_date", "reason", "type"]
    );
    assert_eq!(interactive["type"], "insufficient_credits");
    assert_eq!(interactive["reason"], "quota_exhausted");
    let (year, month) = (&now[0..4], &now[5..7]);
    let (year, month): (u32, u32) = (year.parse().expect("year"), month.parse().expect("month"));
    let (year, month) = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    assert_eq!(
        interactive["quota_reset_date"],
        format!("{year}-{month:02}-01T00:00:00Z")
    );
    assert!(
        interactive["billing_url"]
            .as_str()
            .unwrap_or("")
            .starts_with(BASE)
    );
}
