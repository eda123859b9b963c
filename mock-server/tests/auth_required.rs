//! `auth_required`: a connector sign-in, the page behind `auth_url`, and `notify_connected`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{BASE, Client, Mock, keys, text, thread_id};

async fn asked(client: &mut Client) -> Value {
    client
        .start("Email me a summary of my unread Slack messages")
        .await
}

#[tokio::test(start_paused = true)]
async fn a_sign_in_answers_auth_required_with_an_auth_url_on_the_mock() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = asked(&mut client).await;
    let thread = thread_id(&result);

    assert_eq!(result["event"], "auth_required");
    assert_eq!(result["task_status"], "input_required");
    let interactive = &result["interactive"];
    assert_eq!(
        keys(interactive),
        [
            "auth_url",
            "connector",
            "description",
            "display_name",
            "requires_user_response",
            "respond_with_tool",
            "thread_id",
            "title",
            "type"
        ]
    );
    assert_eq!(interactive["type"], "auth_required");
    assert_eq!(interactive["thread_id"], thread);
    assert_eq!(interactive["connector"], "slack");
    assert_eq!(interactive["display_name"], "Slack");
    assert_eq!(interactive["respond_with_tool"], "notify_connected");
    assert_eq!(interactive["requires_user_response"], true);
    let auth_url = interactive["auth_url"].as_str().expect("auth_url");
    assert!(auth_url.starts_with(BASE), "{auth_url}");
}

/// "Perplexity Computer MCP Server, Status and Progress Updates": "`auth_required`: Open the
/// OAuth URL, then call `notify_connected` with the event's `connector`", and the worked
/// example: "After you sign in, notify_connected tells Computer, and the same request continues
/// [...] text: \"Sign-in sent. Computer is continuing this request; ...\"". Finishing the page
/// connects the account; only `notify_connected` resumes the request.
#[tokio::test(start_paused = true)]
async fn opening_the_auth_url_connects_the_account_and_only_notify_connected_resumes_the_request() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = asked(&mut client).await;
    let thread = thread_id(&result);

    let page = mock
        .get(result["interactive"]["auth_url"].as_str().expect("url"))
        .await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.as_str().unwrap_or("").contains("Slack connected"),
        "{page:?}"
    );
    // The page alone does not continue the request, however long the client waits.
    mock.advance(Duration::from_secs(120));
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "input_required", "{read}");
    assert_eq!(
        read["web_state"]["entries"][0]["auth_requests"][0]["connector"], "slack",
        "{read}"
    );

    let before = mock.now();
    let notified = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "Slack connected", "connector": "slack"}),
        )
        .await;

    assert_eq!(mock.now(), before, "returned at once");
    assert_eq!(notified["thread_id"], thread);
    assert_eq!(notified["event"], "complete");
    assert_eq!(notified["task_status"], "working");
    assert!(
        text(&notified).starts_with("Sign-in sent. Computer is continuing this request;"),
        "{notified}"
    );
    let read = client.read(&thread).await;
    assert!(
        !text(&read).contains("Slack connected"),
        "message isn't sent: {read}"
    );

    mock.advance(Duration::from_secs(61));
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "completed");
    assert!(text(&read).contains("Done! Sent the summary to your email."));
    assert_eq!(
        read["web_state"]["entries"].as_array().map(Vec::len),
        Some(1)
    );
}

#[tokio::test(start_paused = true)]
async fn notify_connected_without_a_page_visit_answers_the_sign_in_and_returns_working_at_once() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = asked(&mut client).await;
    let thread = thread_id(&result);
    let before = mock.now();

    let notified = client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "Slack connected", "connector": "slack"}),
        )
        .await;

    assert_eq!(mock.now(), before, "returned at once");
    assert_eq!(
        keys(&notified),
        ["event", "task_status", "text", "thread_id"]
    );
    assert_eq!(notified["event"], "complete");
    assert_eq!(notified["task_status"], "working");
    assert!(text(&notified).starts_with("Sign-in sent."), "{notified}");
    let read = client.read(&thread).await;
    assert!(
        !text(&read).contains("Slack connected"),
        "the message is not sent: {read}"
    );
    assert_eq!(read["web_state"]["task_status"], "working");

    mock.advance(Duration::from_secs(61));
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "completed");
    assert!(text(&read).contains("Done! Sent the summary to your email."));
    assert!(!text(&read).contains("Slack connected"));
}

#[tokio::test(start_paused = true)]
async fn read_thread_lists_only_the_sign_ins_still_waiting() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = asked(&mut client).await;
    let thread = thread_id(&result);

    let read = client.read(&thread).await;
    let requests = read["web_state"]["entries"][0]["auth_requests"]
        .as_array()
        .expect("auth_requests")
        .clone();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0]["connector"], "slack");
    assert_eq!(requests[0]["auth_url"], result["interactive"]["auth_url"]);
    assert_eq!(read["web_state"]["task_status"], "input_required");

    client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread, "message": "Slack connected", "connector": "slack"}),
        )
        .await;
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["entries"][0]["auth_requests"], json!([]));
}
