//! The Agent API's part of the control API: `DELETE /_mock/agent/responses/{id}` makes one run
//! vanish, as when the provider forgets a run: from then on `GET`, cancel, stream resume and
//! files answer as for an id the API never issued. (A scenario's `forget_after` does the same
//! on the virtual clock.) Merged into the Agent API router; like the rest of `/_mock`, it takes
//! no credentials.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use serde_json::json;

use crate::AppState;

/// The control path of one response.
pub(crate) const FORGET_PATH: &str = "/_mock/agent/responses/{id}";

/// `DELETE /_mock/agent/responses/{id}`: forgets the run; 404 when the mock holds no such id.
pub(crate) async fn forget(State(app): State<AppState>, Path(id): Path<String>) -> Response {
    match app.agent().remove(&id) {
        Some(run) => Json(json!({"forgotten": run.id})).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({
                "error": format!(
                    "no Agent API response `{id}`: pass the `id` of a response this mock created \
                     (resp_...) and not forgotten yet"
                ),
            })),
        )
            .into_response(),
    }
}
