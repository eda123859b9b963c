//! The target process: run through `sh -c` with the server URL as its last argument, its output
//! drained and capped, killed with its whole process group at the timeout, and the check the
//! runner makes on how it ended.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;

use crate::check::{Check, Doc, Level, Status, TargetOutcome};
use crate::rules::ids::TARGET_EXIT;

/// How much of the target's stdout and stderr is kept.
const OUTPUT_CAP: usize = 256 * 1024;

/// Reads a pipe to the end, keeping the first [`OUTPUT_CAP`] bytes: a flooding target must
/// neither block on a full pipe nor fill the runner's memory.
async fn drain(mut pipe: impl tokio::io::AsyncRead + Unpin) -> (Vec<u8>, usize) {
    let mut kept = Vec::new();
    let mut total = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                total += n;
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
        }
    }
    (kept, total)
}

/// Kills the target's whole process group (the shell and whatever it started).
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Runs `target "$URL"` through `sh -c` with `env`, killed at `timeout`.
pub(super) async fn run_target(
    target: &str,
    url: &str,
    env: &[(&'static str, String)],
    timeout: Duration,
) -> (TargetOutcome, Vec<u8>, Vec<u8>) {
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("{target} \"$0\""))
        .arg(url)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut outcome = TargetOutcome {
        exit_code: None,
        timed_out: false,
        spawn_error: None,
        stdout_bytes: 0,
        stderr_bytes: 0,
        stderr_head: String::new(),
        stderr_tail: String::new(),
    };
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            outcome.spawn_error = Some(format!("could not run `sh -c`: {e}"));
            return (outcome, Vec::new(), Vec::new());
        }
    };
    let pid = child.id();
    let out = child.stdout.take().map(|p| tokio::spawn(drain(p)));
    let err = child.stderr.take().map(|p| tokio::spawn(drain(p)));
    match tokio::time::timeout(timeout, child.wait()).await {
        Ok(Ok(status)) => outcome.exit_code = status.code(),
        Ok(Err(e)) => outcome.spawn_error = Some(format!("could not wait for the target: {e}")),
        Err(_) => {
            outcome.timed_out = true;
            kill_group(pid);
            let _ = child.kill().await;
        }
    }
    // Whatever the target left running in the background goes too, so its pipes close.
    kill_group(pid);
    let collect = |task: Option<tokio::task::JoinHandle<(Vec<u8>, usize)>>| async move {
        match task {
            Some(task) => tokio::time::timeout(Duration::from_secs(2), task)
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default(),
            None => (Vec::new(), 0),
        }
    };
    let (stdout, stdout_bytes) = collect(out).await;
    let (stderr, stderr_bytes) = collect(err).await;
    outcome.stdout_bytes = stdout_bytes;
    outcome.stderr_bytes = stderr_bytes;
    let text = String::from_utf8_lossy(&stderr);
    let (head, tail) = excerpt(&text);
    outcome.stderr_head = head;
    outcome.stderr_tail = tail;
    (outcome, stdout, stderr)
}

/// Lines of the target's stderr kept at each end: a usage message ends with its options, while
/// the cause ("Unknown scenario") is at its start.
const STDERR_LINES: usize = 5;

/// The first and the last [`STDERR_LINES`] lines of `text`; when it has no more than twice as
/// many, all of it, as the tail.
fn excerpt(text: &str) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 2 * STDERR_LINES {
        return (String::new(), lines.join("\n"));
    }
    (
        lines[..STDERR_LINES].join("\n"),
        lines[lines.len() - STDERR_LINES..].join("\n"),
    )
}

/// The check on the target process: it must start, finish in time, and exit 0. `hint` says
/// what a target killed at the timeout was still doing, when the transcript shows it.
pub(super) fn target_check(
    scenario: &str,
    target: &TargetOutcome,
    timeout: Duration,
    hint: Option<&str>,
) -> Check {
    let stderr = match (target.stderr_head.is_empty(), target.stderr_tail.is_empty()) {
        (_, true) => String::new(),
        (true, false) => format!("; its stderr ended with: {}", target.stderr_tail),
        (false, false) => format!(
            "; its stderr began with: {}\n[...]\nand ended with: {}",
            target.stderr_head, target.stderr_tail
        ),
    };
    let (status, details) = if let Some(e) = &target.spawn_error {
        (
            Status::Failure,
            format!("the target could not be started: {e}"),
        )
    } else if target.timed_out {
        (
            Status::Failure,
            format!(
                "the target did not finish within {:.1}s and was killed{}{stderr}",
                timeout.as_secs_f64(),
                hint.map(|h| format!(": {h}")).unwrap_or_default()
            ),
        )
    } else {
        match target.exit_code {
            Some(0) => (
                Status::Success,
                "the target exited with status 0".to_owned(),
            ),
            Some(127) => (
                Status::Failure,
                format!("the target command was not found (exit status 127){stderr}"),
            ),
            Some(code) => (
                Status::Failure,
                format!("the target exited with status {code}{stderr}"),
            ),
            None => (
                Status::Failure,
                format!("the target was killed by a signal{stderr}"),
            ),
        }
    };
    Check {
        id: format!("{scenario}:{TARGET_EXIT}"),
        rule: TARGET_EXIT.to_owned(),
        level: Level::Must,
        status,
        scenario: scenario.to_owned(),
        doc: Doc {
            document: "docs/conformance.md".to_owned(),
            section: "Launch contract".to_owned(),
            quote: "the target runs through sh -c, the server URL is its last argument".to_owned(),
        },
        details,
        evidence: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stderr_keeps_its_first_and_its_last_lines() {
        let text: Vec<String> = (1..=30).map(|i| format!("line {i}")).collect();
        let (head, tail) = excerpt(&text.join("\n"));
        assert_eq!(head, "line 1\nline 2\nline 3\nline 4\nline 5");
        assert_eq!(tail, "line 26\nline 27\nline 28\nline 29\nline 30");
        assert_eq!(excerpt("a\nb"), (String::new(), "a\nb".to_owned()));
    }

    #[test]
    fn the_target_check_shows_where_the_stderr_began_and_ended() {
        let outcome = TargetOutcome {
            exit_code: Some(2),
            timed_out: false,
            spawn_error: None,
            stdout_bytes: 0,
            stderr_bytes: 300,
            stderr_head: "Unknown scenario: follow-up\nusage: client URL".to_owned(),
            stderr_tail: "  --verbose  print more".to_owned(),
        };
        let check = target_check("follow-up", &outcome, Duration::from_secs(1), None);
        assert_eq!(check.status, Status::Failure);
        assert_eq!(
            check.details,
            "the target exited with status 2; its stderr began with: Unknown scenario: follow-up\nusage: client URL\n[...]\nand ended with:   --verbose  print more"
        );
    }
}
