//! The Agent API's part of the control API: `DELETE /_mock/agent/responses/{id}` makes one run
//! vanish, as when the provider forgets a run: from then on `GET`, cancel, stream resume and
//! files answer as for an id the API never issued. (A scenario's `forget_after` does the same
//! on the virtual clock.) Merged into the Agent API router; like the rest of `/_mock`, it takes
//! no credentials.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde::Serialize;

use super::state::AgentState;

/// The control path of one response.
pub(crate) const FORGET_PATH: &str = "/_mock/agent/responses/{id}";

/// The answer to a forget: the id that is gone.
#[derive(Debug, Serialize)]
struct Forgotten {
    /// The response forgotten.
    forgotten: String,
}

/// The control API's refusal: `{"error": "<what to do instead>"}`.
#[derive(Debug, Serialize)]
struct Refusal {
    /// A sentence a person can act on.
    error: String,
}

/// `DELETE /_mock/agent/responses/{id}`: forgets the run; 404 when the mock holds no such id.
pub(crate) async fn forget(State(agent): State<AgentState>, Path(id): Path<String>) -> Response {
    match agent.service().forget(&id) {
        Some(forgotten) => Json(Forgotten { forgotten }).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(Refusal {
                error: format!(
                    "no Agent API response `{id}`: pass the `id` of a response this mock created \
                     (resp_...) and not forgotten yet"
                ),
            }),
        )
            .into_response(),
    }
}
