//! `mock-server`: run the Perplexity Computer mock from the command line.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use mock_server::{
    AuthMode, ClockMode, ConnectionLimits, JournalConfig, MockServer, StateLimits,
    fixtures::parse_duration,
};

/// A faithful, scriptable mock of Perplexity Computer (MCP) on a virtual clock.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// `record` or `verify` (docs/record-and-replay.md); without one, run the mock.
    #[command(subcommand)]
    command: Option<Command>,
    /// Address to listen on; port 0 picks a free one.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: String,
    /// Scenario file or directory to add to (or override in) the built-in catalog; repeatable.
    #[arg(long = "fixtures", value_name = "PATH")]
    fixtures: Vec<PathBuf>,
    /// Scenario for conversations that name none (`#name`) and match none (default `complete`).
    #[arg(long, value_name = "NAME")]
    scenario: Option<String>,
    /// Run virtual time this many times faster than real time (0.001 to 1000000). With no
    /// clock flag, the variable MOCK_SERVER_TIME_SCALE gives it.
    #[arg(long, value_name = "F", conflicts_with = "manual_clock", value_parser = time_scale)]
    time_scale: Option<f64>,
    /// Move virtual time only through `POST /_mock/clock/advance`.
    #[arg(long)]
    manual_clock: bool,
    /// How virtual time runs: `real`, `manual` (as --manual-clock) or `driven`: time follows
    /// the client, for conformance runs (a call the client waits on jumps to its next event or
    /// deadline, each `read_thread`, `tasks/get` or `GET` of a background response moves time
    /// on by --look-step, time the client spends between requests does not count).
    #[arg(long, value_name = "MODE", value_parser = ["real", "manual", "driven"],
          conflicts_with_all = ["time_scale", "manual_clock"])]
    clock: Option<String>,
    /// With `--clock driven`: how far one look moves virtual time.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = look_step)]
    look_step: Duration,
    /// How long a call waits for a checkpoint before answering `timeout` (virtual time).
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = duration)]
    call_wait: Duration,
    /// Base URL to put in the URLs the mock hands out (default: the listen address).
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// Let web pages of this origin (`https://host[:port]`) call the MCP endpoint, the control
    /// API, the Agent API and OAuth from a browser, beside pages of the mock's own names;
    /// repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
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
    /// Answer 408 when a whole request body takes longer than this after its headers, however
    /// steadily it trickles in (0 turns it off).
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = duration)]
    body_total_timeout: Duration,
    /// Most connections open at once; past it the oldest one not being served is closed, and
    /// when every one is busy new ones wait until one closes.
    #[arg(long, value_name = "N", default_value = "512",
          value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// End a handshake MCP session unused for this long, in real time (0: never).
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = duration)]
    session_idle_timeout: Duration,
    /// Most handshake MCP sessions open at once; past it initialize is refused.
    #[arg(long, value_name = "N", default_value = "10000")]
    max_sessions: usize,
    /// Most OAuth clients registered; past it registration is refused.
    #[arg(long, value_name = "N", default_value = "10000")]
    max_oauth_clients: usize,
    /// Most OAuth codes and consent pages outstanding; past it sign-in is refused.
    #[arg(long, value_name = "N", default_value = "10000")]
    max_oauth_codes: usize,
    /// Most Computer threads kept; past it the oldest is evicted.
    #[arg(long, value_name = "N", default_value = "5000",
          value_parser = clap::value_parser!(u64).range(1..))]
    max_threads: u64,
    /// Most Agent API responses kept (stored or not); past it the oldest is evicted.
    #[arg(long, value_name = "N", default_value = "1000",
          value_parser = clap::value_parser!(u64).range(1..))]
    max_responses: u64,
    /// Most bytes of uploaded files kept; past it the oldest files are evicted.
    #[arg(long, value_name = "SIZE", default_value = "512MiB", value_parser = size)]
    max_upload_bytes: usize,
    /// Put a fault in force from the start (repeatable), e.g.
    /// `status=429,retry-after=2s,times=1,path=/chat/completions`; the grammar is in
    /// docs/faults.md. `GET /_mock/faults` lists them, `DELETE /_mock/faults` removes them.
    #[arg(long = "fault", value_name = "SPEC")]
    faults: Vec<String>,
}

/// The modes beside running the mock.
#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Proxy a service and write what passed as a scenario fixture on Ctrl-C or SIGTERM.
    Record(mock_server::record::RecordArgs),
    /// Replay a recorded fixture's requests against a service and report where its answers'
    /// shapes now differ (exit 1 when one does).
    Verify(mock_server::record::VerifyArgs),
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

/// The time scale when no clock flag is given. A document's `cargo run -p mock-server` stays
/// verbatim while CI runs it on a faster clock; a flag on the command line always wins.
const TIME_SCALE_VAR: &str = "MOCK_SERVER_TIME_SCALE";

/// The clock the flags ask for (clap refuses the conflicting combinations); with no clock flag,
/// `MOCK_SERVER_TIME_SCALE` (`from_env`) if it is set, else real time.
fn clock_mode(cli: &Cli, from_env: Option<&str>) -> Result<ClockMode, String> {
    Ok(
        match (cli.clock.as_deref(), cli.manual_clock, cli.time_scale) {
            (Some("driven"), _, _) => ClockMode::Driven {
                look_step: cli.look_step,
            },
            (Some("manual"), _, _) | (None, true, _) => ClockMode::Manual,
            (None, false, Some(factor)) => ClockMode::Scaled { factor },
            (Some("real"), _, _) => ClockMode::Scaled { factor: 1.0 },
            _ => match from_env {
                Some(text) => ClockMode::Scaled {
                    factor: time_scale(text).map_err(|e| format!("{TIME_SCALE_VAR}: {e}"))?,
                },
                None => ClockMode::Scaled { factor: 1.0 },
            },
        },
    )
}

fn look_step(text: &str) -> Result<Duration, String> {
    let look_step = parse_duration(text)?;
    ClockMode::Driven { look_step }
        .check()
        .map(|()| look_step)
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

/// Task polls between two looks for new I/O events (tokio's default is 61). A poll of a
/// connection's task runs a whole call, tens of microseconds, so with the default a request
/// that arrives while the runtime works through the others waits for all of them and then for
/// its turn among the next: looking more often serves requests closer to the order they came
/// in, which narrows the spread of latencies under concurrent load (bench/README.md).
const EVENT_INTERVAL: u32 = 16;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .event_interval(EVENT_INTERVAL)
        .build();
    match runtime {
        Ok(runtime) => runtime.block_on(run(cli)),
        Err(error) => {
            eprintln!("mock-server: cannot start the async runtime: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Some(Command::Record(args)) => return mock_server::record::run_record(args).await,
        Some(Command::Verify(args)) => return mock_server::record::run_verify(args).await,
        None => {}
    }
    let auth = match cli.auth.as_deref() {
        Some("none") => AuthMode::None,
        _ => AuthMode::Bearer,
    };
    let clock = match clock_mode(&cli, std::env::var(TIME_SCALE_VAR).ok().as_deref()) {
        Ok(clock) => clock,
        Err(message) => {
            eprintln!("mock-server: {message}");
            return ExitCode::from(2);
        }
    };
    let mut builder = MockServer::builder()
        .listen(cli.listen)
        .clock(clock)
        .call_wait(cli.call_wait)
        .auth(auth)
        // A developer's mock starts at today's date; only the library defaults to a fixed one.
        .start_time(chrono::Utc::now())
        .access_token_lifetime(cli.access_token_lifetime)
        .journal(JournalConfig {
            max_exchanges: if cli.no_journal {
                0
            } else {
                cli.journal_max_exchanges
            },
            max_bytes: cli.journal_max_bytes,
            max_body_bytes: cli.journal_max_body,
            file: cli.journal_file,
        })
        .connections(ConnectionLimits {
            header_read_timeout: cli.header_read_timeout,
            body_read_timeout: cli.body_read_timeout,
            body_total_timeout: cli.body_total_timeout,
            max_connections: usize::try_from(cli.max_connections).unwrap_or(usize::MAX),
        })
        .limits(StateLimits {
            session_idle_timeout: if cli.session_idle_timeout.is_zero() {
                Duration::MAX
            } else {
                cli.session_idle_timeout
            },
            max_sessions: cli.max_sessions,
            max_oauth_clients: cli.max_oauth_clients,
            max_oauth_codes: cli.max_oauth_codes,
            max_threads: usize::try_from(cli.max_threads).unwrap_or(usize::MAX),
            max_responses: usize::try_from(cli.max_responses).unwrap_or(usize::MAX),
            max_upload_bytes: u64::try_from(cli.max_upload_bytes).unwrap_or(u64::MAX),
        });
    for path in cli.fixtures {
        builder = builder.fixtures(path);
    }
    for spec in &cli.faults {
        builder = match builder.fault(spec) {
            Ok(builder) => builder,
            Err(error) => {
                eprintln!("mock-server: --fault {error}");
                return ExitCode::FAILURE;
            }
        };
    }
    if let Some(scenario) = cli.scenario {
        builder = builder.scenario(scenario);
    }
    if let Some(url) = cli.public_url {
        builder = builder.public_url(url);
    }
    for origin in cli.allow_origins {
        builder = builder.allow_origin(origin);
    }
    if let Some(world) = cli.world {
        builder = builder.world(world);
    }
    if let Some(account) = &cli.auto_consent {
        builder = builder.auto_consent(account);
    }
    let server = match builder.start().await {
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
        ClockMode::Driven { look_step } => format!(
            "driven by the client (calls jump to their next event; each look moves it {} s)",
            look_step.as_secs_f64()
        ),
    };
    let _ = writeln!(out, "  MCP endpoint:  {}", server.mcp_url());
    let _ = writeln!(
        out,
        "  Agent API:     PERPLEXITY_BASE_URL={base} PERPLEXITY_API_KEY=alice-dev-token"
    );
    let _ = writeln!(
        out,
        "  Dashboard:     {base}/_mock  (accounts, threads, tasks, responses, journal, clock)"
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
        assert_eq!(cli.body_total_timeout, limits.body_total_timeout);
        assert_eq!(
            usize::try_from(cli.max_connections),
            Ok(limits.max_connections)
        );
        let state = StateLimits::default();
        assert_eq!(cli.session_idle_timeout, state.session_idle_timeout);
        assert_eq!(cli.max_sessions, state.max_sessions);
        assert_eq!(cli.max_oauth_clients, state.max_oauth_clients);
        assert_eq!(cli.max_oauth_codes, state.max_oauth_codes);
        assert_eq!(usize::try_from(cli.max_threads), Ok(state.max_threads));
        assert_eq!(usize::try_from(cli.max_responses), Ok(state.max_responses));
        assert_eq!(
            u64::try_from(cli.max_upload_bytes),
            Ok(state.max_upload_bytes)
        );
    }

    #[test]
    fn the_clock_flags_pick_the_mode_and_refuse_each_other() {
        let mode = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("mock-server").chain(args.iter().copied()))
                .map(|cli| clock_mode(&cli, None).expect("no variable, no error"))
        };
        assert!(matches!(mode(&[]), Ok(ClockMode::Scaled { factor: 1.0 })));
        assert!(matches!(
            mode(&["--clock", "real"]),
            Ok(ClockMode::Scaled { factor: 1.0 })
        ));
        assert!(matches!(mode(&["--manual-clock"]), Ok(ClockMode::Manual)));
        assert!(matches!(
            mode(&["--clock", "manual"]),
            Ok(ClockMode::Manual)
        ));
        assert!(matches!(
            mode(&["--clock", "driven"]),
            Ok(ClockMode::Driven { look_step }) if look_step == Duration::from_secs(60)
        ));
        assert!(matches!(
            mode(&["--clock", "driven", "--look-step", "5s"]),
            Ok(ClockMode::Driven { look_step }) if look_step == Duration::from_secs(5)
        ));
        for refused in [
            &["--clock", "driven", "--time-scale", "10"][..],
            &["--clock", "driven", "--manual-clock"],
            &["--clock", "fast"],
            &["--clock", "driven", "--look-step", "0s"],
        ] {
            assert!(mode(refused).is_err(), "{refused:?} was accepted");
        }
    }

    #[test]
    fn the_time_scale_variable_applies_only_when_no_clock_flag_is_given() {
        let mode = |args: &[&str], var: &str| {
            let cli =
                Cli::try_parse_from(std::iter::once("mock-server").chain(args.iter().copied()))
                    .expect("flags parse");
            clock_mode(&cli, Some(var))
        };
        assert!(matches!(mode(&[], "50"), Ok(ClockMode::Scaled { factor }) if factor == 50.0));
        assert!(matches!(
            mode(&["--time-scale", "3"], "50"),
            Ok(ClockMode::Scaled { factor }) if factor == 3.0
        ));
        assert!(
            matches!(mode(&["--clock", "real"], "50"), Ok(ClockMode::Scaled { factor }) if factor == 1.0)
        );
        assert!(matches!(
            mode(&["--manual-clock"], "50"),
            Ok(ClockMode::Manual)
        ));
        assert!(matches!(
            mode(&["--clock", "driven"], "50"),
            Ok(ClockMode::Driven { .. })
        ));
        let refused = mode(&[], "fast").expect_err("not a number");
        assert!(
            refused.starts_with("MOCK_SERVER_TIME_SCALE: `fast` is not a number"),
            "{refused}"
        );
        assert!(mode(&[], "1e12").is_err());
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
