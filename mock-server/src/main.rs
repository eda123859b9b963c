//! `mock-server`: run the Perplexity Computer mock from the command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mock_server::{AuthMode, ClockMode, Config, MockServer, fixtures::parse_duration};

/// A faithful, scriptable mock of Perplexity Computer (MCP) on a virtual clock.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Scenario file or directory to add to (or override in) the built-in catalog; repeatable.
    #[arg(long = "fixtures", value_name = "PATH")]
    fixtures: Vec<PathBuf>,
    /// Scenario for conversations that name none (`#name`) and match none (default `complete`).
    #[arg(long, value_name = "NAME")]
    scenario: Option<String>,
    /// Run virtual time this many times faster than real time.
    #[arg(long, value_name = "F", conflicts_with = "manual_clock", value_parser = positive_float)]
    time_scale: Option<f64>,
    /// Move virtual time only through `POST /_mock/clock/advance`.
    #[arg(long)]
    manual_clock: bool,
    /// How long a call waits for a checkpoint before answering `timeout` (virtual time).
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = duration)]
    call_wait: Duration,
    /// Base URL to put in the URLs the mock hands out (default: the listen address).
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// `none` turns authentication off: every request acts as `alice`.
    #[arg(long, value_name = "MODE", value_parser = ["none", "bearer"])]
    auth: Option<String>,
    /// World file (accounts, plans, models, Projects) replacing the built-in one.
    #[arg(long, value_name = "PATH")]
    world: Option<PathBuf>,
    /// Approve the OAuth consent page at once as this account (`alice` or `bob`), for tests.
    #[arg(long, value_name = "ACCOUNT")]
    auto_consent: Option<String>,
}

fn positive_float(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if f > 0.0 && f.is_finite() => Ok(f),
        _ => Err(format!(
            "`{text}` is not a positive number, for example 10 or 0.5"
        )),
    }
}

fn duration(text: &str) -> Result<Duration, String> {
    parse_duration(text)
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let auth = match cli.auth.as_deref() {
        Some("none") => AuthMode::None,
        _ => AuthMode::Bearer,
    };
    let clock = match (cli.manual_clock, cli.time_scale) {
        (true, _) => ClockMode::Manual,
        (false, Some(factor)) => ClockMode::Scaled { factor },
        (false, None) => ClockMode::Scaled { factor: 1.0 },
    };
    let config = Config {
        listen: cli.listen,
        fixtures: cli.fixtures,
        scenario: cli.scenario,
        clock,
        call_wait: cli.call_wait,
        public_url: cli.public_url,
        auth,
        // A developer's mock starts at today's date; only the library defaults to a fixed one.
        epoch: Some(chrono::Utc::now()),
        auto_consent: cli.auto_consent.clone(),
        world: cli.world,
    };
    let server = match MockServer::builder().config(config).start().await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("mock-server: {error}");
            return ExitCode::FAILURE;
        }
    };
    print_banner(&server, clock, auth, cli.auto_consent.as_deref());
    server.wait().await;
    ExitCode::SUCCESS
}

fn print_banner(server: &MockServer, clock: ClockMode, auth: AuthMode, auto_consent: Option<&str>) {
    let base = server.uri();
    let mut out = std::io::stdout().lock();
    // The first line is a contract: tools read the URL from it, so flush it on its own.
    let _ = writeln!(out, "mock-server listening on {base}");
    let _ = out.flush();
    let clock = match clock {
        ClockMode::Manual => "manual (POST /_mock/clock/advance {\"ms\": N})".to_owned(),
        ClockMode::Scaled { factor: 1.0 } => "real time".to_owned(),
        ClockMode::Scaled { factor } => format!("{factor}x real time"),
    };
    let _ = writeln!(out, "  MCP endpoint:  {}", server.mcp_url());
    let _ = writeln!(
        out,
        "  Agent API:     PERPLEXITY_BASE_URL={base} PERPLEXITY_API_KEY=alice-dev-token"
    );
    let _ = writeln!(
        out,
        "  Control:       {base}/_mock  (journal, clock, scenarios, reset)"
    );
    let _ = writeln!(out, "  Virtual clock: {clock}");
    match auth {
        AuthMode::Bearer => {
            let _ = writeln!(
                out,
                "  Tokens:        Authorization: Bearer alice-dev-token  (alice, paid plan)\n                 Authorization: Bearer bob-dev-token    (bob, free plan)"
            );
            let consent = match auto_consent {
                Some(account) => format!("approved at once as {account} (--auto-consent)"),
                None => "a consent page where you pick alice or bob".to_owned(),
            };
            let _ = writeln!(
                out,
                "  OAuth:         MCP hosts sign in with only the MCP URL; {consent}"
            );
        }
        AuthMode::None => {
            let _ = writeln!(
                out,
                "  !! AUTHENTICATION IS OFF (--auth none): every request acts as alice, no token needed !!"
            );
        }
    }
    let _ = out.flush();
}
