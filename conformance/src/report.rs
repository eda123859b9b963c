//! Reports of a run: pretty terminal output, the JSON format, JUnit XML, a Markdown summary,
//! GitHub annotations, and the expected-failures baseline that decides the exit status.
//!
//! # JSON format (`--format json`), version `conformance-report/1`
//!
//! ```json
//! {
//!   "format": "conformance-report/1",
//!   "target": "<command>", "suite": "computer", "duration_ms": 812,
//!   "summary": {"scenarios": 13, "checks": 80, "success": 80, "failure": 0, "warning": 0, "skipped": 0, "info": 0},
//!   "unavailable": [{"family": "tasks", "reason": "..."}],
//!   "scenarios": [{
//!     "name": "follow-up", "duration_ms": 95,
//!     "target": {"exit_code": 0, "timed_out": false, "spawn_error": null, "stdout_bytes": 0, "stderr_bytes": 0, "stderr_head": "", "stderr_tail": ""},
//!     "checks": [{
//!       "id": "follow-up:computer.thread.reuse", "rule": "computer.thread.reuse", "level": "MUST",
//!       "status": "SUCCESS", "scenario": "follow-up",
//!       "doc": {"document": "Perplexity Computer MCP Server", "section": "Conversation Threading", "quote": "..."},
//!       "details": "follow-ups reused thread ...",
//!       "evidence": [{"seq": 4, "exchange": "#4 call_perplexity_computer(...) -> event complete, task_status completed"}]
//!     }]
//!   }],
//!   "baseline": {"expected_failures": [], "unexpected_failures": [], "stale_entries": [],
//!                "not_run": [], "strict": false, "strict_coverage": false, "unjudged_duties": []},
//!   "claims": {"supports": ["tasks"], "left_out": [{"scenario": "sign-in", "needs": ["oauth"]}],
//!              "duties_judged": 50, "duties_judgeable": 61,
//!              "unjudged": [{"id": "C29", "document": "...", "section": "...", "needs": ["uploads"]}]}
//! }
//! ```
//!
//! `status` is one of `SUCCESS`, `FAILURE`, `WARNING`, `SKIPPED`, `INFO`; `level` is `MUST` or
//! `SHOULD`. `claims.supports` is null when the client claimed every feature (no
//! `--client-supports`). Fields are only ever added within a format version.

mod baseline;
mod claims;
mod github;
mod json;
mod junit;
mod list;
mod markdown;
mod pretty;
mod progress;
pub mod snapshot;

pub use crate::check::{Check, Doc, Evidence, Status};
pub use crate::rules::ids::TARGET_EXIT as TARGET_RULE;
pub use baseline::{Baseline, Verdict};
pub use github::github;
pub use json::{JSON_FORMAT, json};
pub use junit::{junit, junit_with};
pub use list::{
    LIST_FORMAT, RULES_PAGE_COMMAND, list_json, list_markdown, list_text, traceability_text,
};
pub use markdown::markdown;
pub use pretty::pretty;
pub use progress::ProgressReporter;
pub use snapshot::{SNAPSHOT_FORMAT, SnapshotOutcome, Snapshots};
