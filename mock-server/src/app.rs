//! What a request meets first: the journal's recorder, then its body read under the rules of
//! the surface that owns its path, then the MCP endpoint or the router.
//!
//! This is where the surfaces meet, so it is the one place that maps the URL space onto them:
//! which surface's body limit and refusal a path gets, which guard against other sites' pages,
//! which of its exchanges carry credentials, which the journal leaves out.
//!
//! The MCP URL is the one a client calls in a loop, so its requests skip the router: routing
//! a path, inserting its matched path and parameters, cloning a method router and (with the
//! recorder as a `Router::layer`) boxing the request through one more service per layer cost
//! more than the tool call they carry. Every path sees the same recorder.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, header};
use axum::response::Response;
use axum::routing::future::RouteFuture;
use futures::FutureExt;
use futures::future::{BoxFuture, Either, Map};
use hyper::body::Body as _;
use tower::{Layer as _, Service};

use std::sync::Arc;

use crate::clock::Clock;
use crate::computer::Endpoint;
use crate::faults::Faults;
use crate::faults::layer::{
    AccountOf, ConversationOf, Faulted, ForgetSession, Hooks, InjectFaults,
};
use crate::http::body::{BodyPolicy, LimitBodies, Limited};
use crate::http::origin::{Guard, GuardOrigins, Guarded, Origins, Writes};
use crate::http::shape::ErrorShape;
use crate::journal::{JOURNAL_PATH, Journal, Recorded, Recorder, RecordingRules, Secrets};
use crate::oauth::{AUTHORIZE_PATH, MCP_PATH, REGISTER_PATH, TOKEN_PATH};
use crate::{agent, computer, control, oauth, sonar};

mod bare;

/// The whole mock as one service: every exchange recorded, other sites' pages refused, its
/// body read under its surface's rules, the faults in force applied, then dispatched.
pub(crate) type App = Recorded<Guarded<Limited<Faulted<Surfaces>>>>;

/// What the layers in front of the surfaces stand on.
pub(crate) struct Floors {
    /// Where every exchange is recorded.
    pub(crate) journal: Journal,
    /// Virtual time (the journal's stamps, the faults' delays).
    pub(crate) clock: Clock,
    /// The injected faults in force.
    pub(crate) faults: Faults,
    /// Who a request acts as (for a fault kept to one account).
    pub(crate) accounts: AccountOf,
    /// The Computer conversation of an MCP request, when a Computer scenario declares faults.
    pub(crate) conversations: Option<ConversationOf>,
    /// The names and pages the guard lets in.
    pub(crate) origins: Origins,
}

/// The MCP endpoint `mcp` and the router `rest` behind the faults, the body limits and the
/// recorder.
pub(crate) fn assemble(floors: Floors, mcp: Endpoint, rest: Router) -> App {
    let Floors {
        journal,
        clock,
        faults,
        accounts,
        conversations,
        origins,
    } = floors;
    let sessions = mcp.clone();
    let forget: ForgetSession = Arc::new(move |id: &str| sessions.forget_session(id));
    // The router's own empty 404s and 405s and its path rejections in the owner's shape.
    // (Around the whole router: axum adds a 405's `Allow` outside each route's layers.)
    let rest = Router::new()
        .fallback_service(rest)
        .layer(axum::middleware::from_fn(bare::shaped));
    let surfaces = Surfaces { mcp, rest };
    let hooks = Hooks {
        clock: clock.clone(),
        shapes: error_shapes,
        forget,
        accounts,
        conversations,
    };
    let faulted = InjectFaults::new(faults, hooks).layer(surfaces);
    let limited = LimitBodies::new(bodies).layer(faulted);
    let guarded = GuardOrigins::new(origins, guard).layer(limited);
    Recorder::new(journal, clock, RECORDING).layer(guarded)
}

/// Which guard against other sites' pages a request gets, and whose envelope refuses it.
/// Every path gets the `Host`/`Origin` guard (the MCP endpoint's refusal is a JSON-RPC 403,
/// before authentication, as the MCP transport requires of local servers), and the control
/// routes that change state the CSRF guard too: JSON or no body on the API, forms only from
/// the mock's own pages.
fn guard(path: &str) -> Option<Guard> {
    if path == MCP_PATH {
        return Some(Guard {
            shape: &computer::ENDPOINT_BODIES,
            writes: Writes::Nothing,
        });
    }
    let (shape, control): (&'static dyn ErrorShape, bool) = if agent::is_agent_path(path) {
        (&agent::AgentBodies, false)
    } else if sonar::is_sonar_path(path) {
        (&sonar::SonarBodies, false)
    } else if path.starts_with("/oauth/") || path.starts_with("/.well-known/") {
        (&oauth::OAuthBodies, false)
    } else if path == "/" || path.starts_with("/_mock") {
        // The dashboard's home is `/`; Computer's pages and the Agent API's control endpoint
        // live under `/_mock` too.
        (&control::ControlBodies, true)
    } else {
        // Unserved paths answer in the Agent API's envelope (its clients share the base URL).
        (&agent::AgentBodies, false)
    };
    let writes = if !control {
        Writes::Nothing
    } else if path == control::UPLOAD_PATH
        || control::FORM_PAGES.iter().any(|p| path.starts_with(p))
        || computer::FORM_PAGES.iter().any(|p| path.starts_with(p))
    {
        Writes::Forms
    } else {
        Writes::Json
    };
    Some(Guard { shape, writes })
}

/// Whose envelope an injected fault's error answers in: the surface that owns the path. The
/// control API, the pages and OAuth have none, so a fault never stands between a test and
/// `DELETE /_mock/faults`.
fn error_shapes(_: &Method, path: &str) -> Option<&'static dyn ErrorShape> {
    if path == MCP_PATH {
        Some(&computer::ENDPOINT_BODIES)
    } else if agent::is_agent_path(path) {
        Some(&agent::AgentBodies)
    } else if sonar::is_sonar_path(path) {
        Some(&sonar::SonarBodies)
    } else {
        None
    }
}

/// Whose rules a request's body is read under (the limit, the answer to a body refused): the
/// surface that owns that part of the URL space.
fn bodies(method: &Method, path: &str) -> Option<&'static dyn BodyPolicy> {
    // The journal's reads and the dashboard's polling take no body and were never limited;
    // uploads stream to their endpoint, which checks their size as it reads.
    if path == JOURNAL_PATH
        || path == control::UPLOAD_PATH
        || (method == Method::GET && polled(path))
    {
        return None;
    }
    Some(if path == MCP_PATH {
        &computer::ENDPOINT_BODIES
    } else if agent::is_agent_path(path) {
        &agent::AgentBodies
    } else if sonar::is_sonar_path(path) {
        &sonar::SonarBodies
    } else if path.starts_with("/oauth/") {
        &oauth::OAuthBodies
    } else if path.starts_with("/_mock") {
        // Computer's pages and the Agent API's control endpoint live here too.
        &control::ControlBodies
    } else {
        &computer::UNCLAIMED_BODIES
    })
}

/// The GETs the dashboard repeats: its own and its Sonar panel's.
const POLLED: [&str; control::POLLED_READS.len() + sonar::POLLED_READS.len()] = {
    let mut all = [""; control::POLLED_READS.len() + sonar::POLLED_READS.len()];
    let mut i = 0;
    while i < control::POLLED_READS.len() {
        all[i] = control::POLLED_READS[i];
        i += 1;
    }
    let mut j = 0;
    while j < sonar::POLLED_READS.len() {
        all[i + j] = sonar::POLLED_READS[j];
        j += 1;
    }
    all
};

/// Whether a GET of `path` is one the dashboard repeats.
fn polled(path: &str) -> bool {
    POLLED.contains(&path)
}

/// What the journal's recorder is told about the mock's paths.
const RECORDING: RecordingRules = RecordingRules {
    unrecorded_reads: &POLLED,
    streamed_bodies: &[control::UPLOAD_PATH],
    secrets,
};

/// Where each path's exchanges carry credentials, beyond the headers every path may carry.
fn secrets(path: &str) -> Secrets {
    match path {
        TOKEN_PATH => Secrets::TokenExchange,
        REGISTER_PATH => Secrets::ClientRegistration,
        AUTHORIZE_PATH => Secrets::Authorization,
        _ if agent::is_agent_path(path) => Secrets::ToolCredentials,
        _ => Secrets::Common,
    }
}

/// The MCP endpoint beside every other route; cheap to clone (the recorder clones it per
/// request).
#[derive(Clone)]
pub(crate) struct Surfaces {
    /// Answers [`MCP_PATH`].
    mcp: Endpoint,
    /// Every other path: the pages, the control API, OAuth, the Agent API and its fallback.
    rest: Router,
}

type Answered = fn(Response) -> Result<Response, Infallible>;

/// An MCP answer as the router finishes its routes' answers: a body of known size gets its
/// `Content-Length` here rather than from hyper on the way out, so the journal shows the
/// header the client receives on every surface alike.
fn answered(mut response: Response) -> Result<Response, Infallible> {
    if !response.headers().contains_key(header::CONTENT_LENGTH)
        && let Some(size) = response.body().size_hint().exact()
    {
        response
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(size));
    }
    Ok(response)
}

impl Service<Request> for Surfaces {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Map<BoxFuture<'static, Response>, Answered>, RouteFuture<Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Neither the endpoint nor a router ever waits.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if request.uri().path() == MCP_PATH {
            // A HEAD answer is a GET's head with its body dropped: there is no length to give.
            let finish: Answered = if request.method() == Method::HEAD {
                Ok
            } else {
                answered
            };
            Either::Left(self.mcp.answer(request).map(finish))
        } else {
            Either::Right(self.rest.call(request))
        }
    }
}
