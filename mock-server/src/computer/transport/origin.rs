//! DNS-rebinding protection, as the MCP transport spec requires of local servers: a request
//! whose `Host` or `Origin` is not this server is refused before anything else happens.

use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};

use crate::computer::model::error::ErrorData;

/// The hosts the endpoint answers: the loopback names and the public URL's host.
#[derive(Debug, Clone)]
pub(crate) struct Origins {
    public_host: Arc<str>,
}

impl Origins {
    /// The hosts of a server whose URLs start with `base_url`.
    pub(crate) fn of(base_url: &str) -> Self {
        Self {
            // The name only: `Host` headers are compared without their port.
            public_host: strip_port(host_of(base_url)).to_ascii_lowercase().into(),
        }
    }

    fn allowed(&self, host: &str) -> bool {
        ["localhost", "127.0.0.1", "[::1]", &self.public_host]
            .iter()
            .any(|allowed| host.eq_ignore_ascii_case(allowed))
    }

    /// Why a request with `headers` is refused, if it is.
    fn refusal(&self, headers: &HeaderMap) -> Option<String> {
        if let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) {
            let name = strip_port(host);
            if !self.allowed(name) {
                return Some(format!(
                    "Host `{name}` is not allowed; this server answers only requests addressed \
                     to localhost, 127.0.0.1, [::1] or its --public-url"
                ));
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
            && origin != "null"
        {
            let name = strip_port(host_of(origin));
            if !self.allowed(name) {
                return Some(format!(
                    "Origin `{origin}` is not allowed; only pages served from localhost, \
                     127.0.0.1, [::1] or the --public-url may call this server"
                ));
            }
        }
        None
    }
}

/// The extractor every MCP handler takes first, so a foreign host or origin is refused with
/// 403 before anything else happens, authentication included (extractors run in order).
pub(crate) struct SameOrigin;

impl<S> FromRequestParts<S> for SameOrigin
where
    S: Send + Sync,
    Origins: FromRef<S>,
{
    type Rejection = ErrorData;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Origins::from_ref(state).refusal(&parts.headers) {
            Some(refusal) => Err(ErrorData::forbidden(format!("Forbidden: {refusal}"))),
            None => Ok(Self),
        }
    }
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

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

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
        let origins = Origins::of("https://mock.example.com");
        let mut headers = HeaderMap::new();
        for host in ["localhost:8080", "127.0.0.1", "[::1]:1", "MOCK.example.com"] {
            headers.insert(header::HOST, HeaderValue::from_static(host));
            assert_eq!(origins.refusal(&headers), None, "{host}");
        }
        headers.insert(header::HOST, HeaderValue::from_static("evil.example.com"));
        assert!(origins.refusal(&headers).is_some());
        headers.insert(header::HOST, HeaderValue::from_static("localhost"));
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("http://evil.example.com"),
        );
        assert!(origins.refusal(&headers).is_some());
    }

    #[test]
    fn a_public_url_with_a_port_lets_its_own_host_and_origin_through() {
        let origins = Origins::of("https://mock.example.com:8443/base");
        let mut headers = HeaderMap::new();
        headers.insert(
            header::HOST,
            HeaderValue::from_static("mock.example.com:8443"),
        );
        headers.insert(
            header::ORIGIN,
            HeaderValue::from_static("https://mock.example.com:8443"),
        );
        assert_eq!(origins.refusal(&headers), None);
        headers.insert(
            header::HOST,
            HeaderValue::from_static("other.example.com:8443"),
        );
        assert!(origins.refusal(&headers).is_some());
    }
}
