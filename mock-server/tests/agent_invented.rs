//! What the mock invents where the documents are silent, each written down in
//! docs/where-documents-are-silent.md ("Run states and smaller readings"): `fc_` ids for
//! function calls, `model_error` for a failed turn, and a Zero Data Retention account's
//! background run, accepted and never pollable, as a recorded `store: false` background run was.

use serde_json::json;

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};

#[tokio::test(start_paused = true)]
async fn a_function_call_item_id_starts_with_fc() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#function-weather Paris?",
                   "tools": [{"type": "function", "name": "get_weather"}]}),
        )
        .await;
    let call = &reply.body["output"][0];
    assert_eq!(call["type"], "function_call", "{:#}", reply.body);
    assert!(
        call["id"].as_str().is_some_and(|id| id.starts_with("fc_")),
        "{call:#}"
    );
    assert!(
        call["call_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("call_")),
        "{call:#}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_failed_turn_without_its_own_code_fails_with_model_error() {
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#model-failure", "background": true}),
        )
        .await;
    let id = reply.body["id"].as_str().expect("an id").to_owned();
    let done = mock.agent_finished(&id).await;
    assert_eq!(done["status"], "failed", "{done:#}");
    assert_eq!(done["error"]["code"], "model_error", "{done:#}");
}

#[tokio::test(start_paused = true)]
async fn a_zero_data_retention_background_run_is_accepted_but_never_pollable() {
    // bob's organization has Zero Data Retention: it keeps nothing for a later GET.
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            BOB,
            json!({"model": "openai/gpt-5.6-terra", "input": "hello", "background": true}),
        )
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["store"], false, "{:#}", reply.body);
    let id = reply.body["id"].as_str().expect("an id");
    let polled = mock.agent_get(BOB, &format!("/v1/responses/{id}")).await;
    assert_eq!(polled.status, 404, "{:#}", polled.body);
}
