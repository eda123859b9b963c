//! The command line: exit status against the expected-failures file, and `list`.

use std::process::Command;

use crate::common;

fn conformance(args: &[&str]) -> (i32, String) {
    let out = Command::new(common::bin())
        .args(args)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn baseline(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("conformance-{}-{name}.txt", std::process::id()));
    std::fs::write(&path, text).expect("write baseline");
    path.to_string_lossy().into_owned()
}

#[test]
fn exit_status_follows_the_expected_failures_file_in_both_directions() {
    let broken = common::reference(Some("computer.thread.reuse"));
    let args = [
        "--target",
        &broken,
        "--scenario",
        "follow-up",
        "--format",
        "json",
    ];
    // A failure nobody expected.
    let (code, out) = conformance(&args);
    assert_eq!(code, 1, "{out}");
    // The same failure, listed.
    let listed = baseline("listed", "# known\nfollow-up:computer.thread.reuse\n");
    let (code, out) = conformance(&[&args[..], &["--expected-failures", &listed]].concat());
    assert_eq!(code, 0, "{out}");
    // A listed failure that now passes is stale.
    let good = common::reference(None);
    let (code, out) = conformance(&[
        "--target",
        &good,
        "--scenario",
        "follow-up",
        "--expected-failures",
        &listed,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("STALE"), "{out}");
}

#[test]
fn list_names_every_rule_and_what_is_not_yet_available() {
    let (code, out) = conformance(&["list"]);
    assert_eq!(code, 0);
    for rule in conformance::rules::registry() {
        assert!(out.contains(rule.id), "{} missing from list", rule.id);
    }
    for (family, _) in conformance::rules::UNAVAILABLE_FAMILIES {
        assert!(
            out.contains(&format!("  {family}: ")),
            "{family} missing: {out}"
        );
    }
    // The modern-era families and the Agent API suite are rules now, listed with the scenarios
    // they run in.
    for family in ["tasks", "elicitation", "agent"] {
        assert!(
            !out.contains(&format!("  {family}: ")),
            "{family} still unavailable: {out}"
        );
    }
    assert!(
        out.contains(
            "scenarios: task-question, task-approval, task-sign-in, task-follow-up, task-cancel"
        ),
        "{out}"
    );
    assert!(
        out.contains("Scenarios (suite agent):\n  agent-approval "),
        "{out}"
    );
    assert!(
        out.contains("scenarios: agent-approval, agent-approval-deny, agent-approval-zdr"),
        "{out}"
    );
    assert!(
        out.contains("from: Agent API, MCP tool § Approvals: Approve or deny the call"),
        "{out}"
    );
    assert!(!out.contains("Not yet available"), "{out}");
    assert!(out.contains("task-cancel                        the user stops a long task: tasks/cancel only acknowledges, cancel_task stops it [2026-07-28]"), "{out}");
}

#[test]
fn list_traceability_prints_every_duty_with_its_rules_or_reason() {
    let out = Command::new(common::bin())
        .args(["list", "--traceability"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let out = String::from_utf8_lossy(&out.stdout);
    let (judged, total) = conformance::traceability::judged();
    assert!(
        out.starts_with(&format!(
            "Client duties of the documents: {judged} of {total} judged."
        )),
        "{out}"
    );
    assert!(out.contains("  C01 § Conversation Threading\n"), "{out}");
    assert!(out.contains("judged by: computer.thread.reuse"), "{out}");
    assert!(out.contains("not observable: "), "{out}");
    assert!(out.contains("Agent API, Connectors\n"), "{out}");
    let json = Command::new(common::bin())
        .args(["list", "--format", "json"])
        .output()
        .expect("runs");
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    let duties = json["duties"].as_array().expect("a duties array");
    assert_eq!(duties.len(), total);
    assert_eq!(duties[0]["rules"][0], "computer.thread.reuse");
    assert_eq!(duties[0]["status"], "judged");
}

#[test]
fn an_unknown_scenario_or_rule_is_refused_with_a_sentence() {
    let out = Command::new(common::bin())
        .args(["--target", "true", "--scenario", "nope"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown scenario `nope`"));
    let out = Command::new(common::bin())
        .args(["reference-client", "--break", "nope", "http://127.0.0.1:1/"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown rule `nope`"));
}

#[test]
fn the_readme_links_the_adapters_ci_runs_instead_of_copying_them() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../README.md")).expect("README");
    for adapter in ["python_sdk.py", "agent_python_sdk.py"] {
        let path = format!("conformance/adapters/{adapter}");
        assert!(
            readme.contains(&format!("]({path})")),
            "the README links {path}"
        );
        let code = std::fs::read_to_string(root.join("adapters").join(adapter)).expect("adapter");
        let first_line = code
            .lines()
            .next()
            .expect("the adapter starts with its docstring");
        assert!(
            !readme.contains(first_line),
            "the README copies {path} instead of linking it"
        );
    }
}

#[test]
fn a_named_agent_scenario_runs_without_suite_agent() {
    let target = common::reference(Some("agent.stream.resume"));
    let (code, out) = conformance(&[
        "--target",
        &target,
        "--scenario",
        "agent-stream-resume",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1, "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON report");
    assert_eq!(report["summary"]["scenarios"], 1, "{out}");
    assert!(out.contains("created the response again"), "{out}");
}

/// `--jobs 0` and a non-positive `--time-scale` are refused before anything starts, with one
/// sentence on stderr and exit status 2.
#[test]
fn bad_jobs_and_time_scale_values_are_refused_with_a_sentence() {
    let target = common::reference(None);
    for (flag, value, says) in [
        ("--jobs", "0", "--jobs must be at least 1"),
        ("--time-scale", "0", "--time-scale must be positive"),
        ("--time-scale", "-3", "--time-scale must be positive"),
    ] {
        let out = Command::new(common::bin())
            .args(["--target", &target, "--scenario", "follow-up"])
            .arg(format!("{flag}={value}"))
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {stderr}");
        assert!(
            stderr.starts_with("conformance: ") && stderr.contains(says),
            "{flag} {value}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{flag} {value} ran something");
    }
}

/// Runs `conformance ARGS`: (exit status, stdout, stderr).
fn conformance_with_stderr(args: &[&str]) -> (i32, String, String) {
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

/// A `--target` the shell cannot find is no client that failed: exit 3, after the report, with
/// the shell's own words (without the `URL: 1:` prefix `sh -c` puts before them).
#[test]
fn a_target_the_shell_cannot_run_is_a_target_error_with_exit_status_3() {
    let (code, out, err) = conformance_with_stderr(&[
        "--target",
        "no-such-client-command-xyz --flag",
        "--scenario",
        "follow-up",
        "--scenario",
        "sleep",
        "--format",
        "json",
    ]);
    assert_eq!(code, 3, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("the report still printed");
    assert_eq!(report["summary"]["scenarios"], 2);
    let last = err.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "conformance: target error: the target `no-such-client-command-xyz --flag` could not be \
         run in any of the 2 scenario(s): exit status 127: no-such-client-command-xyz: not found; \
         check the --target command (it runs through `sh -c` with the MCP URL appended)"
    );
}

/// A target that starts in one scenario and not in another is a client to judge (exit 1).
#[test]
fn a_target_that_runs_in_some_scenarios_is_judged_not_refused() {
    let target = format!(
        "if [ \"$MCP_CONFORMANCE_SCENARIO\" = sleep ]; then exec no-such-client-command-xyz; fi; {}",
        common::reference(None)
    );
    let (code, _, err) = conformance_with_stderr(&[
        "--target",
        &target,
        "--scenario",
        "follow-up",
        "--scenario",
        "sleep",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(!err.contains("target error"), "{err}");
}

/// What the runner writes and cannot is the runner's problem (exit 4), a file the user named
/// and that cannot be read is theirs (exit 2); each says which in its first words.
#[test]
fn usage_and_infrastructure_errors_have_their_own_exit_status() {
    let target = common::reference(None);
    let (code, out, err) = conformance_with_stderr(&[
        "--target",
        &target,
        "--scenario",
        "follow-up",
        "--output",
        "/dev/null/results",
    ]);
    assert_eq!(code, 4, "{out}{err}");
    assert!(
        err.contains("conformance: infrastructure error: /dev/null/results"),
        "{err}"
    );
    let (code, out, err) = conformance_with_stderr(&[
        "--target",
        &target,
        "--expected-failures",
        "/nonexistent/expected-failures.txt",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "nothing ran: {out}");
    assert!(
        err.starts_with("conformance: usage error: /nonexistent/expected-failures.txt: "),
        "{err}"
    );
}

#[test]
fn help_lists_every_exit_status() {
    let (code, out, _) = conformance_with_stderr(&["--help"]);
    assert_eq!(code, 0);
    for line in [
        "  0  passed",
        "  1  the client failed",
        "  2  usage error",
        "  3  target error",
        "  4  infrastructure error",
    ] {
        assert!(out.contains(line), "--help lacks `{line}`: {out}");
    }
}
