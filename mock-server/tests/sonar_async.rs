//! Async chat completions (`/async/chat/completions`): a job moves `CREATED → IN_PROGRESS →
//! COMPLETED | FAILED` on the virtual clock, its idempotency key gives the same job back, the
//! list pages through an account's jobs newest first, and a job is billed once, when it is
//! first seen completed.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};
use crate::common::sonar::ask;

fn job(question: &str) -> Value {
    json!({"request": ask("sonar-deep-research", question)})
}

async fn get(mock: &Mock, token: &str, id: &str) -> crate::common::Reply {
    mock.agent_get(token, &format!("/async/chat/completions/{id}"))
        .await
}

#[tokio::test(start_paused = true)]
async fn a_deep_research_job_moves_created_in_progress_completed_on_the_clock() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let created = mock
        .sonar_post(
            "/async/chat/completions",
            ALICE,
            job("#deep-research grid batteries"),
        )
        .await;
    assert_eq!(created.status, 200, "{:?}", created.body);
    let keys: Vec<&str> = created
        .body
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "id",
            "model",
            "created_at",
            "status",
            "started_at",
            "completed_at",
            "response",
            "failed_at",
            "error_message"
        ]
    );
    assert_eq!(created.body["status"], "CREATED");
    assert_eq!(created.body["model"], "sonar-deep-research");
    assert!(created.body["started_at"].is_null() && created.body["response"].is_null());
    let id = created.body["id"].as_str().expect("an id").to_owned();
    let t0 = created.body["created_at"].as_i64().expect("created_at");

    mock.advance(Duration::from_secs(10));
    let running = get(&mock, ALICE, &id).await;
    assert_eq!(running.body["status"], "IN_PROGRESS");
    assert_eq!(running.body["started_at"], t0 + 10);
    assert!(running.body["response"].is_null());

    mock.advance(Duration::from_secs(239));
    assert_eq!(get(&mock, ALICE, &id).await.body["status"], "IN_PROGRESS");
    mock.advance(Duration::from_secs(1));
    let done = get(&mock, ALICE, &id).await;
    assert_eq!(done.body["status"], "COMPLETED");
    assert_eq!(done.body["completed_at"], t0 + 250);
    assert!(done.body["failed_at"].is_null() && done.body["error_message"].is_null());
    let response = &done.body["response"];
    assert_eq!(response["object"], "chat.completion");
    assert_eq!(response["created"], t0 + 250);
    assert_eq!(response["citations"].as_array().map(Vec::len), Some(12));
    assert_eq!(response["usage"]["num_search_queries"], 24);
    assert!(response["usage"]["reasoning_tokens"].as_u64() > Some(0));
    assert!(response["usage"]["cost"]["search_queries_cost"].as_f64() > Some(0.1));
    let text = response["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("# Research report: grid batteries"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn a_completed_job_is_billed_once_when_it_is_first_seen() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let world = mock.handle.world();
    let before = world.credits("alice");
    let created = mock
        .sonar_post(
            "/async/chat/completions",
            ALICE,
            job("#deep-research heat pumps"),
        )
        .await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    assert_eq!(
        world.credits("alice"),
        before,
        "nothing is billed at creation"
    );
    mock.advance(Duration::from_secs(3600));
    let cost = get(&mock, ALICE, &id).await.body["response"]["usage"]["cost"]["total_cost"]
        .as_f64()
        .expect("a cost");
    let spent = before - world.credits("alice");
    let thousandths = (cost * 1000.0).round() as i64;
    assert_eq!(
        spent,
        (thousandths + 9) / 10,
        "a credit per cent, rounded up"
    );
    get(&mock, ALICE, &id).await;
    mock.agent_get(ALICE, "/async/chat/completions").await;
    assert_eq!(before - world.credits("alice"), spent, "billed once");
}

#[tokio::test(start_paused = true)]
async fn a_failed_job_ends_with_its_error_message_and_bills_nothing() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let before = mock.handle.world().credits("alice");
    let created = mock
        .sonar_post(
            "/async/chat/completions",
            ALICE,
            job("#research-failed ocean currents"),
        )
        .await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    mock.advance(Duration::from_secs(65));
    let failed = get(&mock, ALICE, &id).await;
    assert_eq!(failed.body["status"], "FAILED");
    assert!(failed.body["failed_at"].is_i64() && failed.body["completed_at"].is_null());
    assert!(failed.body["response"].is_null());
    assert!(
        failed.body["error_message"]
            .as_str()
            .is_some_and(|m| m.contains("Submit the request again"))
    );
    assert_eq!(mock.handle.world().credits("alice"), before);
}

#[tokio::test(start_paused = true)]
async fn the_idempotency_key_gives_the_same_job_back_and_refuses_another_request() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let mut body = job("#deep-research wind farms");
    body["idempotency_key"] = json!("report-42");
    let first = mock
        .sonar_post("/async/chat/completions", ALICE, body.clone())
        .await;
    mock.advance(Duration::from_secs(30));
    let again = mock
        .sonar_post("/async/chat/completions", ALICE, body.clone())
        .await;
    assert_eq!(again.status, 200);
    assert_eq!(again.body["id"], first.body["id"]);
    assert_eq!(
        again.body["status"], "IN_PROGRESS",
        "the job as it stands now"
    );
    let listed = mock.agent_get(ALICE, "/async/chat/completions").await;
    assert_eq!(listed.body["requests"].as_array().map(Vec::len), Some(1));

    // Another account's key is its own.
    let bobs = mock
        .sonar_post("/async/chat/completions", BOB, body.clone())
        .await;
    assert_ne!(bobs.body["id"], first.body["id"]);

    let mut other = job("#deep-research solar farms");
    other["idempotency_key"] = json!("report-42");
    let conflict = mock
        .sonar_post("/async/chat/completions", ALICE, other)
        .await;
    assert_eq!(conflict.status, 409);
    assert_eq!(conflict.body["error"]["type"], "idempotency_key_reused");
    assert_eq!(conflict.headers["x-should-retry"], "false");
}

#[tokio::test(start_paused = true)]
async fn jobs_are_listed_newest_first_a_page_at_a_time_and_only_to_their_account() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let mut ids = Vec::new();
    for topic in ["one", "two", "three"] {
        let reply = mock
            .sonar_post(
                "/v1/async/sonar",
                ALICE,
                json!({"request": ask("sonar", topic)}),
            )
            .await;
        ids.push(reply.body["id"].as_str().expect("id").to_owned());
        mock.advance(Duration::from_secs(1));
    }
    let page = mock
        .agent_get(ALICE, "/async/chat/completions?limit=2")
        .await;
    assert_eq!(page.status, 200);
    let listed: Vec<&str> = page.body["requests"]
        .as_array()
        .map(|r| r.iter().filter_map(|j| j["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()]);
    let summary = &page.body["requests"][0];
    let keys: Vec<&str> = summary
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "id",
            "model",
            "created_at",
            "status",
            "started_at",
            "completed_at",
            "failed_at"
        ]
    );
    let token = page.body["next_token"].as_str().expect("a next page");
    let rest = mock
        .agent_get(
            ALICE,
            &format!("/v1/async/sonar?limit=2&next_token={token}"),
        )
        .await;
    assert_eq!(rest.body["requests"][0]["id"], ids[0].as_str());
    assert!(rest.body["next_token"].is_null());

    let bobs = mock.agent_get(BOB, "/async/chat/completions").await;
    assert_eq!(bobs.body["requests"], json!([]));
    let stolen = get(&mock, BOB, &ids[0]).await;
    assert_eq!(stolen.status, 404);
    assert_eq!(stolen.body["error"]["type"], "not_found");
    let borrowed = mock
        .agent_get(BOB, &format!("/async/chat/completions?next_token={token}"))
        .await;
    assert_eq!(borrowed.status, 400, "a cursor is its account's");
}
