//! Shared helpers: the `conformance` binary as a target, and runs of the suite in-process.
//!
//! The target is a real process, so the runner uses real time; the mock's clock is accelerated
//! and scenario timeouts are kept small. No test sleeps on the wall clock.

// `pub` marks what the test modules share; the helpers live in a private module of the test crate.
#![allow(unreachable_pub)]

use std::time::Duration;

use conformance::runner::{RunOptions, RunResult, run_suite};

/// The `conformance` binary built for these tests.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_conformance")
}

/// The reference client as a target command, optionally breaking one rule.
pub fn reference(break_rule: Option<&str>) -> String {
    match break_rule {
        Some(rule) => format!("{} reference-client --break {rule}", bin()),
        None => format!("{} reference-client", bin()),
    }
}

/// Options for `target` over `scenarios` of both suites (all when empty).
pub fn options(target: &str, scenarios: &[&str]) -> RunOptions {
    let mut options = RunOptions::new(target);
    options.scenarios = scenarios.iter().map(|s| (*s).to_owned()).collect();
    options.timeout = Duration::from_secs(20);
    options.suite = "all".into();
    options
}

/// Runs the suite and returns the result.
pub async fn run(options: &RunOptions) -> RunResult {
    run_suite(options).await.expect("the runner finishes")
}

/// One rule judged on a hand-made journal, and what the judgement must be.
pub mod rule_checks {
    use conformance::rules::{self, Outcome, Transcript, UserRecord};
    use mock_server::Exchange;

    /// `rule` judged on `exchanges` and `user`.
    pub fn check(rule: &str, exchanges: Vec<Exchange>, user: Vec<UserRecord>) -> Outcome {
        let rule = rules::find(rule).expect("rule");
        (rule.check)(&Transcript::new("any", exchanges, user))
    }

    /// As its name says, or panics with what it got.
    pub fn violated(outcome: &Outcome, needle: &str) {
        match outcome {
            Outcome::Violated { message, .. } => {
                assert!(message.contains(needle), "`{needle}` not in: {message}")
            }
            other => panic!("expected a violation naming `{needle}`, got {other:?}"),
        }
    }

    /// As its name says, or panics with what it got.
    pub fn unobserved(outcome: &Outcome) {
        assert!(
            matches!(outcome, Outcome::Unobserved(_)),
            "expected unobserved, got {outcome:?}"
        );
    }

    /// As its name says, or panics with what it got.
    pub fn passed(outcome: &Outcome) {
        assert!(
            matches!(outcome, Outcome::Pass(_)),
            "expected a pass, got {outcome:?}"
        );
    }
}
