//! Caps on what the mock keeps for its clients between requests, so a long-running mock's
//! memory stays bounded whatever its clients do: handshake-era MCP sessions, OAuth client
//! registrations and outstanding authorization codes (refused past their cap), and Computer
//! threads, Agent API responses and uploaded files (the oldest evicted past theirs, counted).

use std::time::Duration;

/// How much client state the mock keeps; the command line maps onto this one to one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLimits {
    /// A handshake-era MCP session unused for this long ends (its id then gets 404, and the
    /// client initializes again, as the transport requires). Measured in real, monotonic time,
    /// not on the virtual clock, so advancing virtual time never ends a session; a session with
    /// an open GET stream is in use. Default: 1 hour.
    pub session_idle_timeout: Duration,
    /// Most handshake-era MCP sessions open at once; past it `initialize` is refused (503 with
    /// a JSON-RPC error) until one ends. Default: 10,000.
    pub max_sessions: usize,
    /// Most OAuth clients registered (`/oauth/register`); past it registration is refused
    /// (503 `temporarily_unavailable`). Default: 10,000.
    pub max_oauth_clients: usize,
    /// Most OAuth authorization codes and consent pages outstanding (neither used nor
    /// expired); past it `/oauth/authorize` redirects with `temporarily_unavailable`.
    /// Default: 10,000.
    pub max_oauth_codes: usize,
    /// Most Computer threads kept; a new thread past it evicts the oldest (by creation), which
    /// then answers as a thread id never issued. Default: 5,000.
    pub max_threads: usize,
    /// Most Agent API responses kept, stored or `store: false`; a new one past it evicts the
    /// oldest, which then answers 404 as an id never issued (a running one is asked to stop).
    /// Default: 1,000.
    pub max_responses: usize,
    /// Most bytes of uploaded attachment files kept; a file past it evicts the oldest files
    /// until it fits (a file larger than the cap is refused). Default: 512 MiB (two files of
    /// the paid plans' largest size, 200 MB).
    pub max_upload_bytes: u64,
}

impl Default for StateLimits {
    fn default() -> Self {
        Self {
            session_idle_timeout: Duration::from_secs(60 * 60),
            max_sessions: 10_000,
            max_oauth_clients: 10_000,
            max_oauth_codes: 10_000,
            max_threads: 5_000,
            max_responses: 1_000,
            max_upload_bytes: 512 * 1024 * 1024,
        }
    }
}

/// How many entries a capped store evicted since the start (or the last reset), as
/// `GET /_mock/overview` shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Kept {
    /// Entries held now.
    pub(crate) kept: usize,
    /// The cap.
    pub(crate) max: u64,
    /// Entries evicted (oldest first) to stay under the cap.
    pub(crate) evicted: u64,
}

/// A span as a person reads it in a refusal: `1 hour`, `30 minutes`, `45 seconds`, `250 ms`.
pub(crate) fn describe(span: Duration) -> String {
    let secs = span.as_secs();
    let plural = |n: u64, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    if secs == 0 {
        format!("{} ms", span.as_millis())
    } else if secs.is_multiple_of(3600) {
        plural(secs / 3600, "hour")
    } else if secs.is_multiple_of(60) {
        plural(secs / 60, "minute")
    } else {
        plural(secs, "second")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_in_their_largest_whole_unit() {
        assert_eq!(describe(Duration::from_secs(3600)), "1 hour");
        assert_eq!(describe(Duration::from_secs(1800)), "30 minutes");
        assert_eq!(describe(Duration::from_secs(90)), "90 seconds");
        assert_eq!(describe(Duration::from_millis(250)), "250 ms");
    }
}
