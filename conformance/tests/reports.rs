//! Report formats: the JSON report is snapshot-tested; the JUnit report is well-formed XML with
//! a testsuite per scenario and a testcase per check.

use conformance::report::{self, Baseline, Status};
use quick_xml::events::Event;
use regex::Regex;
use serde_json::Value;

use crate::common;

const SCENARIOS: &[&str] = &["ask-user-question", "confirm-action"];

/// A run where the question rule is broken, so the report shows a failure with evidence.
async fn broken_run() -> conformance::runner::RunResult {
    let target = common::reference(Some("computer.question.answer"));
    let mut options = common::options(&target, SCENARIOS);
    options.suite = "computer".into();
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

/// For each element the vendored junit-10.xsd declares: its attributes and which are required.
fn schema_attributes() -> std::collections::BTreeMap<String, Vec<(String, bool)>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let xsd = std::fs::read_to_string(root.join("schema/junit-10.xsd")).expect("vendored XSD");
    let mut reader = quick_xml::Reader::from_str(&xsd);
    let mut declared = std::collections::BTreeMap::new();
    // The top-level xs:element being read (attributes belong to the innermost named element).
    let mut current: Vec<String> = Vec::new();
    loop {
        let event = reader.read_event().expect("well-formed XSD");
        let (e, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) if e.name().as_ref() == b"xs:element" => {
                current.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let attr = |key: &str| {
            e.attributes()
                .filter_map(Result::ok)
                .find(|a| a.key.as_ref() == key.as_bytes())
                .map(|a| String::from_utf8_lossy(&a.value).into_owned())
        };
        match e.name().as_ref() {
            b"xs:element" if !empty => {
                let name = attr("name").unwrap_or_default();
                declared.entry(name.clone()).or_insert_with(Vec::new);
                current.push(name);
            }
            b"xs:element" => {
                if let Some(name) = attr("name") {
                    declared.entry(name).or_insert_with(Vec::new);
                }
            }
            b"xs:attribute" => {
                if let (Some(owner), Some(name)) = (current.last(), attr("name")) {
                    let required = attr("use").as_deref() == Some("required");
                    declared
                        .entry(owner.clone())
                        .or_insert_with(Vec::new)
                        .push((name, required));
                }
            }
            _ => {}
        }
    }
    declared
}

/// CI validates the report with a full XSD validator (`conformance/schema/validate_junit.py`);
/// this is the part a Rust test can check without one: every element is declared by the
/// vendored schema, carries only its attributes and all of its required ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_junit_report_uses_only_what_the_vendored_junit_schema_declares() {
    let declared = schema_attributes();
    assert!(declared["testsuite"].iter().any(|(a, _)| a == "failures"));
    let run = broken_run().await;
    let xml = report::junit(&run).expect("junit");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut seen = 0;
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => {
                seen += 1;
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let allowed = declared
                    .get(&name)
                    .unwrap_or_else(|| panic!("<{name}> is not declared by junit-10.xsd"));
                let present: Vec<String> = e
                    .attributes()
                    .filter_map(Result::ok)
                    .map(|a| String::from_utf8_lossy(a.key.as_ref()).into_owned())
                    .collect();
                for a in &present {
                    assert!(
                        allowed.iter().any(|(n, _)| n == a),
                        "<{name} {a}=...> is not allowed by junit-10.xsd"
                    );
                }
                for (a, required) in allowed {
                    assert!(
                        !required || present.contains(a),
                        "<{name}> lacks the required {a}"
                    );
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(seen > 3, "{xml}");
}

/// A green run (exit 0) with an expected failure and a warning: `follow-up` breaks
/// `computer.thread.reuse` (listed in the baseline), `sleep` warns on `computer.progress.token`.
async fn green_run_with_an_expected_failure_and_a_warning()
-> (conformance::runner::RunResult, Baseline) {
    let target = format!(
        "if [ \"$MCP_CONFORMANCE_SCENARIO\" = follow-up ]; then B=computer.thread.reuse; \
         else B=computer.progress.token; fi; {} reference-client --break $B",
        common::bin()
    );
    let mut options = common::options(&target, &["follow-up", "sleep"]);
    options.suite = "computer".into();
    let run = common::run(&options).await;
    let baseline = Baseline::parse("follow-up:computer.thread.reuse\n").expect("baseline");
    (run, baseline)
}

/// Every element of `xml` with its attributes, in document order.
fn elements(xml: &str) -> Vec<(String, std::collections::BTreeMap<String, String>)> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut found = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => {
                let attrs = e
                    .attributes()
                    .filter_map(Result::ok)
                    .map(|a| {
                        (
                            String::from_utf8_lossy(a.key.as_ref()).into_owned(),
                            String::from_utf8_lossy(&a.value).into_owned(),
                        )
                    })
                    .collect();
                found.push((
                    String::from_utf8_lossy(e.name().as_ref()).into_owned(),
                    attrs,
                ));
            }
            Event::Eof => break,
            _ => {}
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_junit_of_a_green_run_has_no_failure_and_a_time_on_every_testcase() {
    let (run, baseline) = green_run_with_an_expected_failure_and_a_warning().await;
    let verdict = baseline.verdict(&run);
    assert!(verdict.passed(), "{verdict:?}");
    assert_eq!(run.summary().failure, 1);
    assert!(run.summary().warning >= 1);
    let xml = report::junit_with(&run, &verdict).expect("junit");
    let declared = schema_attributes();
    let elements = elements(&xml);
    for (name, attrs) in &elements {
        let allowed = declared
            .get(name)
            .unwrap_or_else(|| panic!("<{name}> is not declared by junit-10.xsd"));
        for a in attrs.keys() {
            assert!(
                allowed.iter().any(|(n, _)| n == a),
                "<{name} {a}> not allowed"
            );
        }
        for (a, required) in allowed {
            assert!(!required || attrs.contains_key(a), "<{name}> lacks {a}");
        }
    }
    assert!(!xml.contains("<failure"), "{xml}");
    let cases: Vec<_> = elements.iter().filter(|(n, _)| n == "testcase").collect();
    assert_eq!(cases.len(), run.summary().checks);
    assert!(cases.iter().all(|(_, a)| a.contains_key("time")), "{xml}");
    let skipped: Vec<_> = elements.iter().filter(|(n, _)| n == "skipped").collect();
    assert_eq!(skipped.len(), 1, "{xml}");
    assert!(
        skipped[0].1["message"].starts_with(
            "expected failure (the expected-failures entry `follow-up:computer.thread.reuse`): "
        ),
        "{xml}"
    );
    assert!(
        xml.contains("<system-out>WARNING: ")
            && xml.contains("waiting calls sent no params._meta.progressToken"),
        "the warning passes with its details in system-out: {xml}"
    );
    // The suites' failure counts agree: none.
    assert!(
        elements
            .iter()
            .filter(|(n, _)| n == "testsuite")
            .all(|(_, a)| a["failures"] == "0"),
        "{xml}"
    );
    // With --strict the warning fails the run, and the report says so.
    let strict = baseline.verdict_with(&run, true);
    assert!(!strict.passed());
    let xml = report::junit_with(&run, &strict).expect("junit");
    let failures: Vec<_> = self::elements(&xml)
        .into_iter()
        .filter(|(n, _)| n == "failure")
        .collect();
    assert!(
        !failures.is_empty() && failures.iter().all(|(_, a)| a["type"] == "WARNING"),
        "{xml}"
    );
}
