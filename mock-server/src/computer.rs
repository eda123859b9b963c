//! The Computer MCP surface: the endpoint in both protocol eras, the tool catalog, the thread
//! state machine and engine, and the service that is the one door to behaviour.
//!
//! Layers, each importing only the ones below it: `model` (wire types) · `thread` (the pure
//! state machine) · `view` (the thread as results) · `engine` (threads on virtual time) ·
//! `service` (typed commands) · `render` and `tools` · `transport` (the endpoint).

mod body;
mod dashboard;
mod engine;
mod files;
pub mod model;
mod pages;
mod render;
mod service;
mod thread;
mod tools;
mod transport;
mod view;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;

pub(crate) use body::{ENDPOINT_BODIES, UNCLAIMED_BODIES};
pub use model::elicitation::form_content_problem;
pub use model::version::{HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSION};
pub(crate) use pages::{FORM_PAGES, PAGES};
pub use tools::TOOL_NAMES;

use crate::clock::Clock;
use crate::config::Eras;
use crate::fixtures::{Catalog, LoadedScenario};
use crate::http::auth::Authenticator;
use crate::limits::StateLimits;
use crate::world::World;
use engine::Engine;
use service::Service;

pub(crate) use dashboard::{ActionDone, ActionRefused, PageAction, ThreadRow};
pub(crate) use transport::Endpoint;
pub(crate) use transport::tasks::TaskRow;

/// The Computer surface's state; cheap to clone.
#[derive(Clone)]
pub(crate) struct Computer {
    service: Service,
    endpoint: Endpoint,
}

/// What the Computer surface stands on.
pub(crate) struct Setup {
    /// Virtual time.
    pub(crate) clock: Clock,
    /// The scenarios threads follow.
    pub(crate) catalog: Arc<Catalog>,
    /// Accounts, credits, uploads.
    pub(crate) world: Arc<World>,
    /// The base URL every URL the surface hands out starts with.
    pub(crate) base_url: String,
    /// How long a call waits for a checkpoint.
    pub(crate) call_wait: Duration,
    /// How the endpoint authenticates.
    pub(crate) authenticator: Authenticator,
    /// How many handshake sessions it keeps, and for how long unused.
    pub(crate) limits: StateLimits,
    /// Which protocol eras the endpoint speaks.
    pub(crate) eras: Eras,
}

impl Computer {
    /// The surface on `setup`.
    pub(crate) fn new(setup: Setup) -> Self {
        let Setup {
            clock,
            catalog,
            world,
            base_url,
            call_wait,
            authenticator,
            limits,
            eras,
        } = setup;
        let engine = Engine::new(clock, catalog, world, base_url.clone(), call_wait)
            .with_max_threads(limits.max_threads);
        let service = Service::new(Arc::new(engine));
        Self {
            endpoint: Endpoint::new(service.clone(), authenticator, &base_url, &limits, eras),
            service,
        }
    }

    /// The MCP endpoint, for the one URL [`MCP_PATH`](crate::oauth::resource::MCP_PATH).
    pub(crate) fn endpoint(&self) -> Endpoint {
        self.endpoint.clone()
    }

    /// The pages behind the URLs the surface hands out.
    pub(crate) fn pages<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        pages::routes(self.service.clone())
    }

    /// Every thread, for the dashboard.
    pub(crate) fn threads(&self) -> Vec<ThreadRow> {
        self.service.thread_rows()
    }

    /// Every MCP task, for the dashboard.
    pub(crate) fn tasks(&self) -> Vec<TaskRow> {
        self.endpoint.tasks()
    }

    /// A dashboard button pressed on a thread, acting as its owner.
    pub(crate) async fn act(
        &self,
        thread_id: &str,
        action: PageAction,
    ) -> Result<ActionDone, ActionRefused> {
        self.service.act_as_owner(thread_id, action).await
    }

    /// The scenario of thread `thread_id`, if `account` may see it (the layer's faults of a
    /// Computer scenario follow its threads).
    pub(crate) fn scenario_of(
        &self,
        account: &str,
        thread_id: &str,
    ) -> Option<Arc<LoadedScenario>> {
        self.service.engine.scenario_of(account, thread_id)
    }

    /// How many threads are kept, the cap, and how many were evicted.
    pub(crate) fn kept_threads(&self) -> crate::limits::Kept {
        self.service.engine.kept()
    }

    /// Forgets every thread, task and pending question (`POST /_mock/reset`).
    pub(crate) fn reset(&self) {
        self.endpoint.reset();
    }
}
