//! The `conformance` command line (documented in docs/conformance.md and docs/conformance-suite.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use conformance::error::{ConformanceExitCode, Error};
use conformance::report::{self, Baseline, ProgressReporter};
use conformance::rules;
use conformance::runner::{self, ClientProfile, Partition, RunOptions};

/// What `--help` says about exit statuses (docs/conformance.md says the same).
const EXIT_STATUS_HELP: &str = "\
Exit status:
  0  passed: no check failed that --expected-failures does not list, and no listed failure passed
  1  the client failed: a check failed (a warning too with --strict), a listed failure now
     passes, or a snapshot differs
  2  usage error: a bad option value, an unknown scenario or rule, a file that cannot be read
     or is malformed; nothing ran
  3  target error: the --target command could not be run as a client in any scenario (not
     found, not executable)
  4  infrastructure error: the runner failed (a mock could not start, a file could not be
     written); rerun, or report it
Errors are one line on stderr: `conformance: <kind> error: <what to do>`.";

/// Drives a Perplexity Computer MCP client through scripted scenarios and judges it rule by rule.
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true, after_help = EXIT_STATUS_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Args)]
struct RunArgs {
    /// The client command; run through `sh -c` with the server URL as its last argument.
    #[arg(long)]
    target: Option<String>,
    /// Which suite: computer, agent, sonar or all.
    #[arg(long, default_value = "computer")]
    suite: String,
    /// Only this scenario (repeatable).
    #[arg(long = "scenario")]
    scenarios: Vec<String>,
    /// pretty, json, junit, markdown (a summary for $GITHUB_STEP_SUMMARY) or github (GitHub
    /// Actions annotations, then the pretty report).
    #[arg(long, default_value = "pretty")]
    format: String,
    /// Warnings (SHOULD rules broken) fail the run too.
    #[arg(long)]
    strict: bool,
    /// Only shard k of n of the selected scenarios: count:k/n (or k/n) deals them out in turn,
    /// hash:k/n by a stable hash of their names.
    #[arg(long)]
    partition: Option<String>,
    /// After the run, write its failures here as an expected-failures file the next run
    /// accepts (with the --expected-failures entries of scenarios that did not run).
    #[arg(long)]
    write_expected_failures: Option<PathBuf>,
    /// Keep each scenario's journal, user log, output, checks and transcript here.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Compare each scenario's normalised traffic with its snapshot DIR/<scenario>.txt (written
    /// when missing); a difference fails the run with a unified diff.
    #[arg(long, value_name = "DIR")]
    snapshots: Option<PathBuf>,
    /// With --snapshots: rewrite the snapshots that differ (or are missing) instead of failing.
    #[arg(long)]
    update_snapshots: bool,
    /// With --snapshots: a missing snapshot fails instead of being written (the default when
    /// the CI environment variable is set, as insta does).
    #[arg(long, conflicts_with = "update_snapshots")]
    no_new_snapshots: bool,
    /// The mock's OAuth consent page approves at once (as alice), so a client that opens the
    /// authorization URL itself (one written for the official MCP conformance runner's auth/*
    /// flows) signs in unaided.
    #[arg(long)]
    auto_consent: bool,
    /// Failures that are expected: `scenario` or `scenario:rule-id`, one per line.
    #[arg(long)]
    expected_failures: Option<PathBuf>,
    /// The optional features the client implements, comma-separated: tasks, elicitation,
    /// oauth, uploads, agent (or none, or all; default all). Scenarios needing another are left
    /// out, and the report says which and why.
    #[arg(long, value_name = "FEATURES", conflicts_with = "client_profile")]
    client_supports: Option<String>,
    /// A file naming the features the client implements (as --client-supports, one or more
    /// per line, `#` comments).
    #[arg(long, value_name = "FILE")]
    client_profile: Option<PathBuf>,
    /// Fail the run when the client's claims leave a documented duty unjudged (judged only in
    /// scenarios it does not claim).
    #[arg(long)]
    strict_coverage: bool,
    /// Scenarios run at once (default 4: a scenario mostly waits, on the target's start and on
    /// real-time poll intervals; verdicts do not depend on it).
    #[arg(long, default_value_t = runner::DEFAULT_JOBS)]
    jobs: usize,
    /// Real-time limit per scenario, in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Run each mock on a clock this many times real time instead of the driven one (time
    /// following the client's progress); verdicts then depend on how fast the client is.
    #[arg(long)]
    time_scale: Option<f64>,
}

#[derive(Subcommand)]
enum Command {
    /// Scenarios and rules, with the document section each rule comes from.
    List {
        /// text, json (format conformance-list/1), or markdown (the page of every rule,
        /// docs/conformance-rules.md).
        #[arg(long, default_value = "text")]
        format: String,
        /// Print the traceability table instead: every client duty of the documents, quoted,
        /// with the rules that judge it or the reason it cannot be observed.
        #[arg(long)]
        traceability: bool,
    },
    /// A mock with the user channel for a hand-driven host; checks printed when stopped.
    Serve {
        /// The scenario.
        #[arg(long)]
        scenario: String,
        /// Virtual seconds per real second.
        #[arg(long, default_value_t = 1.0)]
        time_scale: f64,
    },
    /// The reference client (follows every rule).
    ReferenceClient {
        /// Break exactly this rule.
        #[arg(long = "break")]
        break_rule: Option<String>,
        /// Wait this many milliseconds (real time) before every request, as a slow client
        /// would; the verdicts must not change.
        #[arg(long, value_name = "MS", default_value_t = 0)]
        delay_ms: u64,
        /// Poll MCP Tasks every this many milliseconds whatever `pollIntervalMs` says, as a
        /// client that hard-codes its interval would (the suite must fail it).
        #[arg(long, value_name = "MS")]
        fixed_poll_ms: Option<u64>,
        /// At exit, print to stderr the rules whose break point the run reached (the rules
        /// `--break` could have changed in this scenario), as one `break points reached:` line.
        #[arg(long)]
        trace_break_points: bool,
        /// The MCP endpoint URL.
        url: String,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::List {
            format,
            traceability,
        }) => list(&format, traceability),
        Some(Command::Serve {
            scenario,
            time_scale,
        }) => serve(&scenario, time_scale).await,
        Some(Command::ReferenceClient {
            break_rule,
            delay_ms,
            fixed_poll_ms,
            trace_break_points,
            url,
        }) => reference_client(break_rule, delay_ms, fixed_poll_ms, trace_break_points, url).await,
        None => run(cli.run).await,
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("conformance: {} error: {error}", error.kind());
            ExitCode::from(error.kind().exit_code())
        }
    }
}

fn list(format: &str, traceability: bool) -> Result<ExitCode, Error> {
    match format {
        "text" if traceability => print!("{}", report::traceability_text()),
        "text" => print!("{}", report::list_text()),
        "markdown" => print!("{}", report::list_markdown()),
        "json" => println!("{:#}", report::list_json()),
        other => {
            return Err(Error::usage(format!(
                "--format must be text, json or markdown, not `{other}`"
            )));
        }
    }
    Ok(ExitCode::SUCCESS)
}

const FORMATS: &[&str] = &["pretty", "json", "junit", "markdown", "github"];

async fn run(args: RunArgs) -> Result<ExitCode, Error> {
    let Some(target) = args.target else {
        return Err(Error::usage(
            "--target \"<command>\" is required (or use list, serve, reference-client)",
        ));
    };
    if !FORMATS.contains(&args.format.as_str()) {
        return Err(Error::usage(format!(
            "--format must be one of {}, not `{}`",
            FORMATS.join(", "),
            args.format
        )));
    }
    if !["computer", "agent", "sonar", "all"].contains(&args.suite.as_str()) {
        return Err(Error::usage(format!(
            "--suite must be computer, agent, sonar or all, not `{}`",
            args.suite
        )));
    }
    if args.jobs == 0 {
        return Err(Error::usage(
            "--jobs must be at least 1 (the number of scenarios run at once)",
        ));
    }
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if !positive(args.timeout) || !args.time_scale.is_none_or(positive) {
        return Err(Error::usage(
            "--timeout and --time-scale must be positive numbers",
        ));
    }
    let partition = args
        .partition
        .as_deref()
        .map(str::parse::<Partition>)
        .transpose()
        .map_err(|e| Error::usage(e.to_string()))?;
    if (args.update_snapshots || args.no_new_snapshots) && args.snapshots.is_none() {
        return Err(Error::usage(format!(
            "{} needs --snapshots DIR (where the snapshots are)",
            if args.update_snapshots {
                "--update-snapshots"
            } else {
                "--no-new-snapshots"
            }
        )));
    }
    let baseline = match &args.expected_failures {
        Some(path) => Baseline::load(path)?,
        None => Baseline::default(),
    };
    let supports = match (&args.client_supports, &args.client_profile) {
        (Some(list), _) => ClientProfile::parse(list)?,
        (None, Some(path)) => ClientProfile::load(path)?,
        (None, None) => ClientProfile::everything(),
    };
    let options = RunOptions {
        target,
        suite: args.suite,
        scenarios: args.scenarios,
        jobs: args.jobs,
        timeout: Duration::from_secs_f64(args.timeout),
        clock: args
            .time_scale
            .map_or(runner::RunClock::Driven, runner::RunClock::Scaled),
        output: args.output.clone(),
        partition,
        snapshots: args.snapshots.as_ref().map(|dir| {
            report::Snapshots::new(dir, args.update_snapshots)
                .refusing_new(args.no_new_snapshots || report::snapshot::in_ci())
        }),
        auto_consent: args.auto_consent,
        supports,
    };
    // Refuses unknown --scenario names before anything starts.
    options.selected()?;
    let progress = (args.format == "pretty").then(ProgressReporter::for_stderr);
    let run = runner::run_suite_with(&options, |event| {
        if let Some(progress) = &progress {
            progress.show(event);
        }
    })
    .await?;
    let verdict = baseline
        .verdict_with(&run, args.strict)
        .with_coverage(&run.claims, args.strict_coverage);
    let json = || format!("{:#}", report::json(&run, &verdict));
    let text = match args.format.as_str() {
        "json" => json() + "\n",
        "junit" => report::junit_with(&run, &verdict)? + "\n",
        "markdown" => report::markdown(&run, &verdict),
        "github" => report::github(&run, &verdict),
        _ => report::pretty(&run, &verdict),
    };
    print!("{text}");
    if args.format != "pretty" {
        // The pretty report shows a differing snapshot's diff; other formats go to files or
        // tools, so the diff goes to the log as well.
        // A snapshot written (INFO) or refused goes there too: no format is silent about it.
        for check in run.checks().filter(|c| {
            c.rule == report::snapshot::SNAPSHOT_CHECK && c.status != report::Status::Success
        }) {
            eprintln!("{}: {}", check.id, check.details);
        }
    }
    let file_error = |path: &std::path::Path| {
        let path = path.to_owned();
        move |source| Error::File { path, source }
    };
    let write = |path: &std::path::Path, contents: String| {
        std::fs::write(path, contents).map_err(file_error(path))
    };
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).map_err(file_error(dir))?;
        write(&dir.join("report.json"), json())?;
        write(&dir.join("summary.md"), report::markdown(&run, &verdict))?;
        if let Ok(xml) = report::junit_with(&run, &verdict) {
            write(&dir.join("junit.xml"), xml)?;
        }
    }
    if let Some(path) = &args.write_expected_failures {
        write(path, baseline.accepting(&verdict).to_text())?;
    }
    // A command the shell could not run at all is no client to judge: say so apart from the
    // verdict, after the report that shows each scenario's attempt.
    if let Some(error) = unrunnable_target(&run) {
        return Err(error);
    }
    Ok(verdict_code(verdict.passed()))
}

/// The target error when the target command could not be run in any scenario.
fn unrunnable_target(run: &runner::RunResult) -> Option<Error> {
    let first = run.scenarios.first()?;
    if !run.scenarios.iter().all(|s| s.target.could_not_run()) {
        return None;
    }
    Some(Error::Target {
        command: run.target.clone(),
        scenarios: run.scenarios.len(),
        reason: first.target.why_not_run(),
    })
}

fn verdict_code(passed: bool) -> ExitCode {
    ExitCode::from(if passed {
        ConformanceExitCode::PASSED
    } else {
        ConformanceExitCode::CHECKS_FAILED
    })
}

async fn serve(name: &str, time_scale: f64) -> Result<ExitCode, Error> {
    let spec = runner::suite::find(name).ok_or_else(|| Error::UnknownScenario {
        name: name.to_owned(),
    })?;
    let stage = runner::Stage::start(spec, time_scale).await?;
    println!("conformance serving scenario `{name}`");
    println!("  MCP endpoint:  {}", stage.mcp_url());
    for (key, value) in stage.env(spec) {
        println!("  {key}={value}");
    }
    println!("Stop with Ctrl-C to see the checks.");
    let _ = tokio::signal::ctrl_c().await;
    let checks = stage.judge(spec);
    for c in &checks {
        println!("{:<8} {} — {}", c.status, c.rule, c.details);
    }
    let failed = checks.iter().any(|c| c.status == report::Status::Failure);
    Ok(verdict_code(!failed))
}

async fn reference_client(
    break_rule: Option<String>,
    delay_ms: u64,
    fixed_poll_ms: Option<u64>,
    trace_break_points: bool,
    url: String,
) -> Result<ExitCode, Error> {
    if let Some(id) = &break_rule
        && rules::find(id).is_none()
    {
        return Err(Error::UnknownRule { id: id.clone() });
    }
    let mut options = conformance::reference_client::ClientOptions::from_env(url, break_rule)
        .map_err(|e| Error::usage(format!("reference client: {e}")))?;
    options.delay = Duration::from_millis(delay_ms);
    options.fixed_poll = fixed_poll_ms.map(Duration::from_millis);
    let outcome = conformance::reference_client::run(options).await;
    if trace_break_points {
        let reached = conformance::reference_client::break_points_reached();
        eprintln!("break points reached: {}", reached.join(" "));
    }
    // The reference client is the client here: a scenario it could not complete is its own
    // failure (exit 1), as a target's would be.
    if let Err(e) = outcome {
        eprintln!("conformance: reference client: {e}");
        return Ok(verdict_code(false));
    }
    Ok(verdict_code(true))
}
