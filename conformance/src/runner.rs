//! The runner: per scenario, a fresh in-process mock with the user channel on its port, the
//! target run through `sh -c` with the server URL as its last argument, then every rule that
//! the scenario exercises checked over the journal and the user channel's log.

mod drop;
pub mod fixtures;
pub mod user;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

use crate::check::{Check, Doc, Level, Status};
pub use crate::check::{RunResult, ScenarioResult, Summary, TargetOutcome, status_of};
use crate::error::Error;
use crate::rules;
use crate::rules::ids::TARGET_EXIT;
pub use crate::suite::{self, BEARER_TOKEN, Era, Flow, PROTOCOL_VERSION, SCENARIOS, ScenarioSpec};
use crate::transcript::Transcript;
pub use fixtures::TASK_POLL_INTERVAL_MS;
pub use user::{USER_PATH, UserChannel};

/// Default virtual seconds per real second: the two-minute call window lasts 24 ms, an hour's
/// sleep 0.72 s.
pub const DEFAULT_TIME_SCALE: f64 = 5000.0;
/// Default per-scenario timeout (real time).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of the target's stdout and stderr is kept.
const OUTPUT_CAP: usize = 256 * 1024;

/// What to run and how.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The target command (run through `sh -c`, URL appended).
    pub target: String,
    /// `computer`, `agent` or `all`.
    pub suite: String,
    /// Only these scenarios, of either suite (empty: the whole suite).
    pub scenarios: Vec<String>,
    /// Scenarios run at once.
    pub jobs: usize,
    /// Real-time limit per scenario.
    pub timeout: Duration,
    /// Virtual seconds per real second.
    pub time_scale: f64,
    /// Where to keep journals, user logs, output and checks.
    pub output: Option<PathBuf>,
}

impl RunOptions {
    /// The whole computer suite against `target`, with the defaults.
    pub fn new(target: impl Into<String>) -> Self {
        Self {
            target: target.into(),
            suite: "computer".into(),
            scenarios: Vec::new(),
            jobs: 2,
            timeout: DEFAULT_TIMEOUT,
            time_scale: DEFAULT_TIME_SCALE,
            output: None,
        }
    }

    /// The scenarios selected, in suite order.
    pub fn selected(&self) -> Result<Vec<&'static ScenarioSpec>, Error> {
        for name in &self.scenarios {
            if suite::find(name).is_none() {
                return Err(Error::UnknownScenario { name: name.clone() });
            }
        }
        // A scenario named with --scenario runs whatever --suite says: naming an agent scenario
        // without `--suite agent` must not select nothing and pass.
        Ok(SCENARIOS
            .iter()
            .filter(|s| {
                if self.scenarios.is_empty() {
                    self.suite == "all" || s.suite == self.suite
                } else {
                    self.scenarios.iter().any(|n| n == s.name)
                }
            })
            .collect())
    }
}

/// Runs the selected scenarios, `jobs` at a time; `progress` hears of each as it finishes.
pub async fn run_suite_with(
    options: &RunOptions,
    mut progress: impl FnMut(usize, usize, &ScenarioResult),
) -> Result<RunResult, Error> {
    let started = Instant::now();
    let selected = options.selected()?;
    let total = selected.len();
    let mut results: Vec<(usize, ScenarioResult)> = Vec::with_capacity(total);
    let mut stream = futures::stream::iter(
        selected
            .iter()
            .enumerate()
            .map(|(i, spec)| async move { (i, run_scenario(spec, options).await) }),
    )
    .buffer_unordered(options.jobs.max(1));
    while let Some((i, result)) = stream.next().await {
        let result = result?;
        progress(results.len() + 1, total, &result);
        results.push((i, result));
    }
    results.sort_by_key(|(i, _)| *i);
    Ok(RunResult {
        target: options.target.clone(),
        suite: options.suite.clone(),
        duration_ms: millis(started.elapsed()),
        scenarios: results.into_iter().map(|(_, r)| r).collect(),
    })
}

/// Runs the selected scenarios with no progress output.
pub async fn run_suite(options: &RunOptions) -> Result<RunResult, Error> {
    run_suite_with(options, |_, _, _| {}).await
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A mock and its user channel, serving on one port.
pub struct Stage {
    /// The mock's handle (journal, clock, world).
    pub mock: mock_server::MockHandle,
    /// The scripted person.
    pub user: UserChannel,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    server: tokio::task::JoinHandle<()>,
    /// Fixture overrides the mock loaded (kept until the stage ends, then removed).
    _overrides: Option<fixtures::Overrides>,
}

impl Stage {
    /// Starts a fresh mock for `spec` on `127.0.0.1:0`, on a clock `time_scale` times real time.
    pub async fn start(spec: &ScenarioSpec, time_scale: f64) -> Result<Self, Error> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(Error::Bind)?;
        let address = listener.local_addr().map_err(Error::Bind)?;
        let base_url = format!("http://{address}");
        let overrides = fixtures::Overrides::write(spec.name, &address.port().to_string())?;
        let time_scale = if spec.max_time_scale > 0.0 {
            time_scale.min(spec.max_time_scale)
        } else {
            time_scale
        };
        let mut builder = mock_server::MockServer::builder().time_scale(time_scale);
        // Computer scenarios are the fallback of conversations that name none; an Agent API
        // request picks its scenario from its own message, as the catalog says.
        if spec.suite == "computer" {
            builder = builder.scenario(spec.name);
        }
        if let Some(o) = &overrides {
            builder = builder.fixtures(o.dir());
        }
        let (router, mock) = builder.router(&base_url)?;
        let user = UserChannel::new(
            script_for(spec, &mock.mcp_url()),
            mock.journal().clone(),
            mock.clock().clone(),
        );
        let router = if spec.drop_stream_after > 0 {
            drop::apply(router, spec.drop_stream_after)
        } else {
            router
        };
        let app = router.merge(user.routes());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self {
            mock,
            user,
            base_url,
            server,
            _overrides: overrides,
        })
    }

    /// The MCP endpoint.
    pub fn mcp_url(&self) -> String {
        self.mock.mcp_url()
    }

    /// The environment the target gets.
    pub fn env(&self, spec: &ScenarioSpec) -> Vec<(&'static str, String)> {
        let context = json!({
            "name": spec.name,
            "description": spec.description,
            "era": spec.era.name(),
            "protocol_version": spec.era.protocol_version(),
            "flow": spec.flow.name(),
            "suite": spec.suite,
            "user": script_for(spec, &self.mcp_url()),
        });
        vec![
            ("MCP_CONFORMANCE_SCENARIO", spec.name.to_owned()),
            (
                "MCP_CONFORMANCE_PROTOCOL_VERSION",
                spec.era.protocol_version().to_owned(),
            ),
            ("MCP_CONFORMANCE_CONTEXT", context.to_string()),
            (
                "CONFORMANCE_USER_URL",
                format!("{}{USER_PATH}", self.base_url),
            ),
            ("CONFORMANCE_BEARER_TOKEN", BEARER_TOKEN.to_owned()),
            ("PERPLEXITY_BASE_URL", self.base_url.clone()),
            ("PERPLEXITY_API_KEY", spec.api_key().to_owned()),
        ]
    }

    /// Judges what happened so far against every rule `spec` exercises.
    pub fn judge(&self, spec: &ScenarioSpec) -> Vec<Check> {
        let transcript =
            Transcript::new(spec.name, self.mock.journal().exchanges(), self.user.log());
        rules::judge(&transcript)
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        // Aborting rather than a graceful shutdown: a dead client's open streams must not keep
        // the runner waiting.
        self.server.abort();
    }
}

/// The user's script with `{mcp_url}` (in agent turns) replaced by the mock's MCP endpoint.
fn script_for(spec: &ScenarioSpec, mcp_url: &str) -> Value {
    let script = spec.script();
    if !script.to_string().contains("{mcp_url}") {
        return script;
    }
    serde_json::from_str(&script.to_string().replace("{mcp_url}", mcp_url)).unwrap_or(script)
}

async fn run_scenario(spec: &ScenarioSpec, options: &RunOptions) -> Result<ScenarioResult, Error> {
    let started = Instant::now();
    let stage = Stage::start(spec, options.time_scale).await?;
    let (target, stdout, stderr) = run_target(
        &options.target,
        &stage.mcp_url(),
        &stage.env(spec),
        options.timeout,
    )
    .await;
    let mut checks = vec![target_check(spec.name, &target, options.timeout)];
    checks.extend(stage.judge(spec));
    if let Some(dir) = &options.output {
        keep(&dir.join(spec.name), &stage, &stdout, &stderr, &checks)?;
    }
    Ok(ScenarioResult {
        name: spec.name.to_owned(),
        duration_ms: millis(started.elapsed()),
        target,
        checks,
    })
}

fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), Error> {
    std::fs::write(path, contents).map_err(|source| Error::File {
        path: path.to_owned(),
        source,
    })
}

/// Keeps the journal, the user log, the target's output and the checks under `dir`.
fn keep(
    dir: &Path,
    stage: &Stage,
    stdout: &[u8],
    stderr: &[u8],
    checks: &[Check],
) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::File {
        path: dir.to_owned(),
        source,
    })?;
    write(
        &dir.join("journal.jsonl"),
        stage.mock.journal().to_json_lines(),
    )?;
    let user: String = stage
        .user
        .log()
        .iter()
        .filter_map(|r| serde_json::to_string(r).ok())
        .map(|l| l + "\n")
        .collect();
    write(&dir.join("user.jsonl"), user)?;
    write(&dir.join("stdout.txt"), stdout)?;
    write(&dir.join("stderr.txt"), stderr)?;
    let json = serde_json::to_string_pretty(checks).unwrap_or_default();
    write(&dir.join("checks.json"), json)
}

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
pub async fn run_target(
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
    let tail: Vec<&str> = text.lines().rev().take(5).collect();
    outcome.stderr_tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    (outcome, stdout, stderr)
}

/// The check on the target process: it must start, finish in time, and exit 0.
fn target_check(scenario: &str, target: &TargetOutcome, timeout: Duration) -> Check {
    let stderr = if target.stderr_tail.is_empty() {
        String::new()
    } else {
        format!("; its stderr ended with: {}", target.stderr_tail)
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
                "the target did not finish within {:.1}s and was killed{stderr}",
                timeout.as_secs_f64()
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
            document: "DESIGN.md".to_owned(),
            section: "Conformance runner".to_owned(),
            quote: "the target runs through sh -c, the server URL is its last argument".to_owned(),
        },
        details,
        evidence: Vec::new(),
    }
}
