//! `--snapshots DIR`: a missing snapshot is written (and refused in CI, as insta refuses it), the
//! same traffic matches it, changed traffic fails the run with a unified diff, and
//! `--update-snapshots` rewrites it.

use std::path::PathBuf;
use std::process::Command;

use conformance::report::{Baseline, Snapshots, Status};
use conformance::runner::RunResult;

use crate::common;

/// A scenario whose traffic does not depend on the client's speed.
const SCENARIO: &str = "follow-up";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "conformance-snapshots-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

async fn run(dir: &PathBuf, update: bool) -> RunResult {
    let mut options = common::options(&common::reference(None), &[SCENARIO]);
    options.snapshots = Some(Snapshots::new(dir, update));
    common::run(&options).await
}

fn snapshot_check(run: &RunResult) -> (Status, String) {
    let check = run
        .checks()
        .find(|c| c.rule == "snapshot.unchanged")
        .expect("--snapshots adds a check");
    (check.status, check.details.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snapshot_is_written_matched_refused_with_a_diff_and_updated() {
    let dir = scratch("cycle");
    let file = dir.join(format!("{SCENARIO}.txt"));

    // Missing: written, and the run passes; the check says so (INFO), in every format.
    let first = run(&dir, false).await;
    let (status, details) = snapshot_check(&first);
    assert_eq!(status, Status::Info, "{details}");
    assert!(details.contains("wrote"), "{details}");
    assert!(Baseline::default().verdict(&first).passed());
    let written = std::fs::read_to_string(&file).expect("the snapshot was written");
    assert!(
        written.starts_with("# conformance-snapshot/1 · scenario follow-up\n"),
        "{written}"
    );
    assert!(
        written.contains("\"name\": \"call_perplexity_computer\""),
        "{written}"
    );

    // The same client again: the same bytes.
    let second = run(&dir, false).await;
    let (status, details) = snapshot_check(&second);
    assert_eq!(status, Status::Success, "{details}");
    assert!(details.contains("the same as in the snapshot"), "{details}");
    assert!(Baseline::default().verdict(&second).passed());

    // A snapshot that says something else: the run fails, with a unified diff.
    let edited = written.replace(
        "Turn that into a PDF report.",
        "Turn that into a slide deck.",
    );
    assert_ne!(edited, written, "the follow-up message is in the snapshot");
    std::fs::write(&file, &edited).expect("edit the snapshot");
    let third = run(&dir, false).await;
    let (status, details) = snapshot_check(&third);
    assert_eq!(status, Status::Failure);
    assert!(details.contains("--update-snapshots"), "{details}");
    assert!(details.contains("+++ this run"), "{details}");
    assert!(
        details.contains("-> ") || details.contains("-user: "),
        "{details}"
    );
    assert!(
        details.contains("slide deck") && details.contains("PDF report"),
        "{details}"
    );
    assert!(!Baseline::default().verdict(&third).passed());
    assert_eq!(
        std::fs::read_to_string(&file).ok(),
        Some(edited),
        "left alone"
    );

    // --update-snapshots: rewritten, and the next plain run matches.
    let fourth = run(&dir, true).await;
    let (status, details) = snapshot_check(&fourth);
    assert_eq!(status, Status::Success, "{details}");
    assert!(details.contains("rewrote"), "{details}");
    assert_eq!(std::fs::read_to_string(&file).ok(), Some(written));
    let (status, _) = snapshot_check(&run(&dir, false).await);
    assert_eq!(status, Status::Success);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `conformance ARGS` outside CI (as a developer would): missing snapshots are written.
fn conformance(args: &[&str]) -> (i32, String, String) {
    conformance_in(&[("CI", None), ("TF_BUILD", None)], args)
}

/// Runs `conformance ARGS` with these environment variables set (or removed, for `None`).
fn conformance_in(env: &[(&str, Option<&str>)], args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(common::bin());
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let out = command.args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_fails_on_a_diff_and_passes_after_update_snapshots() {
    let dir = scratch("cli");
    let dir_arg = dir.to_string_lossy().into_owned();
    let target = common::reference(None);
    let args = [
        "--target",
        &target,
        "--scenario",
        SCENARIO,
        "--snapshots",
        &dir_arg,
    ];
    let (code, out, _) = conformance(&args);
    assert_eq!(code, 0, "{out}");
    let file = dir.join(format!("{SCENARIO}.txt"));
    let written = std::fs::read_to_string(&file).expect("written");
    std::fs::write(&file, written.replace("2025-11-25", "2025-06-18")).expect("edit");
    // Pretty: the diff is in the report on stdout.
    let (code, out, _) = conformance(&args);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAILED: follow-up:snapshot.unchanged"),
        "{out}"
    );
    assert!(out.contains("-> mcp-protocol-version: 2025-06-18"), "{out}");
    assert!(out.contains("+> mcp-protocol-version: 2025-11-25"), "{out}");
    // Another format: the diff goes to stderr too.
    let (code, _, err) = conformance(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 1);
    assert!(err.contains("+> mcp-protocol-version: 2025-11-25"), "{err}");
    let (code, out, _) = conformance(&[&args[..], &["--update-snapshots"]].concat());
    assert_eq!(code, 0, "{out}");
    assert_eq!(std::fs::read_to_string(&file).ok(), Some(written));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn update_snapshots_without_a_directory_is_refused() {
    let target = common::reference(None);
    let (code, _, err) = conformance(&["--target", &target, "--update-snapshots"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("conformance: usage error: --update-snapshots needs --snapshots DIR"),
        "{err}"
    );
}

/// In CI (`CI=true`, as GitHub Actions sets it) a missing snapshot fails, as insta's do, and
/// nothing is written; the report says where the new one would go. `--update-snapshots` writes
/// it even there; `--no-new-snapshots` refuses it anywhere; `CI=false` is not CI.
#[test]
fn a_missing_snapshot_fails_in_ci_and_says_where_it_would_be_written() {
    let dir = scratch("ci");
    let dir_arg = dir.to_string_lossy().into_owned();
    let target = common::reference(None);
    let args = [
        "--target",
        &target,
        "--scenario",
        SCENARIO,
        "--snapshots",
        &dir_arg,
        "--format",
        "junit",
    ];
    let file = dir.join(format!("{SCENARIO}.txt"));
    let ci = [("CI", Some("true"))];
    let (code, xml, err) = conformance_in(&ci, &args);
    assert_eq!(code, 1, "{xml}{err}");
    assert!(!file.exists(), "nothing written in CI");
    assert!(xml.contains("<failure"), "{xml}");
    let said = format!(
        "no snapshot {}: new snapshots are refused here (CI is set), so nothing was written; the \
         new one would be written to {}. Run without CI=true (or with --update-snapshots) to \
         write it, then commit it",
        file.display(),
        file.display()
    );
    assert!(err.contains(&said), "{err}");
    assert!(xml.contains(&said), "{xml}");
    // Not CI: written, and the log says so even with --format junit.
    let (code, _, err) = conformance_in(&[("CI", Some("false"))], &args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no snapshot yet: wrote "), "{err}");
    assert!(file.exists());
    // --no-new-snapshots refuses outside CI too; --update-snapshots writes inside it.
    std::fs::remove_file(&file).expect("remove");
    let (code, _, err) = conformance(&[&args[..], &["--no-new-snapshots"]].concat());
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("new snapshots are refused here (--no-new-snapshots)"),
        "{err}"
    );
    assert!(!file.exists());
    let (code, _, err) = conformance_in(&ci, &[&args[..], &["--update-snapshots"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(file.exists());
    let _ = std::fs::remove_dir_all(&dir);
}
