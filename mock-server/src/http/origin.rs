//! Who may reach the mock from a browser. Two guards, before anything else a request meets:
//!
//! - **DNS rebinding**: a request whose `Host` is not one of the mock's names (the loopback
//!   names, the `--public-url` host), or whose `Origin` is not a page of those names or an
//!   `--allow-origin`, is refused: a web page on another site cannot reach the mock by pointing
//!   its own name at 127.0.0.1, nor call it from its own origin.
//! - **Simple-request CSRF**, on routes that change the mock's state: a page can send a
//!   `text/plain`, form or multipart POST to any site without asking first, so those routes that
//!   take JSON refuse other types, and every such route refuses `Origin: null` (a sandboxed or
//!   privacy-hidden page) and a cross-site request (`Sec-Fetch-Site: cross-site`) that names no
//!   origin.
//!
//! A client that is no browser sends neither `Origin` nor `Sec-Fetch-Site` and no foreign
//! `Host`, so curl, the SDKs and the tests pass untouched. This module knows no wire shape: the
//! app says, per path, which guard applies and in which surface's [`ErrorShape`] a refusal is
//! answered ([`GuardOrigins`]).

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::response::Response;
use futures::future::{Either, Ready, ready};
use http::{HeaderMap, Method, StatusCode, header};
use tower::{Layer, Service};

use super::shape::ErrorShape;

/// The names a request may be addressed to and the origins a page may call from.
#[derive(Debug, Clone)]
pub(crate) struct Origins {
    /// The `--public-url`'s host name (or the listen address's), lower-case, without a port.
    public_host: Arc<str>,
    /// `--allow-origin` values, normalized (`scheme://host[:port]`, lower-case).
    allowed: Arc<[String]>,
}

/// Why an `--allow-origin` value is no origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--allow-origin {given}: an origin is a scheme, a host and an optional port, such as \
     https://dashboard.example or http://192.168.1.5:3000, with no path"
)]
pub(crate) struct NotAnOrigin {
    /// The value given.
    pub(crate) given: String,
}

impl Origins {
    /// The names of a server whose URLs start with `base_url`, letting in pages from `allowed`
    /// origins too.
    pub(crate) fn new(base_url: &str, allowed: &[String]) -> Result<Self, NotAnOrigin> {
        let allowed = allowed
            .iter()
            .map(|given| {
                normalized_origin(given).ok_or_else(|| NotAnOrigin {
                    given: given.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            public_host: strip_port(host_of(base_url)).to_ascii_lowercase().into(),
            allowed: allowed.into(),
        })
    }

    fn host_allowed(&self, name: &str) -> bool {
        ["localhost", "127.0.0.1", "[::1]", &self.public_host]
            .iter()
            .any(|allowed| name.eq_ignore_ascii_case(allowed))
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        self.host_allowed(strip_port(host_of(origin)))
            || normalized_origin(origin).is_some_and(|o| self.allowed.contains(&o))
    }

    /// Why a request is refused, if it is, on a route that `writes` so.
    pub(crate) fn refusal(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        writes: Writes,
    ) -> Option<Refusal> {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        if let Some(host) = text(header::HOST.as_str()) {
            let name = strip_port(host);
            if !self.host_allowed(name) {
                return Some(Refusal::ForeignHost(name.to_owned()));
            }
        }
        let origin = text(header::ORIGIN.as_str());
        if let Some(origin) = origin.filter(|o| *o != "null")
            && !self.origin_allowed(origin)
        {
            return Some(Refusal::ForeignOrigin(origin.to_owned()));
        }
        let changes_state = matches!(
            *method,
            Method::POST | Method::PUT | Method::PATCH | Method::DELETE
        );
        if writes == Writes::Nothing || !changes_state {
            return None;
        }
        if origin == Some("null") {
            return Some(Refusal::OpaqueOrigin);
        }
        if origin.is_none() && text("sec-fetch-site") == Some("cross-site") {
            return Some(Refusal::CrossSite);
        }
        if writes == Writes::Json
            && let Some(content_type) = text(header::CONTENT_TYPE.as_str())
            && !is_json(content_type)
        {
            return Some(Refusal::NotJson {
                route: format!("{method} {path}"),
                content_type: content_type.to_owned(),
            });
        }
        None
    }
}

/// What a route does with the mock's state, for the CSRF guard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writes {
    /// Nothing a forged request could abuse (only the `Host`/`Origin` guard applies): the
    /// Agent API and OAuth need a token or a code a foreign page does not have.
    Nothing,
    /// A control route taking a JSON body, or none.
    Json,
    /// A human page's form, posted by the mock's own pages (a billing button, a sign-in).
    Forms,
}

/// Why a request was refused; its `Display` is the sentence answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// A `Host` that is not one of the mock's names.
    #[error(
        "Forbidden: Host `{0}` is not allowed; this server answers only requests addressed to \
         localhost, 127.0.0.1, [::1] or its --public-url (a guard against DNS rebinding). \
         Address it by one of those names, or start it with --public-url naming the address \
         you use."
    )]
    ForeignHost(String),
    /// An `Origin` that is neither a page of the mock's names nor an `--allow-origin`.
    #[error(
        "Forbidden: Origin `{0}` is not allowed; only pages served from localhost, 127.0.0.1, \
         [::1], the --public-url or an --allow-origin may call this server. Start the mock \
         with --allow-origin {0} to let that page in."
    )]
    ForeignOrigin(String),
    /// `Origin: null` on a state-changing route.
    #[error(
        "Forbidden: a request with `Origin: null` (a sandboxed or privacy-hidden page) cannot \
         change the mock's state. Send it from a page of the mock's own origin or an \
         --allow-origin, or from a client that sends no Origin."
    )]
    OpaqueOrigin,
    /// `Sec-Fetch-Site: cross-site` without an `Origin` on a state-changing route.
    #[error(
        "Forbidden: a cross-site request (Sec-Fetch-Site: cross-site) that names no Origin \
         cannot change the mock's state. Send it from a page of the mock's own origin or an \
         --allow-origin."
    )]
    CrossSite,
    /// A body type any page can send without a preflight, on a route taking JSON.
    #[error(
        "{route} takes a JSON body (Content-Type: application/json) or none, not \
         `{content_type}`: any web page can send that type to any site without asking, so it \
         is refused to keep other pages from driving the mock. Send Content-Type: \
         application/json."
    )]
    NotJson {
        /// `POST /_mock/reset`.
        route: String,
        /// The type sent.
        content_type: String,
    },
}

impl Refusal {
    /// The status it is answered with.
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Self::NotJson { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            _ => StatusCode::FORBIDDEN,
        }
    }
}

/// `application/json` or any `+json` type, parameters aside.
fn is_json(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

/// `scheme://host[:port]`, lower-case, when `text` is an origin and nothing more.
fn normalized_origin(text: &str) -> Option<String> {
    let (scheme, rest) = text.trim_end_matches('/').split_once("://")?;
    let valid_scheme = !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let valid_host = !rest.is_empty() && !rest.contains(['/', '?', '#', '@', ' ']);
    (valid_scheme && valid_host).then(|| format!("{scheme}://{rest}").to_ascii_lowercase())
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

/// Which guard a path gets and whose shape its refusals come in; `None`: no guard.
#[derive(Clone, Copy)]
pub(crate) struct Guard {
    /// The surface's error envelope.
    pub(crate) shape: &'static dyn ErrorShape,
    /// What the route does with the mock's state.
    pub(crate) writes: Writes,
}

/// The guard of each request, by path.
pub(crate) type GuardFor = fn(&str) -> Option<Guard>;

/// Refuses, in front of the surfaces, what [`Origins::refusal`] refuses.
#[derive(Clone)]
pub(crate) struct GuardOrigins {
    origins: Origins,
    guard: GuardFor,
}

impl GuardOrigins {
    /// Guards requests under `guard`'s rules for their path.
    pub(crate) fn new(origins: Origins, guard: GuardFor) -> Self {
        Self { origins, guard }
    }
}

impl<S> Layer<S> for GuardOrigins {
    type Service = Guarded<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Guarded {
            inner,
            guard: self.clone(),
        }
    }
}

/// A service behind [`GuardOrigins`].
#[derive(Clone)]
pub(crate) struct Guarded<S> {
    inner: S,
    guard: GuardOrigins,
}

impl<S> Service<Request> for Guarded<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<S::Future, Ready<Result<Response, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let path = request.uri().path();
        let refused = (self.guard.guard)(path).and_then(|guard| {
            let refusal = self.guard.origins.refusal(
                request.method(),
                path,
                request.headers(),
                guard.writes,
            )?;
            Some(guard.shape.error(refusal.status(), &refusal.to_string()))
        });
        match refused {
            Some(response) => Either::Right(ready(Ok(response))),
            None => Either::Left(self.inner.call(request)),
        }
    }
}

#[cfg(test)]
mod tests {
    use http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        headers
    }

    fn refusal(
        origins: &Origins,
        pairs: &[(&'static str, &'static str)],
        writes: Writes,
    ) -> Option<Refusal> {
        origins.refusal(&Method::POST, "/_mock/reset", &headers(pairs), writes)
    }

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

    #[test]
    fn loopback_and_the_public_host_pass_and_others_are_refused() {
        let origins = Origins::new("https://mock.example.com", &[]).expect("origins");
        for host in ["localhost:8080", "127.0.0.1", "[::1]:1", "MOCK.example.com"] {
            assert_eq!(
                refusal(&origins, &[("host", host)], Writes::Nothing),
                None,
                "{host}"
            );
        }
        let foreign = refusal(&origins, &[("host", "evil.example.com")], Writes::Nothing);
        assert_eq!(
            foreign,
            Some(Refusal::ForeignHost("evil.example.com".into()))
        );
        let page = [("host", "localhost"), ("origin", "http://evil.example.com")];
        assert_eq!(
            refusal(&origins, &page, Writes::Nothing),
            Some(Refusal::ForeignOrigin("http://evil.example.com".into()))
        );
    }

    #[test]
    fn a_public_url_with_a_port_lets_its_own_host_and_origin_through() {
        let origins = Origins::new("https://mock.example.com:8443/base", &[]).expect("origins");
        let own = [
            ("host", "mock.example.com:8443"),
            ("origin", "https://mock.example.com:8443"),
        ];
        assert_eq!(refusal(&origins, &own, Writes::Nothing), None);
        let other = [("host", "other.example.com:8443")];
        assert!(refusal(&origins, &other, Writes::Nothing).is_some());
    }

    #[test]
    fn an_allowed_origin_must_match_scheme_host_and_port() {
        let origins = Origins::new(
            "http://127.0.0.1:8080",
            &["HTTPS://Dash.example:8443/".into()],
        )
        .expect("origin");
        assert_eq!(
            refusal(
                &origins,
                &[("origin", "https://dash.example:8443")],
                Writes::Json
            ),
            None
        );
        for other in [
            "http://dash.example:8443",
            "https://dash.example",
            "https://dash.example:8443.evil",
        ] {
            assert!(
                refusal(&origins, &[("origin", other)], Writes::Json).is_some(),
                "{other}"
            );
        }
        for bad in [
            "dash.example",
            "https://dash.example/path",
            "https://",
            "://x",
        ] {
            assert!(Origins::new("http://h", &[bad.into()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_state_changing_routes_refuse_what_any_page_can_send() {
        let origins = Origins::new("http://127.0.0.1:8080", &[]).expect("origins");
        let plain = [("content-type", "text/plain")];
        assert!(matches!(
            refusal(&origins, &plain, Writes::Json),
            Some(Refusal::NotJson { .. })
        ));
        assert_eq!(refusal(&origins, &plain, Writes::Forms), None);
        assert_eq!(refusal(&origins, &plain, Writes::Nothing), None);
        assert_eq!(
            refusal(&origins, &[("origin", "null")], Writes::Forms),
            Some(Refusal::OpaqueOrigin)
        );
        assert_eq!(
            refusal(&origins, &[("origin", "null")], Writes::Nothing),
            None
        );
        let json = [("content-type", "application/vnd.api+json; charset=utf-8")];
        assert_eq!(refusal(&origins, &json, Writes::Json), None);
        let get = origins.refusal(&Method::GET, "/_mock/clock", &headers(&plain), Writes::Json);
        assert_eq!(get, None);
    }
}
