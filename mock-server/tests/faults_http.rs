//! Injected status faults and resets on every surface: a 429 or 5xx answered in the surface's
//! own error envelope with the delay to wait, a reset before the head, latency on the virtual
//! clock; each kept to its scope (the next N requests, a path, a key) and named in the journal.

use std::time::Duration;

use axum::body::Body;
use http::Request;
use http_body_util::BodyExt;
use mock_server::MockServer;
use serde_json::json;
use tower::ServiceExt;

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};
use crate::common::sonar::ask;

fn faulted(specs: &[&str]) -> Mock {
    let mut builder = MockServer::builder();
    for spec in specs {
        builder = builder.fault(spec).expect("the spec reads");
    }
    Mock::with(builder)
}

#[tokio::test(start_paused = true)]
async fn a_429_on_the_sonar_routes_says_when_to_retry_in_their_envelope_once() {
    let mock = faulted(&["status=429,retry-after=2,times=1,path=/chat/completions"]);
    let limited = mock.chat(ask("sonar", "Hello")).await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.headers["retry-after"], "2");
    assert_eq!(limited.body["error"]["type"], "rate_limit_exceeded");
    let message = limited.body["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("retry after 2 s"), "{message}");
    assert!(
        !limited.headers.contains_key("retry-after-ms"),
        "Sonar's clients read Retry-After only"
    );
    assert_eq!(mock.chat(ask("sonar", "Hello")).await.status, 200);
    let journal = mock.handle.journal().exchanges();
    assert_eq!(
        journal[0].fault.as_deref(),
        Some("fault-1 status=429,retry-after=2s")
    );
    assert_eq!(journal[1].fault, None);
}

#[tokio::test(start_paused = true)]
async fn the_agent_api_gets_its_envelope_and_the_retry_after_ms_its_sdks_read() {
    let mock = faulted(&["status=503,retry-after=1500ms,path=/v1/*"]);
    let unavailable = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    assert_eq!(unavailable.status, 503);
    assert_eq!(unavailable.headers["retry-after"], "2");
    assert_eq!(unavailable.headers["retry-after-ms"], "1500");
    assert_eq!(unavailable.body["error"]["type"], "service_unavailable");
    assert!(unavailable.headers.contains_key("x-request-id"));
    // No `times`: it lasts until removed.
    let again = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    assert_eq!(again.status, 503);
}

#[tokio::test(start_paused = true)]
async fn the_mcp_endpoint_answers_a_5xx_as_a_json_rpc_error() {
    let mock = Mock::new();
    let mut session = mock.session(ALICE).await;
    let added = mock
        .post_json(
            "/_mock/faults",
            json!({"spec": "status=502,tool=list_threads,times=1"}),
        )
        .await;
    assert_eq!(added.status, 201, "{}", added.body);
    let answer = session
        .rpc(
            "tools/call",
            json!({"name": "list_threads", "arguments": {}}),
        )
        .await;
    assert_eq!(answer.status, 502);
    assert_eq!(answer.body["jsonrpc"], "2.0");
    assert_eq!(answer.body["error"]["code"], -32000);
    let message = answer.body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Bad Gateway"), "{message}");
    // Another tool, and the same tool once the fault is used up, are served.
    let other = session
        .rpc(
            "tools/call",
            json!({"name": "list_threads", "arguments": {}}),
        )
        .await;
    assert_eq!(other.status, 200);
}

#[tokio::test(start_paused = true)]
async fn a_fault_kept_to_one_key_leaves_other_accounts_alone() {
    let mock = faulted(&[&format!("status=500,key={BOB}")]);
    assert_eq!(mock.chat(ask("sonar", "Hello")).await.status, 200);
    let bob = mock
        .sonar_post("/chat/completions", BOB, ask("sonar", "Hello"))
        .await;
    assert_eq!(bob.status, 500);
    assert_eq!(bob.body["error"]["type"], "internal_error");
    // The control API and the listing never show the key itself.
    let listed = mock.get("/_mock/faults").await;
    assert!(!listed.body.to_string().contains(BOB), "{}", listed.body);
}

#[tokio::test(start_paused = true)]
async fn a_reset_before_the_head_gives_the_client_no_status_and_the_journal_none() {
    let mock = faulted(&["reset=before-headers,path=/search"]);
    let request = Request::post("/search")
        .header("authorization", format!("Bearer {ALICE}"))
        .header("content-type", "application/json")
        .body(Body::from(json!({"query": "solar"}).to_string()))
        .expect("request");
    let response = mock.router.clone().oneshot(request).await.expect("answer");
    assert!(
        response.into_body().collect().await.is_err(),
        "the body fails at once, so hyper closes the connection before the head"
    );
    let journal = mock.handle.journal().exchanges();
    assert_eq!(journal[0].status, 0);
    assert!(journal[0].response_headers.is_empty());
    assert_eq!(
        journal[0].fault.as_deref(),
        Some("fault-1 reset=before-headers")
    );
}

#[tokio::test]
async fn a_reset_before_the_head_reaches_a_real_client_as_a_closed_connection() {
    let mock = MockServer::builder()
        .fault("reset=before-headers,path=/v1/*,times=1")
        .expect("the spec reads")
        .start()
        .await
        .expect("mock starts");
    let client = reqwest::Client::new();
    let first = client
        .get(format!("{}/v1/models", mock.uri()))
        .bearer_auth(ALICE)
        .send()
        .await;
    assert!(first.is_err(), "no head arrives: {first:?}");
    let second = client
        .get(format!("{}/v1/models", mock.uri()))
        .bearer_auth(ALICE)
        .send()
        .await
        .expect("the next request is served");
    assert_eq!(second.status(), 200);
}

#[tokio::test(start_paused = true)]
async fn latency_holds_the_answer_until_the_manual_clock_moves() {
    let mock = Mock::with(
        MockServer::builder()
            .manual_clock()
            .fault("latency=30s,path=/search")
            .expect("the spec reads"),
    );
    let asked = mock.clone();
    let answer = tokio::spawn(async move {
        asked
            .sonar_post("/search", ALICE, json!({"query": "solar"}))
            .await
    });
    tokio::time::sleep(Duration::from_secs(60)).await; // paused tokio time: no wall time
    assert!(
        !answer.is_finished(),
        "30 s of virtual time have not passed"
    );
    mock.advance(Duration::from_secs(30));
    let answer = answer.await.expect("the request finishes");
    assert_eq!(answer.status, 200);
}
