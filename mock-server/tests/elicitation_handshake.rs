//! In-call elicitation in the handshake era: for a session that declared elicitation, the
//! call's SSE stream carries `elicitation/create`, the client POSTs its response back, and the
//! same call continues (or returns the event when the user declined a question).

use serde_json::json;

use crate::common::modern::call_answering;
use crate::common::{self, Mock, text_json};

const QUESTION: &str = "#elicitation-question Build the sales report";

#[tokio::test(start_paused = true)]
async fn a_question_is_sent_as_a_form_on_the_stream_and_the_answer_continues_the_call() {
    let mock = Mock::new();
    let client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"elicitation": {"form": {}}}),
        )
        .await;

    let (seen, result) = call_answering(
        &client,
        QUESTION,
        false,
        |_| json!({"action": "accept", "content": {"q1": "PDF"}}),
    )
    .await;

    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["mode"], "form");
    assert_eq!(
        seen[0]["requestedSchema"]["properties"]["q1"]["enum"],
        json!(["PDF", "DOCX"])
    );
    assert_eq!(text_json(&result)["event"], "complete", "{result}");
}

#[tokio::test(start_paused = true)]
async fn a_declined_question_returns_the_event() {
    let mock = Mock::new();
    let client = mock
        .session_with("alice-dev-token", "2025-11-25", json!({"elicitation": {}}))
        .await;
    let (_, result) =
        call_answering(&client, QUESTION, false, |_| json!({"action": "decline"})).await;
    assert_eq!(text_json(&result)["event"], "ask_user_question");
}

#[tokio::test(start_paused = true)]
async fn a_2025_06_18_form_has_no_mode_field() {
    let mock = Mock::new();
    let client = mock
        .session_with("alice-dev-token", "2025-06-18", json!({"elicitation": {}}))
        .await;
    let (seen, _) = call_answering(
        &client,
        "#elicitation-confirm Email it",
        false,
        |_| json!({"action": "accept"}),
    )
    .await;
    assert_eq!(seen.len(), 1);
    assert!(seen[0].get("mode").is_none(), "{seen:?}");
}

#[tokio::test(start_paused = true)]
async fn a_sign_in_is_a_url_with_an_elicitation_id_and_the_page_continues_it() {
    let mock = Mock::new();
    let client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"elicitation": {"form": {}, "url": {}}}),
        )
        .await;
    let (seen, result) = call_answering(
        &client,
        "#elicitation-sign-in Summarize my Slack",
        true,
        |_| json!({"action": "accept"}),
    )
    .await;
    assert_eq!(seen[0]["mode"], "url");
    assert!(seen[0]["elicitationId"].is_string());
    assert_eq!(text_json(&result)["event"], "complete", "{result}");
}

#[tokio::test(start_paused = true)]
async fn a_session_without_elicitation_gets_the_event_as_before() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .call_json("call_perplexity_computer", json!({"message": QUESTION}))
        .await;
    assert_eq!(result["event"], "ask_user_question");
}

/// Snapshots a handshake-era elicitation exchange: each `elicitation/create`, the response the
/// client POSTed, and the call's final result (ids redacted).
fn snapshot(
    scenario: &str,
    seen: &[serde_json::Value],
    responses: &[serde_json::Value],
    result: &serde_json::Value,
) {
    let mut log: Vec<serde_json::Value> = seen
        .iter()
        .zip(responses)
        .map(|(params, response)| json!({"elicitation/create": params, "response": response}))
        .collect();
    log.push(json!({"result": result}));
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(format!(
        "catalog scenario `{scenario}`, handshake era 2025-11-25: elicitation/create on the call's stream"
    ));
    settings.add_filter(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "[uuid]",
    );
    settings.add_filter(r"asset_[0-9a-f]{32}", "[asset]");
    settings.add_filter(r"\b[0-9a-f]{32}\b", "[token]");
    settings.bind(|| {
        insta::assert_json_snapshot!(format!("handshake-{scenario}"), log);
    });
}

#[tokio::test(start_paused = true)]
async fn snapshot_elicitation_question() {
    let mock = Mock::new();
    let client = mock
        .session_with("alice-dev-token", "2025-11-25", json!({"elicitation": {}}))
        .await;
    let response = json!({"action": "accept", "content": {"q1": "PDF"}});
    let (seen, result) = call_answering(&client, QUESTION, false, |_| response.clone()).await;
    snapshot("elicitation-question", &seen, &[response], &result);
}

#[tokio::test(start_paused = true)]
async fn snapshot_elicitation_confirm() {
    let mock = Mock::new();
    let client = mock
        .session_with("alice-dev-token", "2025-11-25", json!({"elicitation": {}}))
        .await;
    let response = json!({"action": "decline"});
    let (seen, result) = call_answering(
        &client,
        "#elicitation-confirm Email the report",
        false,
        |_| response.clone(),
    )
    .await;
    snapshot("elicitation-confirm", &seen, &[response], &result);
}

#[tokio::test(start_paused = true)]
async fn snapshot_elicitation_sign_in() {
    let mock = Mock::new();
    let client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"elicitation": {"form": {}, "url": {}}}),
        )
        .await;
    let response = json!({"action": "accept"});
    let (seen, result) = call_answering(
        &client,
        "#elicitation-sign-in Summarize my Slack",
        true,
        |_| response.clone(),
    )
    .await;
    snapshot("elicitation-sign-in", &seen, &[response], &result);
}

#[tokio::test(start_paused = true)]
async fn an_answer_to_a_result_with_sources_returns_at_once_with_task_status_working() {
    let mock = common::mock_with_scenario(&common::question_after_a_source());
    let client = mock
        .session_with(
            "alice-dev-token",
            "2025-11-25",
            json!({"elicitation": {"form": {}}}),
        )
        .await;

    let (_, result) = call_answering(
        &client,
        "#question-after-source Build the report",
        false,
        |_| json!({"action": "accept", "content": {"q1": "PDF"}}),
    )
    .await;

    let result = text_json(&result);
    assert_eq!(result["event"], "complete", "{result}");
    assert_eq!(result["task_status"], "working");
    assert_eq!(result["sources"][0]["url"], "https://example.com/q3");
}
