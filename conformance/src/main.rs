//! The `conformance` command line (documented in docs/conformance.md and docs/conformance-suite.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use conformance::report::{self, Baseline, ProgressReporter};
use conformance::rules;
use conformance::runner::{self, Partition, RunOptions};

/// Drives a Perplexity Computer MCP client through scripted scenarios and judges it rule by rule.
#[derive(Parser)]
#[command(version, args_conflicts_with_subcommands = true)]
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
    /// Which suite: computer, agent or all.
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
    /// With --snapshots: rewrite the snapshots that differ instead of failing.
    #[arg(long)]
    update_snapshots: bool,
    /// The mock's OAuth consent page approves at once (as alice), so a client that opens the
    /// authorization URL itself (one written for the official MCP conformance runner's auth/*
    /// flows) signs in unaided.
    #[arg(long)]
    auto_consent: bool,
    /// Failures that are expected: `scenario` or `scenario:rule-id`, one per line.
    #[arg(long)]
    expected_failures: Option<PathBuf>,
    /// Scenarios run at once.
    #[arg(long, default_value_t = 2)]
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
        /// text, or json (format conformance-list/1).
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
        Err(message) => {
            eprintln!("conformance: {message}");
            ExitCode::from(2)
        }
    }
}

fn list(format: &str, traceability: bool) -> Result<ExitCode, String> {
    match format {
        "text" if traceability => print!("{}", report::traceability_text()),
        "text" => print!("{}", report::list_text()),
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&report::list_json()).unwrap_or_default()
        ),
        other => return Err(format!("--format must be text or json, not `{other}`")),
    }
    Ok(ExitCode::SUCCESS)
}

const FORMATS: &[&str] = &["pretty", "json", "junit", "markdown", "github"];

async fn run(args: RunArgs) -> Result<ExitCode, String> {
    let Some(target) = args.target else {
        return Err(
            "--target \"<command>\" is required (or use list, serve, reference-client)".into(),
        );
    };
    if !FORMATS.contains(&args.format.as_str()) {
        return Err(format!(
            "--format must be one of {}, not `{}`",
            FORMATS.join(", "),
            args.format
        ));
    }
    if !["computer", "agent", "all"].contains(&args.suite.as_str()) {
        return Err(format!(
            "--suite must be computer, agent or all, not `{}`",
            args.suite
        ));
    }
    if args.jobs == 0 {
        return Err("--jobs must be at least 1 (the number of scenarios run at once)".into());
    }
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if !positive(args.timeout) || !args.time_scale.is_none_or(positive) {
        return Err("--timeout and --time-scale must be positive numbers".into());
    }
    let partition = args
        .partition
        .as_deref()
        .map(str::parse::<Partition>)
        .transpose()
        .map_err(|e| e.to_string())?;
    if args.update_snapshots && args.snapshots.is_none() {
        return Err("--update-snapshots needs --snapshots DIR (where the snapshots are)".into());
    }
    let baseline = match &args.expected_failures {
        Some(path) => Baseline::load(path).map_err(|e| e.to_string())?,
        None => Baseline::default(),
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
        snapshots: args
            .snapshots
            .as_ref()
            .map(|dir| report::Snapshots::new(dir, args.update_snapshots)),
        auto_consent: args.auto_consent,
    };
    // Refuses unknown --scenario names before anything starts.
    options.selected().map_err(|e| e.to_string())?;
    let progress = (args.format == "pretty").then(ProgressReporter::for_stderr);
    let run = runner::run_suite_with(&options, |event| {
        if let Some(progress) = &progress {
            progress.show(event);
        }
    })
    .await
    .map_err(|e| e.to_string())?;
    let verdict = baseline.verdict_with(&run, args.strict);
    let json = || serde_json::to_string_pretty(&report::json(&run, &verdict)).unwrap_or_default();
    let text = match args.format.as_str() {
        "json" => json() + "\n",
        "junit" => report::junit_with(&run, &verdict).map_err(|e| e.to_string())? + "\n",
        "markdown" => report::markdown(&run, &verdict),
        "github" => report::github(&run, &verdict),
        _ => report::pretty(&run, &verdict),
    };
    print!("{text}");
    if args.format != "pretty" {
        // The pretty report shows a differing snapshot's diff; other formats go to files or
        // tools, so the diff goes to the log as well.
        for check in run.checks().filter(|c| {
            c.rule == report::snapshot::SNAPSHOT_CHECK && c.status == report::Status::Failure
        }) {
            eprintln!("{}: {}", check.id, check.details);
        }
    }
    let write = |path: &std::path::Path, contents: String| {
        std::fs::write(path, contents).map_err(|e| format!("{}: {e}", path.display()))
    };
    if let Some(dir) = &args.output {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        write(&dir.join("report.json"), json())?;
        write(&dir.join("summary.md"), report::markdown(&run, &verdict))?;
        if let Ok(xml) = report::junit_with(&run, &verdict) {
            write(&dir.join("junit.xml"), xml)?;
        }
    }
    if let Some(path) = &args.write_expected_failures {
        write(path, baseline.accepting(&verdict).to_text())?;
    }
    Ok(if verdict.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn serve(name: &str, time_scale: f64) -> Result<ExitCode, String> {
    let spec = runner::suite::find(name)
        .ok_or_else(|| format!("unknown scenario `{name}`; `conformance list` shows them"))?;
    let stage = runner::Stage::start(spec, time_scale)
        .await
        .map_err(|e| e.to_string())?;
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
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

async fn reference_client(
    break_rule: Option<String>,
    delay_ms: u64,
    fixed_poll_ms: Option<u64>,
    trace_break_points: bool,
    url: String,
) -> Result<ExitCode, String> {
    if let Some(id) = &break_rule
        && rules::find(id).is_none()
    {
        return Err(format!(
            "unknown rule `{id}`; `conformance list` shows them"
        ));
    }
    let mut options = conformance::reference_client::ClientOptions::from_env(url, break_rule)
        .map_err(|e| e.to_string())?;
    options.delay = Duration::from_millis(delay_ms);
    options.fixed_poll = fixed_poll_ms.map(Duration::from_millis);
    let outcome = conformance::reference_client::run(options).await;
    if trace_break_points {
        let reached = conformance::reference_client::break_points_reached();
        eprintln!("break points reached: {}", reached.join(" "));
    }
    outcome.map_err(|e| format!("reference client: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
