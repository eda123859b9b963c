//! What a CI pipeline relies on: shards that cover every scenario once, baselines written from a
//! run and validated, reports (JUnit, Markdown, GitHub annotations) that agree with the exit
//! status, `--strict`, `list --format json`, and refusals with a sentence and exit status 2.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

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

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("conformance-ci-{}-{name}", std::process::id()))
}

/// A client that breaks `computer.thread.reuse` (a MUST) in `follow-up` and
/// `computer.progress.token` (a SHOULD: a warning) everywhere else.
fn mixed_client() -> String {
    format!(
        "if [ \"$MCP_CONFORMANCE_SCENARIO\" = follow-up ]; then B=computer.thread.reuse; \
         else B=computer.progress.token; fi; {} reference-client --break $B",
        common::bin()
    )
}

fn scenarios_of(report: &str) -> Vec<String> {
    let report: Value = serde_json::from_str(report).expect("JSON report");
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn two_shards_run_every_scenario_exactly_once() {
    let mut seen = Vec::new();
    for shard in ["count:1/2", "count:2/2"] {
        let (code, out, err) = conformance(&[
            "--target",
            "true",
            "--suite",
            "all",
            "--partition",
            shard,
            "--format",
            "json",
        ]);
        assert_eq!(code, 1, "{err}");
        seen.push(scenarios_of(&out));
    }
    let (first, second) = (&seen[0], &seen[1]);
    assert!(first.iter().all(|s| !second.contains(s)), "{seen:?}");
    let all: BTreeSet<&String> = first.iter().chain(second).collect();
    assert_eq!(all.len(), SCENARIOS.len());
    assert!(first.len().abs_diff(second.len()) <= 1);
}

#[test]
fn a_baseline_written_from_a_run_is_accepted_by_the_next_and_keeps_entries_not_run() {
    let file = temp("written.expected-failures");
    let path = file.to_string_lossy().into_owned();
    let broken = common::reference(Some("computer.thread.reuse"));
    let args = [
        "--target",
        &broken,
        "--scenario",
        "follow-up",
        "--scenario",
        "sleep",
    ];
    let (code, _, _) = conformance(&[&args[..], &["--write-expected-failures", &path]].concat());
    assert_eq!(
        code, 1,
        "the run that writes the baseline is judged as usual"
    );
    let written = std::fs::read_to_string(&file).expect("written");
    let entries: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(entries, ["follow-up:computer.thread.reuse"], "{written}");
    // The next run accepts it.
    let (code, out, _) = conformance(&[&args[..], &["--expected-failures", &path]].concat());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("expected failure: follow-up:computer.thread.reuse"),
        "{out}"
    );
    // A run of another scenario reports the entry as not run, not stale, and a baseline it
    // writes keeps the entry.
    let rewritten = temp("rewritten.expected-failures");
    let (code, out, _) = conformance(&[
        "--target",
        &common::reference(None),
        "--scenario",
        "sleep",
        "--expected-failures",
        &path,
        "--write-expected-failures",
        &rewritten.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("STALE"), "{out}");
    assert!(
        out.contains(
            "expected-failures entry not judged (its scenario did not run): follow-up:computer.thread.reuse"
        ),
        "{out}"
    );
    let kept = std::fs::read_to_string(&rewritten).expect("rewritten");
    assert!(
        kept.contains("\nfollow-up:computer.thread.reuse\n"),
        "{kept}"
    );
    let _ = std::fs::remove_file(&file);
    let _ = std::fs::remove_file(&rewritten);
}

#[test]
fn bad_values_are_refused_with_exit_status_2_and_a_sentence_naming_them() {
    let file = temp("typo.expected-failures");
    let path = file.to_string_lossy().into_owned();
    for (text, said) in [
        (
            "# ok\nfollow-up:computer.thread.reuz\n",
            format!("{path}:2: unknown rule `computer.thread.reuz`"),
        ),
        (
            "folow-up\n",
            format!("{path}:1: unknown scenario `folow-up`"),
        ),
    ] {
        std::fs::write(&file, text).expect("write");
        let (code, _, err) = conformance(&["--target", "true", "--expected-failures", &path]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&said), "{err}");
    }
    let _ = std::fs::remove_file(&file);
    for (args, said) in [
        (
            &["--jobs", "0"][..],
            "--jobs must be at least 1 (the number of scenarios run at once)",
        ),
        (
            &["--partition", "3/2"][..],
            "--partition `3/2`: the shard must be between 1 and 2",
        ),
        (&["--scenario", "nope"][..], "unknown scenario `nope`"),
        (
            &["--format", "xml"][..],
            "--format must be one of pretty, json, junit, markdown, github, not `xml`",
        ),
    ] {
        let (code, _, err) = conformance(&[&["--target", "true"][..], args].concat());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
}

#[test]
fn markdown_and_github_outputs_agree_with_the_exit_status() {
    let client = mixed_client();
    let args = [
        "--target",
        &client,
        "--scenario",
        "follow-up",
        "--scenario",
        "sleep",
    ];
    let (code, out, _) = conformance(&[&args[..], &["--format", "markdown"]].concat());
    assert_eq!(code, 1);
    assert!(out.starts_with("## Conformance: FAILED\n"), "{out}");
    assert!(out.contains("| `follow-up` | ❌ failed |"), "{out}");
    assert!(out.contains("| `sleep` | ⚠️ warning |"), "{out}");
    assert!(
        out.contains("**FAILURE** `follow-up:computer.thread.reuse` (MUST, fails the run)"),
        "{out}"
    );
    let (code, out, _) = conformance(&[&args[..], &["--format", "github"]].concat());
    assert_eq!(code, 1);
    let commands: Vec<&str> = out.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), 2, "{out}");
    assert!(
        commands[0].starts_with(
            "::error title=FAILURE follow-up%3Acomputer.thread.reuse::a follow-up did not carry"
        ),
        "{out}"
    );
    assert!(
        commands[1].starts_with("::warning title=WARNING sleep%3Acomputer.progress.token::"),
        "{out}"
    );
    assert!(out.contains("OVERALL: FAILED"), "{out}");
}

#[test]
fn list_json_states_its_format_and_names_every_scenario_and_rule() {
    let (code, out, _) = conformance(&["list", "--format", "json"]);
    assert_eq!(code, 0);
    let list: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(list["format"], conformance::report::LIST_FORMAT);
    let scenarios = list["scenarios"].as_array().expect("scenarios");
    assert_eq!(scenarios.len(), SCENARIOS.len());
    let task = scenarios
        .iter()
        .find(|s| s["name"] == "task-cancel")
        .expect("task-cancel");
    assert_eq!(task["suite"], "computer");
    assert_eq!(task["era"], "modern");
    assert_eq!(task["flow"], "tasks");
    assert!(task["description"].as_str().is_some_and(|d| !d.is_empty()));
    let rules = list["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), conformance::rules::registry().len());
    let reuse = rules
        .iter()
        .find(|r| r["id"] == "computer.thread.reuse")
        .expect("rule");
    assert_eq!(reuse["level"], "MUST");
    assert_eq!(reuse["section"], "Conversation Threading");
    assert_eq!(
        reuse["scenarios"],
        serde_json::json!(["follow-up", "two-factor-required", "thread-assets"])
    );
    for key in ["document", "quote", "summary"] {
        assert!(reuse[key].as_str().is_some_and(|v| !v.is_empty()), "{key}");
    }
}

#[test]
fn a_failed_target_shows_the_start_and_the_end_of_its_stderr() {
    let target = "echo 'Unknown scenario: follow-up' >&2; \
                  for i in $(seq 1 30); do echo \"  --option-$i\" >&2; done; exit 2; :";
    let (code, out, _) = conformance(&[
        "--target",
        target,
        "--scenario",
        "follow-up",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&out).expect("JSON");
    let check = &report["scenarios"][0]["checks"][0];
    assert_eq!(check["rule"], "target.exit");
    let details = check["details"].as_str().unwrap_or_default();
    assert!(
        details.starts_with(
            "the target exited with status 2; its stderr began with: Unknown scenario: follow-up\n"
        ),
        "{details}"
    );
    assert!(details.ends_with("  --option-30"), "{details}");
}
