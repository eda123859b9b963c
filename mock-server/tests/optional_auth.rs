//! `optional_auth_requests`: connectors to reconnect for better results; nothing waits on them.

use serde_json::json;

use crate::common::{BASE, Mock, keys, text, thread_id};

#[tokio::test(start_paused = true)]
async fn optional_auth_requests_have_exactly_the_documented_fields_and_the_task_is_completed() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client
        .start("#optional-auth Find offsite venues in Lisbon")
        .await;
    let thread = thread_id(&result);

    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    assert!(result.get("interactive").is_none());
    let items = result["optional_auth_requests"]
        .as_array()
        .expect("optional_auth_requests");
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(
        keys(item),
        [
            "auth_url",
            "connector",
            "description",
            "display_name",
            "requires_user_response",
            "thread_id",
            "title",
            "type"
        ]
    );
    assert_eq!(item["type"], "auth_required");
    assert_eq!(item["thread_id"], thread);
    assert_eq!(item["connector"], "google_drive");
    assert_eq!(item["display_name"], "Google Drive");
    assert_eq!(item["title"], "Reconnect Google Drive");
    assert_eq!(
        item["description"],
        "Use your Drive files for better results."
    );
    assert_eq!(item["requires_user_response"], false);
    assert!(item["auth_url"].as_str().unwrap_or("").starts_with(BASE));
}

#[tokio::test(start_paused = true)]
async fn nothing_waits_on_an_optional_sign_in() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#optional-auth Find offsite venues in Lisbon")
        .await;
    let thread = thread_id(&result);

    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "completed");
    assert_eq!(read["web_state"]["entries"][0]["auth_requests"], json!([]));
    let page = mock
        .get(
            result["optional_auth_requests"][0]["auth_url"]
                .as_str()
                .expect("url"),
        )
        .await;
    assert_eq!(page.status, 200);
    let after = client.read(&thread).await;
    assert_eq!(after["web_state"]["task_status"], "completed");
    assert_eq!(text(&after), text(&read));
}
