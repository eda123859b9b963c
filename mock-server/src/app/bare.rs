//! What the router answers on its own, before or instead of a handler, in the shape of the
//! surface that owns the path: axum's empty 404 (a path nobody serves) and 405 (a method a
//! route does not take, its `Allow` header kept), and its `text/plain` "Invalid URL" for a path
//! segment that is not UTF-8 once percent-decoded (`%FF`). The control API answers
//! `{"error": sentence}`, the human pages a page, OAuth and its metadata RFC 6749's
//! `{"error", "error_description"}`. The Agent API and Sonar shape these themselves; a path no
//! surface claims keeps the plain answer.

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use http::{Method, StatusCode, header};
use hyper::body::Body as _;

use crate::http::shape::ErrorShape;
use crate::{computer, control, oauth};

/// The most of a `text/plain` rejection read to tell axum's from a handler's.
const REJECTION_BYTES: usize = 4096;

/// What axum's path rejection starts with.
const INVALID_URL: &[u8] = b"Invalid URL";

/// The surface a bare answer on a path belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// `/_mock` and `/`: the control API and the dashboard.
    Control,
    /// The human pages under `/_mock`.
    Pages,
    /// `/oauth/...` and `/.well-known/...`.
    OAuth,
}

impl Owner {
    fn of(path: &str) -> Option<Self> {
        let is_page = |prefixes: &[&str]| prefixes.iter().any(|p| path.starts_with(p));
        if is_page(computer::PAGES) || is_page(control::PAGES) {
            Some(Self::Pages)
        } else if path == "/" || path.starts_with("/_mock") {
            Some(Self::Control)
        } else if path.starts_with("/oauth/") || path.starts_with("/.well-known/") {
            Some(Self::OAuth)
        } else {
            None
        }
    }

    fn shape(self) -> &'static dyn ErrorShape {
        match self {
            Self::Control => &control::ControlBodies,
            Self::Pages => &control::PageBodies,
            Self::OAuth => &oauth::OAuthBodies,
        }
    }

    /// What there is to ask for instead of `request`.
    fn not_served(self, request: &str) -> String {
        match self {
            Self::Control | Self::Pages => format!(
                "Nothing is served at {request}. The control API serves GET /_mock (the \
                 dashboard), GET /_mock/journal, GET /_mock/clock, POST /_mock/clock/advance, \
                 POST /_mock/reset, GET /_mock/scenarios, GET /_mock/accounts and \
                 /_mock/faults (see the control API reference, docs/control-api.md); the pages \
                 are at the URLs the mock hands out."
            ),
            Self::OAuth => format!(
                "nothing is served at {request}: the authorization server's metadata is at \
                 /.well-known/oauth-authorization-server, the protected resource's at \
                 /.well-known/oauth-protected-resource/rest/computer/mcp, and it serves POST \
                 /oauth/register, GET and POST /oauth/authorize and POST /oauth/token"
            ),
        }
    }
}

/// Answers the router's bare 404, 405 and path rejection in the owner's shape.
pub(crate) async fn shaped(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = next.run(request).await;
    let Some(owner) = Owner::of(&path).filter(|_| method != Method::HEAD) else {
        return response;
    };
    let empty = response.body().size_hint().exact() == Some(0);
    let asked = format!("{method} {path}");
    match response.status() {
        StatusCode::NOT_FOUND if empty => owner
            .shape()
            .error(StatusCode::NOT_FOUND, &owner.not_served(&asked)),
        StatusCode::METHOD_NOT_ALLOWED if empty => {
            let allow = response.headers().get(header::ALLOW).cloned();
            let methods = allow
                .as_ref()
                .and_then(|a| a.to_str().ok())
                .unwrap_or_default();
            let sentence = format!("{method} is not allowed on {path}: use {methods}");
            let mut shaped = owner
                .shape()
                .error(StatusCode::METHOD_NOT_ALLOWED, &sentence);
            if let Some(allow) = allow {
                shaped.headers_mut().insert(header::ALLOW, allow);
            }
            shaped
        }
        StatusCode::BAD_REQUEST if is_short_plain_text(&response) => {
            rejection(owner, &asked, response).await
        }
        _ => response,
    }
}

/// A `text/plain` body short enough to be one of axum's rejections.
fn is_short_plain_text(response: &Response) -> bool {
    let short = response
        .body()
        .size_hint()
        .exact()
        .is_some_and(|size| size <= REJECTION_BYTES as u64);
    short
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/plain"))
}

/// A `text/plain` 400: axum's path rejection in the owner's shape, anything else as it was.
async fn rejection(owner: Owner, asked: &str, response: Response) -> Response {
    let (parts, body) = response.into_parts();
    let Ok(text) = axum::body::to_bytes(body, REJECTION_BYTES).await else {
        // A body of known, short length held in memory does not fail to read; should it, the
        // owner's shape still says what happened.
        return owner.shape().error(
            StatusCode::BAD_REQUEST,
            &format!("{asked} was refused, and the reason could not be read; send it again"),
        );
    };
    if !text.starts_with(INVALID_URL) {
        return Response::from_parts(parts, Body::from(text));
    }
    let detail = String::from_utf8_lossy(&text);
    let detail = detail.trim_start_matches("Invalid URL: ");
    let sentence = format!(
        "{asked}: a path segment is not valid UTF-8 once percent-decoded ({detail}), so it \
         names nothing the mock has; use the URL or id the mock handed out"
    );
    // A page that cannot be found is a "not found" page, as the pages' own are.
    let status = if owner == Owner::Pages {
        StatusCode::NOT_FOUND
    } else {
        StatusCode::BAD_REQUEST
    };
    owner.shape().error(status, &sentence)
}
