//! The `conformance` command line (see DESIGN.md, "Conformance runner").

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use conformance::report::{self, Baseline};
use conformance::rules::{self, UNAVAILABLE_FAMILIES};
use conformance::runner::{self, RunOptions, SCENARIOS};

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
    /// pretty, json or junit.
    #[arg(long, default_value = "pretty")]
    format: String,
    /// Keep each scenario's journal, user log, output and checks here.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Failures that are expected: `scenario` or `scenario:rule-id`, one per line.
    #[arg(long)]
    expected_failures: Option<PathBuf>,
    /// Scenarios run at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Real-time limit per scenario, in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Virtual seconds per real second on the mock's clock.
    #[arg(long, default_value_t = runner::DEFAULT_TIME_SCALE)]
    time_scale: f64,
}

#[derive(Subcommand)]
enum Command {
    /// Scenarios and rules, with the document section each rule comes from.
    List,
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
        /// The MCP endpoint URL.
        url: String,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::List) => {
            print!("{}", list());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Serve {
            scenario,
            time_scale,
        }) => serve(&scenario, time_scale).await,
        Some(Command::ReferenceClient { break_rule, url }) => {
            reference_client(break_rule, url).await
        }
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

fn list() -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for suite in ["computer", "agent"] {
        let _ = writeln!(out, "Scenarios (suite {suite}):");
        for s in SCENARIOS.iter().filter(|s| s.suite == suite) {
            let era = match (s.suite, s.era) {
                ("computer", runner::Era::Modern) => " [2026-07-28]",
                _ => "",
            };
            let _ = writeln!(out, "  {:<34} {}{era}", s.name, s.description);
        }
        if suite == "computer" {
            out.push('\n');
        }
    }
    out.push_str("\nRules:\n");
    for r in rules::registry() {
        let level = match r.level {
            rules::Level::Must => "MUST",
            rules::Level::Should => "SHOULD",
        };
        let _ = writeln!(out, "  {:<40} {:<6} {}", r.id, level, r.summary);
        let _ = writeln!(out, "      from: {} § {}", r.doc.document, r.doc.section);
        let _ = writeln!(out, "      scenarios: {}", r.scenario_names().join(", "));
    }
    if !UNAVAILABLE_FAMILIES.is_empty() {
        out.push_str("\nNot yet available (not checked, never passed):\n");
        for (family, reason) in UNAVAILABLE_FAMILIES {
            let _ = writeln!(out, "  {family}: {reason}");
        }
    }
    out
}

async fn run(args: RunArgs) -> Result<ExitCode, String> {
    let Some(target) = args.target else {
        return Err(
            "--target \"<command>\" is required (or use list, serve, reference-client)".into(),
        );
    };
    if !["pretty", "json", "junit"].contains(&args.format.as_str()) {
        return Err(format!(
            "--format must be pretty, json or junit, not `{}`",
            args.format
        ));
    }
    if !["computer", "agent", "all"].contains(&args.suite.as_str()) {
        return Err(format!(
            "--suite must be computer, agent or all, not `{}`",
            args.suite
        ));
    }
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if !positive(args.timeout) || !positive(args.time_scale) {
        return Err("--timeout and --time-scale must be positive numbers".into());
    }
    let baseline = match &args.expected_failures {
        Some(path) => Baseline::load(path).map_err(|e| e.to_string())?,
        None => Baseline::default(),
    };
    let options = RunOptions {
        target,
        suite: args.suite,
        scenarios: args.scenarios,
        jobs: args.jobs.max(1),
        timeout: Duration::from_secs_f64(args.timeout),
        time_scale: args.time_scale,
        output: args.output.clone(),
    };
    let pretty = args.format == "pretty";
    let run = runner::run_suite_with(&options, |done, total, scenario| {
        if pretty {
            let failed = scenario
                .checks
                .iter()
                .any(|c| c.status != report::Status::Success);
            let bar: String = (0..20)
                .map(|i| if i * total < done * 20 { '#' } else { '.' })
                .collect();
            eprintln!(
                "[{bar}] {done}/{total} {} {}",
                scenario.name,
                if failed { "FAIL" } else { "ok" }
            );
        }
    })
    .await
    .map_err(|e| e.to_string())?;
    let verdict = baseline.verdict(&run);
    let text = match args.format.as_str() {
        "json" => {
            serde_json::to_string_pretty(&report::json(&run, &verdict)).unwrap_or_default() + "\n"
        }
        "junit" => report::junit(&run).map_err(|e| e.to_string())? + "\n",
        _ => report::pretty(&run, &verdict),
    };
    print!("{text}");
    if let Some(dir) = &args.output {
        let json = serde_json::to_string_pretty(&report::json(&run, &verdict)).unwrap_or_default();
        std::fs::write(dir.join("report.json"), json)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if let Ok(xml) = report::junit(&run) {
            std::fs::write(dir.join("junit.xml"), xml)
                .map_err(|e| format!("{}: {e}", dir.display()))?;
        }
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

async fn reference_client(break_rule: Option<String>, url: String) -> Result<ExitCode, String> {
    if let Some(id) = &break_rule
        && rules::find(id).is_none()
    {
        return Err(format!(
            "unknown rule `{id}`; `conformance list` shows them"
        ));
    }
    let options = conformance::reference_client::ClientOptions::from_env(url, break_rule)
        .map_err(|e| e.to_string())?;
    conformance::reference_client::run(options)
        .await
        .map_err(|e| format!("reference client: {e}"))?;
    Ok(ExitCode::SUCCESS)
}
