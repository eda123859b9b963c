//! `POST /_mock/reset` returns the faults to the mock's start-up state: those given at start-up
//! (`--fault`, the builder) come back unused under their first ids, those added through the
//! control API go, and a scenario's faults are armed afresh by the next conversation.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::json;

use crate::common::Mock;
use crate::common::agent::ALICE;
use crate::common::sonar::ask;

#[tokio::test(start_paused = true)]
async fn a_reset_keeps_the_start_up_faults_as_they_were_and_drops_the_added_ones() {
    let mock = Mock::with(
        MockServer::builder()
            .fault("status=503,times=1,path=/search")
            .expect("the spec reads"),
    );
    let search = || mock.sonar_post("/search", ALICE, json!({"query": "solar"}));
    assert_eq!(search().await.status, 503);
    assert_eq!(search().await.status, 200, "used up");
    let added = mock
        .post_json("/_mock/faults", json!("status=500,path=/chat/completions"))
        .await;
    assert_eq!(added.body["faults"][0]["id"], "fault-2");
    assert_eq!(mock.chat(ask("sonar", "Hi")).await.status, 500);

    let reset = mock.post_json("/_mock/reset", json!({})).await;
    assert_eq!(reset.status, 200);
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(
        listed.body,
        json!({"faults": [{"id": "fault-1", "spec": "status=503,times=1,path=/search",
                           "hits": 0, "remaining": 1, "from": "start-up"}]})
    );
    assert_eq!(search().await.status, 503, "back in force, unused");
    assert_eq!(
        mock.chat(ask("sonar", "Hi")).await.status,
        200,
        "the added one is gone"
    );
    let again = mock.post_json("/_mock/faults", json!("latency=1s")).await;
    assert_eq!(again.body["faults"][0]["id"], "fault-2");
}

#[tokio::test(start_paused = true)]
async fn a_scenarios_faults_are_armed_afresh_after_a_reset() {
    let mock = Mock::new();
    let ask_limited = || mock.chat(ask("sonar", "#rate-limited solar"));
    assert_eq!(ask_limited().await.status, 429);
    mock.advance(Duration::from_secs(1));
    assert_eq!(ask_limited().await.status, 200, "after Retry-After");
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(
        listed.body,
        json!({"faults": []}),
        "used up and no longer held"
    );

    mock.post_json("/_mock/reset", json!({})).await;
    let limited = ask_limited().await;
    assert_eq!(limited.status, 429, "armed again as on a fresh mock");
    assert_eq!(limited.headers["retry-after"], "1");
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(listed.body["faults"][0]["from"], "scenario");
    assert_eq!(listed.body["faults"][0]["id"], "fault-1");
}
