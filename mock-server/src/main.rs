//! `mock-server`: run the Perplexity Computer mock from the command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mock_server::{
    AuthMode, ClockMode, Config, ConnectionLimits, JournalConfig, MockServer,
    fixtures::parse_duration,
};

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
    /// Run virtual time this many times faster than real time (0.001 to 1000000).
    #[arg(long, value_name = "F", conflicts_with = "manual_clock", value_parser = time_scale)]
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
    /// How long an OAuth access token lives (virtual time), e.g. 1h or 90s; then the client
    /// refreshes it.
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = duration)]
    access_token_lifetime: Duration,
    /// Most exchanges the journal keeps in memory; the oldest are dropped first.
    #[arg(long, value_name = "N", default_value_t = JournalConfig::default().max_exchanges)]
    journal_max_exchanges: usize,
    /// Most bytes the journal keeps in memory (e.g. 256MiB, 1GiB, 500000).
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = size)]
    journal_max_bytes: usize,
    /// Most bytes kept of each request and response body (the full length is noted).
    #[arg(long, value_name = "SIZE", default_value = "64KiB", value_parser = size)]
    journal_max_body: usize,
    /// Keep no journal in memory (a --journal-file still gets every exchange).
    #[arg(long)]
    no_journal: bool,
    /// Append every finished exchange to this file as one JSON line.
    #[arg(long, value_name = "PATH")]
    journal_file: Option<PathBuf>,
    /// Close a connection whose request headers take longer than this (0 turns it off).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration)]
    header_read_timeout: Duration,
    /// Answer 408 when a request body pauses longer than this (0 turns it off).
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = duration)]
    body_read_timeout: Duration,
    /// Most connections served at once; more wait until one closes.
    #[arg(long, value_name = "N", default_value = "512",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
}

fn time_scale(text: &str) -> Result<f64, String> {
    let factor = text
        .parse::<f64>()
        .map_err(|_| format!("`{text}` is not a number, for example 10 or 0.5"))?;
    ClockMode::Scaled { factor }
        .check()
        .map(|()| factor)
        .map_err(|e| e.to_string())
}

/// A size in bytes: a whole number, optionally followed by KiB, MiB or GiB.
fn size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit_size: usize = match unit.trim() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "`{text}` has unknown unit `{other}`: use a number of bytes, or KiB, MiB or GiB"
            ));
        }
    };
    number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit_size))
        .ok_or_else(|| format!("`{text}` is not a size, for example 64KiB or 256MiB"))
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
        access_token_lifetime: cli.access_token_lifetime,
        world: cli.world,
        journal: JournalConfig {
            max_exchanges: if cli.no_journal {
                0
            } else {
                cli.journal_max_exchanges
            },
            max_bytes: cli.journal_max_bytes,
            max_body_bytes: cli.journal_max_body,
            file: cli.journal_file,
        },
        connections: ConnectionLimits {
            header_read_timeout: cli.header_read_timeout,
            body_read_timeout: cli.body_read_timeout,
            max_connections: usize::try_from(cli.max_connections).unwrap_or(usize::MAX),
        },
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_default_to_the_library_defaults() {
        let cli = Cli::parse_from(["mock-server"]);
        let journal = JournalConfig::default();
        assert_eq!(cli.journal_max_exchanges, journal.max_exchanges);
        assert_eq!(cli.journal_max_bytes, journal.max_bytes);
        assert_eq!(cli.journal_max_body, journal.max_body_bytes);
        let limits = ConnectionLimits::default();
        assert_eq!(cli.header_read_timeout, limits.header_read_timeout);
        assert_eq!(cli.body_read_timeout, limits.body_read_timeout);
        assert_eq!(
            usize::try_from(cli.max_connections),
            Ok(limits.max_connections)
        );
    }

    #[test]
    fn sizes_take_bytes_and_binary_units() {
        assert_eq!(size("500"), Ok(500));
        assert_eq!(size("64KiB"), Ok(65_536));
        assert_eq!(size("256MiB"), Ok(256 << 20));
        assert!(size("12 parsecs").is_err());
        assert!(time_scale("1e12").is_err_and(|e| e.contains("0.001 to 1000000")));
        assert_eq!(time_scale("2000"), Ok(2000.0));
    }
}
