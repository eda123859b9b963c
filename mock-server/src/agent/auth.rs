//! The Agent API as a [`Surface`] of the shared authenticator: any bearer token the mock
//! knows (an account's dev token, or an OAuth access token issued for either surface), and a
//! failure answered in the Agent API's error envelope with a sentence saying what to send.

use crate::http::auth::{Audience, AuthFailure, Authenticated, Authenticator, Surface};

use super::error::ApiError;
use super::state::AgentState;

/// The Agent API's side of authentication; handlers take [`AgentAccount`].
pub(crate) struct AgentApi;

/// The account an Agent API request acts as.
pub(crate) type AgentAccount = Authenticated<AgentApi>;

/// What a request without a usable key is told to send.
const SEND_A_KEY: &str = "send `Authorization: Bearer <key>` (for the mock: alice-dev-token or \
                          bob-dev-token, e.g. PERPLEXITY_API_KEY=alice-dev-token)";

impl Surface<AgentState> for AgentApi {
    type Rejection = ApiError;

    fn authenticator(state: &AgentState) -> &Authenticator {
        state.authenticator()
    }

    /// An API key is not bound to a resource: an OAuth access token the mock issued for the MCP
    /// endpoint works here too, as the account's key does on both.
    fn audience(_state: &AgentState) -> Audience<'_> {
        Audience::Any
    }

    fn reject(_state: &AgentState, failure: AuthFailure) -> ApiError {
        let message = match failure {
            AuthFailure::NoDefaultAccount => {
                "the built-in account `alice` is missing (`--auth none` acts as alice): \
                 add it to the world file"
                    .to_owned()
            }
            AuthFailure::MissingHeader | AuthFailure::NoBearerToken => {
                format!("missing API key: {SEND_A_KEY}")
            }
            AuthFailure::UnknownToken => format!(
                "invalid API key: use alice-dev-token or bob-dev-token, or a current OAuth \
                 access token; {SEND_A_KEY}"
            ),
            AuthFailure::Revoked => "invalid API key: this OAuth access token was revoked; \
                                     sign in again"
                .to_owned(),
            AuthFailure::Expired { at } => format!(
                "invalid API key: this OAuth access token expired at {} (virtual time); \
                 refresh it or sign in again",
                at.to_rfc3339()
            ),
            AuthFailure::WrongResource { issued_for } => {
                format!("invalid API key: this OAuth access token was issued for {issued_for}")
            }
            AuthFailure::DevTokenRefused => {
                format!("invalid API key: {}", crate::http::auth::DEV_TOKENS_REFUSED)
            }
            AuthFailure::AccountGone => {
                "invalid API key: the account this OAuth access token was issued for no \
                 longer exists"
                    .to_owned()
            }
        };
        ApiError::unauthorized(message)
    }
}
