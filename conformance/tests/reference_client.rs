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
