//! How a surface answers an error that is not about what the request asked: a status the
//! mock's injected faults answer with (429, 500, 502, 503), or a request the origin guard
//! refused (403, 415). Each surface implements [`ErrorShape`] in its own envelope, as it
//! implements the body policy for a refused body.

use axum::response::Response;
use http::StatusCode;

/// A surface's error envelope, for an answer chosen outside the surface.
pub(crate) trait ErrorShape: Send + Sync + 'static {
    /// `status` with `sentence`, in the surface's envelope.
    fn error(&self, status: StatusCode, sentence: &str) -> Response;

    /// `status` with `sentence`, its envelope's `type` (where it has one) `kind`.
    fn typed_error(&self, status: StatusCode, kind: &str, sentence: &str) -> Response {
        let _ = kind;
        self.error(status, sentence)
    }

    /// Whether the surface takes its scenarios' faults itself, once it knows which scenario a
    /// request follows (so the layer collects what it took).
    fn takes_scenario_faults(&self) -> bool {
        false
    }

    /// Whether the surface's clients read a retry delay from `retry-after-ms` as well as from
    /// `Retry-After` (the Agent API's SDKs do).
    fn says_retry_after_ms(&self) -> bool {
        false
    }
}
