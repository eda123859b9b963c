//! Cancelling runs (`cancelling`, then `cancelled` with an error, HTTP 200) and resuming a
//! dropped stream with `starting_after`.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB, event_types, item_types};

fn research(background: bool, stream: bool) -> Value {
    json!({
        "preset": "medium",
        "input": "#background-research solid-state batteries",
        "background": background,
        "stream": stream,
        "tools": [{"type": "web_search"}, {"type": "fetch_url"}],
    })
}

async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(start_paused = true)]
async fn cancel_answers_cancelling_then_the_run_ends_cancelled_with_its_partial_output() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let created = mock.agent_create(ALICE, research(true, false)).await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    mock.advance(Duration::from_secs(60));
    settle().await;

    let ack = mock
        .agent_post(ALICE, &format!("/v1/agent/{id}/cancel"))
        .await;
    assert_eq!(ack.status, 200);
    assert_eq!(ack.body, json!({"response_id": id, "status": "cancelling"}));
    // The run stops shortly after, not at once.
    settle().await;
    let still = mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await;
    assert_eq!(still.body["status"], "in_progress");

    mock.advance(Duration::from_secs(2));
    settle().await;
    let done = mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await;
    assert_eq!(done.status, 200);
    let r = &done.body;
    assert_eq!(r["status"], "cancelled");
    assert_eq!(
        r["error"],
        json!({"code": "cancelled", "message": "cancelled", "type": "cancelled"})
    );
    assert_eq!(r["incomplete_details"], json!({"reason": "cancelled"}));
    assert_eq!(r["usage"], Value::Null);
    assert_eq!(r["model"], "medium");
    assert_eq!(item_types(r), ["search_results"], "partial output is kept");

    // Nothing moves once cancelled.
    mock.advance(Duration::from_secs(3600));
    settle().await;
    assert_eq!(
        mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await.body,
        done.body
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_a_terminal_run_is_a_400_and_changes_nothing() {
    let mock = Mock::new();
    let done = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    let id = done.body["id"].as_str().expect("id");
    let reply = mock
        .agent_post(ALICE, &format!("/v1/responses/{id}/cancel"))
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.body,
        json!({"error": {"message": "the run is already terminal and cannot be cancelled", "type": "invalid_request", "code": 400}})
    );
    assert_eq!(
        mock.agent_get(ALICE, &format!("/v1/responses/{id}"))
            .await
            .body,
        done.body
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_an_unknown_or_foreign_id_gets_the_recorded_400_and_leaves_the_run_running() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let created = mock.agent_create(ALICE, research(true, false)).await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    for (token, target) in [(ALICE, "resp_unknown"), (BOB, id.as_str())] {
        let reply = mock
            .agent_post(token, &format!("/v1/agent/{target}/cancel"))
            .await;
        assert_eq!(reply.status, 400, "{target}");
        assert_eq!(reply.body["error"]["type"], "invalid_request");
    }
    mock.advance(Duration::from_secs(3600));
    settle().await;
    let done = mock.agent_get(ALICE, &format!("/v1/agent/{id}")).await;
    assert_eq!(
        done.body["status"], "completed",
        "bob's cancel must not stop alice's run"
    );
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_stream_ends_with_response_cancelled() {
    let mock = Mock::new();
    let created = mock.agent_create(ALICE, research(true, false)).await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    let cancel = {
        let mock = mock.clone();
        let id = id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            mock.agent_post(ALICE, &format!("/v1/agent/{id}/cancel"))
                .await
        })
    };
    let stream = mock
        .agent_get(
            ALICE,
            &format!("/v1/agent/{id}?stream=true&starting_after=-1"),
        )
        .await;
    assert_eq!(cancel.await.expect("cancel").status, 200);
    let types = event_types(&stream.events);
    assert_eq!(types.last().map(String::as_str), Some("response.cancelled"));
    assert_eq!(
        stream.events.last().expect("last")["response"]["status"],
        "cancelled"
    );
}

#[tokio::test(start_paused = true)]
async fn a_dropped_stream_resumes_after_its_last_sequence_number() {
    let mock = Mock::new();
    let full = mock.agent_create(ALICE, research(true, true)).await;
    let id = full.events[0]["response"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let total = full.events.len();
    assert!(total > 10);
    // Pretend the connection dropped after event 4.
    let resumed = mock
        .agent_get(
            ALICE,
            &format!("/v1/responses/{id}?stream=true&starting_after=4"),
        )
        .await;
    assert_eq!(resumed.status, 200);
    assert_eq!(resumed.events, full.events[5..].to_vec());
    assert_eq!(resumed.events[0]["sequence_number"], 5);
}

#[tokio::test(start_paused = true)]
async fn a_resume_past_the_end_or_without_a_cursor_is_a_400() {
    let mock = Mock::new();
    let full = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi", "stream": true}),
        )
        .await;
    let id = full.events[0]["response"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let last = full.events.len();
    let past = mock
        .agent_get(
            ALICE,
            &format!("/v1/responses/{id}?stream=true&starting_after={last}"),
        )
        .await;
    assert_eq!(past.status, 400);
    assert_eq!(past.body["error"]["param"], "starting_after");
    assert!(
        past.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("past the end"))
    );
    let no_cursor = mock
        .agent_get(ALICE, &format!("/v1/responses/{id}?stream=true"))
        .await;
    assert_eq!(no_cursor.status, 400);
    // The response is unchanged and still readable.
    let plain = mock.agent_get(ALICE, &format!("/v1/responses/{id}")).await;
    assert_eq!(plain.body["status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn a_store_false_response_cannot_be_retrieved_but_can_be_continued() {
    let mock = Mock::new();
    let done = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi", "store": false}),
        )
        .await;
    assert_eq!(done.body["store"], false);
    let id = done.body["id"].as_str().expect("id");
    assert_eq!(
        mock.agent_get(ALICE, &format!("/v1/agent/{id}"))
            .await
            .status,
        404
    );
    let next = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "more", "previous_response_id": id}),
        )
        .await;
    assert_eq!(next.status, 200, "{:#}", next.body);
    assert_eq!(next.body["previous_response_id"], id);
}

#[tokio::test(start_paused = true)]
async fn a_background_run_with_store_false_runs_but_cannot_be_polled_as_recorded() {
    let mock = Mock::new();
    let mut body = research(true, false);
    body["store"] = json!(false);
    let submitted = mock.agent_create(ALICE, body).await;
    assert_eq!(submitted.status, 200);
    assert_eq!(submitted.body["status"], "queued");
    let id = submitted.body["id"].as_str().expect("id");
    assert_eq!(
        mock.agent_get(ALICE, &format!("/v1/agent/{id}"))
            .await
            .status,
        404
    );
}

#[tokio::test(start_paused = true)]
async fn a_world_flag_switches_unknown_id_cancels_to_the_documented_404() {
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    world["accounts"][0]["agent_api"]["documented_cancel_errors"] = json!(true);
    let path = std::env::temp_dir().join(format!("agent-world-doc-{}.json", std::process::id()));
    std::fs::write(&path, world.to_string()).expect("write world");
    let mock = Mock::with(MockServer::builder().world(&path));
    let _ = std::fs::remove_file(&path);
    let reply = mock
        .agent_post(ALICE, "/v1/agent/resp_unknown/cancel")
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.body["error"]["type"], "not_found");
    // A terminal run is still a 400.
    let done = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    let id = done.body["id"].as_str().expect("id");
    assert_eq!(
        mock.agent_post(ALICE, &format!("/v1/agent/{id}/cancel"))
            .await
            .status,
        400
    );
}
