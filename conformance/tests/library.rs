//! The checks as a library: a test drives a client against a scenario's mock and judges the
//! scenario's rules over what the mock recorded.

use std::panic::{AssertUnwindSafe, catch_unwind};

use conformance::reference_client::{self, ClientOptions};
use conformance::rules::{self, ids};
use conformance::runner::{RunClock, Stage};
use conformance::suite;

/// Runs the reference client (breaking `break_rule`) through scenario `name` on a stage.
async fn drive(name: &str, break_rule: Option<&str>) -> Stage {
    let spec = suite::find(name).expect("scenario");
    let stage = Stage::start(spec, RunClock::Driven).await.expect("stage");
    let client = ClientOptions {
        url: stage.mcp_url(),
        break_rule: break_rule.map(str::to_owned),
        user_url: stage.user_url(),
        token: Some(suite::BEARER_TOKEN.to_owned()),
        protocol_version: suite::PROTOCOL_VERSION.to_owned(),
        delay: std::time::Duration::ZERO,
        fixed_poll: None,
    };
    reference_client::run(client).await.expect("client runs");
    stage
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_follows_the_rules_passes_the_judgement() {
    let stage = drive("follow-up", None).await;
    let judgement = stage.judgement().expect("known scenario");
    judgement.assert_holds();
    judgement.assert_rule_holds(ids::COMPUTER_THREAD_REUSE);
    assert!(judgement.passed());
    let judged: Vec<&str> = judgement.checks().iter().map(|c| c.rule.as_str()).collect();
    assert!(
        judged.contains(&ids::MCP_LIFECYCLE_INITIALIZED),
        "{judged:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_rule_fails_with_the_rule_quoted_and_the_offending_exchanges() {
    let stage = drive("follow-up", Some(ids::COMPUTER_THREAD_REUSE)).await;
    let judgement = stage.judgement().expect("known scenario");
    assert!(!judgement.passed());
    let panic = catch_unwind(AssertUnwindSafe(|| judgement.assert_no_failures()))
        .expect_err("assert_no_failures panics");
    let message = panic.downcast_ref::<String>().cloned().expect("a message");
    let rule = rules::find(ids::COMPUTER_THREAD_REUSE).expect("rule");
    assert!(
        message.starts_with(&format!(
            "1 of {} conformance checks did not pass in scenario `follow-up`:",
            judgement.checks().len()
        )),
        "{message}"
    );
    assert!(
        message.contains("\n- computer.thread.reuse (MUST) FAILURE\n    a follow-up did not carry the previous thread_id"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "    {}, section {}:\n      \"{}\"\n",
            rule.doc.document, rule.doc.section, rule.doc.quote
        )),
        "{message}"
    );
    let evidence = message
        .split("    Offending exchanges:\n")
        .nth(1)
        .expect("evidence listed");
    let lines: Vec<&str> = evidence.lines().take(2).collect();
    assert!(
        lines
            .iter()
            .all(|l| l.starts_with("      #") && l.contains("call_perplexity_computer(")),
        "{lines:?}"
    );
    assert!(message.contains("\nReceived requests ("), "{message}");
    assert!(
        message.contains("POST /rest/computer/mcp initialize -> 200"),
        "{message}"
    );
    // The rules that held are not in the message.
    assert!(!message.contains("mcp.lifecycle.initialized"), "{message}");
}

#[tokio::test]
async fn an_unknown_scenario_or_rule_is_refused_with_a_sentence() {
    let mock = mock_server::MockServer::start().await.expect("mock");
    let error = conformance::judge("no-such-scenario", mock.journal()).expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("unknown scenario `no-such-scenario`"),
        "{error}"
    );
    let judgement = conformance::judge("follow-up", mock.journal()).expect("known");
    let panic = catch_unwind(AssertUnwindSafe(|| {
        judgement.assert_rule_holds(ids::AGENT_STREAM_RESUME)
    }))
    .expect_err("panics");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("rule `agent.stream.resume` is not judged in scenario `follow-up`"),
        "{message}"
    );
}
