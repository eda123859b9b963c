//! Report formats: the JSON report is snapshot-tested; the JUnit report is well-formed XML with
//! a testsuite per scenario and a testcase per check.

mod common;

use conformance::report::{self, Baseline, Status};
use quick_xml::events::Event;
use regex::Regex;
use serde_json::Value;

const SCENARIOS: &[&str] = &["ask-user-question", "confirm-action"];

/// A run where the question rule is broken, so the report shows a failure with evidence.
async fn broken_run() -> conformance::runner::RunResult {
    let target = common::reference(Some("computer.question.answer"));
    let mut options = common::options(&target, SCENARIOS);
    options.jobs = 1;
    common::run(&options).await
}

/// Replaces what changes from run to run: ids, ports, durations, the binary's path.
fn stable(report: &Value) -> Value {
    let text = serde_json::to_string(report).expect("serializes");
    let text = text.replace(common::bin(), "[conformance]");
    let uuid =
        Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").expect("regex");
    let text = uuid.replace_all(&text, "[uuid]");
    let ms = Regex::new(r#""duration_ms":\d+"#).expect("regex");
    let text = ms.replace_all(&text, r#""duration_ms":"[ms]""#);
    serde_json::from_str(&text).expect("still JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_json_report_keeps_its_documented_shape() {
    let run = broken_run().await;
    let baseline =
        Baseline::parse("ask-user-question:computer.question.answer\n").expect("baseline");
    let verdict = baseline.verdict(&run);
    assert!(verdict.passed(), "{verdict:?}");
    let json = report::json(&run, &verdict);
    assert_eq!(json["format"], report::JSON_FORMAT);
    insta::with_settings!({snapshot_path => "../../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("conformance-json-report", stable(&json));
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_junit_report_has_a_testsuite_per_scenario_and_a_testcase_per_check() {
    let run = broken_run().await;
    let xml = report::junit(&run).expect("junit");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut suites = Vec::new();
    let mut cases = 0;
    let mut failures = Vec::new();
    let mut root = None;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let attr = |key: &str| {
                    e.attributes()
                        .filter_map(Result::ok)
                        .find(|a| a.key.as_ref() == key.as_bytes())
                        .map(|a| String::from_utf8_lossy(&a.value).into_owned())
                };
                if root.is_none() {
                    root = Some(name.clone());
                }
                match name.as_str() {
                    "testsuite" => {
                        assert!(
                            attr("tests").is_some()
                                && attr("failures").is_some()
                                && attr("errors").is_some()
                        );
                        suites.push(attr("name").expect("suite name"));
                    }
                    "testcase" => {
                        assert!(attr("name").is_some() && attr("classname").is_some());
                        cases += 1;
                    }
                    "failure" => failures.push(attr("message").expect("failure message")),
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(root.as_deref(), Some("testsuites"));
    assert_eq!(suites, SCENARIOS);
    assert_eq!(cases, run.summary().checks);
    let failed = run.checks().filter(|c| c.status == Status::Failure).count();
    assert_eq!(failures.len(), failed);
    assert_eq!(failed, 1);
    assert!(failures[0].contains("followup_uuid"), "{failures:?}");
}
