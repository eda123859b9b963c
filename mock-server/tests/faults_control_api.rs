//! `/_mock/faults`: faults added, listed and removed over the control API, bad specs refused
//! with a sentence, and the forgotten-session fault the MCP transport really forgets.

use http::StatusCode;
use serde_json::json;

use crate::common::Mock;
use crate::common::agent::ALICE;
use crate::common::sonar::ask;

#[tokio::test(start_paused = true)]
async fn faults_are_added_listed_used_and_removed() {
    let mock = Mock::new();
    let added = mock
        .post_json(
            "/_mock/faults",
            json!([
                "status=429,retry-after=2s,times=1,path=/chat/completions",
                {"status": 503, "path": "/search"}
            ]),
        )
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
    assert_eq!(added.body["faults"][0]["id"], "fault-1");
    assert_eq!(added.body["faults"][1]["spec"], "status=503,path=/search");
    assert_eq!(mock.chat(ask("sonar", "Hi")).await.status, 429);
    // Used up, it is no longer listed.
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(listed.body["faults"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed.body["faults"][0]["id"], "fault-2");
    let one = mock
        .send(
            http::Request::delete("/_mock/faults?id=fault-2")
                .body(axum::body::Body::empty())
                .expect("request"),
        )
        .await;
    assert_eq!(one.body, json!({"removed": 1}));
    let search = mock
        .sonar_post("/search", ALICE, json!({"query": "solar"}))
        .await;
    assert_eq!(search.status, 200);
    let unknown = mock
        .send(
            http::Request::delete("/_mock/faults?id=fault-9")
                .body(axum::body::Body::empty())
                .expect("request"),
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(
        unknown.body["error"]
            .as_str()
            .is_some_and(|e| e.contains("fault-9"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_bad_spec_is_refused_with_a_sentence_and_adds_nothing() {
    let mock = Mock::new();
    for body in [
        json!("status=404"),
        json!(["status=500", "latency=soon"]),
        json!({"status": 429, "colour": "red"}),
        json!([]),
        json!(42),
    ] {
        let refused = mock.post_json("/_mock/faults", body.clone()).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{body}");
        let sentence = refused.body["error"].as_str().unwrap_or_default();
        assert!(sentence.len() > 20, "{body}: {sentence}");
    }
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(listed.body, json!({"faults": []}));
}

#[tokio::test(start_paused = true)]
async fn a_forgotten_session_gets_404_and_a_new_initialize_a_new_one() {
    let mock = Mock::new();
    let mut session = mock.session(ALICE).await;
    let other = mock.session(ALICE).await;
    let old = session.session.clone().unwrap_or_default();
    let added = mock
        .post_json(
            "/_mock/faults",
            json!({"forget-session": true, "session": old, "times": 1}),
        )
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.body);
    let forgotten = session.rpc("tools/list", json!({})).await;
    assert_eq!(forgotten.status, StatusCode::NOT_FOUND);
    // The transport forgot it: the fault is used up, yet the session stays unknown.
    assert_eq!(session.rpc("tools/list", json!({})).await.status, 404);
    let fresh = mock.session(ALICE).await;
    assert_ne!(fresh.session.as_deref(), Some(old.as_str()));
    // Another session of the same account was not touched.
    let untouched = other
        .post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    assert_eq!(untouched.status, StatusCode::OK);
    let journal = mock.handle.journal().exchanges();
    let touched: Vec<_> = journal.iter().filter(|e| e.fault.is_some()).collect();
    assert_eq!(touched.len(), 1);
    assert_eq!(touched[0].status, 404);
}

#[tokio::test(start_paused = true)]
async fn the_dashboard_lists_the_faults_in_force_with_a_button_to_remove_each() {
    let mock = Mock::new();
    mock.post_json("/_mock/faults", json!("status=503,times=2,path=/search"))
        .await;
    mock.sonar_post("/search", ALICE, json!({"query": "solar"}))
        .await;
    let overview = mock.get("/_mock/overview").await;
    assert_eq!(
        overview.body["faults"],
        json!([{"id": "fault-1", "spec": "status=503,times=2,path=/search",
                "hits": 1, "remaining": 1, "from": "control"}])
    );
    let page = mock.get("/_mock").await;
    let html = page.body.as_str().unwrap_or_default();
    assert!(html.contains("id=\"faults-body\""), "{html}");
    let script = mock.get("/_mock/dashboard.js").await;
    let script = script.body.as_str().unwrap_or_default();
    assert!(
        script.contains("drawFaults") && script.contains("/_mock/faults?id="),
        "the page draws them and removes one by its id"
    );
}
