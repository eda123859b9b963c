//! What can stop a recording or a verification, each with a sentence a person can act on.

use std::path::PathBuf;

/// Why `record` or `verify` could not do its work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The proxy could not listen.
    #[error("cannot listen on {0}: {1}")]
    Listen(String, #[source] std::io::Error),
    /// The upstream URL is unusable, or the upstream could not be reached.
    #[error("upstream: {0}")]
    Upstream(String),
    /// A `--redact` pattern is not a regular expression.
    #[error("--redact `{0}` is not a regular expression: {1}")]
    Pattern(String, String),
    /// Nothing recorded could become a scenario.
    #[error("{0}")]
    Empty(String),
    /// The fixture could not be written or read.
    #[error("{0}: {1}")]
    File(PathBuf, String),
    /// The fixture has no `recording` section to verify.
    #[error(
        "{0}: no `recording` section: it was not written by `mock-server record`, so there is nothing to replay"
    )]
    NotRecorded(PathBuf),
}

/// A transport error with its causes (`tcp connect error: Connection refused`, a TLS alert),
/// since reqwest's own sentence names only the URL.
pub(crate) fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        let line = inner.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        cause = inner.source();
    }
    text
}
