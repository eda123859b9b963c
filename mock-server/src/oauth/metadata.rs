//! Discovery documents: protected resource metadata (RFC 9728) for the MCP endpoint, naming the
//! mock as its authorization server, and the authorization server metadata (RFC 8414).
//!
//! The issuer is the mock's base URL with no trailing slash, and the very same string appears
//! in `authorization_servers`, `issuer` and the `iss` of every redirect: clients compare them
//! byte for byte (RFC 9207, MCP 2026-07-28).

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::resource::{AUTHORIZE_PATH, MCP_PATH, REGISTER_PATH, SCOPE, TOKEN_PATH, issuer};
use crate::AppState;

/// `GET /.well-known/oauth-protected-resource[/rest/computer/mcp]` (RFC 9728).
pub(crate) async fn protected_resource(State(app): State<AppState>) -> Response {
    let base = app.base_url();
    Json(json!({
        "resource": format!("{base}{MCP_PATH}"),
        "resource_name": "Perplexity Computer (mock)",
        "authorization_servers": [issuer(base)],
        "bearer_methods_supported": ["header"],
        "scopes_supported": [SCOPE],
        "resource_documentation": format!("{base}/_mock"),
    }))
    .into_response()
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414), also served at the OpenID
/// configuration URL that clients try next.
pub(crate) async fn authorization_server(State(app): State<AppState>) -> Response {
    let issuer = issuer(app.base_url());
    Json(json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}{AUTHORIZE_PATH}"),
        "token_endpoint": format!("{issuer}{TOKEN_PATH}"),
        "registration_endpoint": format!("{issuer}{REGISTER_PATH}"),
        "scopes_supported": [SCOPE],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "service_documentation": format!("{issuer}/_mock"),
    }))
    .into_response()
}
