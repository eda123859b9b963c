//! The JUnit XML report, through quick-junit, kept within the Jenkins junit-10.xsd vendored in
//! `conformance/schema/`.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::check::{RunResult, Status};
use crate::error::Error;

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
