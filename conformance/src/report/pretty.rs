//! The pretty terminal report: a line per check, the details of what did not pass, the totals
//! and the verdict.

use std::fmt::Write as _;

use crate::check::{RunResult, Status};
use crate::rules::UNAVAILABLE_FAMILIES;

use super::baseline::Verdict;

fn symbol(status: Status) -> &'static str {
    match status {
        Status::Success => "✓",
        Status::Failure => "✗",
        Status::Warning => "!",
        Status::Skipped => "-",
        Status::Info => "i",
    }
}

/// The pretty terminal report.
pub fn pretty(run: &RunResult, baseline: &Verdict) -> String {
    let mut out = String::new();
    for scenario in &run.scenarios {
        let failed = scenario
            .checks
            .iter()
            .filter(|c| c.status != Status::Success)
            .count();
        let _ = writeln!(
            out,
            "{} {} ({} checks, {} ms)",
            if failed == 0 { "PASS" } else { "FAIL" },
            scenario.name,
            scenario.checks.len(),
            scenario.duration_ms
        );
        for c in &scenario.checks {
            if c.status == Status::Success {
                let _ = writeln!(
                    out,
                    "  {} {:<8} {}",
                    symbol(c.status),
                    c.status.word(),
                    c.rule
                );
                continue;
            }
            // One line per failure (what happened, what was expected, the fix), then its few
            // exchanges and the passage it comes from.
            let _ = writeln!(
                out,
                "  {} {:<8} {}: {}",
                symbol(c.status),
                c.status.word(),
                c.rule,
                c.details
            );
            for e in &c.evidence {
                let _ = writeln!(out, "      > {}", e.exchange);
            }
            let _ = writeln!(
                out,
                "      {} § {}: \"{}\"",
                c.doc.document, c.doc.section, c.doc.quote
            );
        }
    }
    let s = run.summary();
    let _ = writeln!(
        out,
        "\n{} scenarios, {} checks: {} passed, {} failed, {} warnings ({} ms)",
        s.scenarios, s.checks, s.success, s.failure, s.warning, run.duration_ms
    );
    for line in super::claims::lines(&run.claims, baseline) {
        let _ = writeln!(out, "{line}");
    }
    for (family, reason) in UNAVAILABLE_FAMILIES {
        let _ = writeln!(out, "not yet available: {family} ({reason})");
    }
    for f in &baseline.expected_failures {
        let _ = writeln!(out, "expected failure: {f}");
    }
    for f in &baseline.unexpected_failures {
        let _ = writeln!(out, "FAILED: {f}");
    }
    if baseline.strict && !baseline.unexpected_failures.is_empty() {
        let _ = writeln!(out, "(--strict: warnings fail the run)");
    }
    for f in &baseline.stale_entries {
        let _ = writeln!(out, "STALE expected-failures entry (now passing): {f}");
    }
    for f in &baseline.not_run {
        let _ = writeln!(
            out,
            "expected-failures entry not judged (its scenario did not run): {f}"
        );
    }
    let _ = writeln!(
        out,
        "{}",
        if baseline.passed() {
            "OVERALL: PASSED"
        } else {
            "OVERALL: FAILED"
        }
    );
    out
}
