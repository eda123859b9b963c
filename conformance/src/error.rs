//! Errors of the conformance crate, each of a [`ErrorKind`] that decides the exit status
//! ([`ConformanceExitCode`]), as nextest's errors carry theirs.

use std::path::PathBuf;

/// The exit statuses of the `conformance` command (`conformance --help` and docs/conformance.md
/// list them): 0 and 1 are verdicts on the client, 2 to 4 say why no verdict could be given.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ConformanceExitCode;

impl ConformanceExitCode {
    /// Every check passed (or failed only as the expected-failures file says).
    pub const PASSED: u8 = 0;
    /// The client broke a rule, a listed failure started passing, or a snapshot differs.
    pub const CHECKS_FAILED: u8 = 1;
    /// The command line, or a file it names, is wrong: nothing ran.
    pub const USAGE: u8 = 2;
    /// The target command could not be run as a client in any scenario (not found, not
    /// executable, `sh` missing): fix `--target`.
    pub const TARGET: u8 = 3;
    /// The runner itself failed (a mock that could not start, a port, a file it writes).
    pub const INFRASTRUCTURE: u8 = 4;
}

/// Why a run could not give a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The command line or a file it names is wrong; fix the invocation.
    Usage,
    /// The target command could not be run as a client; fix `--target`.
    Target,
    /// The runner or the machine failed; rerun, or report it.
    Infrastructure,
}

impl ErrorKind {
    /// The exit status this kind gives ([`ConformanceExitCode`]).
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Usage => ConformanceExitCode::USAGE,
            Self::Target => ConformanceExitCode::TARGET,
            Self::Infrastructure => ConformanceExitCode::INFRASTRUCTURE,
        }
    }

    /// `usage`, `target` or `infrastructure`, as the error line names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Usage => "usage",
            Self::Target => "target",
            Self::Infrastructure => "infrastructure",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Everything that can stop a conformance run (a failing client is a report, not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An option has a value the runner cannot use.
    #[error("{message}")]
    Usage {
        /// What is wrong and what would do, in a sentence.
        message: String,
    },
    /// A file named on the command line could not be read.
    #[error("{path}: {source}")]
    Input {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The in-process mock could not start.
    #[error("the mock could not start: {0}")]
    Mock(#[from] mock_server::Error),
    /// A socket could not be bound.
    #[error("could not listen on 127.0.0.1:0: {0}")]
    Bind(#[source] std::io::Error),
    /// A scenario's run ended without a result (its task panicked or was cancelled): a runner
    /// bug, reported instead of lost.
    #[error(
        "the run of scenario `{name}` stopped without a result ({message}); this is a runner bug, please report it"
    )]
    ScenarioTask {
        /// The scenario.
        name: String,
        /// What the task said.
        message: String,
    },
    /// A scenario name is not in the suite.
    #[error("unknown scenario `{name}`; `conformance list` shows the available ones")]
    UnknownScenario {
        /// The name given.
        name: String,
    },
    /// A rule id is not in the registry.
    #[error("unknown rule `{id}`; `conformance list` shows the available ones")]
    UnknownRule {
        /// The id given.
        id: String,
    },
    /// The target command could not be run as a client in any scenario.
    #[error(
        "the target `{command}` could not be run in any of the {scenarios} scenario(s): {reason}; \
         check the --target command (it runs through `sh -c` with the MCP URL appended)"
    )]
    Target {
        /// The `--target` command.
        command: String,
        /// How many scenarios tried it.
        scenarios: usize,
        /// What the first attempt said (the spawn error, or the shell's stderr).
        reason: String,
    },
    /// A file could not be read or written while running (output, snapshots, fixtures).
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The expected-failures file has a malformed line.
    #[error("{path}:{line}: {message}")]
    Baseline {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The JUnit report could not be written.
    #[error("could not write the JUnit report: {0}")]
    Junit(#[from] quick_junit::SerializeError),
    /// The JUnit report could not be adjusted to the schema.
    #[error("could not write the JUnit report: {0}")]
    JunitSchema(String),
    /// A report or a scenario's checks could not be written as JSON.
    #[error("could not write the report as JSON: {0}; this is a runner bug, please report it")]
    Json(#[from] serde_json::Error),
}

impl Error {
    /// A usage error with this sentence.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage {
            message: message.into(),
        }
    }

    /// Which kind of problem this is, and so the exit status.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::Usage { .. }
            | Self::Input { .. }
            | Self::UnknownScenario { .. }
            | Self::UnknownRule { .. }
            | Self::Baseline { .. } => ErrorKind::Usage,
            Self::Target { .. } => ErrorKind::Target,
            Self::Mock(_)
            | Self::Bind(_)
            | Self::ScenarioTask { .. }
            | Self::File { .. }
            | Self::Junit(_)
            | Self::JunitSchema(_)
            | Self::Json(_) => ErrorKind::Infrastructure,
        }
    }
}

/// Errors of the reference client (it exits non-zero with this message).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// An HTTP request failed.
    #[error("HTTP request to {url} failed: {source}")]
    Http {
        /// Where it went.
        url: String,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// The server answered something the client cannot use.
    #[error("unexpected answer to {what}: {detail}")]
    Protocol {
        /// Which request.
        what: String,
        /// What came back.
        detail: String,
    },
    /// A required environment variable is missing.
    #[error("environment variable {0} is not set (the conformance runner sets it)")]
    MissingEnv(&'static str),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_own_exit_status_apart_from_the_verdicts() {
        let codes = [
            ErrorKind::Usage.exit_code(),
            ErrorKind::Target.exit_code(),
            ErrorKind::Infrastructure.exit_code(),
        ];
        assert_eq!(codes, [2, 3, 4]);
        assert!(!codes.contains(&ConformanceExitCode::PASSED));
        assert!(!codes.contains(&ConformanceExitCode::CHECKS_FAILED));
    }

    #[test]
    fn a_file_the_user_named_is_a_usage_error_and_one_the_runner_writes_is_not() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let named = Error::Input {
            path: "expected.txt".into(),
            source: io(),
        };
        let written = Error::File {
            path: "out/report.json".into(),
            source: io(),
        };
        assert_eq!(named.kind(), ErrorKind::Usage);
        assert_eq!(written.kind(), ErrorKind::Infrastructure);
        assert_eq!(
            Error::UnknownScenario { name: "x".into() }.kind(),
            ErrorKind::Usage
        );
    }
}
