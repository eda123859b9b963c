//! Credentials never leave the journal: wherever it is shown or written, each one becomes a
//! [`fingerprint`], the same for the same secret and different for different ones, so a reader
//! can tell which token was used without being able to use it.
//!
//! What counts as a credential:
//! - the `Authorization` and `Proxy-Authorization` headers (the scheme stays readable),
//!   `X-Api-Key`, and each value of `Cookie` and `Set-Cookie` (the names stay), everywhere;
//! - an `access_token` query parameter anywhere;
//! - and, where the app that mounts the recorder says an exchange is one of these
//!   ([`Secrets`]):
//!   - a token exchange (the OAuth token endpoint): the request's `code`, `code_verifier`,
//!     `refresh_token`, `access_token`, `client_secret` and assertions (form-encoded or JSON),
//!     and the answer's `access_token`, `refresh_token` and `id_token`;
//!   - a client registration: the `client_secret` it hands out;
//!   - an authorization: the `code` in the redirect's `Location`;
//!   - tool credentials (the Agent API): each tool's `authorization` and every value of its
//!     `headers` (the `mcp` tool's credentials for a third-party server), and the credentials
//!     of its `server_url` ([`url`]: the password of `user:pass@`, secret-named query
//!     parameters such as `api_key` or `token`);
//! - what the mock itself sent to another server (an `mcp` tool's calls): when that server is
//!   the mock, its exchanges show those header and query values fingerprinted too
//!   (`super::outgoing`).
//!
//! A custom connector's key never appears in an exchange the mock receives except as the
//! `Authorization` header of the call the mock makes to that server (journaled by the server
//! it reaches, when that is a mock too), which the first rule covers.

use serde_json::Value;

use crate::http::encoding::percent_decode;

/// Where an exchange carries credentials beyond the headers and the `access_token` query
/// parameter every exchange may carry. The journal knows no surface: the app that mounts the
/// recorder says which of its paths is which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Secrets {
    /// Nothing beyond the headers and the query parameter.
    #[default]
    Common,
    /// An OAuth token request and its answer (RFC 6749 §4.1.3, §5.1, §6).
    TokenExchange,
    /// A dynamic client registration and the secret it hands out (RFC 7591).
    ClientRegistration,
    /// An authorization request, whose redirect carries the code (RFC 6749 §4.1.2).
    Authorization,
    /// A request (or a response object shaped like one) that lists tools, each with its own
    /// `authorization` and `headers`.
    ToolCredentials,
}

/// What a credential is shown as: `redacted:` and the first 12 hex digits of its SHA-256.
///
/// Tests and rules that need to know which token a client sent compare fingerprints:
/// `assert_eq!(e.request_headers["authorization"], format!("Bearer {}", fingerprint(token)))`.
pub fn fingerprint(secret: &str) -> String {
    let digest = crate::http::sha256::sha256(secret.as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("redacted:{hex}")
}

/// Request fields of the token endpoint that are credentials.
const TOKEN_REQUEST_SECRETS: &[&str] = &[
    "code",
    "code_verifier",
    "refresh_token",
    "access_token",
    "client_secret",
    "assertion",
    "client_assertion",
    "subject_token",
    "actor_token",
    "password",
];

/// Answer fields of the token endpoint that are credentials.
const TOKEN_ANSWER_SECRETS: &[&str] = &["access_token", "refresh_token", "id_token"];

/// Answer fields of the registration endpoint that are credentials.
const REGISTER_SECRETS: &[&str] = &["client_secret", "registration_access_token"];

/// A header as shown: credentials fingerprinted, anything else as (lossy) text.
pub(crate) fn header(secrets: Secrets, name: &str, value: &[u8]) -> String {
    let text = String::from_utf8_lossy(value);
    match name {
        "authorization" | "proxy-authorization" => match text.split_once(' ') {
            // Keep the scheme so a reader can tell a bearer token from HTTP Basic.
            Some((scheme, credential)) => format!("{scheme} {}", fingerprint(credential.trim())),
            None => fingerprint(&text),
        },
        "x-api-key" => fingerprint(&text),
        "cookie" => cookies(&text),
        "set-cookie" => match text.split_once(';') {
            // The attributes after the first pair (`Path`, `Expires`, ...) stay readable.
            Some((pair, attributes)) => format!("{};{attributes}", cookies(pair)),
            None => cookies(&text),
        },
        "location" if secrets == Secrets::Authorization => url_params(&text, &["code"]),
        _ => text.into_owned(),
    }
}

/// Whether a header has a rule of its own here (so a value fingerprinted elsewhere must not be
/// fingerprinted twice).
pub(crate) fn has_own_rule(name: &str) -> bool {
    matches!(
        name,
        "authorization" | "proxy-authorization" | "x-api-key" | "cookie" | "set-cookie"
    )
}

/// `a=1; b=2` with each value fingerprinted.
fn cookies(text: &str) -> String {
    text.split(';')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) => format!("{name}={}", fingerprint(value.trim())),
            None => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// A query string as shown.
pub(crate) fn query(secrets: Secrets, query: &str) -> String {
    if secrets == Secrets::TokenExchange {
        form(query, TOKEN_REQUEST_SECRETS)
    } else {
        form(query, &["access_token"])
    }
}

/// Whether a query parameter's name says its value is a credential (`api_key`, `token`,
/// `client_secret`, `password`, `sig`, ...).
pub(crate) fn secret_named(name: &str) -> bool {
    const PARTS: &[&str] = &[
        "key",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "auth",
        "credential",
        "signature",
        "session",
    ];
    let name = name.to_ascii_lowercase();
    PARTS.iter().any(|part| name.contains(part)) || matches!(name.as_str(), "sig" | "pass" | "code")
}

/// The pieces of a URL that are credentials: the secret part of its user info (the password
/// of `user:pass@`, or a lone user name, which is often a token) and its secret-named query
/// parameters, percent-decoded.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct UrlCredentials {
    /// The password, or the lone user name.
    pub(crate) user_info: Option<String>,
    /// Secret-named query parameters, as (name, value).
    pub(crate) params: Vec<(String, String)>,
}

/// A URL cut where its credentials are: `(scheme://, user info, the rest up to the query,
/// query)`; the fragment stays with the query's tail.
fn url_parts(url: &str) -> (&str, Option<&str>, &str, Option<&str>) {
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let start = head.find("://").map_or(0, |at| at + 3);
    let (scheme, rest) = head.split_at(start);
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rsplit_once('@') {
        Some((user_info, _)) => (scheme, Some(user_info), &rest[user_info.len() + 1..], query),
        None => (scheme, None, rest, query),
    }
}

/// The credentials in `url` (see [`UrlCredentials`]).
pub(crate) fn url_credentials(url: &str) -> UrlCredentials {
    let (_, user_info, _, query) = url_parts(url);
    let user_info = user_info
        .map(|info| percent_decode(info.split_once(':').map_or(info, |(_, password)| password)));
    let params = query
        .map(|q| q.split_once('#').map_or(q, |(q, _)| q))
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| (percent_decode(name), percent_decode(value)))
        .filter(|(name, _)| secret_named(name))
        .collect();
    UrlCredentials { user_info, params }
}

/// A URL as shown: the credentials [`url_credentials`] finds fingerprinted, the rest as given.
pub(crate) fn url(url: &str) -> String {
    let (scheme, user_info, rest, query) = url_parts(url);
    let user_info = user_info.map(|info| match info.split_once(':') {
        Some((user, password)) => format!("{user}:{}@", fingerprint(&percent_decode(password))),
        None => format!("{}@", fingerprint(&percent_decode(info))),
    });
    let query = query.map(|q| {
        let (params, fragment) = match q.split_once('#') {
            Some((params, fragment)) => (params, format!("#{fragment}")),
            None => (q, String::new()),
        };
        format!("?{}{fragment}", form_where(params, secret_named))
    });
    format!(
        "{scheme}{}{rest}{}",
        user_info.unwrap_or_default(),
        query.unwrap_or_default()
    )
}

/// Shorter credentials are not looked for in free text (they would match ordinary words); the
/// URL itself is redacted whole wherever it appears as given.
const SHORTEST_QUOTED_SECRET: usize = 4;

/// `text` (an error message quoting `server_url`) with the URL's credentials fingerprinted:
/// the URL as given replaced by [`url`], then any credential still there (a URL the HTTP
/// client rewrote) by its fingerprint.
pub(crate) fn quoting_url(text: &str, server_url: &str) -> String {
    let mut shown = text.replace(server_url, &url(server_url));
    let credentials = url_credentials(server_url);
    let values = credentials
        .user_info
        .into_iter()
        .chain(credentials.params.into_iter().map(|(_, value)| value));
    for value in values.filter(|v| v.len() >= SHORTEST_QUOTED_SECRET) {
        shown = shown.replace(&value, &fingerprint(&value));
    }
    shown
}

/// A request body as shown, parsed as JSON.
pub(crate) fn request_json(secrets: Secrets, body: &mut Value) {
    match secrets {
        Secrets::TokenExchange => fields(body, TOKEN_REQUEST_SECRETS),
        Secrets::ToolCredentials => tool_credentials(body),
        Secrets::Common | Secrets::ClientRegistration | Secrets::Authorization => {}
    }
}

/// A request body as shown, when it is not JSON (a form, or text).
pub(crate) fn request_text(secrets: Secrets, body: &str) -> String {
    if secrets == Secrets::TokenExchange {
        form(body, TOKEN_REQUEST_SECRETS)
    } else {
        body.to_owned()
    }
}

/// A response body (or one SSE event's data) as shown, parsed as JSON.
pub(crate) fn response_json(secrets: Secrets, body: &mut Value) {
    match secrets {
        Secrets::TokenExchange => fields(body, TOKEN_ANSWER_SECRETS),
        Secrets::ClientRegistration => fields(body, REGISTER_SECRETS),
        Secrets::ToolCredentials => {
            // The mock never echoes these, but a response object is shaped like a request.
            tool_credentials(body);
            if let Some(response) = body.get_mut("response") {
                tool_credentials(response);
            }
        }
        Secrets::Common | Secrets::Authorization => {}
    }
}

/// Fingerprints the string values of `keys` in a JSON object.
fn fields(body: &mut Value, keys: &[&str]) {
    let Some(map) = body.as_object_mut() else {
        return;
    };
    for key in keys {
        if let Some(value) = map.get_mut(*key) {
            secret(value);
        }
    }
}

/// Fingerprints each tool's `authorization` and `headers` values.
fn tool_credentials(body: &mut Value) {
    let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) else {
        return;
    };
    for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
        if let Some(value) = tool.get_mut("authorization") {
            secret(value);
        }
        if let Some(headers) = tool.get_mut("headers").and_then(Value::as_object_mut) {
            headers.values_mut().for_each(secret);
        }
        if let Some(Value::String(server_url)) = tool.get_mut("server_url") {
            *server_url = url(server_url);
        }
    }
}

/// Replaces one value by its fingerprint (a non-string by the fingerprint of its JSON text).
fn secret(value: &mut Value) {
    let shown = match &*value {
        Value::Null => return,
        Value::String(text) => fingerprint(text),
        other => fingerprint(&other.to_string()),
    };
    *value = Value::String(shown);
}

/// The query parameters of a URL, with `keys` fingerprinted.
fn url_params(url: &str, keys: &[&str]) -> String {
    match url.split_once('?') {
        Some((base, params)) => format!("{base}?{}", form(params, keys)),
        None => url.to_owned(),
    }
}

/// A form-encoded string (`a=1&b=2`) with the values of `keys` fingerprinted, the rest as sent.
fn form(text: &str, keys: &[&str]) -> String {
    form_where(text, |name| keys.contains(&name))
}

/// A form-encoded string with the values of the parameters `secret` names fingerprinted.
fn form_where(text: &str, secret: impl Fn(&str) -> bool) -> String {
    text.split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if secret(&percent_decode(name)) => {
                format!("{name}={}", fingerprint(&percent_decode(value)))
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_fingerprint_is_stable_and_tells_two_secrets_apart() {
        assert_eq!(
            fingerprint("alice-dev-token"),
            fingerprint("alice-dev-token")
        );
        assert_ne!(fingerprint("alice-dev-token"), fingerprint("bob-dev-token"));
        let shown = fingerprint("alice-dev-token");
        assert!(
            shown.starts_with("redacted:") && shown.len() == 21,
            "{shown}"
        );
        assert!(!shown.contains("alice"));
    }

    #[test]
    fn authorization_keeps_its_scheme_and_loses_its_credential() {
        assert_eq!(
            header(Secrets::Common, "authorization", b"Bearer alice-dev-token"),
            format!("Bearer {}", fingerprint("alice-dev-token"))
        );
        assert_eq!(
            header(Secrets::Common, "authorization", b"opaque"),
            fingerprint("opaque")
        );
        assert_eq!(
            header(Secrets::Common, "x-api-key", b"k1"),
            fingerprint("k1")
        );
        assert_eq!(
            header(Secrets::Common, "content-type", b"text/plain"),
            "text/plain"
        );
    }

    #[test]
    fn the_code_in_an_authorization_redirect_is_fingerprinted() {
        let shown = header(
            Secrets::Authorization,
            "location",
            b"http://127.0.0.1:9/cb?code=c0de&state=s%201&iss=http%3A%2F%2Fh",
        );
        assert_eq!(
            shown,
            format!(
                "http://127.0.0.1:9/cb?code={}&state=s%201&iss=http%3A%2F%2Fh",
                fingerprint("c0de")
            )
        );
        // Elsewhere a Location is just a URL.
        assert_eq!(
            header(Secrets::Common, "location", b"/a?code=1"),
            "/a?code=1"
        );
    }

    #[test]
    fn token_requests_are_redacted_as_forms_and_as_json() {
        let form_body = "grant_type=authorization_code&code=abc&code_verifier=v%2Bw&redirect_uri=x";
        assert_eq!(
            request_text(Secrets::TokenExchange, form_body),
            format!(
                "grant_type=authorization_code&code={}&code_verifier={}&redirect_uri=x",
                fingerprint("abc"),
                fingerprint("v+w")
            )
        );
        let mut json_body =
            json!({"grant_type": "refresh_token", "refresh_token": "r1", "client_secret": "s"});
        request_json(Secrets::TokenExchange, &mut json_body);
        assert_eq!(
            json_body,
            json!({"grant_type": "refresh_token", "refresh_token": fingerprint("r1"), "client_secret": fingerprint("s")})
        );
        let mut answer = json!({"access_token": "a", "refresh_token": "r", "token_type": "Bearer", "expires_in": 3600});
        response_json(Secrets::TokenExchange, &mut answer);
        assert_eq!(answer["access_token"], fingerprint("a"));
        assert_eq!(answer["refresh_token"], fingerprint("r"));
        assert_eq!(answer["token_type"], "Bearer");
        assert_eq!(answer["expires_in"], 3600);
    }

    #[test]
    fn tools_lose_their_authorization_and_header_values() {
        let mut body = json!({"input": "hi", "tools": [
            {"type": "mcp", "server_label": "gh", "server_url": "https://x", "authorization": "ghp_1",
             "headers": {"X-Token": "t2", "X-Trace": "t3"}},
            {"type": "web_search"},
        ]});
        request_json(Secrets::ToolCredentials, &mut body);
        assert_eq!(body["tools"][0]["authorization"], fingerprint("ghp_1"));
        assert_eq!(body["tools"][0]["headers"]["X-Token"], fingerprint("t2"));
        assert_eq!(body["tools"][0]["headers"]["X-Trace"], fingerprint("t3"));
        assert_eq!(body["tools"][0]["server_url"], "https://x");
        assert_eq!(body["tools"][1], json!({"type": "web_search"}));
        let mut answer = json!({"response": {"tools": [{"authorization": "a1"}]}});
        response_json(Secrets::ToolCredentials, &mut answer);
        assert_eq!(
            answer["response"]["tools"][0]["authorization"],
            fingerprint("a1")
        );
        // The same keys elsewhere are not touched.
        let mut other = json!({"tools": [{"authorization": "kept"}]});
        request_json(Secrets::Common, &mut other);
        assert_eq!(other["tools"][0]["authorization"], "kept");
    }

    #[test]
    fn cookie_values_are_fingerprinted_and_their_names_kept() {
        assert_eq!(
            header(Secrets::Common, "cookie", b"sid=s1; theme=dark"),
            format!("sid={}; theme={}", fingerprint("s1"), fingerprint("dark"))
        );
        assert_eq!(
            header(Secrets::Common, "set-cookie", b"sid=s1; Path=/; HttpOnly"),
            format!("sid={}; Path=/; HttpOnly", fingerprint("s1"))
        );
    }

    #[test]
    fn a_urls_password_lone_user_and_secret_named_parameters_are_fingerprinted() {
        assert_eq!(
            url("https://u:p%40ss@h.example:8443/mcp?api_key=k&mode=x&Token=t#f"),
            format!(
                "https://u:{}@h.example:8443/mcp?api_key={}&mode=x&Token={}#f",
                fingerprint("p@ss"),
                fingerprint("k"),
                fingerprint("t")
            )
        );
        assert_eq!(
            url("http://ghp_1@h/mcp"),
            format!("http://{}@h/mcp", fingerprint("ghp_1"))
        );
        // An `@` after the host is no user info.
        assert_eq!(url("http://h/a@b?x=1"), "http://h/a@b?x=1");
        assert_eq!(
            url_credentials("http://u:pw@h/?secret=s&q=1"),
            UrlCredentials {
                user_info: Some("pw".into()),
                params: vec![("secret".into(), "s".into())],
            }
        );
    }

    #[test]
    fn a_message_quoting_a_url_loses_its_credentials_however_it_was_rewritten() {
        let server_url = "http://u:pw-long@h/mcp?token=tok-long";
        let message =
            format!("could not reach {server_url}: error for url (http://h/mcp?token=tok-long)");
        let shown = quoting_url(&message, server_url);
        assert!(
            !shown.contains("pw-long") && !shown.contains("tok-long"),
            "{shown}"
        );
        assert!(shown.contains(&url(server_url)), "{shown}");
    }

    #[test]
    fn an_access_token_in_a_query_string_is_fingerprinted() {
        assert_eq!(
            query(Secrets::Common, "a=1&access_token=t&b=2"),
            format!("a=1&access_token={}&b=2", fingerprint("t"))
        );
    }
}
