//! The control API: journal, clock, reset, scenarios, and the manual clock holding calls.

use std::time::Duration;

use http::StatusCode;
use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::{self, MCP, Mock, thread_id};

#[tokio::test(start_paused = true)]
async fn the_journal_lists_exchanges_as_json_lines_with_redacted_credentials() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let (progress, result) = client
        .call_with_progress(
            "call_perplexity_computer",
            json!({"message": "#complete What is the capital of France?"}),
        )
        .await;
    assert!(!progress.is_empty());
    assert!(!result.is_null());

    let lines = mock.journal_lines().await;
    assert!(lines.len() >= 3, "initialize, initialized, call: {lines:?}");
    for line in &lines {
        for field in [
            "method",
            "path",
            "request_headers",
            "request_body",
            "status",
            "response_body",
            "virtual_time",
            "real_time",
        ] {
            assert!(line.get(field).is_some(), "{field} in {line}");
        }
        assert_eq!(
            line["request_headers"]["authorization"],
            format!("Bearer {}", mock_server::fingerprint("alice-dev-token")),
            "{line}"
        );
    }
    let initialize = &lines[0];
    assert_eq!(initialize["method"], "POST");
    assert_eq!(initialize["path"], MCP);
    assert_eq!(initialize["request_body"]["method"], "initialize");
    assert_eq!(initialize["status"], 200);
    assert_eq!(
        initialize["response_body"]["result"]["protocolVersion"],
        "2025-11-25"
    );
    let call = lines
        .iter()
        .find(|l| l["request_body"]["method"] == "tools/call")
        .expect("the call is journaled");
    let events = call["sse_events"].as_array().expect("sse_events");
    assert_eq!(events.len(), progress.len() + 1, "{call}");
    assert_eq!(events[0]["data"]["method"], "notifications/progress");
    assert!(events.last().expect("last")["data"]["result"].is_object());
    assert!(events[0]["virtual_time"].is_string());
}

#[tokio::test(start_paused = true)]
async fn advancing_the_clock_moves_it_by_exactly_the_given_milliseconds() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let before = mock.get("/_mock/clock").await;
    assert_eq!(before.body["now"], "2026-10-24T00:11:18.000Z");
    assert_eq!(before.body["mode"], "manual");

    let advanced = mock
        .post_json("/_mock/clock/advance", json!({"ms": 90_250}))
        .await;
    assert_eq!(advanced.status, StatusCode::OK);
    let after = mock.get("/_mock/clock").await;
    assert_eq!(after.body["now"], "2026-10-24T00:12:48.250Z");
    assert_eq!(advanced.body["now"], after.body["now"]);
}

#[tokio::test(start_paused = true)]
async fn a_bad_clock_advance_body_is_refused_with_a_sentence() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    for body in [json!({"seconds": 5}), json!({"ms": -5}), json!("soon")] {
        let reply = mock.post_json("/_mock/clock/advance", body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        let error = reply.body["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(r#"expected a body like {"ms": 120000}"#),
            "{body}: {error}"
        );
    }
    let after = mock.get("/_mock/clock").await;
    assert_eq!(after.body["now"], "2026-10-24T00:11:18.000Z");
}

#[tokio::test(start_paused = true)]
async fn reset_forgets_threads_and_restores_credits() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let thread = thread_id(&client.start("#complete Hello").await);
    let refused = client
        .start("#insufficient-credits-before-send Plan a trip")
        .await;
    assert_eq!(refused["event"], "insufficient_credits", "{refused}");
    let full = 10_000;
    assert!(mock.handle.world().credits("alice") < full);

    let reset = mock.post_json("/_mock/reset", json!({})).await;
    assert_eq!(reset.status, StatusCode::OK);

    assert_eq!(mock.handle.world().credits("alice"), full);
    // A reset ends the session too (the client initializes again), and the thread is gone.
    let stale = client.rpc("ping", json!({})).await;
    assert_eq!(stale.status, StatusCode::NOT_FOUND, "{stale:?}");
    let mut client = mock.session("alice-dev-token").await;
    let read = client
        .call("read_thread", json!({"thread_id": thread}))
        .await;
    assert_eq!(read["isError"], true, "{read}");
    let text = common::Client::text_of(&read);
    assert!(text.to_lowercase().contains("not found"), "{text}");
}

#[tokio::test(start_paused = true)]
async fn scenarios_lists_the_embedded_catalog_with_descriptions() {
    let mock = Mock::new();
    let reply = mock.get("/_mock/scenarios").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["fallback"], "complete");
    let scenarios = reply.body["scenarios"].as_array().expect("scenarios");
    let agent_scenarios = reply.body["agent_scenarios"]
        .as_array()
        .expect("agent_scenarios");
    let sonar_scenarios = reply.body["sonar_scenarios"]
        .as_array()
        .expect("sonar_scenarios");
    // Every file of fixtures/scenarios is embedded: Computer, Agent API and Sonar scenarios.
    let files = std::fs::read_dir(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/scenarios"
    ))
    .expect("fixtures/scenarios")
    .filter_map(Result::ok)
    .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
    .count();
    assert_eq!(
        scenarios.len() + agent_scenarios.len() + sonar_scenarios.len(),
        files
    );
    assert!(
        scenarios.len() >= 35,
        "{} Computer scenarios",
        scenarios.len()
    );
    for scenario in scenarios
        .iter()
        .chain(agent_scenarios)
        .chain(sonar_scenarios)
    {
        assert!(scenario["name"].is_string(), "{scenario}");
        assert!(
            scenario["description"]
                .as_str()
                .is_some_and(|d| d.len() > 20),
            "{scenario}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn with_a_manual_clock_a_call_waits_until_the_clock_passes_the_call_window() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let mut client = mock.session("alice-dev-token").await;
    let call = tokio::spawn(async move {
        client
            .start("#timeout-then-complete Summarize the top 5 stories on Hacker News")
            .await
    });

    let arrived = mock
        .handle
        .journal()
        .wait_for_within(Duration::from_secs(5), |e| {
            e.request_body["params"]["name"] == "call_perplexity_computer"
        })
        .await
        .expect("the call reaches the mock");
    assert_eq!(arrived.status, 0, "still in progress: {arrived:?}");

    // Real (paused) time passing does not move a manual clock.
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert!(!call.is_finished(), "nothing moved the virtual clock yet");

    mock.advance(Duration::from_secs(119));
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(!call.is_finished(), "119 s is inside the 120 s window");

    mock.advance(Duration::from_secs(2));
    let result: Value = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("the call returns once the window has passed")
        .expect("task");
    assert_eq!(result["event"], "timeout", "{result}");
    assert_eq!(result["task_status"], "working");
}
