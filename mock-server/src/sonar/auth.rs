//! The Sonar routes as a [`Surface`] of the shared authenticator: the same API keys as the
//! Agent API (an account's dev token, or an OAuth access token the mock issued for either
//! surface), and a failure answered in the API's error envelope with what to send instead.

use super::state::SonarState;
use super::wire::error::SonarError;
use crate::http::auth::{Audience, AuthFailure, Authenticated, Authenticator, Surface};

/// The Sonar routes' side of authentication; handlers take [`SonarAccount`].
pub(crate) struct SonarApi;

/// The account a Sonar request acts as.
pub(crate) type SonarAccount = Authenticated<SonarApi>;

/// What a request without a usable key is told to send.
const SEND_A_KEY: &str = "send `Authorization: Bearer <key>` (for the mock: alice-dev-token or \
                          bob-dev-token, e.g. PERPLEXITY_API_KEY=alice-dev-token)";

impl Surface<SonarState> for SonarApi {
    type Rejection = SonarError;

    fn authenticator(state: &SonarState) -> &Authenticator {
        state.authenticator()
    }

    /// An API key is not bound to a resource, as on the Agent API.
    fn audience(_state: &SonarState) -> Audience<'_> {
        Audience::Any
    }

    fn reject(_state: &SonarState, failure: AuthFailure) -> SonarError {
        let message = match failure {
            AuthFailure::NoDefaultAccount => "the built-in account `alice` is missing \
                                              (`--auth none` acts as alice): add it to the \
                                              world file"
                .to_owned(),
            AuthFailure::MissingHeader | AuthFailure::NoBearerToken => {
                format!("missing API key: {SEND_A_KEY}")
            }
            AuthFailure::UnknownToken => format!(
                "invalid API key: use alice-dev-token or bob-dev-token, or a current OAuth \
                 access token; {SEND_A_KEY}"
            ),
            AuthFailure::Revoked => {
                "invalid API key: this OAuth access token was revoked; sign in again".to_owned()
            }
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
            AuthFailure::AccountGone => "invalid API key: the account this OAuth access token \
                                         was issued for no longer exists"
                .to_owned(),
        };
        SonarError::unauthorized(message)
    }
}
