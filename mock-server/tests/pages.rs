//! The human pages behind the URLs Computer hands out, as a person uses them: a used sign-in
//! link says it was completed, and the form only Perplexity shows is a real form whose submit
//! completes its step.

use std::time::Duration;

use http::StatusCode;
use serde_json::json;

use crate::common::{self, Mock, form_action, thread_id};

fn html(reply: &common::Reply) -> &str {
    reply.body.as_str().unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn a_used_sign_in_link_says_it_was_already_completed() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#auth-required Post the summary to Slack")
        .await;
    let url = result["interactive"]["auth_url"]
        .as_str()
        .expect("auth_url")
        .to_owned();
    let first = mock.get(&url).await;
    assert!(html(&first).contains("Slack connected"), "{first:?}");
    // notify_connected ends the sign-in and the request runs on without it.
    client
        .call_json(
            "notify_connected",
            json!({"thread_id": thread_id(&result), "message": "Slack connected"}),
        )
        .await;
    mock.advance(Duration::from_secs(120));

    for second in [mock.get(&url).await, mock.post_form(&url).await] {
        assert_eq!(second.status, StatusCode::OK);
        assert!(
            html(&second).contains("already completed"),
            "{}",
            html(&second)
        );
        assert!(!html(&second).contains("unknown"), "{}", html(&second));
    }
    let unknown = mock
        .get(&url.replace(&thread_id(&result), "no-such-thread"))
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

#[tokio::test(start_paused = true)]
async fn the_interaction_page_is_a_form_from_the_scenario_whose_submit_completes_its_step() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#interaction-required Book the hotel in Rome")
        .await;
    let thread = thread_id(&result);
    let url = result["interactive"]["url"]
        .as_str()
        .expect("url")
        .to_owned();

    let page = mock.get(&url).await;
    assert_eq!(page.status, StatusCode::OK);
    let body = html(&page);
    assert!(body.contains("<h1>Enter payment details</h1>"), "{body}");
    assert!(body.contains("The hotel needs card details"), "{body}");
    assert!(body.contains("<form method=\"post\">"), "{body}");
    assert!(body.contains("required"), "{body}");
    let step_status = |read: &serde_json::Value| {
        read["web_state"]["entries"][0]["steps"]
            .as_array()
            .and_then(|steps| {
                steps
                    .iter()
                    .find(|s| s["title"] == "Enter payment details")
                    .map(|s| s["status"].clone())
            })
            .unwrap_or_default()
    };
    assert_eq!(step_status(&client.read(&thread).await), "input_required");

    let submitted = mock.post_form(&form_action(&page.body, &url)).await;
    assert_eq!(submitted.status, StatusCode::OK);
    assert!(
        html(&submitted).contains("This form is submitted"),
        "{}",
        html(&submitted)
    );
    assert_eq!(step_status(&client.read(&thread).await), "completed");
    let again = mock.get(&url).await;
    assert!(
        html(&again).contains("already submitted"),
        "{}",
        html(&again)
    );

    // The user then continues the conversation, as the document says.
    let continued = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "I entered the card details", "thread_id": thread}),
        )
        .await;
    assert_eq!(continued["task_status"], "completed", "{continued}");
}
