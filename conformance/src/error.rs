//! Errors of the conformance crate.

use std::path::PathBuf;

/// Everything that can stop a conformance run (a failing client is a report, not an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
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
    /// A file could not be read or written.
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
