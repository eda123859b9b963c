//! Errors of the `mock-server` crate.
//!
//! Start-up errors (bad fixtures, a port in use) are returned from [`crate::MockServer`]'s
//! builder; errors a client causes over HTTP are answered in the shape of the protocol it speaks
//! (JSON-RPC errors, tool results with `isError`) by the module that speaks it.

use std::path::PathBuf;

/// Why the mock could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A fixture file was refused.
    #[error(transparent)]
    Fixture(#[from] FixtureError),
    /// A fault spec was refused (`--fault`, [`MockServerBuilder::fault`](crate::MockServerBuilder::fault)).
    #[error("{reason}")]
    Fault {
        /// The sentence that says what is wrong with it.
        reason: String,
    },
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The journal file could not be opened for appending.
    #[error("cannot open the journal file {}: {source}", path.display())]
    JournalFile {
        /// The file asked for.
        path: std::path::PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The clock's settings are out of range (`--time-scale`, the start time).
    #[error(transparent)]
    Clock(#[from] crate::clock::ClockError),
    /// `--auto-consent` names an account the world does not have.
    #[error("--auto-consent {account}: no such account; the accounts are {}", known.join(", "))]
    UnknownAccount {
        /// The account asked for.
        account: String,
        /// The accounts there are.
        known: Vec<String>,
    },
    /// An `--allow-origin` value is no origin.
    #[error("{reason}")]
    AllowOrigin {
        /// The sentence that says what is wrong with it.
        reason: String,
    },
    /// `--access-token-lifetime` is outside what an authorization server can issue.
    #[error(
        "--access-token-lifetime {}s: an access token must live at least 1 second and at most \
         366 days",
        given.as_secs()
    )]
    AccessTokenLifetime {
        /// The lifetime asked for.
        given: std::time::Duration,
    },
}

/// A fixture file that was refused, with where and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct FixtureError {
    /// The file (or `embedded:NAME` for the built-in catalog).
    pub path: PathBuf,
    /// What is wrong with it.
    #[source]
    pub kind: FixtureErrorKind,
}

/// What is wrong with a fixture file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FixtureErrorKind {
    /// The file could not be read.
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    /// The file is not JSON.
    #[error("not valid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The file does not match the schema.
    #[error("at {pointer}: {message}")]
    Schema {
        /// JSON pointer to the offending value (empty for the document).
        pointer: String,
        /// What the schema expected there.
        message: String,
    },
    /// The file matches the schema but says something impossible.
    #[error("at {pointer}: {message}")]
    Invalid {
        /// JSON pointer to the offending value.
        pointer: String,
        /// What is wrong.
        message: String,
    },
}

impl FixtureError {
    /// The JSON pointer of the offending value, when the document parsed as JSON (`""` is the
    /// document itself).
    pub fn pointer(&self) -> Option<&str> {
        match &self.kind {
            FixtureErrorKind::Schema { pointer, .. }
            | FixtureErrorKind::Invalid { pointer, .. } => Some(pointer),
            FixtureErrorKind::Read(_) | FixtureErrorKind::Json(_) => None,
        }
    }

    pub(crate) fn new(path: impl Into<PathBuf>, kind: FixtureErrorKind) -> Self {
        Self {
            path: path.into(),
            kind,
        }
    }
}
