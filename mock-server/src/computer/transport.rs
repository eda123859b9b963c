//! The MCP endpoint, `/rest/computer/mcp`: one URL for both protocol eras.
//!
//! Every request is authenticated first (a 401 carries the challenge that points at the OAuth
//! metadata), then checked as Streamable HTTP (content type, `Accept`), parsed once, and handed
//! to its era: a session-less request that shows a 2026-07-28 sign goes to [`stateless`],
//! everything else to [`handshake`], so a conversation never mixes them. Both eras run tool
//! calls through [`call`], and offer [`tasks`] and in-call [`elicitation`] as flows; all of
//! them sit on the service and none calls another.

pub(crate) mod call;
pub(crate) mod elicitation;
pub(crate) mod handshake;
mod headers;
pub(crate) mod replay;
pub(crate) mod stateless;
pub(crate) mod tasks;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::handler::Handler;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use futures::FutureExt;
use futures::future::BoxFuture;
use http::Method;

use super::model::error::ErrorData;
use super::model::incoming::Incoming;
use super::service::Service;
use crate::clock::iso;
use crate::config::Eras;
use crate::http::auth::{
    Audience, AuthFailure, Authenticated, Authenticator, DEV_TOKENS_REFUSED, Surface,
};
use crate::limits::StateLimits;
use crate::oauth::resource;
use elicitation::Elicitations;
use handshake::Sessions;
use tasks::Tasks;

/// The endpoint's state: the service, what the transports keep (sessions, tasks, in-call
/// elicitations) and how requests are authenticated; cheap to clone.
#[derive(Clone)]
pub(crate) struct Endpoint {
    inner: Arc<Parts>,
}

struct Parts {
    service: Service,
    sessions: Sessions,
    tasks: Tasks,
    elicitations: Arc<Elicitations>,
    authenticator: Authenticator,
    base_url: String,
    mcp_resource: String,
    eras: Eras,
}

impl Endpoint {
    /// The endpoint of a mock whose URLs start with `base_url`.
    pub(crate) fn new(
        service: Service,
        authenticator: Authenticator,
        base_url: &str,
        limits: &StateLimits,
        eras: Eras,
    ) -> Self {
        Self {
            inner: Arc::new(Parts {
                service,
                sessions: Sessions::new(limits.session_idle_timeout, limits.max_sessions),
                tasks: Tasks::default(),
                elicitations: Arc::default(),
                authenticator,
                base_url: base_url.to_owned(),
                mcp_resource: resource::mcp_resource(base_url),
                eras,
            }),
        }
    }

    /// Answers a request to the MCP URL by its method, as a method router would (`HEAD` is
    /// `GET` without its body) but without cloning one per request. The app's
    /// `http::origin` guard has refused a foreign `Host` or `Origin` before it gets here.
    pub(crate) fn answer(&self, request: Request) -> BoxFuture<'static, Response> {
        let state = self.clone();
        match *request.method() {
            Method::POST => Handler::call(post, request, state),
            Method::GET => Handler::call(stream, request, state),
            Method::DELETE => Handler::call(delete, request, state),
            Method::HEAD => Box::pin(
                Handler::call(stream, request, state)
                    .map(|response| response.map(|_| Body::empty())),
            ),
            _ => Handler::call(wrong_method, request, state),
        }
    }

    /// Every MCP task, for the dashboard.
    pub(crate) fn tasks(&self) -> Vec<tasks::TaskRow> {
        self.inner.tasks.listing()
    }

    /// Forgets one handshake session, as the server does when a session ends on its side (an
    /// injected `forget-session` fault); whether it was open.
    pub(crate) fn forget_session(&self, session_id: &str) -> bool {
        self.inner.sessions.forget(session_id)
    }

    /// Forgets every thread, task, pending in-call question and handshake session (`POST
    /// /_mock/reset`); a later answer or poll is refused as unknown, a later request in a
    /// session gets 404 (the client initializes again).
    pub(crate) fn reset(&self) {
        self.inner.sessions.clear();
        self.inner.service.reset();
        self.inner.tasks.clear();
        self.inner.elicitations.clear();
    }
}

/// The MCP endpoint as a surface that authenticates: OAuth tokens must be issued for it, and a
/// failure is a 401 with a JSON-RPC body and a challenge pointing at the resource metadata.
pub(crate) struct Mcp;

impl Surface<Endpoint> for Mcp {
    type Rejection = ErrorData;

    fn authenticator(endpoint: &Endpoint) -> &Authenticator {
        &endpoint.inner.authenticator
    }

    fn audience(endpoint: &Endpoint) -> Audience<'_> {
        Audience::Resource(&endpoint.inner.mcp_resource)
    }

    fn reject(endpoint: &Endpoint, failure: AuthFailure) -> ErrorData {
        let why = if endpoint.inner.authenticator.accepts_dev_tokens() {
            refusal_reason(&endpoint.inner.mcp_resource, &failure)
        } else {
            sign_in_only_reason(&endpoint.inner.mcp_resource, &failure)
        };
        let challenge = resource::challenge(&endpoint.inner.base_url, &why);
        ErrorData::unauthorized(format!("Unauthorized: {why}"), challenge)
    }
}

/// The sentence a 401 from the MCP endpoint gives for `failure`.
fn refusal_reason(mcp_resource: &str, failure: &AuthFailure) -> String {
    match failure {
        AuthFailure::NoDefaultAccount => "the built-in account `alice` is missing".to_owned(),
        AuthFailure::MissingHeader => "Authorization header missing: sign in with OAuth (see the \
            resource_metadata URL), or send `Authorization: Bearer alice-dev-token` (or \
            bob-dev-token)"
            .to_owned(),
        AuthFailure::NoBearerToken | AuthFailure::UnknownToken => "the bearer token is not valid \
            for this server: sign in again, or use alice-dev-token or bob-dev-token"
            .to_owned(),
        AuthFailure::Revoked => "the access token was revoked (its authorization code or refresh \
            token was reused): sign in again"
            .to_owned(),
        AuthFailure::Expired { at } => format!(
            "the access token expired at {}: use the refresh token for a new one",
            iso(*at)
        ),
        AuthFailure::WrongResource { issued_for } => format!(
            "the access token was issued for resource {issued_for}, not for this MCP endpoint \
             ({mcp_resource})"
        ),
        AuthFailure::AccountGone => {
            "the account this token was issued for no longer exists".to_owned()
        }
        AuthFailure::DevTokenRefused => DEV_TOKENS_REFUSED.to_owned(),
    }
}

/// The sentence a 401 gives on a mock that refuses the dev tokens: a real OAuth sign-in is
/// the only way in, so no sentence offers a dev token.
fn sign_in_only_reason(mcp_resource: &str, failure: &AuthFailure) -> String {
    match failure {
        AuthFailure::DevTokenRefused => DEV_TOKENS_REFUSED.to_owned(),
        AuthFailure::MissingHeader => "Authorization header missing: this scenario needs a real \
            OAuth sign-in (see the resource_metadata URL); the built-in dev tokens are refused"
            .to_owned(),
        AuthFailure::NoBearerToken | AuthFailure::UnknownToken => "the bearer token is not valid \
            for this server: sign in with OAuth (see the resource_metadata URL); the built-in \
            dev tokens are refused in this scenario"
            .to_owned(),
        other => refusal_reason(mcp_resource, other),
    }
}

/// `POST /rest/computer/mcp`.
async fn post(
    State(endpoint): State<Endpoint>,
    Authenticated { account, .. }: Authenticated<Mcp>,
    request: Request,
) -> Response {
    let parts = &*endpoint.inner;
    let (head, body) = request.into_parts();
    let headers = &head.headers;
    if !content_type_is_json(headers) {
        return ErrorData::unsupported_media_type(
            "Unsupported Media Type: send the JSON-RPC message with Content-Type: application/json",
        )
        .into_response();
    }
    let accepted = accepted(headers);
    if !(accepted.json && accepted.event_stream) {
        return ErrorData::not_acceptable(
            "Not Acceptable: the Accept header must list both application/json and text/event-stream",
        )
        .into_response();
    }
    let body = match read_body(body).await {
        Ok(body) => body,
        Err(error) => return error.into_response(),
    };
    let message = match Incoming::parse(&body) {
        Ok(message) => message,
        Err(error) => return error.into_response(),
    };
    let modern = match parts.eras {
        Eras::Both => stateless::claims(headers, &message),
        // A 2025-11-25 server knows no server/discover; anything else that shows the modern
        // era is a handshake-era message without its session, answered as such.
        Eras::Handshake => {
            if let Some(refusal) = stateless::unknown_to_handshake_servers(&message) {
                return refusal.into_response();
            }
            false
        }
        // A 2026-07-28-only server knows no initialize, stamped or not.
        Eras::Modern => {
            if let Some(refusal) = stateless::unknown_to_modern_servers(&message) {
                return refusal.into_response();
            }
            true
        }
    };
    if modern {
        let service = parts.service.clone();
        let elicitations = parts.elicitations.clone();
        // Boxed: the stateless era's future is several times the size of the handshake's,
        // and the router copies this handler's future into a box of its own.
        return Box::pin(stateless::post(
            service,
            &parts.tasks,
            elicitations,
            account,
            headers,
            message,
        ))
        .await;
    }
    let service = parts.service.clone();
    let elicitations = parts.elicitations.clone();
    handshake::post(
        service,
        &parts.sessions,
        elicitations,
        account,
        headers,
        message,
    )
    .await
}

/// The whole body of a POST. The journal has read it already, and refused one over the
/// limit in this endpoint's shape, so no second limit applies here.
async fn read_body(body: Body) -> Result<axum::body::Bytes, ErrorData> {
    axum::body::to_bytes(body, usize::MAX)
        .await
        .map_err(|error| {
            ErrorData::parse_error(format!("Parse error: the body could not be read: {error}"))
        })
}

/// Any other method on the MCP URL (`PUT`, `PATCH`, …): 405 with a JSON-RPC error and `Allow`.
async fn wrong_method(method: axum::http::Method) -> ErrorData {
    ErrorData::method_not_allowed(format!(
        "Method Not Allowed: the MCP endpoint takes POST (JSON-RPC messages), GET (the \
         standalone SSE stream of a session) and DELETE (ending a session), not {method}."
    ))
}

/// `GET /rest/computer/mcp`: the standalone server-to-client stream.
async fn stream(
    State(endpoint): State<Endpoint>,
    Authenticated { account, .. }: Authenticated<Mcp>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = stateless::refuse_non_post(&headers, endpoint.inner.eras) {
        return refusal.into_response();
    }
    if !accepted(&headers).event_stream {
        return ErrorData::not_acceptable(
            "Not Acceptable: the GET stream needs Accept: text/event-stream",
        )
        .into_response();
    }
    match endpoint.inner.sessions.open(&headers, &account.id) {
        Ok(session) => handshake::stream(&session, &headers),
        Err(error) => error.into_response(),
    }
}

/// `DELETE /rest/computer/mcp`: ends the session.
async fn delete(
    State(endpoint): State<Endpoint>,
    Authenticated { account, .. }: Authenticated<Mcp>,
    headers: HeaderMap,
) -> Response {
    if let Some(refusal) = stateless::refuse_non_post(&headers, endpoint.inner.eras) {
        return refusal.into_response();
    }
    endpoint.inner.sessions.delete(&headers, &account.id)
}

fn content_type_is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    // What every SDK sends, compared as bytes before anything is decoded.
    if value.as_bytes() == b"application/json" {
        return true;
    }
    value
        .to_str()
        .ok()
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// Which of the two media types of the Streamable HTTP transport an `Accept` header lists,
/// by name or through a wildcard.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Accepted {
    json: bool,
    event_stream: bool,
}

/// Reads the `Accept` header (every instance of it) once, in any order of its items. It
/// runs on every request, so it reads bytes: media types are ASCII, and `str` splitting
/// decodes characters.
fn accepted(headers: &HeaderMap) -> Accepted {
    let mut values = headers.get_all(header::ACCEPT).iter();
    // The one value the SDKs send, recognised whole before it is split into items.
    if let (Some(only), None) = (values.next(), values.next())
        && only.as_bytes() == b"application/json, text/event-stream"
    {
        return Accepted {
            json: true,
            event_stream: true,
        };
    }
    let mut accepted = Accepted::default();
    let items = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.as_bytes().split(|&b| b == b','));
    for item in items {
        let media = match item.iter().position(|&b| b == b';') {
            Some(end) => &item[..end],
            None => item,
        }
        .trim_ascii();
        let (kind, sub) = match media.iter().position(|&b| b == b'/') {
            Some(slash) => (&media[..slash], &media[slash + 1..]),
            None => (media, &b""[..]),
        };
        let any = sub == b"*";
        if kind == b"*" && any {
            return Accepted {
                json: true,
                event_stream: true,
            };
        }
        if kind.eq_ignore_ascii_case(b"application") {
            accepted.json |= any || sub.eq_ignore_ascii_case(b"json");
        } else if kind.eq_ignore_ascii_case(b"text") {
            accepted.event_stream |= any || sub.eq_ignore_ascii_case(b"event-stream");
        }
    }
    accepted
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn accepted_of(values: &[&'static str]) -> Accepted {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT, HeaderValue::from_static(value));
        }
        accepted(&headers)
    }

    const BOTH: Accepted = Accepted {
        json: true,
        event_stream: true,
    };

    #[test]
    fn json_content_types_match_with_parameters_and_in_any_case() {
        let of = |value: Option<&'static str>| {
            let mut headers = HeaderMap::new();
            if let Some(value) = value {
                headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            }
            content_type_is_json(&headers)
        };
        assert!(of(Some("application/json")));
        assert!(of(Some("Application/JSON; charset=utf-8")));
        assert!(!of(Some("application/jsonx")));
        assert!(!of(Some("text/plain")));
        assert!(!of(None));
    }

    #[test]
    fn accept_lists_match_in_either_order() {
        assert_eq!(accepted_of(&["application/json, text/event-stream"]), BOTH);
        assert_eq!(accepted_of(&["text/event-stream, application/json"]), BOTH);
        assert_eq!(
            accepted_of(&["application/json"]),
            Accepted {
                json: true,
                event_stream: false
            }
        );
        assert_eq!(accepted_of(&[]), Accepted::default());
    }

    #[test]
    fn accept_items_match_with_parameters_any_case_wildcards_and_several_headers() {
        assert_eq!(
            accepted_of(&["Application/JSON;q=0.9 , TEXT/Event-Stream;q=0.1"]),
            BOTH
        );
        assert_eq!(accepted_of(&["*/*"]), BOTH);
        assert_eq!(accepted_of(&["application/*, text/*"]), BOTH);
        assert_eq!(
            accepted_of(&["application/json", "text/event-stream"]),
            BOTH
        );
        assert_eq!(
            accepted_of(&["text/html, application/jsonx, text/event-streams"]),
            Accepted::default()
        );
    }

    #[test]
    fn every_auth_failure_has_a_sentence() {
        let reason = refusal_reason(
            "http://x/rest/computer/mcp",
            &AuthFailure::WrongResource {
                issued_for: "http://x/v1".into(),
            },
        );
        assert!(reason.contains("http://x/v1") && reason.contains("http://x/rest/computer/mcp"));
    }
}
