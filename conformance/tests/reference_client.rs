//! The reference client passes every rule, and `--break RULE_ID` fails that rule and only it.

mod common;

use std::time::Instant;

use conformance::report::Status;
use conformance::rules::{self, Level};
use conformance::runner::SCENARIOS;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_client_passes_every_check_of_the_suite() {
    let started = Instant::now();
    let run = common::run(&common::options(&common::reference(None), &[])).await;
    let elapsed = started.elapsed();
    let failing: Vec<_> = run
        .checks()
        .filter(|c| c.status != Status::Success)
        .map(|c| format!("{} {:?}: {}", c.id, c.status, c.details))
        .collect();
    assert!(failing.is_empty(), "{failing:#?}");
    assert_eq!(run.scenarios.len(), SCENARIOS.len());
    for rule in rules::registry() {
        assert!(
            run.checks().any(|c| c.rule == rule.id),
            "{} never checked",
            rule.id
        );
    }
    eprintln!(
        "both suites (--suite all) against the reference client: {} scenarios, {} checks in {:.2}s",
        run.scenarios.len(),
        run.summary().checks,
        elapsed.as_secs_f64()
    );
}

/// Iterates the registry, so a new rule is covered as soon as it is registered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn breaking_a_rule_fails_that_rule_and_only_that_rule() {
    for rule in rules::registry() {
        let scenarios: Vec<&str> = SCENARIOS
            .iter()
            .map(|s| s.name)
            .filter(|s| rule.applies_to(s))
            .collect();
        assert!(!scenarios.is_empty(), "{} names no scenario", rule.id);
        let target = common::reference(Some(rule.id));
        let run = common::run(&common::options(&target, &scenarios)).await;
        let expected = match rule.level {
            Level::Must => Status::Failure,
            Level::Should => Status::Warning,
        };
        // The broken rule fails (or warns, for SHOULD) in at least one of its scenarios; a
        // scenario where the break does not show may still pass it. Nothing else may fail.
        let own: Vec<_> = run.checks().filter(|c| c.rule == rule.id).collect();
        assert!(
            own.iter().any(|c| c.status == expected),
            "--break {} did not make it fail: {:#?}",
            rule.id,
            own.iter()
                .map(|c| (&c.id, c.status, &c.details))
                .collect::<Vec<_>>()
        );
        assert!(
            own.iter()
                .all(|c| c.status == expected || c.status == Status::Success),
            "--break {} gave {:?}",
            rule.id,
            own.iter().map(|c| c.status).collect::<Vec<_>>()
        );
        for check in run.checks().filter(|c| c.rule != rule.id) {
            assert_eq!(
                check.status,
                Status::Success,
                "--break {} also broke {}: {}",
                rule.id,
                check.id,
                check.details
            );
        }
    }
}

/// The verdict on every check of a run, by scenario and check id.
fn verdicts(run: &conformance::runner::RunResult) -> Vec<(String, String, Status)> {
    let mut verdicts: Vec<_> = run
        .scenarios
        .iter()
        .flat_map(|s| {
            s.checks
                .iter()
                .map(|c| (s.name.clone(), c.id.clone(), c.status))
        })
        .collect();
    verdicts.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    verdicts
}

/// The measurement: a client waiting before each request, many scenarios at once on
/// two cores, used to get false failures (the call window, the cancel window and the upload
/// policy ran out while it thought). On the driven clock its verdicts are a fast client's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_client_at_many_jobs_gets_the_verdicts_of_a_fast_one_at_one_job() {
    let fast = common::options(&common::reference(None), &[]);
    let mut slow = common::options(
        &format!(
            "{} reference-client --delay-ms {SLOW_DELAY_MS}",
            common::bin()
        ),
        &[],
    );
    slow.jobs = 48;
    // Both at once: the fast run's scenarios share the two cores with the slow run's 48.
    let (fast, slow) = tokio::join!(common::run(&fast), common::run(&slow));
    assert_eq!(fast.scenarios.len(), SCENARIOS.len());
    let (fast, slow) = (verdicts(&fast), verdicts(&slow));
    let differing: Vec<_> = fast.iter().zip(&slow).filter(|(f, s)| f != s).collect();
    assert!(differing.is_empty(), "fast vs slow: {differing:#?}");
    assert_eq!(fast.len(), slow.len(), "the runs judged different checks");
}

/// The delay the slow client waits before each request: on the accelerated clock the suite used
/// before, 150 ms was 750 virtual seconds, past every window a scenario has.
const SLOW_DELAY_MS: u64 = 150;

/// Task scenarios announce different intervals, and one changes its interval on a later
/// `tasks/get`: a client that hard-codes 100 ms instead of reading `pollIntervalMs` fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_hard_codes_a_100_ms_poll_interval_fails_somewhere() {
    let tasks: Vec<&str> = SCENARIOS
        .iter()
        .filter(|s| s.flow == conformance::runner::Flow::Tasks)
        .map(|s| s.name)
        .collect();
    let target = format!("{} reference-client --fixed-poll-ms 100", common::bin());
    let run = common::run(&common::options(&target, &tasks)).await;
    let failed: Vec<_> = run
        .checks()
        .filter(|c| c.status == Status::Failure)
        .map(|c| (&c.scenario, &c.rule))
        .collect();
    assert!(
        failed
            .iter()
            .any(|(_, rule)| rule.as_str() == rules::ids::TASKS_POLL_FAR_TOO_EARLY),
        "no poll rule failed: {failed:?}"
    );
    assert!(
        failed
            .iter()
            .all(|(_, rule)| rule.as_str() == rules::ids::TASKS_POLL_FAR_TOO_EARLY),
        "{failed:?}"
    );
}
