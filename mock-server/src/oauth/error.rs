//! OAuth error answers (RFC 6749 §5.2, RFC 7591 §3.2.2): a JSON body with `error` and an
//! `error_description` a person can act on.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::http::body::{BodyPolicy, BodyRefusal, DEFAULT_LIMIT};
use crate::http::shape::ErrorShape;

/// The registered OAuth error codes the mock answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    /// A parameter is missing, repeated or malformed.
    InvalidRequest,
    /// Client authentication failed (unknown client, wrong secret, wrong method).
    InvalidClient,
    /// The code or refresh token is invalid, expired, used, or not this client's.
    InvalidGrant,
    /// The grant type is not one the mock supports.
    UnsupportedGrantType,
    /// A scope the mock does not offer.
    InvalidScope,
    /// A `resource` the mock does not protect, or not the one the grant was for (RFC 8707).
    InvalidTarget,
    /// A registration request with unusable metadata (RFC 7591).
    InvalidClientMetadata,
    /// A `redirect_uris` entry the mock cannot use (RFC 7591).
    InvalidRedirectUri,
    /// The server keeps no more of something (RFC 6749 §4.1.2.1's code, answered 503).
    TemporarilyUnavailable,
    /// The server refuses the request (RFC 6749 §4.1.2.1's code; the origin guard, 403).
    AccessDenied,
}

impl Code {
    fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidClient => "invalid_client",
            Self::InvalidGrant => "invalid_grant",
            Self::UnsupportedGrantType => "unsupported_grant_type",
            Self::InvalidScope => "invalid_scope",
            Self::InvalidTarget => "invalid_target",
            Self::InvalidClientMetadata => "invalid_client_metadata",
            Self::InvalidRedirectUri => "invalid_redirect_uri",
            Self::TemporarilyUnavailable => "temporarily_unavailable",
            Self::AccessDenied => "access_denied",
        }
    }
}

/// An OAuth error with the sentence that explains it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {description}", code.as_str())]
pub(crate) struct OAuthError {
    pub(crate) code: Code,
    pub(crate) description: String,
}

impl OAuthError {
    pub(crate) fn new(code: Code, description: impl Into<String>) -> Self {
        Self {
            code,
            description: description.into(),
        }
    }

    /// The JSON body: `error` and `error_description`.
    fn body(&self) -> Json<Value> {
        Json(json!({"error": self.code.as_str(), "error_description": self.description}))
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        // RFC 6749 §5.2: invalid_client is a 401 when the client tried to authenticate.
        let status = match self.code {
            Code::InvalidClient => StatusCode::UNAUTHORIZED,
            Code::TemporarilyUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        };
        let mut response = (status, self.body()).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if self.code == Code::InvalidClient {
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Basic realm=\"perplexity-computer-mock\""),
            );
        }
        response
    }
}

/// How the OAuth endpoints take request bodies: a refused one is an `invalid_request` with the
/// status that says why (413, 408 or 400).
pub(crate) struct OAuthBodies;

impl BodyPolicy for OAuthBodies {
    fn limit(&self) -> usize {
        DEFAULT_LIMIT
    }

    fn refuse(&self, refusal: &BodyRefusal) -> Response {
        let error = OAuthError::new(Code::InvalidRequest, refusal.to_string());
        (refusal.status(), error.body()).into_response()
    }
}

/// A refusal chosen outside the OAuth routes, in RFC 6749's shape with the status given:
/// `access_denied` for a forbidden request, `invalid_request` for anything else.
impl ErrorShape for OAuthBodies {
    fn error(&self, status: StatusCode, sentence: &str) -> Response {
        let code = if status == StatusCode::FORBIDDEN {
            Code::AccessDenied
        } else {
            Code::InvalidRequest
        };
        let mut response = (status, OAuthError::new(code, sentence).body()).into_response();
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        response
    }
}
