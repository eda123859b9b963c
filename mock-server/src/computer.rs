//! The Computer MCP surface: the endpoint in both protocol eras, the tool catalog, the thread
//! state machine and engine, and the service that is the one door to behaviour.
//!
//! Layers, each importing only the ones below it: `model` (wire types) · `thread` (the pure
//! state machine) · `view` (the thread as results) · `engine` (threads on virtual time) ·
//! `service` (typed commands) · `render` and `tools` · `transport` (the endpoint).

pub(crate) mod engine;
mod model;
mod render;
mod service;
pub(crate) mod thread;
mod tools;
mod transport;
mod view;

use std::sync::Arc;

use axum::Router;

pub use model::elicitation::form_content_problem;
pub use model::version::{HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSION};
pub use tools::TOOL_NAMES;
pub(crate) use view::{file_bytes, file_facts};

use crate::http::auth::Authenticator;
use engine::Engine;
use service::Service;
use transport::Endpoint;

/// The Computer surface's state; cheap to clone.
#[derive(Clone)]
pub(crate) struct Computer {
    endpoint: Endpoint,
}

impl Computer {
    /// The surface over `engine`, authenticating with `authenticator`, handing out URLs under
    /// `base_url`.
    pub(crate) fn new(engine: Arc<Engine>, authenticator: Authenticator, base_url: &str) -> Self {
        Self {
            endpoint: Endpoint::new(Service::new(engine), authenticator, base_url),
        }
    }

    /// The surface's routes.
    pub(crate) fn routes<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        self.endpoint.routes()
    }

    /// Forgets every thread, task and pending question (`POST /_mock/reset`).
    pub(crate) fn reset(&self) {
        self.endpoint.reset();
    }
}
