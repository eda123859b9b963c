//! The Computer MCP surface: transport, tool catalog, thread engine, results and progress.

mod elicitation;
pub(crate) mod engine;
mod model;
mod modern;
mod render;
mod service;
mod tasks;
pub(crate) mod thread;
mod tools;
mod transport;
mod view;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

pub(crate) use elicitation::Elicitations;
pub use model::elicitation::form_content_problem;
pub use model::version::{HANDSHAKE_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_VERSION};
pub(crate) use tasks::Tasks;
pub use tools::TOOL_NAMES;
pub(crate) use transport::Sessions;
pub(crate) use view::{file_bytes, file_facts};

use crate::AppState;
use crate::oauth::MCP_PATH;
use model::jsonrpc::ErrorData;

/// Routes of the MCP endpoint, guarded against DNS rebinding.
pub(crate) fn routes(app: AppState) -> Router<AppState> {
    Router::new()
        .route(
            MCP_PATH,
            get(transport::get)
                .post(transport::post)
                .delete(transport::delete),
        )
        .route_layer(middleware::from_fn_with_state(app, guard_origin))
}

/// Refuses requests whose `Host` or `Origin` is not this server (DNS-rebinding protection, as
/// the MCP transport spec requires of local servers), before anything else happens.
async fn guard_origin(State(app): State<AppState>, request: Request, next: Next) -> Response {
    if let Some(refusal) = foreign_origin(&app, request.headers()) {
        return ErrorData::forbidden(format!("Forbidden: {refusal}")).into_response();
    }
    next.run(request).await
}

fn foreign_origin(app: &AppState, headers: &HeaderMap) -> Option<String> {
    let public_host = host_of(app.base_url()).to_ascii_lowercase();
    let allowed = |host: &str| {
        let host = host.to_ascii_lowercase();
        matches!(host.as_str(), "localhost" | "127.0.0.1" | "[::1]") || host == public_host
    };
    if let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) {
        let name = strip_port(host);
        if !allowed(name) {
            return Some(format!(
                "Host `{name}` is not allowed; this server answers only requests addressed to \
                 localhost, 127.0.0.1, [::1] or its --public-url"
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
        && origin != "null"
    {
        let name = strip_port(host_of(origin));
        if !allowed(name) {
            return Some(format!(
                "Origin `{origin}` is not allowed; only pages served from localhost, 127.0.0.1, \
                 [::1] or the --public-url may call this server"
            ));
        }
    }
    None
}

/// `host[:port]` of a URL.
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().unwrap_or(rest)
}

/// The host name of `host[:port]`, keeping IPv6 brackets.
fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_and_brackets_are_handled() {
        assert_eq!(strip_port("127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(strip_port("[::1]:8080"), "[::1]");
        assert_eq!(strip_port("localhost"), "localhost");
        assert_eq!(
            host_of("http://evil.example.com:80/x"),
            "evil.example.com:80"
        );
    }
}
