//! One world with the other surfaces: a paid Sonar call spends credits from the same ledger, an
//! empty account is refused with 402 naming the billing page until it tops up, the documented
//! rate limits answer 429 with `Retry-After`, and the scripted `rate-limited`, `out-of-credits`
//! and `server-error` scenarios behave as their descriptions say.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::MockServer;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};
use crate::common::sonar::{ask, content, with};

/// The status of a request whose answer is not read (a stream on a manual clock never ends).
async fn status_of(mock: &Mock, path: &str, token: &str, body: &Value) -> (StatusCode, Value) {
    let request = Request::post(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request");
    let response = mock.router.clone().oneshot(request).await.expect("router");
    let status = response.status();
    let retry = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map_or(Value::Null, |v| Value::String(v.to_owned()));
    (status, retry)
}

#[tokio::test(start_paused = true)]
async fn a_paid_call_spends_credits_from_the_accounts_ledger() {
    let mock = Mock::new();
    let world = mock.handle.world();
    let before = world.credits("alice");
    mock.chat(ask("sonar", "hello")).await;
    assert_eq!(
        world.credits("alice"),
        before - 1,
        "half a cent is a credit"
    );
    let research = mock
        .chat(ask("sonar-deep-research", "the history of glass"))
        .await;
    let cost = research.body["usage"]["cost"]["total_cost"]
        .as_f64()
        .expect("cost");
    let thousandths = (cost * 1000.0).round() as i64;
    assert_eq!(world.credits("alice"), before - 1 - (thousandths + 9) / 10);
    let bob = mock.handle.world().credits("bob");
    mock.sonar_post(
        "/v1/embeddings",
        BOB,
        json!({"model": "pplx-embed-v1-0.6b", "input": "x"}),
    )
    .await;
    assert_eq!(
        world.credits("bob"),
        bob - 1,
        "bob's key spends bob's credits"
    );
}

#[tokio::test(start_paused = true)]
async fn an_empty_account_is_refused_with_402_naming_the_billing_page_until_it_tops_up() {
    let mock = Mock::new();
    mock.handle.world().spend("bob", 1000);
    for (path, body) in [
        ("/chat/completions", ask("sonar", "hello")),
        ("/search", json!({"query": "hello"})),
        (
            "/v1/embeddings",
            json!({"model": "pplx-embed-v1-0.6b", "input": "hello"}),
        ),
        (
            "/async/chat/completions",
            json!({"request": ask("sonar", "hello")}),
        ),
    ] {
        let reply = mock.sonar_post(path, BOB, body).await;
        assert_eq!(reply.status, 402, "{path}");
        let error = &reply.body["error"];
        assert_eq!(error["type"], "insufficient_credits", "{path}");
        assert_eq!(error["code"], 402);
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("http://127.0.0.1:8080/_mock/billing/bob")
                && message.contains("then send it again"),
            "{message}"
        );
    }
    let topped = mock
        .post_json("/_mock/accounts/bob/top-up", json!({}))
        .await;
    assert_eq!(topped.status, 200);
    assert_eq!(
        mock.sonar_post("/search", BOB, json!({"query": "hello"}))
            .await
            .status,
        200
    );
}

#[tokio::test(start_paused = true)]
async fn the_out_of_credits_scenario_drains_the_account_once_and_a_top_up_lets_the_resend_through()
{
    let mock = Mock::new();
    let body = ask("sonar", "#out-of-credits what now?");
    let refused = mock.chat(body.clone()).await;
    assert_eq!(refused.status, 402);
    assert_eq!(mock.handle.world().credits("alice"), 0);
    assert_eq!(mock.chat(body.clone()).await.status, 402, "still empty");
    mock.post_json("/_mock/accounts/alice/top-up", json!({}))
        .await;
    let answered = mock.chat(body).await;
    assert_eq!(answered.status, 200);
    assert!(content(&answered.body).starts_with("Credits are back"));
}

#[tokio::test(start_paused = true)]
async fn the_rate_limited_scenario_refuses_until_retry_after_has_passed_on_the_clock() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let body = ask("sonar", "#rate-limited hello");
    let first = mock.chat(body.clone()).await;
    assert_eq!(first.status, 429);
    assert_eq!(first.body["error"]["type"], "rate_limit_exceeded");
    assert_eq!(first.headers["retry-after"], "1");
    assert_eq!(first.headers["x-ratelimit-remaining"], "0");
    mock.advance(Duration::from_millis(400));
    let early = mock.chat(body.clone()).await;
    assert_eq!(early.status, 429, "sent again before Retry-After passed");
    assert_eq!(early.headers["retry-after"], "1");
    mock.advance(Duration::from_millis(600));
    let answered = {
        let mock = mock.clone();
        tokio::spawn(async move { mock.chat(body).await })
    };
    // The answer is admitted now; writing it takes a moment of virtual time.
    tokio::time::sleep(Duration::from_millis(10)).await;
    mock.advance(Duration::from_secs(5));
    let reply = answered.await.expect("answered");
    assert_eq!(reply.status, 200);
    assert!(content(&reply.body).starts_with("Answered after waiting for Retry-After"));
    // Each account plays the scenario from its start.
    let bobs = mock
        .sonar_post("/chat/completions", BOB, ask("sonar", "#rate-limited hi"))
        .await;
    assert_eq!(bobs.status, 429);
}

#[tokio::test(start_paused = true)]
async fn the_documented_rate_limits_answer_429_with_retry_after_until_the_minute_has_passed() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    // Streams answer their head at once, so a manual clock can count requests.
    let stream = with(ask("sonar", "hello"), "stream", json!(true));
    for i in 0..50 {
        let (status, _) = status_of(&mock, "/chat/completions", ALICE, &stream).await;
        assert_eq!(status, 200, "request {i}");
        mock.advance(Duration::from_millis(100));
    }
    let (status, retry) = status_of(&mock, "/chat/completions", ALICE, &stream).await;
    assert_eq!(status, 429);
    assert_eq!(
        retry, "55",
        "the first request leaves the window at one minute"
    );
    let (status, _) = status_of(&mock, "/chat/completions", BOB, &stream).await;
    assert_eq!(status, 200, "the window is the account's");
    let (status, _) = status_of(
        &mock,
        "/chat/completions",
        ALICE,
        &with(stream.clone(), "model", json!("sonar-pro")),
    )
    .await;
    assert_eq!(status, 200, "and the model's");
    mock.advance(Duration::from_secs(55));
    let (status, _) = status_of(&mock, "/chat/completions", ALICE, &stream).await;
    assert_eq!(status, 200);

    // Deep research and async jobs: five a minute.
    let job = json!({"request": ask("sonar-deep-research", "hello")});
    for _ in 0..5 {
        assert_eq!(
            status_of(&mock, "/async/chat/completions", BOB, &job)
                .await
                .0,
            200
        );
    }
    let refused = mock.sonar_post("/async/chat/completions", BOB, job).await;
    assert_eq!(refused.status, 429);
    assert!(
        refused.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("5 requests per minute for async")),
        "{:?}",
        refused.body
    );
}

#[tokio::test(start_paused = true)]
async fn a_server_error_is_a_500_every_time_and_spends_nothing() {
    let mock = Mock::new();
    let before = mock.handle.world().credits("alice");
    for _ in 0..3 {
        let reply = mock.chat(ask("sonar", "#server-error hello")).await;
        assert_eq!(reply.status, 500);
        assert_eq!(reply.body["error"]["type"], "internal_error");
        assert_eq!(reply.body["error"]["code"], 500);
    }
    assert_eq!(mock.handle.world().credits("alice"), before);
}

#[tokio::test(start_paused = true)]
async fn without_authentication_every_request_acts_as_alice() {
    let mock = Mock::with(MockServer::builder().auth(mock_server::AuthMode::None));
    let reply = mock
        .sonar_post("/search", "", json!({"query": "hello"}))
        .await;
    assert_eq!(reply.status, 200, "--auth none acts as alice");
}
