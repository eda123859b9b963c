//! The rest of the Perplexity API on the same world: chat completions (`POST
//! /chat/completions`, whole or streamed), async chat completions (`/async/chat/completions`),
//! the Search API (`POST /search`), and embeddings (`POST /v1/embeddings`,
//! `/v1/contextualizedembeddings`), answered by a scripted model whose scenarios are fixtures
//! (a `sonar` section; `#name` in the last user message picks one).
//!
//! `wire` holds the serde types, read once and rendered once; `validate` reads and checks each
//! request; `service` is the behaviour the thin `routes` call, standing on `gate` (rate limits,
//! credits, scripted faults), `answer` (the scripted answer, with `sources` and `structured`),
//! `stream` (SSE chunks on the virtual clock), `jobs` (the async state machine), `embed`
//! (deterministic vectors) and `store` (what the surface remembers). `dashboard` is its panel.

mod answer;
mod auth;
mod body;
mod dashboard;
mod embed;
mod filters;
mod gate;
mod jobs;
mod models;
mod paths;
mod routes;
mod service;
mod sources;
mod state;
mod store;
mod stream;
mod structured;
mod validate;
mod wire;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub(crate) use body::SonarBodies;
pub(crate) use dashboard::POLLED_READS;
pub(crate) use paths::{BODY_LIMIT, is_sonar_path};
pub(crate) use state::{SonarSetup, SonarState};
pub(crate) use store::Store;

/// The Sonar routes, and the dashboard's Sonar panel (`/_mock/sonar`, `/_mock/sonar.js`).
pub(crate) fn routes() -> Router<SonarState> {
    let mut router = Router::new();
    for path in paths::CHAT {
        router = router.route(path, post(routes::chat));
    }
    for path in paths::ASYNC {
        router = router
            .route(path, post(routes::create_job).get(routes::list_jobs))
            .route(&format!("{path}/{{id}}"), get(routes::get_job));
    }
    router
        .route(paths::SEARCH, post(routes::search))
        .route(paths::EMBEDDINGS, post(routes::embeddings))
        .route(paths::CONTEXTUALIZED, post(routes::contextualized))
        .method_not_allowed_fallback(routes::wrong_method)
        .route(dashboard::PANEL_PATH, get(dashboard::panel))
        .route(dashboard::SCRIPT_PATH, get(dashboard::script))
        // The body was read under the 32 MiB limit before routing; lift axum's 2 MB default.
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
}
