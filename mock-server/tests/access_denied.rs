//! `access_denied`: Computer is not available for the account; nothing starts.

use serde_json::json;

use crate::common::{Mock, keys, text_json};

#[tokio::test(start_paused = true)]
async fn access_denied_is_an_error_with_error_code_and_task_status_failed_and_no_thread() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#access-denied Plan my week"}),
        )
        .await;
    let result = text_json(&raw);

    assert_eq!(raw["isError"], true);
    assert_eq!(raw["structuredContent"], result);
    assert_eq!(
        keys(&result),
        ["error_code", "event", "interactive", "task_status", "text"]
    );
    assert_eq!(result["event"], "access_denied");
    assert_eq!(result["error_code"], "access_denied");
    assert_eq!(result["task_status"], "failed");
    assert_eq!(
        result["interactive"],
        json!({"type": "access_denied", "reason": "access_denied"})
    );
    assert!(
        result["text"]
            .as_str()
            .unwrap_or("")
            .contains("administrator")
    );
}
