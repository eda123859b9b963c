//! The mock authorization server.
//!
//! An MCP host needs only the MCP URL: the 401 challenge points at the protected resource
//! metadata, which names this server as the authorization server; the host registers itself
//! (dynamic client registration), sends the person to the consent page (`/oauth/authorize`),
//! where they pick `alice` or `bob` and click Allow, and exchanges the code with PKCE S256 at
//! `/oauth/token`. Access tokens expire on the virtual clock and refresh tokens rotate.
//! `--auto-consent ACCOUNT` approves at once, for tests.
//!
//! The built-in accounts also have static dev tokens (`alice-dev-token`, `bob-dev-token`), and
//! `--auth none` serves everyone as `alice`. Checking a request's token is the ground floor's
//! job (`http::auth`); each surface answers a failed check in its own shape.

mod authorize;
mod error;
mod metadata;
pub(crate) mod pkce;
mod register;
pub(crate) mod resource;
mod state;
pub(crate) mod store;
mod token;

use axum::Router;
use axum::routing::{get, post};

pub use crate::http::auth::AuthMode;
pub(crate) use error::OAuthBodies;
pub use resource::{AUTHORIZE_PATH, MCP_PATH, REGISTER_PATH, TOKEN_PATH};
pub(crate) use state::{OAuthSetup, OAuthState};
pub(crate) use store::Store;

/// The routes of the discovery documents and the authorization server.
pub(crate) fn routes() -> Router<OAuthState> {
    Router::new()
        .route(
            resource::RESOURCE_METADATA_PATH,
            get(metadata::protected_resource),
        )
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
