//! `interaction_required`: input only Perplexity can collect, behind a `url` on the mock.

use serde_json::json;

use crate::common::{BASE, Mock, keys, text, thread_id};

#[tokio::test(start_paused = true)]
async fn interaction_required_answers_a_url_that_serves_the_form() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client
        .start("#interaction-required Book the hotel in Rome")
        .await;
    let thread = thread_id(&result);

    assert_eq!(result["event"], "interaction_required");
    assert_eq!(result["task_status"], "input_required");
    let interactive = &result["interactive"];
    assert_eq!(keys(interactive), ["thread_id", "title", "type", "url"]);
    assert_eq!(interactive["type"], "interaction_required");
    assert_eq!(interactive["thread_id"], thread);
    assert_eq!(interactive["title"], "Enter payment details");
    let url = interactive["url"].as_str().expect("url");
    assert!(url.starts_with(BASE), "{url}");

    let page = mock.get(url).await;
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .as_str()
            .unwrap_or("")
            .contains("Enter payment details")
    );
    let read = client.read(&thread).await;
    assert_eq!(
        read["web_state"]["entries"][0]["form_links"],
        json!([{"url": url, "title": "Enter payment details"}])
    );
}

#[tokio::test(start_paused = true)]
async fn a_message_on_the_same_thread_continues_the_request() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#interaction-required Book the hotel in Rome")
        .await;
    let thread = thread_id(&result);
    mock.get(result["interactive"]["url"].as_str().expect("url"))
        .await;

    let continued = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "I entered the card details", "thread_id": thread}),
        )
        .await;

    assert_eq!(continued["thread_id"], thread);
    assert_eq!(continued["event"], "complete");
    assert_eq!(continued["task_status"], "completed");
    assert!(text(&continued).starts_with("Booked: Hotel Artemide"));
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["entries"][0]["form_links"], json!([]));
}
