//! The runner: per scenario, a fresh in-process mock with the user channel on its port, the
//! target run through `sh -c` with the server URL as its last argument, then every rule that
//! the scenario exercises checked over the journal and the user channel's log.

mod clock;
mod drop;
mod fixtures;
mod partition;
mod retry_after;
mod stage;
mod target;
mod user;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;

use crate::check::{Check, LeftOut, UnjudgedDuty};
pub use crate::check::{
    Claims, Progress, RunResult, ScenarioResult, Summary, TargetOutcome, status_of,
};
use crate::error::Error;
pub use crate::profile::{ClientProfile, Feature};
use crate::report::snapshot::{self, Snapshots};
pub use crate::suite::{self, BEARER_TOKEN, Era, Flow, PROTOCOL_VERSION, SCENARIOS, ScenarioSpec};
use crate::traceability;
pub use clock::{LOOK_STEP, RunClock};
pub use fixtures::{TASK_POLL_INTERVAL_MS, TASK_POLL_INTERVALS_MS};
pub use partition::{Partition, PartitionError, PartitionKind};
pub use stage::{Stage, StageOptions};
use target::{run_target, target_check};
pub use user::{USER_PATH, UserChannel};

/// Scenarios run at once by default: a scenario spends most of its wall time waiting (the
/// target process starting, real-time `pollIntervalMs` waits), so four keep two cores busy.
pub const DEFAULT_JOBS: usize = 4;

/// Default per-scenario timeout (real time).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

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
    /// How the mocks' virtual time runs ([`RunClock::Driven`] unless `--time-scale` asks for a
    /// scaled clock).
    pub clock: RunClock,
    /// Where to keep journals, user logs, output and checks.
    pub output: Option<PathBuf>,
    /// Only this shard of the selected scenarios (`--partition`).
    pub partition: Option<Partition>,
    /// Compare each scenario's normalised traffic with its snapshot (`--snapshots`).
    pub snapshots: Option<Snapshots>,
    /// The OAuth consent page approves at once (`--auto-consent`; see [`StageOptions`]).
    pub auto_consent: bool,
    /// What the client claims (`--client-supports`): scenarios needing anything else are left
    /// out, and the report says why.
    pub supports: ClientProfile,
}

impl RunOptions {
    /// The whole computer suite against `target`, with the defaults.
    pub fn new(target: impl Into<String>) -> Self {
        Self {
            target: target.into(),
            suite: "computer".into(),
            scenarios: Vec::new(),
            jobs: DEFAULT_JOBS,
            timeout: DEFAULT_TIMEOUT,
            clock: RunClock::Driven,
            output: None,
            partition: None,
            snapshots: None,
            auto_consent: false,
            supports: ClientProfile::everything(),
        }
    }

    /// The scenarios selected that the client's claims let run, in suite order.
    pub fn selected(&self) -> Result<Vec<&'static ScenarioSpec>, Error> {
        Ok(self
            .chosen()?
            .into_iter()
            .filter(|s| self.supports.missing_for(s).is_empty())
            .collect())
    }

    /// The scenarios selected that need a feature the client does not claim.
    pub fn left_out(&self) -> Result<Vec<LeftOut>, Error> {
        Ok(self
            .chosen()?
            .into_iter()
            .filter_map(|s| {
                let missing = self.supports.missing_for(s);
                (!missing.is_empty()).then(|| LeftOut {
                    scenario: s.name.to_owned(),
                    needs: missing.iter().map(|f| f.name().to_owned()).collect(),
                })
            })
            .collect())
    }

    /// What the claims mean for this run: what they left out, and the duties of the run's
    /// suites that no claimed scenario judges (whatever `--scenario` and `--partition` pick).
    pub fn claims(&self) -> Result<Claims, Error> {
        let suites: &[&str] = match self.suite.as_str() {
            "all" => &["computer", "agent", "sonar"],
            "agent" => &["agent"],
            "sonar" => &["sonar"],
            _ => &["computer"],
        };
        let (duties_judged, duties_judgeable, unjudged) =
            traceability::claimed_coverage(suites, &self.supports);
        Ok(Claims {
            supports: self.supports.is_restricted().then(|| {
                self.supports
                    .features()
                    .iter()
                    .map(|f| f.name().to_owned())
                    .collect()
            }),
            left_out: self.left_out()?,
            duties_judged,
            duties_judgeable,
            unjudged: unjudged
                .into_iter()
                .map(|u| UnjudgedDuty {
                    id: u.duty.id.to_owned(),
                    document: u.duty.document.to_owned(),
                    section: u.duty.section.to_owned(),
                    needs: u.needs.iter().map(|f| f.name().to_owned()).collect(),
                })
                .collect(),
        })
    }

    /// The scenarios `--suite` or `--scenario` and `--partition` pick, before the claims.
    fn chosen(&self) -> Result<Vec<&'static ScenarioSpec>, Error> {
        for name in &self.scenarios {
            if suite::find(name).is_none() {
                return Err(Error::UnknownScenario { name: name.clone() });
            }
        }
        // A scenario named with --scenario runs whatever --suite says: naming an agent scenario
        // without `--suite agent` must not select nothing and pass.
        let selected: Vec<&'static ScenarioSpec> = SCENARIOS
            .iter()
            .filter(|s| {
                if self.scenarios.is_empty() {
                    self.suite == "all" || s.suite == self.suite
                } else {
                    self.scenarios.iter().any(|n| n == s.name)
                }
            })
            .collect();
        Ok(match &self.partition {
            Some(partition) => partition.apply(selected),
            None => selected,
        })
    }
}

/// Runs the selected scenarios, `jobs` at a time; `progress` hears of each as it starts and as
/// it finishes.
pub async fn run_suite_with(
    options: &RunOptions,
    progress: impl Fn(Progress<'_>) + Sync,
) -> Result<RunResult, Error> {
    let started = Instant::now();
    let selected = options.selected()?;
    let claims = options.claims()?;
    let total = selected.len();
    let mut results: Vec<(usize, ScenarioResult)> = Vec::with_capacity(total);
    let progress = &progress;
    let shared = std::sync::Arc::new(options.clone());
    // Each scenario runs as its own task, so starting mocks and judging transcripts spread
    // over the runtime's threads instead of queueing on the caller's.
    // Task scenarios start first: they wait out real-time poll intervals and are the longest,
    // so started last they would run on alone at the end. The report keeps the selected order.
    let mut order: Vec<(usize, &'static ScenarioSpec)> =
        selected.iter().copied().enumerate().collect();
    order.sort_by_key(|(_, spec)| spec.flow != Flow::Tasks);
    let mut stream = futures::stream::iter(order.into_iter().map(|(i, spec)| {
        let options = shared.clone();
        async move {
            progress(Progress::Started {
                scenario: spec.name,
                total,
            });
            let task = tokio::spawn(async move { run_scenario(spec, &options).await });
            let result = task.await.unwrap_or_else(|e| {
                Err(Error::ScenarioTask {
                    name: spec.name.to_owned(),
                    message: e.to_string(),
                })
            });
            (i, result)
        }
    }))
    .buffer_unordered(options.jobs.max(1));
    while let Some((i, result)) = stream.next().await {
        let result = result?;
        progress(Progress::Finished {
            done: results.len() + 1,
            total,
            result: &result,
        });
        results.push((i, result));
    }
    results.sort_by_key(|(i, _)| *i);
    Ok(RunResult {
        target: options.target.clone(),
        suite: options.suite.clone(),
        duration_ms: millis(started.elapsed()),
        scenarios: results.into_iter().map(|(_, r)| r).collect(),
        claims,
    })
}

/// Runs the selected scenarios with no progress output.
pub async fn run_suite(options: &RunOptions) -> Result<RunResult, Error> {
    run_suite_with(options, |_| {}).await
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

async fn run_scenario(spec: &ScenarioSpec, options: &RunOptions) -> Result<ScenarioResult, Error> {
    let started = Instant::now();
    let stage = Stage::start_with(
        spec,
        StageOptions {
            clock: options.clock,
            auto_consent: options.auto_consent,
        },
    )
    .await?;
    let (target, stdout, stderr) = run_target(
        &options.target,
        &stage.mcp_url(),
        &stage.env(spec),
        options.timeout,
    )
    .await;
    let judged = stage.transcript(spec);
    // A client killed at the timeout is told what it was doing, when the transcript shows it.
    let hint = target
        .timed_out
        .then(|| crate::rules::timed_out_polling(&judged))
        .flatten();
    let mut checks = vec![target_check(
        spec.name,
        &target,
        options.timeout,
        hint.as_deref(),
    )];
    checks.extend(stage.judge_transcript(&judged));
    let transcript = (options.snapshots.is_some() || options.output.is_some()).then(|| {
        snapshot::transcript(
            spec.name,
            &stage.mock.journal().exchanges(),
            &stage.user.log(),
        )
    });
    if let (Some(snapshots), Some(transcript)) = (&options.snapshots, &transcript) {
        let outcome = snapshots.compare(spec.name, transcript)?;
        let kept = options
            .output
            .as_ref()
            .map(|dir| dir.join(spec.name).join("transcript.txt"));
        checks.push(snapshots.check(spec.name, &outcome, kept.as_deref()));
    }
    if let (Some(dir), Some(transcript)) = (&options.output, &transcript) {
        let dir = dir.join(spec.name);
        keep(&dir, &stage, &stdout, &stderr, &checks)?;
        write(&dir.join("transcript.txt"), transcript)?;
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
    let user = stage
        .user
        .log()
        .iter()
        .map(|r| serde_json::to_string(r).map(|l| l + "\n"))
        .collect::<Result<String, _>>()?;
    write(&dir.join("user.jsonl"), user)?;
    write(&dir.join("stdout.txt"), stdout)?;
    write(&dir.join("stderr.txt"), stderr)?;
    let json = serde_json::to_string_pretty(checks)?;
    write(&dir.join("checks.json"), json)
}
