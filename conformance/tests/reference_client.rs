//! The reference client passes every rule, and `--break RULE_ID` fails that rule and only it.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use conformance::report::Status;
use conformance::rules::{self, Level};
use conformance::runner::SCENARIOS;

use crate::common;

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

/// How many broken clients run at once, each `JOBS` scenarios at a time: scenarios mostly wait
/// on the mock's clock, so more in flight than cores keeps the test short.
const BROKEN_AT_ONCE: usize = 4;
const JOBS: usize = 4;

/// The rules whose break point the unbroken reference client reached, by scenario (from its
/// `--trace-break-points` line).
async fn break_points_by_scenario() -> BTreeMap<String, BTreeSet<String>> {
    let target = format!("{} --trace-break-points", common::reference(None));
    let mut options = common::options(&target, &[]);
    options.jobs = JOBS;
    let run = common::run(&options).await;
    run.scenarios
        .iter()
        .map(|s| {
            let reached = s
                .target
                .stderr_tail
                .lines()
                .chain(s.target.stderr_head.lines())
                .find_map(|l| l.strip_prefix("break points reached:"))
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            (s.name.clone(), reached)
        })
        .collect()
}

/// Every rule broken in turn across `--suite all`: the broken rule fails (or warns) where its
/// trigger occurs and nowhere else does anything fail. A check may only be left unjudged
/// (SKIPPED) when it names the broken rule as the reason.
///
/// A broken client is run on every scenario where the unbroken one reached that rule's break
/// point (and on the rule's own scenarios): elsewhere it never asks whether to break, so it
/// behaves as the unbroken client, which the test above judges on every scenario. Iterates the
/// registry, so a new rule is covered as soon as it is registered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn breaking_a_rule_fails_that_rule_and_no_other_in_any_scenario() {
    use futures::StreamExt as _;

    let started = Instant::now();
    let reached = break_points_by_scenario().await;
    let registry = rules::registry();
    let plan: Vec<_> = registry
        .iter()
        .map(|rule| {
            let scenarios: Vec<&str> = SCENARIOS
                .iter()
                .map(|s| s.name)
                .filter(|s| {
                    rule.applies_to(s) || reached.get(*s).is_some_and(|r| r.contains(rule.id))
                })
                .collect();
            (rule, scenarios)
        })
        .collect();
    let pairs: usize = plan.iter().map(|(_, s)| s.len()).sum();
    let runs: Vec<_> =
        futures::stream::iter(plan.into_iter().map(|(rule, scenarios)| async move {
            let target = common::reference(Some(rule.id));
            let mut options = common::options(&target, &scenarios);
            options.jobs = JOBS;
            (rule, common::run(&options).await)
        }))
        .buffer_unordered(BROKEN_AT_ONCE)
        .collect()
        .await;
    let mut problems = Vec::new();
    for (rule, run) in &runs {
        let expected = match rule.level {
            Level::Must => Status::Failure,
            Level::Should => Status::Warning,
        };
        let own: Vec<_> = run.checks().filter(|c| c.rule == rule.id).collect();
        if !own.iter().any(|c| c.status == expected) {
            problems.push(format!(
                "--break {} did not make it fail: {:?}",
                rule.id,
                own.iter()
                    .map(|c| (&c.id, c.status, &c.details))
                    .collect::<Vec<_>>()
            ));
        }
        for c in &own {
            if c.status != expected && c.status != Status::Success {
                problems.push(format!(
                    "--break {}: {} is {:?}: {}",
                    rule.id, c.id, c.status, c.details
                ));
            }
        }
        for c in run.checks().filter(|c| c.rule != rule.id) {
            let excused = c.status == Status::Skipped && c.details.contains(rule.id);
            if c.status != Status::Success && !excused {
                problems.push(format!(
                    "--break {} also broke {} ({:?}): {}",
                    rule.id, c.id, c.status, c.details
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
    eprintln!(
        "{} broken rules, {pairs} scenario runs in {:.1}s",
        runs.len(),
        started.elapsed().as_secs_f64()
    );
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
