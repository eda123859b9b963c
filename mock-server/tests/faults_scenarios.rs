//! The fixture door: a scenario's `faults`, in the vocabulary of `--fault`, met by the
//! requests of its conversations (however the scenario was chosen), armed once per account,
//! answered as the live API words the status, listed and journaled like every fault, and
//! refused at load with the file, the pointer and a sentence when they do not read.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};
use crate::common::sonar::{ask, with};

fn mock_with(scenario: Value) -> Mock {
    Mock::with(loaded(MockServer::builder(), &scenario))
}

fn loaded(
    builder: mock_server::MockServerBuilder,
    scenario: &Value,
) -> mock_server::MockServerBuilder {
    builder
        .scenario_json(&scenario.to_string())
        .expect("the scenario loads")
}

fn agent_scenario(faults: Value) -> Value {
    json!({
        "name": "flaky", "description": "Two 503s, then an answer.",
        "faults": faults,
        "agent": {"turns": [{"steps": [{"type": "message", "text": "Answered at last."}]}]}
    })
}

fn create(input: &str) -> Value {
    json!({"model": "openai/gpt-5.6-terra", "input": input})
}

#[tokio::test(start_paused = true)]
async fn an_agent_scenarios_faults_meet_each_accounts_requests_then_let_them_through() {
    let mock = mock_with(agent_scenario(json!([
        "status=503,retry-after-ms=5,times=2"
    ])));
    for attempt in 0..2 {
        let refused = mock.agent_create(ALICE, create("#flaky hello")).await;
        assert_eq!(refused.status, 503, "attempt {attempt}: {}", refused.body);
        assert_eq!(refused.body["error"]["type"], "service_unavailable");
        assert_eq!(refused.headers["retry-after-ms"], "5");
        assert!(!refused.headers.contains_key("retry-after"));
        assert!(refused.headers.contains_key("x-request-id"));
    }
    let answered = mock.agent_create(ALICE, create("#flaky hello")).await;
    assert_eq!(answered.status, 200, "{}", answered.body);
    assert_eq!(
        answered.body["output"][0]["content"][0]["text"],
        "Answered at last."
    );
    // Bob's conversations have the scenario's faults of their own.
    let bob = mock.agent_create(BOB, create("#flaky hello")).await;
    assert_eq!(bob.status, 503);
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(
        listed.body["faults"],
        json!([{
            "id": "fault-2",
            "spec": "status=503,retry-after-ms=5,times=2,scenario=flaky,account=bob",
            "hits": 1, "remaining": 1, "from": "scenario"
        }])
    );
    let journal = mock.handle.journal().exchanges();
    let notes: Vec<_> = journal
        .iter()
        .filter(|x| x.path == "/v1/responses")
        .map(|x| x.fault.clone())
        .collect();
    let refused = Some("fault-1 status=503,retry-after-ms=5".to_owned());
    assert_eq!(
        notes,
        [
            refused.clone(),
            refused,
            None,
            Some("fault-2 status=503,retry-after-ms=5".to_owned())
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_scenario_chosen_by_its_match_pattern_meets_its_faults_and_the_call_log_shows_them() {
    let mock = mock_with(json!({
        "name": "overloaded", "description": "Every question about tides fails.",
        "match": "(?i)tides",
        "faults": [{"status": 502, "type": "upstream_error", "should-retry": false}],
        "sonar": {}
    }));
    let refused = mock.chat(ask("sonar", "When are the tides today?")).await;
    assert_eq!(refused.status, 502);
    assert_eq!(refused.body["error"]["type"], "upstream_error");
    assert_eq!(
        refused.body["error"]["message"],
        "bad gateway: the model did not answer; retry the request"
    );
    assert_eq!(refused.headers["x-should-retry"], "false");
    // A request the scenario does not take is answered.
    assert_eq!(mock.chat(ask("sonar", "Hello")).await.status, 200);
    let panel = mock.get("/_mock/sonar").await;
    let calls = panel.body["calls"].as_array().cloned().unwrap_or_default();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[1]["scenario"].as_str(), calls[1]["status"].as_u64()),
        (Some("overloaded"), Some(502))
    );
    assert_eq!(calls[1]["credits"], 0, "a refused request is not billed");
}

#[tokio::test(start_paused = true)]
async fn a_scenarios_stream_fault_is_finished_by_the_layer_on_the_way_out() {
    let mock = mock_with(json!({
        "name": "cut-short", "description": "The stream ends after two chunks.",
        "faults": ["end-after-events=2,event-ids=strip,times=1"],
        "sonar": {}
    }));
    let body = with(ask("sonar", "#cut-short solar"), "stream", json!(true));
    let cut = mock.chat(body.clone()).await;
    assert_eq!(cut.status, 200);
    assert_eq!(cut.events.len(), 2, "{:?}", cut.events);
    let whole = mock.chat(body).await;
    assert!(whole.events.len() > 2, "{:?}", whole.events);
    let journal = mock.handle.journal().exchanges();
    assert_eq!(
        journal[0].fault.as_deref(),
        Some("fault-1 end-after-events=2,event-ids=strip")
    );
    assert_eq!(journal[1].fault, None);
}

#[tokio::test(start_paused = true)]
async fn a_scenarios_latency_holds_the_answer_on_the_manual_clock() {
    let scenario = json!({
        "name": "slow", "description": "Answers after 30 s.",
        "faults": [{"latency": "30s"}],
        "sonar": {}
    });
    let mock = Mock::with(loaded(MockServer::builder().manual_clock(), &scenario));
    let asked = mock.clone();
    let answer = tokio::spawn(async move {
        asked
            .sonar_post("/search", ALICE, json!({"query": "#slow solar"}))
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

#[tokio::test(start_paused = true)]
async fn the_older_agent_fault_spelling_is_a_fault_of_the_same_door() {
    // `mock-server record` writes it, with any error status the recording saw.
    let mock = mock_with(json!({
        "name": "gateway", "description": "One 504.",
        "agent": {
            "fault": {"status": 504, "times": 1},
            "turns": [{"steps": [{"type": "message", "text": "Fine now."}]}]
        }
    }));
    let refused = mock.agent_create(ALICE, create("#gateway hi")).await;
    assert_eq!(refused.status, 504);
    assert_eq!(refused.body["error"]["type"], "gateway_timeout");
    let journal = mock.handle.journal().exchanges();
    assert_eq!(journal[0].fault.as_deref(), Some("fault-1 status=504"));
    assert_eq!(
        mock.agent_create(ALICE, create("#gateway hi")).await.status,
        200
    );
}

#[test]
fn a_fault_that_does_not_read_is_refused_at_load_with_its_pointer() {
    for (fault, says) in [
        (json!("status=404"), "status must be 429, 500, 502 or 503"),
        (
            json!("status=500,path=/v1/agent"),
            "`path` does not narrow it",
        ),
        (json!("forget-session"), "the MCP transport's"),
    ] {
        let scenario = agent_scenario(json!(["latency=1s", fault]));
        let refused = MockServer::builder()
            .scenario_json(&scenario.to_string())
            .err()
            .unwrap_or_else(|| panic!("{fault} is refused"));
        assert_eq!(refused.pointer(), Some("/faults/1"), "{refused}");
        assert!(refused.to_string().contains(says), "{refused}");
    }
    // The schema's own check: a kind the vocabulary does not have.
    let scenario = agent_scenario(json!([{"explode": true}]));
    let refused = MockServer::builder()
        .scenario_json(&scenario.to_string())
        .err()
        .unwrap_or_else(|| panic!("an unknown kind is refused"));
    assert!(
        refused
            .pointer()
            .is_some_and(|p| p.starts_with("/faults/0")),
        "{refused}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_computer_scenarios_faults_follow_its_threads_tool_calls() {
    let scenario = json!({
        "name": "shaky", "description": "The first call waits, the next one fails.",
        "faults": ["latency=5s,times=1", {"status": 502, "times": 1}],
        "turns": [{"steps": [], "outcome": {"event": "complete", "text": "Done."}}]
    });
    let mock = Mock::with(loaded(
        MockServer::builder().driven_clock(Duration::from_secs(1)),
        &scenario,
    ));
    let mut session = mock.session(ALICE).await;
    let before = mock.handle.clock().now();
    let started = session
        .rpc(
            "tools/call",
            json!({"name": "call_perplexity_computer", "arguments": {"message": "#shaky go"}}),
        )
        .await;
    assert_eq!(started.status, 200, "{}", started.body);
    assert!(mock.handle.clock().now() - before >= chrono::TimeDelta::seconds(5));
    let thread = started.body["result"]["structuredContent"]["thread_id"]
        .as_str()
        .expect("a thread")
        .to_owned();
    // A call naming the thread follows its scenario: the second fault.
    let read = json!({"name": "read_thread", "arguments": {"thread_id": thread}});
    let failed = session.rpc("tools/call", read.clone()).await;
    assert_eq!(failed.status, 502, "{}", failed.body);
    assert_eq!(failed.body["error"]["code"], -32000);
    assert_eq!(session.rpc("tools/call", read).await.status, 200);
    // A conversation of another scenario meets none of them.
    let other = session
        .rpc(
            "tools/call",
            json!({"name": "call_perplexity_computer", "arguments": {"message": "#complete hi"}}),
        )
        .await;
    assert_eq!(other.status, 200);
    let notes: Vec<_> = mock
        .handle
        .journal()
        .exchanges()
        .iter()
        .filter_map(|x| x.fault.clone())
        .collect();
    assert_eq!(notes, ["fault-1 latency=5s", "fault-2 status=502"]);
}
