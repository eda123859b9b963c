//! `--clock driven`: virtual time follows the client. A call it is blocked on jumps to its
//! deadline, each look moves time by the look step (and waits for background runs to catch
//! up), and nothing moves between requests. No test here waits on the wall clock.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::json;

use crate::common::agent::ALICE;
use crate::common::{Mock, thread_id};

fn driven(look_step: Duration) -> Mock {
    Mock::with(MockServer::builder().driven_clock(look_step))
}

/// Virtual seconds since the mock started.
fn elapsed(mock: &Mock) -> i64 {
    (mock.handle.clock().now() - mock_server::Clock::fixed_epoch()).num_seconds()
}

#[tokio::test]
async fn a_blocked_call_jumps_to_its_window_and_each_read_thread_moves_one_look_step() {
    let mock = driven(Duration::from_secs(45));
    let mut client = mock.session("alice-dev-token").await;
    let result = client.start("#timeout-then-complete Summarize HN").await;
    assert_eq!(result["event"], "timeout");
    assert_eq!(elapsed(&mock), 120, "the call window, at once");
    let thread = thread_id(&result);

    // The task takes 180 s: the first look (165 s) still sees it working, the second (210 s)
    // sees it done, however long the client waited in between.
    let during = client.read(&thread).await;
    assert_eq!(during["web_state"]["task_status"], "working");
    assert_eq!(elapsed(&mock), 165);
    let after = client.read(&thread).await;
    assert_eq!(after["web_state"]["task_status"], "completed");
    assert_eq!(elapsed(&mock), 210);
}

#[tokio::test]
async fn a_call_that_reaches_its_checkpoint_early_moves_time_only_that_far() {
    let mock = driven(Duration::from_secs(60));
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#ask-user-question Write last quarter's sales report.")
        .await;
    assert_eq!(result["event"], "ask_user_question");
    assert!(
        elapsed(&mock) < 120,
        "stopped at the question: {}",
        elapsed(&mock)
    );
}

#[tokio::test]
async fn a_background_run_advances_only_with_the_clients_gets() {
    let mock = driven(Duration::from_secs(60));
    let created = mock
        .agent_create(
            ALICE,
            json!({"preset": "medium", "background": true,
                   "input": "#background-research solid-state batteries"}),
        )
        .await;
    assert_eq!(created.body["status"], "queued");
    let id = created.body["id"].as_str().expect("id").to_owned();
    let path = format!("/v1/agent/{id}");
    // About four virtual minutes of work: in progress after one look, done after four.
    let first = mock.agent_get(ALICE, &path).await;
    assert_eq!(first.body["status"], "in_progress");
    assert_eq!(elapsed(&mock), 60);
    for _ in 0..3 {
        mock.agent_get(ALICE, &path).await;
    }
    let done = mock.agent_get(ALICE, &path).await;
    assert_eq!(done.body["status"], "completed");
}

#[tokio::test]
async fn a_cancelled_background_run_shows_cancelled_at_the_next_look() {
    let mock = driven(Duration::from_secs(60));
    let created = mock
        .agent_create(
            ALICE,
            json!({"preset": "medium", "background": true, "store": true,
                   "input": "#background-research solid-state batteries"}),
        )
        .await;
    let id = created.body["id"].as_str().expect("id").to_owned();
    let path = format!("/v1/agent/{id}");
    let running = mock.agent_get(ALICE, &path).await;
    assert_eq!(running.body["status"], "in_progress");
    let ack = mock.agent_post(ALICE, &format!("{path}/cancel")).await;
    assert_eq!(ack.body["status"], "cancelling", "{}", ack.body);
    // However long the client waits before looking, the next look sees the run stopped.
    let next = mock.agent_get(ALICE, &path).await;
    assert_eq!(next.body["status"], "cancelled", "{}", next.body);
}

/// Moves the clock to its last instant through the control API, a century at a time (the
/// issue's ~139 unauthenticated advances, in fewer, larger steps).
async fn to_the_end_of_time(mock: &Mock) {
    let century = json!({"ms": 3_155_760_000_000u64});
    while mock
        .post_json("/_mock/clock/advance", century.clone())
        .await
        .status
        .is_success()
    {}
    let clock = mock.get("/_mock/clock").await;
    let now = clock.body["now"].as_str().expect("now").to_owned();
    let rest = (chrono::DateTime::parse_from_rfc3339("9999-12-31T23:59:59.999Z").expect("time")
        - chrono::DateTime::parse_from_rfc3339(&now).expect("time"))
    .num_milliseconds();
    let reply = mock
        .post_json("/_mock/clock/advance", json!({"ms": rest}))
        .await;
    assert_eq!(reply.body["now"], "9999-12-31T23:59:59.999Z", "{reply:?}");
}

#[tokio::test(start_paused = true)]
async fn at_the_end_of_time_a_blocked_call_times_out_at_once_instead_of_spinning() {
    let mock = driven(Duration::from_secs(60));
    to_the_end_of_time(&mock).await;
    let mut client = mock.session("alice-dev-token").await;
    // Before the fix the call's deadline lay past the clock's end: the wait loop spun on a core
    // forever and this never returned. Twice, as the "two such calls".
    for _ in 0..2 {
        let result = tokio::time::timeout(
            Duration::from_secs(60),
            client.start("#timeout-then-complete Summarize HN"),
        )
        .await
        .expect("a call at the end of time answers");
        assert_eq!(result["event"], "timeout", "{result}");
    }
    // A synchronous Agent API run the client is blocked on answers too.
    let reply = tokio::time::timeout(
        Duration::from_secs(60),
        mock.agent_create(ALICE, json!({"preset": "medium", "input": "hi"})),
    )
    .await
    .expect("a synchronous run at the end of time answers");
    assert_eq!(reply.status, http::StatusCode::OK, "{reply:?}");
    assert_eq!(
        mock.get("/_mock/clock").await.body["now"],
        "9999-12-31T23:59:59.999Z"
    );
}
