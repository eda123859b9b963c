//! Record, replay and verify: scenarios taken from the live service, and a check that they still
//! match it.
//!
//! - `mock-server record --upstream URL --out FILE`: a proxy ([`Proxy`]) between a client and
//!   the service that, on Ctrl-C or SIGTERM, writes what it saw as a scenario fixture in the
//!   mock's own format ([`fixture`]), which `mock-server --fixtures FILE` plays;
//! - `mock-server verify --upstream URL FILE`: the fixture's requests sent again, each answer
//!   compared in shape with the recorded one ([`verify()`]).
//!
//! The pieces, imports pointing down: `proxy` (forwarding and capture), `capture` (what is
//! kept), `redact` (the journal's redaction and the record-only rules), `rpc` (the MCP traffic
//! as JSON-RPC), `to_fixture` (exchanges → scenario), `shape` and `verify`.
//!
//! A route family is a small addition: the proxy forwards every route as it is; the fixture
//! reads a surface's traffic in `to_fixture/<surface>.rs`; verify compares any route by shape.

mod capture;
mod error;
mod proxy;
mod redact;
mod rpc;
mod shape;
mod to_fixture;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

pub use capture::{Captured, CapturedEvent};
pub use error::RecordError;
pub use proxy::Proxy;
pub use redact::{REDACTED, Secrets, UserRedactions};
pub use shape::{Difference, compare};
pub use to_fixture::{FixtureOptions, fixture};
pub use verify::{Checked, Verification, VerifyOptions, recorded_exchanges, verify};

/// `mock-server record`: proxy a service and write what passed as a scenario fixture.
#[derive(Debug, Clone, clap::Args)]
pub struct RecordArgs {
    /// The service's base URL, e.g. https://www.perplexity.ai (or a mock's).
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// Address the proxy listens on; point the client at it.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// The fixture to write when the recording stops (Ctrl-C or SIGTERM).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The scenario's name (default: the file's stem).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// A regular expression whose matches are replaced by `<redacted>` everywhere in the file
    /// (names, e-mail addresses, account ids); repeatable.
    #[arg(long = "redact", value_name = "PATTERN")]
    pub redact: Vec<String>,
}

/// `mock-server verify`: replay a recorded fixture's requests and compare the answers' shapes.
#[derive(Debug, Clone, clap::Args)]
pub struct VerifyArgs {
    /// The service's base URL.
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// The bearer token to send where the recording sent one.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "PERPLEXITY_API_KEY",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// Send the requests one after another, without the waits the recorded client made.
    #[arg(long)]
    pub no_wait: bool,
    /// How long to read an event stream that does not end by itself.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::fixtures::parse_duration)]
    pub stream_timeout: Duration,
    /// The fixture `mock-server record` wrote.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// The scenario name for `out`: `--name`, else the file's stem.
fn scenario_name(name: Option<&str>, out: &Path) -> String {
    name.map(str::to_owned).unwrap_or_else(|| {
        out.file_stem()
            .map(|s| s.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_else(|| "recorded".into())
    })
}

/// Writes the fixture of `captures` to `out`.
pub fn write_fixture(
    captures: &[Captured],
    upstream: &str,
    out: &Path,
    name: Option<&str>,
    redactions: &UserRedactions,
) -> Result<String, RecordError> {
    let name = scenario_name(name, out);
    let fixture = fixture(
        captures,
        &FixtureOptions {
            name: &name,
            upstream,
            redactions,
        },
    )?;
    let text = serde_json::to_string_pretty(&fixture)
        .map_err(|e| RecordError::File(out.into(), e.to_string()))?;
    std::fs::write(out, format!("{text}\n"))
        .map_err(|e| RecordError::File(out.into(), e.to_string()))?;
    Ok(name)
}

/// Runs `mock-server record` until Ctrl-C or SIGTERM, then writes the fixture.
pub async fn run_record(args: RecordArgs) -> ExitCode {
    let redactions = match UserRedactions::new(&args.redact) {
        Ok(r) => r,
        Err(error) => return fail(&error),
    };
    let proxy = match Proxy::start(&args.upstream, &args.listen).await {
        Ok(proxy) => proxy,
        Err(error) => return fail(&error),
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        // Like the mock's, the first line is a contract: tools read the URL from it.
        let _ = writeln!(out, "mock-server recording on {}", proxy.uri());
        let _ = writeln!(
            out,
            "  upstream: {}\n  MCP endpoint: {}{}\n  Agent API: PERPLEXITY_BASE_URL={}\n  Stop with Ctrl-C (or SIGTERM) to write {}",
            proxy.upstream(),
            proxy.uri(),
            crate::MCP_PATH,
            proxy.uri(),
            args.out.display()
        );
        let _ = out.flush();
    }
    stopped().await;
    let upstream = proxy.upstream().to_owned();
    let captures = proxy.stop().await;
    match write_fixture(
        &captures,
        &upstream,
        &args.out,
        args.name.as_deref(),
        &redactions,
    ) {
        Ok(name) => {
            println!(
                "mock-server record: wrote {} ({} exchanges); replay it with `mock-server --fixtures {} --scenario {name}`",
                args.out.display(),
                captures.len(),
                args.out.display()
            );
            if let Some(note) = to_fixture::threads_left_out(to_fixture::other_threads(&captures)) {
                println!("mock-server record: {note}");
            }
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}

/// Runs `mock-server verify`: exit 0 when every answer has the recorded shape, 1 when one
/// differs, 2 when the check could not run.
pub async fn run_verify(args: VerifyArgs) -> ExitCode {
    let recorded = match recorded_exchanges(&args.file) {
        Ok(recorded) => recorded,
        Err(error) => return fail(&error),
    };
    let options = VerifyOptions {
        upstream: args.upstream,
        token: args.token,
        wait: !args.no_wait,
        stream_timeout: args.stream_timeout,
    };
    match verify(&recorded, &options).await {
        Ok(report) => {
            println!("{report}");
            if report.matches() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(error) => fail(&error),
    }
}

fn fail(error: &RecordError) -> ExitCode {
    eprintln!("mock-server: {error}");
    ExitCode::from(2)
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let Ok(mut terminate) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            let _ = interrupt.await;
            return;
        };
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
