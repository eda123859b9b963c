//! Run states clients must tolerate, each on demand from a scenario: a cut answer's message item
//! (`incomplete`), a status the SDKs do not type (`paused`), an `error` on a run that has not
//! ended, and a run the provider forgets (by the scenario's `forget_after` or the control API).

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::agent::ALICE;
use crate::common::{self, Mock};

fn background(input: &str) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": input, "background": true, "store": true,
           "tools": [{"type": "web_search"}]})
}

async fn submit(mock: &Mock, input: &str) -> String {
    let reply = mock.agent_create(ALICE, background(input)).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    reply.body["id"].as_str().expect("id").to_owned()
}

async fn poll(mock: &Mock, id: &str) -> common::Reply {
    mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await
}

/// Lets `by` of virtual time pass (the tokio clock is paused, so this takes no wall time).
async fn after(by: Duration) {
    tokio::time::sleep(by).await;
}

#[tokio::test(start_paused = true)]
async fn an_incomplete_runs_cut_message_item_says_incomplete() {
    let mock = Mock::new();
    let body = json!({"model": "openai/gpt-5.6-terra", "input": "#incomplete", "stream": true});
    let reply = mock.agent_create(ALICE, body).await;
    let last = reply.events.last().expect("terminal event");
    assert_eq!(last["type"], "response.incomplete");
    let message = &last["response"]["output"][0];
    assert_eq!(message["type"], "message");
    // The run stopped at max_output_tokens, so its answer did not complete either.
    assert_eq!(message["status"], "incomplete", "{message:#}");
    let done = reply
        .events
        .iter()
        .find(|e| e["type"] == "response.output_item.done")
        .expect("output_item.done");
    assert_eq!(done["item"]["status"], "incomplete");
    // A run that completes keeps a completed message.
    let fine = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    assert_eq!(fine.body["output"][0]["status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn a_paused_run_polls_as_paused_then_goes_on_and_completes() {
    let mock = Mock::new();
    let id = submit(&mock, "#paused-run what is new?").await;
    after(Duration::from_secs(30)).await;
    let paused = poll(&mock, &id).await;
    assert_eq!(paused.status, 200);
    assert_eq!(paused.body["status"], "paused", "{:#}", paused.body);
    assert!(paused.body["error"].is_null());
    assert!(paused.body["usage"].is_null(), "not terminal: no usage yet");
    assert_eq!(paused.body["output"][0]["type"], "search_results");
    // A paused run is not terminal: it goes on by itself.
    after(Duration::from_secs(60)).await;
    let done = poll(&mock, &id).await;
    assert_eq!(done.body["status"], "completed", "{:#}", done.body);
    assert_eq!(
        done.body["output"][1]["content"][0]["text"],
        "The run was paused for a minute and then finished."
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_on_an_unfinished_run_shows_while_in_progress_then_the_run_fails() {
    let mock = Mock::new();
    let id = submit(&mock, "#error-while-running").await;
    after(Duration::from_secs(20)).await;
    let running = poll(&mock, &id).await;
    assert_eq!(running.body["status"], "in_progress");
    assert_eq!(
        running.body["error"],
        json!({"type": "gateway_timeout", "code": "upstream_timeout",
               "message": "the upstream model took too long; retrying"})
    );
    after(Duration::from_secs(60)).await;
    let failed = poll(&mock, &id).await;
    assert_eq!(failed.body["status"], "failed");
    assert_eq!(failed.body["error"]["code"], "upstream_timeout");
    assert_eq!(
        failed.body["error"]["message"],
        "the upstream model did not answer in time"
    );
    assert!(failed.body["usage"].is_object(), "a model ran, so it cost");
}

#[tokio::test(start_paused = true)]
async fn a_forgotten_run_answers_as_an_id_never_issued() {
    let mock = Mock::new();
    let id = submit(&mock, "#forgotten-run").await;
    after(Duration::from_secs(60)).await;
    assert_eq!(poll(&mock, &id).await.body["status"], "in_progress");
    after(Duration::from_secs(70)).await;
    let gone = poll(&mock, &id).await;
    assert_eq!(gone.status, 404, "{:#}", gone.body);
    assert_eq!(
        gone.body,
        json!({"error": {"message": "resource not found", "type": "not_found", "code": 404}})
    );
    let resume = mock
        .agent_get(
            ALICE,
            &format!("/v1/agent/{id}?stream=true&starting_after=0"),
        )
        .await;
    assert_eq!(resume.status, 404);
    // Cancelling an id the API does not know answers the recorded 400.
    let cancel = mock
        .agent_post(ALICE, &format!("/v1/agent/{id}/cancel"))
        .await;
    assert_eq!(cancel.status, 400);
    assert_eq!(
        cancel.body["error"]["message"],
        "the run is already terminal and cannot be cancelled"
    );
}

#[tokio::test(start_paused = true)]
async fn the_control_api_forgets_one_run_and_leaves_the_others() {
    let mock = Mock::new();
    let forgotten = submit(&mock, "#background-research batteries").await;
    let kept = submit(&mock, "#background-research batteries").await;
    let reply = mock
        .agent_send(
            "DELETE",
            &format!("/_mock/agent/responses/{forgotten}"),
            "",
            None,
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body, json!({"forgotten": forgotten}));
    assert_eq!(poll(&mock, &forgotten).await.status, 404);
    assert_eq!(poll(&mock, &kept).await.status, 200);
    // A second time, or an id never issued: 404 with a sentence.
    let again = mock
        .agent_send(
            "DELETE",
            &format!("/_mock/agent/responses/{forgotten}"),
            "",
            None,
        )
        .await;
    assert_eq!(again.status, 404);
    assert!(
        again.body["error"]
            .as_str()
            .is_some_and(|e| e.contains(&forgotten)),
        "{:#}",
        again.body
    );
}
