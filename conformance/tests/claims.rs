//! `--client-supports` and `--client-profile`: a client is judged on the scenarios its claimed
//! features cover, the report says what it left out and why, and `--strict-coverage` fails
//! when the claims leave documented duties unjudged.

use std::process::Command;

use conformance::profile::Feature;
use conformance::runner::SCENARIOS;
use serde_json::Value;

use crate::common;

/// Runs `conformance ARGS`: (exit status, stdout, stderr).
fn conformance(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::bin())
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("conformance-claims-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The reference client as a tools-only client: it claims none of the optional features, so
/// only the handshake-era tools scenarios run, and every check of them passes.
#[test]
fn a_tools_only_client_is_judged_only_on_what_it_claims_and_all_green() {
    let out = temp("tools-only");
    let target = common::reference(None);
    let (code, pretty, err) = conformance(&[
        "--target",
        &target,
        "--client-supports",
        "none",
        "--output",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{pretty}{err}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("report.json")).expect("report.json"),
    )
    .expect("JSON");
    let summary = &report["summary"];
    assert!(summary["checks"].as_u64() > Some(0));
    assert_eq!(
        summary["success"], summary["checks"],
        "all green: {summary}"
    );
    let ran: Vec<&str> = report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    let tools_only: Vec<&str> = SCENARIOS
        .iter()
        .filter(|s| s.suite == "computer" && Feature::needed_by(s).is_empty())
        .map(|s| s.name)
        .collect();
    assert_eq!(ran, tools_only);
    // Everything else of the suite is listed as left out, with what it needs.
    let claims = &report["claims"];
    assert_eq!(claims["supports"], serde_json::json!([]));
    let left_out = claims["left_out"].as_array().expect("left_out");
    let computer = SCENARIOS.iter().filter(|s| s.suite == "computer").count();
    assert_eq!(left_out.len() + ran.len(), computer);
    let needs = |name: &str| {
        left_out
            .iter()
            .find(|l| l["scenario"] == name)
            .map(|l| l["needs"].clone())
    };
    assert_eq!(needs("task-question"), Some(serde_json::json!(["tasks"])));
    assert_eq!(needs("sign-in"), Some(serde_json::json!(["oauth"])));
    assert_eq!(needs("attachments"), Some(serde_json::json!(["uploads"])));
    assert_eq!(
        needs("elicitation-confirm"),
        Some(serde_json::json!(["elicitation"]))
    );
    // The duties the claims leave unjudged are counted and named, and do not fail the run.
    let unjudged = claims["unjudged"].as_array().expect("unjudged");
    assert!(!unjudged.is_empty());
    assert_eq!(
        claims["duties_judged"].as_u64().unwrap_or_default() + unjudged.len() as u64,
        claims["duties_judgeable"].as_u64().unwrap_or_default()
    );
    assert!(
        pretty.contains(
            "client supports: none of the optional features (--client-supports); 21 scenario(s) left out\n  left out, needs tasks (not claimed): task-question, "
        ),
        "{pretty}"
    );
    assert!(pretty.contains("OVERALL: PASSED"), "{pretty}");
    // docs/conformance.md shows this run's end: every line it shows is this run's (up to its
    // `...`), so the figures there cannot go stale.
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/conformance.md"),
    )
    .expect("docs/conformance.md");
    let shown = docs
        .split("```text\nclient supports: ")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .map(|block| format!("client supports: {block}"))
        .expect("docs/conformance.md shows a tools-only run");
    for line in shown.lines() {
        let known = line.split("...").next().unwrap_or(line);
        assert!(
            pretty.lines().any(|l| l.starts_with(known)),
            "docs/conformance.md shows `{line}`, which this run does not print:\n{pretty}"
        );
    }
    let summary_md = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    assert!(
        summary_md.contains("### Left out by the client's claims")
            && summary_md
                .contains("- needs `oauth`: `sign-in`, `sign-in-refresh`, `sign-in-revoked`"),
        "{summary_md}"
    );
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn strict_coverage_fails_when_the_claims_leave_documented_duties_unjudged() {
    let target = common::reference(None);
    let args = [
        "--target",
        &target,
        "--scenario",
        "follow-up",
        "--scenario",
        "task-question",
        "--strict-coverage",
    ];
    let (code, out, _) =
        conformance(&[&args[..], &["--client-supports", "uploads,oauth"]].concat());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAILED (--strict-coverage): the claims leave "),
        "{out}"
    );
    assert!(out.contains("C12 (tasks)"), "{out}");
    assert!(out.contains("OVERALL: FAILED"), "{out}");
    // The JUnit report agrees: each unjudged duty is a failure.
    let (code, xml, _) = conformance(
        &[
            &args[..],
            &["--client-supports", "uploads,oauth", "--format", "junit"],
        ]
        .concat(),
    );
    assert_eq!(code, 1);
    assert!(xml.contains("<testsuite name=\"coverage\""), "{xml}");
    assert!(xml.contains("type=\"UNJUDGED\""), "{xml}");
    assert!(
        xml.contains("<testcase name=\"left-out\" classname=\"conformance.task-question\""),
        "{xml}"
    );
    // Every Computer feature claimed: the Computer document's duties are all judged.
    let (code, out, _) = conformance(
        &[
            &args[..],
            &["--client-supports", "tasks,elicitation,oauth,uploads"],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{out}");
    // Without --strict-coverage the same claims pass.
    let (code, out, _) = conformance(&[
        "--target",
        &target,
        "--scenario",
        "follow-up",
        "--client-supports",
        "uploads,oauth",
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_profile_file_claims_what_it_names_and_a_named_scenario_it_does_not_claim_is_left_out() {
    let dir = temp("profile");
    std::fs::create_dir_all(&dir).expect("dir");
    let profile = dir.join("client.profile");
    std::fs::write(&profile, "# what our client implements\ntasks\n").expect("write");
    let target = common::reference(None);
    let (code, out, err) = conformance(&[
        "--target",
        &target,
        "--client-profile",
        &profile.to_string_lossy(),
        "--scenario",
        "task-question",
        "--scenario",
        "sign-in",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["summary"]["scenarios"], 1);
    assert_eq!(report["scenarios"][0]["name"], "task-question");
    assert_eq!(report["claims"]["supports"], serde_json::json!(["tasks"]));
    assert_eq!(
        report["claims"]["left_out"],
        serde_json::json!([{"scenario": "sign-in", "needs": ["oauth"]}])
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_feature_is_a_usage_error_naming_the_known_ones() {
    let (code, out, err) = conformance(&["--target", "true", "--client-supports", "tasks,upload"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.is_empty());
    assert_eq!(
        err.trim_end(),
        "conformance: usage error: unknown feature `upload`; a client can claim tasks, \
         elicitation, oauth, uploads, agent (or none, or all)"
    );
}
