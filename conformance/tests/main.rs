//! The integration tests of `conformance`, one file per behaviour, built as one test binary.
//!
//! Each `tests/*.rs` file is a module of this crate rather than a crate of its own: cargo then
//! links one binary instead of one per file (each about 50 MB with the server and its dependencies
//! inside), which keeps a clean build's `target/` a few gigabytes smaller and its link step short.
//! `cargo test --workspace` runs them all; filter by module path as usual (`cargo test -p
//! conformance -- reports::`).

mod common;

mod account_rule_checks;
mod agent_rule_checks;
mod bad_targets;
mod ci;
mod claims;
mod cli;
mod docs_pages;
mod era_fairness;
mod fault_rule_checks;
mod fault_verdicts;
mod install;
mod launch;
mod library;
mod messages;
mod modern_rule_checks;
mod readme;
mod record_replay;
mod reference_client;
mod reports;
mod rule_checks;
mod serve;
mod sign_in;
mod snapshots;
mod sonar_rule_checks;
mod tool_results_page;
