//! Client state that would otherwise grow forever is capped and evicted oldest first, counted
//! in `GET /_mock/overview`'s `kept`: Computer threads (`max_threads`), Agent API responses
//! stored or not (`max_responses`) and uploaded bytes (`max_upload_bytes`). An evicted id answers
//! as one never issued, and `POST /_mock/reset` empties every store and its counts.

use http::StatusCode;
use mock_server::{MockServer, StateLimits};
use serde_json::{Value, json};

use crate::common::agent::ALICE;
use crate::common::{Mock, text, text_json, thread_id};

fn limited(limits: StateLimits) -> Mock {
    Mock::with(MockServer::builder().limits(limits))
}

/// What `GET /_mock/overview` says one capped store holds.
async fn kept(mock: &Mock, store: &str) -> Value {
    let overview = mock.get("/_mock/overview").await;
    assert_eq!(overview.status, StatusCode::OK, "{:?}", overview.body);
    overview.body["kept"][store].clone()
}

/// Starts a thread for alice and returns its id.
async fn new_thread(client: &mut crate::common::Client, n: usize) -> String {
    thread_id(&client.start(&format!("Summarise report {n}")).await)
}

#[tokio::test(start_paused = true)]
async fn past_the_thread_cap_the_oldest_thread_answers_as_an_id_never_issued() {
    let mock = limited(StateLimits {
        max_threads: 2,
        ..StateLimits::default()
    });
    let mut alice = mock.session("alice-dev-token").await;
    let first = new_thread(&mut alice, 1).await;
    let second = new_thread(&mut alice, 2).await;
    let third = new_thread(&mut alice, 3).await;

    let raw = alice.call("read_thread", json!({"thread_id": first})).await;
    assert_eq!(raw["isError"], true, "{raw}");
    let never = "thread_never_issued";
    let unknown = alice.call("read_thread", json!({"thread_id": never})).await;
    assert_eq!(
        text(&text_json(&raw)).replace(&first, never),
        text(&text_json(&unknown)),
        "an evicted thread reads as an id never issued"
    );
    for kept_id in [&second, &third] {
        let read = alice
            .call("read_thread", json!({"thread_id": kept_id}))
            .await;
        assert_ne!(read["isError"], true, "{read}");
    }
    assert_eq!(
        kept(&mock, "threads").await,
        json!({"kept": 2, "max": 2, "evicted": 1})
    );
}

fn background(input: &str) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": input, "background": true, "store": true})
}

async fn create(mock: &Mock, body: Value) -> String {
    let reply = mock.agent_create(ALICE, body).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    reply.body["id"].as_str().expect("id").to_owned()
}

#[tokio::test(start_paused = true)]
async fn past_the_response_cap_the_oldest_run_is_a_404_even_while_it_runs() {
    let mock = limited(StateLimits {
        max_responses: 2,
        ..StateLimits::default()
    });
    // The oldest is a background run still going when it is evicted: it is asked to stop,
    // and nothing waiting on it panics.
    let running = create(&mock, background("Research the market")).await;
    let unstored = create(
        &mock,
        json!({"model": "openai/gpt-5.6-terra", "input": "Hi", "store": false}),
    )
    .await;
    let newest = create(&mock, background("Research the weather")).await;

    let gone = mock.agent_get(ALICE, &format!("/v1/agent/{running}")).await;
    let never = mock.agent_get(ALICE, "/v1/agent/resp_never_issued").await;
    assert_eq!(gone.status, 404, "{:#}", gone.body);
    assert_eq!(gone.body, never.body, "as an id never issued");
    let kept_run = mock.agent_get(ALICE, &format!("/v1/agent/{newest}")).await;
    assert_eq!(kept_run.status, 200, "{:#}", kept_run.body);
    assert_eq!(
        kept(&mock, "responses").await,
        json!({"kept": 2, "max": 2, "evicted": 1})
    );
    // The `store: false` run counted against the cap like any other: one more evicts it.
    create(&mock, background("Research the tides")).await;
    assert_eq!(kept(&mock, "responses").await["evicted"], 2);
    let dashboard = mock.get("/_mock/responses").await;
    let ids: Vec<&str> = dashboard.body["responses"]
        .as_array()
        .expect("responses")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(!ids.contains(&unstored.as_str()), "{ids:?}");
}

#[tokio::test(start_paused = true)]
async fn past_the_upload_byte_cap_the_oldest_file_is_gone() {
    let mock = limited(StateLimits {
        max_upload_bytes: 10,
        ..StateLimits::default()
    });
    let mut alice = mock.session("alice-dev-token").await;
    let first = alice.attach("a.txt", b"123456").await;
    let second = alice.attach("b.txt", b"abcdef").await;

    let gone = mock.get_as(&first, "alice-dev-token").await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
    let body = gone.body.as_str().unwrap_or_default();
    assert!(body.contains("<Code>NoSuchKey</Code>"), "{body}");
    let kept_file = mock.get_as(&second, "alice-dev-token").await;
    assert_eq!(kept_file.status, StatusCode::OK);
    assert_eq!(
        kept(&mock, "uploads").await,
        json!({"files": 1, "bytes": 6, "max_bytes": 10, "evicted": 1})
    );
    // The evicted file can no longer be attached: it reads as a file never uploaded.
    let refused = alice
        .call(
            "call_perplexity_computer",
            json!({"message": "Summarise it", "attachment_urls": [first]}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&text_json(&refused)).contains("is not a file you uploaded"));
}

#[tokio::test(start_paused = true)]
async fn reset_empties_every_capped_store_and_its_counts() {
    let mock = limited(StateLimits {
        max_threads: 1,
        max_responses: 1,
        max_upload_bytes: 4,
        ..StateLimits::default()
    });
    let mut alice = mock.session("alice-dev-token").await;
    new_thread(&mut alice, 1).await;
    new_thread(&mut alice, 2).await;
    alice.attach("a.txt", b"1234").await;
    alice.attach("b.txt", b"5678").await;
    create(&mock, background("one")).await;
    create(&mock, background("two")).await;
    for store in ["threads", "responses"] {
        assert_eq!(kept(&mock, store).await["evicted"], 1, "{store}");
    }
    assert_eq!(kept(&mock, "uploads").await["evicted"], 1);

    let reset = mock.post_json("/_mock/reset", json!({})).await;
    assert_eq!(reset.status, StatusCode::OK);
    assert_eq!(
        kept(&mock, "threads").await,
        json!({"kept": 0, "max": 1, "evicted": 0})
    );
    assert_eq!(
        kept(&mock, "responses").await,
        json!({"kept": 0, "max": 1, "evicted": 0})
    );
    assert_eq!(
        kept(&mock, "uploads").await,
        json!({"files": 0, "bytes": 0, "max_bytes": 4, "evicted": 0})
    );
}
