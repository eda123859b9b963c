//! The mock authorization server and the bearer-token checks of the MCP endpoint.
//!
//! An MCP host needs only the MCP URL: the 401 challenge points at the protected resource
//! metadata, which names this server as the authorization server; the host registers itself
//! (dynamic client registration), sends the person to the consent page (`/oauth/authorize`),
//! where they pick `alice` or `bob` and click Allow, and exchanges the code with PKCE S256 at
//! `/oauth/token`. Access tokens expire on the virtual clock and refresh tokens rotate.
//! `--auto-consent ACCOUNT` approves at once, for tests.
//!
//! The built-in accounts also have static dev tokens (`alice-dev-token`, `bob-dev-token`), and
//! `--auth none` serves everyone as `alice`.

mod authorize;
pub(crate) mod encoding;
mod error;
mod metadata;
mod register;
mod store;
mod token;

use axum::Json;
use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::json;

pub(crate) use store::Store;

use crate::AppState;
use crate::world::Account;

/// Path of the MCP endpoint, which the metadata describes.
pub const MCP_PATH: &str = "/rest/computer/mcp";
/// Path-inserted protected resource metadata URL for the MCP endpoint (RFC 9728).
pub(crate) const RESOURCE_METADATA_PATH: &str =
    "/.well-known/oauth-protected-resource/rest/computer/mcp";
/// The authorization endpoint (consent page).
pub const AUTHORIZE_PATH: &str = "/oauth/authorize";
/// The token endpoint.
pub const TOKEN_PATH: &str = "/oauth/token";
/// The dynamic client registration endpoint.
pub const REGISTER_PATH: &str = "/oauth/register";
/// The one scope the MCP endpoint knows.
const SCOPE: &str = "computer";
/// Path of the Agent API, a second protected resource: a token for it is not one for MCP.
const AGENT_API_PATH: &str = "/v1";

/// How requests are authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthMode {
    /// A bearer token is required.
    #[default]
    Bearer,
    /// No token needed; every request acts as `alice`.
    None,
}

/// The routes of the discovery documents and the authorization server.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route(RESOURCE_METADATA_PATH, get(metadata::protected_resource))
        .route(
            "/.well-known/oauth-protected-resource",
            get(metadata::protected_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(metadata::authorization_server),
        )
        .route(
            "/.well-known/openid-configuration",
            get(metadata::authorization_server),
        )
        .route(REGISTER_PATH, post(register::register))
        .route(
            AUTHORIZE_PATH,
            get(authorize::authorize).post(authorize::decide),
        )
        .route(TOKEN_PATH, post(token::token))
}

/// The issuer: the base URL, no trailing slash, the same string everywhere it appears.
pub(crate) fn issuer(app: &AppState) -> String {
    app.base_url().trim_end_matches('/').to_owned()
}

/// The canonical resource URI of the MCP endpoint (RFC 8707).
fn mcp_resource(app: &AppState) -> String {
    format!("{}{MCP_PATH}", issuer(app))
}

/// The canonical form of a `resource` this server protects, or `None`. The bare origin means
/// the MCP endpoint, since some clients send it without the path.
fn canonical_resource(app: &AppState, resource: &str) -> Option<String> {
    let base = issuer(app);
    let trimmed = resource.trim_end_matches('/');
    let agent = format!("{base}{AGENT_API_PATH}");
    if trimmed == base || trimmed == mcp_resource(app) {
        Some(mcp_resource(app))
    } else if trimmed == agent {
        Some(agent)
    } else {
        None
    }
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
            "Authorization header missing: sign in with OAuth (see the resource_metadata URL), \
             or send `Authorization: Bearer alice-dev-token` (or bob-dev-token)",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .unwrap_or_default();
    if let Some(account) = world.account_for_token(token) {
        return Ok(account.clone());
    }
    let Some(issued) = app.oauth().access_token(token) else {
        return Err(challenge(
            app,
            "the bearer token is not valid for this server: sign in again, or use \
             alice-dev-token or bob-dev-token",
        ));
    };
    if issued.revoked {
        return Err(challenge(
            app,
            "the access token was revoked (its authorization code or refresh token was reused): \
             sign in again",
        ));
    }
    if app.clock().now() >= issued.expires_at {
        return Err(challenge(
            app,
            &format!(
                "the access token expired at {}: use the refresh token for a new one",
                crate::clock::iso(issued.expires_at)
            ),
        ));
    }
    if issued.resource != mcp_resource(app) {
        return Err(challenge(
            app,
            &format!(
                "the access token was issued for resource {}, not for this MCP endpoint ({})",
                issued.resource,
                mcp_resource(app)
            ),
        ));
    }
    world.account(&issued.account).cloned().ok_or_else(|| {
        challenge(
            app,
            "the account this token was issued for no longer exists",
        )
    })
}

/// The 401 answer. `scope` is the one the metadata lists, as the MCP authorization spec
/// recommends (and the real service sends), so a client asks for exactly it.
fn challenge(app: &AppState, why: &str) -> Response {
    let metadata = format!("{}{RESOURCE_METADATA_PATH}", app.base_url());
    let value = format!(
        "Bearer error=\"invalid_token\", error_description=\"{}\", \
         resource_metadata=\"{metadata}\", scope=\"{SCOPE}\"",
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
