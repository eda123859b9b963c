//! Bearer-token checks and the protected resource metadata they point at.
//!
//! The built-in accounts have static dev tokens (`alice-dev-token`, `bob-dev-token`). A request
//! without a valid token gets 401 with a `WWW-Authenticate` header naming the protected resource
//! metadata URL, as the MCP authorization spec requires. `--auth none` serves everyone as `alice`.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::AppState;
use crate::world::Account;

/// Path of the MCP endpoint, which the metadata describes.
pub const MCP_PATH: &str = "/rest/computer/mcp";
/// Path-inserted protected resource metadata URL for the MCP endpoint (RFC 9728).
pub(crate) const RESOURCE_METADATA_PATH: &str =
    "/.well-known/oauth-protected-resource/rest/computer/mcp";

/// How requests are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthMode {
    /// A bearer token is required.
    #[default]
    Bearer,
    /// No token needed; every request acts as `alice`.
    None,
}

/// The account a request acts as, or the 401 to answer.
pub(crate) fn authenticate(app: &AppState, headers: &HeaderMap) -> Result<Account, Response> {
    let world = app.world();
    if app.config().auth == AuthMode::None {
        return world
            .account("alice")
            .cloned()
            .ok_or_else(|| challenge(app, "the built-in account `alice` is missing"));
    }
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(challenge(
            app,
            "Authorization header missing: send `Authorization: Bearer alice-dev-token` (or \
             bob-dev-token)",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim);
    match token.and_then(|t| world.account_for_token(t)) {
        Some(account) => Ok(account.clone()),
        None => Err(challenge(
            app,
            "the bearer token is not valid for this server: use alice-dev-token or bob-dev-token",
        )),
    }
}

/// The 401 answer. `scope` is the one the metadata lists, as the MCP authorization spec
/// recommends (and the real service sends), so a client asks for exactly it.
fn challenge(app: &AppState, why: &str) -> Response {
    let metadata = format!("{}{RESOURCE_METADATA_PATH}", app.base_url());
    let value = format!(
        "Bearer error=\"invalid_token\", error_description=\"{}\", \
         resource_metadata=\"{metadata}\", scope=\"computer\"",
        why.replace('"', "'")
    );
    let mut response = (
        StatusCode::UNAUTHORIZED,
        Json(json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32000, "message": format!("Unauthorized: {why}")},
        })),
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// `GET /.well-known/oauth-protected-resource[/rest/computer/mcp]` (RFC 9728).
///
/// No authorization server is advertised yet: hosts use the static dev tokens.
pub(crate) async fn protected_resource_metadata(State(app): State<AppState>) -> Response {
    let base = app.base_url();
    Json(json!({
        "resource": format!("{base}{MCP_PATH}"),
        "resource_name": "Perplexity Computer (mock)",
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["computer"],
        "resource_documentation": format!("{base}/_mock"),
    }))
    .into_response()
}
