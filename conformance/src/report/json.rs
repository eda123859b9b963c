//! The JSON report (its format is stated in the parent module's documentation).

use serde_json::{Value, json};

use crate::check::RunResult;
use crate::rules::UNAVAILABLE_FAMILIES;

use super::baseline::Verdict;

/// The id of the JSON format.
pub const JSON_FORMAT: &str = "conformance-report/1";

/// The JSON report (format [`JSON_FORMAT`]).
pub fn json(run: &RunResult, baseline: &Verdict) -> Value {
    json!({
        "format": JSON_FORMAT,
        "target": run.target,
        "suite": run.suite,
        "duration_ms": run.duration_ms,
        "summary": run.summary(),
        "unavailable": UNAVAILABLE_FAMILIES
            .iter()
            .map(|(family, reason)| json!({"family": family, "reason": reason}))
            .collect::<Vec<_>>(),
        "scenarios": run.scenarios,
        "baseline": {
            "expected_failures": baseline.expected_failures,
            "unexpected_failures": baseline.unexpected_failures,
            "stale_entries": baseline.stale_entries,
            "not_run": baseline.not_run,
            "strict": baseline.strict,
            "strict_coverage": baseline.strict_coverage,
            "unjudged_duties": baseline.unjudged_duties,
        },
        "claims": run.claims,
    })
}
