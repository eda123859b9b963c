//! Targets that do not behave: each gets a clear verdict, and the runner finishes.

use std::time::{Duration, Instant};

use conformance::report::{Status, TARGET_RULE};
use conformance::runner::RunResult;

use crate::common;

async fn run_bad(target: &str, timeout: Duration) -> RunResult {
    let mut options = common::options(target, &["follow-up"]);
    options.timeout = timeout;
    let started = Instant::now();
    let run = common::run(&options).await;
    assert!(
        started.elapsed() < timeout + Duration::from_secs(10),
        "the runner took too long"
    );
    // Nothing a bad target did may pass a rule: every rule expected an observation.
    for c in run.checks().filter(|c| c.rule != TARGET_RULE) {
        assert_eq!(c.status, Status::Failure, "{}: {}", c.id, c.details);
        assert!(c.details.starts_with("not observed: "), "{}", c.details);
    }
    run
}

fn target_check(run: &RunResult) -> (Status, String) {
    let c = run
        .checks()
        .find(|c| c.rule == TARGET_RULE)
        .expect("target check");
    (c.status, c.details.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_does_not_exist_is_reported_as_not_found() {
    let run = run_bad("no-such-client-command-xyz", Duration::from_secs(5)).await;
    let (status, details) = target_check(&run);
    assert_eq!(status, Status::Failure);
    assert!(details.contains("not found"), "{details}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_exits_at_once_fails_every_rule_as_unobserved() {
    let run = run_bad("true", Duration::from_secs(5)).await;
    assert_eq!(target_check(&run).0, Status::Success);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_exits_with_an_error_shows_its_stderr() {
    let run = run_bad(
        "echo 'cannot connect' >&2; exit 3; :",
        Duration::from_secs(5),
    )
    .await;
    let (status, details) = target_check(&run);
    assert_eq!(status, Status::Failure);
    assert!(
        details.contains("status 3") && details.contains("cannot connect"),
        "{details}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_hangs_is_killed_at_the_timeout() {
    let run = run_bad("sleep 600; :", Duration::from_millis(800)).await;
    let (status, details) = target_check(&run);
    assert_eq!(status, Status::Failure);
    assert!(details.contains("did not finish within 0.8s"), "{details}");
    assert!(run.scenarios[0].target.timed_out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_floods_stdout_is_drained_and_killed() {
    let run = run_bad("yes flood; :", Duration::from_millis(800)).await;
    let target = &run.scenarios[0].target;
    assert!(target.timed_out);
    assert!(target.stdout_bytes > 1024 * 1024, "{target:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_sends_garbage_fails_with_no_handshake() {
    let target = "curl -s -o /dev/null -H 'content-type: application/json' \
                  -H 'accept: application/json, text/event-stream' --data-binary '{{{ not json'";
    let run = run_bad(target, Duration::from_secs(5)).await;
    let init = run
        .checks()
        .find(|c| c.rule == "mcp.lifecycle.initialized")
        .expect("initialized check");
    assert!(
        init.details.contains("never completed an initialize"),
        "{}",
        init.details
    );
    let journal_had_it = run.scenarios[0].target.exit_code == Some(0);
    assert!(journal_had_it, "{:?}", run.scenarios[0].target);
}
