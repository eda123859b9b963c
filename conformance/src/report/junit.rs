//! The JUnit XML report, through quick-junit, kept within the Jenkins junit-10.xsd vendored in
//! `conformance/schema/`.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::check::{Check, RunResult, Status};
use crate::error::Error;
use crate::rules::ids::TARGET_EXIT;

use super::baseline::{Baseline, Verdict};

/// The JUnit XML report of a run judged with no baseline (see [`junit_with`]).
pub fn junit(run: &RunResult) -> Result<String, Error> {
    junit_with(run, &Baseline::default().verdict(run))
}

/// The JUnit XML report: a testsuite per scenario, a testcase per check, agreeing with the exit
/// status that `verdict` gives:
///
/// - a check that fails the run is a `<failure>` (its `type` `FAILURE`, or `WARNING` under
///   `--strict`);
/// - a failure the baseline expects is `<skipped>`, its message naming the entry;
/// - a warning that does not fail the run passes, the warning in `<system-out>`;
/// - every testcase has its time: `target.exit` the scenario's (the target's run), a rule the
///   time judging took, which the report rounds to 0 (rules read the recording after the
///   target ended), so a suite's time is the sum of its testcases'.
pub fn junit_with(run: &RunResult, verdict: &Verdict) -> Result<String, Error> {
    let mut report = Report::new("conformance");
    report.set_time(Duration::from_millis(run.duration_ms));
    for scenario in &run.scenarios {
        let mut suite = TestSuite::new(scenario.name.as_str());
        let scenario_time = Duration::from_millis(scenario.duration_ms);
        suite.set_time(scenario_time);
        for c in &scenario.checks {
            let mut case = TestCase::new(c.rule.as_str(), status(c, verdict));
            case.set_classname(format!("conformance.{}", scenario.name));
            case.set_time(if c.rule == TARGET_EXIT {
                scenario_time
            } else {
                Duration::ZERO
            });
            if matches!(c.status, Status::Warning | Status::Info) && !verdict.fails(c) {
                case.set_system_out(format!("{}: {}", c.status, describe(c)));
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    // What the claims left out shows as skipped, so a test reporter lists it; with
    // --strict-coverage each duty they leave unjudged fails.
    for left in &run.claims.left_out {
        let mut suite = TestSuite::new(left.scenario.as_str());
        let mut skipped = TestCaseStatus::skipped();
        skipped.set_type("left out");
        skipped.set_message(format!(
            "left out: needs {}, which the client does not claim (--client-supports)",
            left.needs.join(" and ")
        ));
        let mut case = TestCase::new("left-out", skipped);
        case.set_classname(format!("conformance.{}", left.scenario));
        case.set_time(Duration::ZERO);
        suite.add_test_case(case);
        report.add_test_suite(suite);
    }
    if verdict.strict_coverage && !run.claims.unjudged.is_empty() {
        let mut suite = TestSuite::new("coverage");
        for duty in &run.claims.unjudged {
            let mut failure = TestCaseStatus::non_success(NonSuccessKind::Failure);
            failure.set_type("UNJUDGED");
            failure.set_message(format!(
                "{} § {} is judged only in scenarios that need {}, which the client does not \
                 claim (--strict-coverage)",
                duty.document,
                duty.section,
                duty.needs.join(" or ")
            ));
            let mut case = TestCase::new(duty.id.as_str(), failure);
            case.set_classname("conformance.coverage");
            case.set_time(Duration::ZERO);
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    without_disabled(&report.to_string()?)
}

/// A check's testcase status under `verdict`.
fn status(c: &Check, verdict: &Verdict) -> TestCaseStatus {
    if verdict.fails(c) {
        let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
        s.set_type(c.status.word());
        s.set_message(c.details.as_str());
        s.set_description(describe(c));
        return s;
    }
    if let Some(entry) = verdict.expected_by(&c.id) {
        let mut s = TestCaseStatus::skipped();
        s.set_type(format!("expected {}", c.status.word()));
        s.set_message(format!(
            "expected failure (the expected-failures entry `{entry}`): {}",
            c.details
        ));
        s.set_description(describe(c));
        return s;
    }
    match c.status {
        Status::Skipped => {
            let mut s = TestCaseStatus::skipped();
            s.set_message(c.details.as_str());
            s
        }
        // A failure the verdict neither fails nor expects cannot happen; a warning passes.
        _ => TestCaseStatus::success(),
    }
}

/// What a check saw, the rule's passage and the evidence, for a failure's text.
fn describe(c: &Check) -> String {
    let mut text = format!(
        "{} ({} {})\n{} § {}: \"{}\"",
        c.details,
        c.level.word(),
        c.rule,
        c.doc.document,
        c.doc.section,
        c.doc.quote
    );
    for e in &c.evidence {
        text.push_str("\n> ");
        text.push_str(&e.exchange);
    }
    text
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
