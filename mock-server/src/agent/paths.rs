//! Where the Agent API is served and how much it reads: shared by its router, its handlers
//! and its body policy (which answers over-long bodies in the API's envelope).

/// Largest create body the API accepts (32 MiB); a larger one is a 413 `payload_too_large`.
pub(crate) const BODY_LIMIT: usize = 32 * 1024 * 1024;

/// The path prefixes every Agent API route is served under.
pub(crate) const PREFIXES: &[&str] = &["/v1/agent", "/v1/responses", "/responses"];

/// True for paths of the Agent API (they get its error envelope and body limit).
pub(crate) fn is_agent_path(path: &str) -> bool {
    path == "/v1/models"
        || PREFIXES.iter().any(|p| {
            path.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
}
