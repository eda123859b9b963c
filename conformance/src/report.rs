//! Reports: the check record, pretty terminal output, the JSON format, JUnit XML, and the
//! expected-failures baseline that decides the exit status.
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
//!     "target": {"exit_code": 0, "timed_out": false, "spawn_error": null, "stdout_bytes": 0, "stderr_bytes": 0, "stderr_tail": ""},
//!     "checks": [{
//!       "id": "follow-up:computer.thread.reuse", "rule": "computer.thread.reuse", "level": "MUST",
//!       "status": "SUCCESS", "scenario": "follow-up",
//!       "doc": {"document": "computer-mcp-server.txt", "section": "Conversation Threading", "quote": "..."},
//!       "details": "follow-ups reused thread ...",
//!       "evidence": [{"seq": 4, "exchange": "#4 call_perplexity_computer(...) -> event complete, task_status completed"}]
//!     }]
//!   }],
//!   "baseline": {"unexpected_failures": [], "stale_entries": []}
//! }
//! ```
//!
//! `status` is one of `SUCCESS`, `FAILURE`, `WARNING`, `SKIPPED`, `INFO`; `level` is `MUST` or
//! `SHOULD`. Fields are only ever added within a format version.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;
use serde_json::{Value, json};

use crate::check::RunResult;
pub use crate::check::{Check, Doc, Evidence, Status};
use crate::error::Error;
use crate::rules::UNAVAILABLE_FAMILIES;
pub use crate::rules::ids::TARGET_EXIT as TARGET_RULE;

/// The id of the JSON format.
pub const JSON_FORMAT: &str = "conformance-report/1";

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
            let _ = writeln!(
                out,
                "  {} {:<8} {}",
                symbol(c.status),
                c.status.word(),
                c.rule
            );
            if c.status != Status::Success {
                let _ = writeln!(out, "      {}", c.details);
                let _ = writeln!(
                    out,
                    "      {} § {}: \"{}\"",
                    c.doc.document, c.doc.section, c.doc.quote
                );
                for e in &c.evidence {
                    let _ = writeln!(out, "      > {}", e.exchange);
                }
            }
        }
    }
    let s = run.summary();
    let _ = writeln!(
        out,
        "\n{} scenarios, {} checks: {} passed, {} failed, {} warnings ({} ms)",
        s.scenarios, s.checks, s.success, s.failure, s.warning, run.duration_ms
    );
    for (family, reason) in UNAVAILABLE_FAMILIES {
        let _ = writeln!(out, "not yet available: {family} ({reason})");
    }
    for f in &baseline.expected_failures {
        let _ = writeln!(out, "expected failure: {f}");
    }
    for f in &baseline.unexpected_failures {
        let _ = writeln!(out, "FAILED: {f}");
    }
    for f in &baseline.stale_entries {
        let _ = writeln!(out, "STALE expected-failures entry (now passing): {f}");
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
        },
    })
}

/// The JUnit XML report: a testsuite per scenario, a testcase per check.
pub fn junit(run: &RunResult) -> Result<String, Error> {
    let mut report = Report::new("conformance");
    report.set_time(std::time::Duration::from_millis(run.duration_ms));
    for scenario in &run.scenarios {
        let mut suite = TestSuite::new(scenario.name.as_str());
        suite.set_time(std::time::Duration::from_millis(scenario.duration_ms));
        for c in &scenario.checks {
            let mut status = match c.status {
                Status::Success | Status::Info => TestCaseStatus::success(),
                Status::Skipped => TestCaseStatus::skipped(),
                Status::Failure | Status::Warning => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_type(c.status.word());
                    s
                }
            };
            if !matches!(c.status, Status::Success | Status::Info) {
                status.set_message(c.details.as_str());
                let evidence: Vec<&str> = c.evidence.iter().map(|e| e.exchange.as_str()).collect();
                status.set_description(format!(
                    "{}\n{} § {}: \"{}\"\n{}",
                    c.details,
                    c.doc.document,
                    c.doc.section,
                    c.doc.quote,
                    evidence.join("\n")
                ));
            }
            let mut case = TestCase::new(c.rule.as_str(), status);
            case.set_classname(format!("conformance.{}", scenario.name));
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    without_disabled(&report.to_string()?)
}

/// Drops the `disabled` attribute quick-junit writes on every `testsuite`: the Jenkins
/// junit-10.xsd that CI validates against (`conformance/schema/`) does not allow it, and it is
/// always 0 here.
fn without_disabled(xml: &str) -> Result<String, Error> {
    use quick_xml::events::{BytesStart, Event};
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut writer = quick_xml::Writer::new(Vec::new());
    let malformed =
        |e: &dyn std::fmt::Display| Error::JunitSchema(format!("re-reading the report: {e}"));
    loop {
        let event = reader.read_event().map_err(|e| malformed(&e))?;
        let event = match event {
            Event::Eof => break,
            Event::Start(e) if e.name().as_ref() == b"testsuite" => {
                let mut kept = BytesStart::new("testsuite");
                for attr in e.attributes() {
                    let attr = attr.map_err(|e| malformed(&e))?;
                    if attr.key.as_ref() != b"disabled" {
                        kept.push_attribute(attr);
                    }
                }
                Event::Start(kept)
            }
            other => other,
        };
        writer.write_event(event).map_err(|e| malformed(&e))?;
    }
    String::from_utf8(writer.into_inner()).map_err(|e| malformed(&e))
}

/// The expected-failures baseline: one entry per line, `scenario` (any failure in it) or
/// `scenario:rule-id`; `#` starts a comment.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    entries: Vec<String>,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::File {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text).map_err(|(line, message)| Error::Baseline {
            path: path.to_owned(),
            line,
            message,
        })
    }

    /// Parses baseline text; errors carry the 1-based line.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            let line = line.strip_prefix("- ").unwrap_or(line).trim();
            if line.is_empty() {
                continue;
            }
            if line.contains(char::is_whitespace) || line.matches(':').count() > 1 {
                return Err((
                    i + 1,
                    format!("`{line}` is not `scenario` or `scenario:rule-id`"),
                ));
            }
            entries.push(line.to_owned());
        }
        Ok(Self { entries })
    }

    /// Compares a run with the baseline.
    pub fn verdict(&self, run: &RunResult) -> Verdict {
        let failed: Vec<&Check> = run
            .checks()
            .filter(|c| c.status == Status::Failure)
            .collect();
        let covers = |entry: &str, c: &Check| entry == c.id || entry == c.scenario;
        let mut verdict = Verdict::default();
        for c in &failed {
            if self.entries.iter().any(|e| covers(e, c)) {
                verdict.expected_failures.push(c.id.clone());
            } else {
                verdict.unexpected_failures.push(c.id.clone());
            }
        }
        let ran: BTreeSet<&str> = run.scenarios.iter().map(|s| s.name.as_str()).collect();
        for e in &self.entries {
            let scenario = e.split(':').next().unwrap_or_default();
            if ran.contains(scenario) && !failed.iter().any(|c| covers(e, c)) {
                verdict.stale_entries.push(e.clone());
            }
        }
        verdict
    }
}

/// How a run compares with the baseline.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Verdict {
    /// Failures the baseline lists.
    pub expected_failures: Vec<String>,
    /// Failures it does not list.
    pub unexpected_failures: Vec<String>,
    /// Entries that did not fail (now passing): strict in both directions.
    pub stale_entries: Vec<String>,
}

impl Verdict {
    /// Exit status 0 only when nothing failed unexpectedly and no listed failure passes.
    pub fn passed(&self) -> bool {
        self.unexpected_failures.is_empty() && self.stale_entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_lines_are_scenarios_or_checks() {
        let b = Baseline::parse("# comment\nsleep\n- cancel:computer.cancel.confirm\n\n")
            .expect("parses");
        assert_eq!(b.entries, ["sleep", "cancel:computer.cancel.confirm"]);
        assert_eq!(
            Baseline::parse("a: b").map(|_| ()),
            Err((1, "`a: b` is not `scenario` or `scenario:rule-id`".into()))
        );
    }
}
