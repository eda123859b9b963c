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
