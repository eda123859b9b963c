//! The Agent API surface (`/v1/agent` ≡ `/v1/responses` ≡ `/responses`): responses in sync,
//! stream and background mode, driven by a scripted model on the virtual clock, with
//! connectors, remote MCP tools (a real MCP client) and approvals.
//!
//! `routes` extracts each request and calls `service`, the one door to behaviour, then
//! `render` writes the typed answer; `wire` holds the serde types of everything the API reads
//! and writes; `validate` reads a request once, applying the request rules; `run` plays a
//! scenario's script and keeps the response and event log that `stream` replays; `tools` wires
//! the request's MCP servers and connectors (through `mcp_client`, `connectors`, `approval`);
//! `control` adds the Agent API's `/_mock` endpoint.

mod approval;
mod arguments;
mod auth;
mod body;
mod connectors;
mod control;
mod error;
mod mcp_client;
mod models;
mod paths;
mod render;
mod routes;
mod run;
mod service;
mod state;
mod store;
mod stream;
mod structured;
mod tools;
mod validate;
mod wire;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post};

pub(crate) use body::AgentBodies;
pub(crate) use paths::{BODY_LIMIT, PREFIXES, is_agent_path};
pub(crate) use state::{AgentSetup, AgentState};
pub(crate) use store::Store;

/// The fallback for paths no route serves: API paths get a 404 in the Agent API envelope.
pub(crate) use routes::unserved;

/// The Agent API routes.
pub(crate) fn routes() -> Router<AgentState> {
    let mut router = Router::new()
        .route("/v1/models", get(routes::models))
        .route(control::FORGET_PATH, delete(control::forget));
    for prefix in PREFIXES {
        router = router
            .route(prefix, post(routes::create))
            .route(&format!("{prefix}/{{id}}"), get(routes::retrieve))
            .route(&format!("{prefix}/{{id}}/cancel"), post(routes::cancel))
            .route(&format!("{prefix}/{{id}}/files"), get(routes::files))
            .route(
                &format!("{prefix}/{{id}}/files/{{file_id}}/content"),
                get(routes::file_content),
            );
    }
    // Bodies over 32 MiB were refused before routing (`AgentBodies`); lift axum's 2 MB
    // default to match.
    router
        .method_not_allowed_fallback(routes::wrong_method)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn(routes::add_request_id))
}
