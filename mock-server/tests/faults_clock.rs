//! Faults wait on the mock's virtual clock, never on the wall clock: on a driven clock (the
//! conformance runner's), `latency=` and `dribble=` move the mock's time on by exactly what
//! they say and answer at once; on a manual clock they wait until it is advanced
//! (`faults_http`, `faults_streams`).

use std::time::Duration;

use axum::body::Body;
use http::Request;
use http_body_util::BodyExt;
use mock_server::MockServer;
use serde_json::json;
use tower::ServiceExt;

use crate::common::Mock;
use crate::common::agent::ALICE;

fn driven(spec: &str) -> Mock {
    Mock::with(
        MockServer::builder()
            .driven_clock(Duration::from_secs(1))
            .fault(spec)
            .expect("the spec reads"),
    )
}

fn elapsed(mock: &Mock, since: chrono::DateTime<chrono::Utc>) -> chrono::TimeDelta {
    mock.handle.clock().now() - since
}

#[tokio::test]
async fn latency_on_a_driven_clock_jumps_the_mocks_time_by_the_delay() {
    let mock = driven("latency=90s,path=/search");
    let before = mock.handle.clock().now();
    let started = std::time::Instant::now();
    let answer = mock
        .sonar_post("/search", ALICE, json!({"query": "solar"}))
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(elapsed(&mock, before), chrono::TimeDelta::seconds(90));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the wall clock did not wait the 90 s"
    );
    let journal = mock.handle.journal().exchanges();
    assert_eq!(journal[0].fault.as_deref(), Some("fault-1 latency=90s"));
}

#[tokio::test]
async fn a_dribble_on_a_driven_clock_moves_time_on_by_every_piece_after_the_first() {
    let mock = driven("dribble=64,every=2s,path=/v1/models");
    let before = mock.handle.clock().now();
    let request = Request::get("/v1/models")
        .header("authorization", format!("Bearer {ALICE}"))
        .body(Body::empty())
        .expect("request");
    let response = mock.router.clone().oneshot(request).await.expect("answer");
    let mut body = response.into_body();
    let mut pieces = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("a whole piece");
        if let Some(data) = frame.data_ref() {
            pieces.push(data.len());
        }
    }
    assert!(pieces.len() > 2, "{pieces:?}");
    assert!(
        pieces[..pieces.len() - 1].iter().all(|n| *n == 64),
        "{pieces:?}"
    );
    let waits = i64::try_from(pieces.len() - 1).unwrap_or(i64::MAX);
    assert_eq!(
        elapsed(&mock, before),
        chrono::TimeDelta::seconds(2 * waits)
    );
}

#[tokio::test]
async fn a_scenarios_latency_on_a_driven_clock_holds_the_answer_by_the_delay_too() {
    let scenario = json!({
        "name": "slow-agent", "description": "Answers after a minute of latency.",
        "faults": ["latency=60s,times=1"],
        "agent": {"turns": [{"steps": [{"type": "message", "text": "Late.", "duration": "0s"}]}]}
    });
    let mock = Mock::with(
        MockServer::builder()
            .driven_clock(Duration::from_secs(1))
            .scenario_json(&scenario.to_string())
            .expect("the scenario loads"),
    );
    let create = || {
        mock.agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#slow-agent hi"}),
        )
    };
    let before = mock.handle.clock().now();
    let held = create().await;
    assert_eq!(held.status, 200, "{}", held.body);
    let with_latency = elapsed(&mock, before);
    // The same request without the fault (used up) takes the run's own time only.
    let before = mock.handle.clock().now();
    assert_eq!(create().await.status, 200);
    let without = elapsed(&mock, before);
    assert_eq!(with_latency - without, chrono::TimeDelta::seconds(60));
}
