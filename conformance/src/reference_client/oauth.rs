//! The reference client's sign-in, for when the runner hands it no token: on a 401 it refreshes
//! its access token if it has a refresh token, else it signs in as the MCP authorization
//! specification says: the protected resource metadata named by the challenge, the
//! authorization server's metadata (refusing to go on without PKCE S256), dynamic client
//! registration, then the person on the consent page (the user channel's `ask` of kind `url`)
//! with PKCE S256, `state` and `resource`, and the code exchanged for tokens.
//!
//! With `--break` it breaks one of the `oauth.*` rules and recovers, so only that rule fails.

use mock_server::{percent_decode as decode, percent_encode};
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use crate::error::ClientError;
use crate::rules::ids;

use super::options::ClientOptions;
use super::pace::SendPaced;

/// The redirect URI the client registers. Nothing listens there: the person's answer on the user
/// channel says where the browser was sent, code and all.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// What the authorization server's metadata says.
#[derive(Debug, Clone)]
struct Metadata {
    url: String,
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    registration_endpoint: String,
}

/// The client's sign-in: its registration and its tokens.
pub(super) struct Authorizer {
    http: reqwest::Client,
    mcp_url: String,
    user_url: String,
    break_rule: Option<String>,
    metadata: Option<Metadata>,
    client_id: Option<String>,
    resource: String,
    access: Option<String>,
    refresh: Option<String>,
    /// The first refresh token issued (reused on purpose when breaking the rotation rule).
    first_refresh: Option<String>,
    refreshes: usize,
    sign_ins: usize,
    /// Breaking a rule once: the pending misstep.
    query_pending: bool,
    bare_pending: bool,
}

fn error(what: &str, detail: impl Into<String>) -> ClientError {
    ClientError::Protocol {
        what: what.to_owned(),
        detail: detail.into(),
    }
}

fn http_error(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
    move |source| ClientError::Http {
        url: url.to_owned(),
        source,
    }
}

/// A quoted parameter of a `WWW-Authenticate` challenge.
fn challenge_param(challenge: &str, name: &str) -> Option<String> {
    let marker = format!("{name}=\"");
    let start = challenge.find(&marker)? + marker.len();
    let end = challenge[start..].find('"')? + start;
    Some(challenge[start..end].to_owned())
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The query parameter `name` of a URL, decoded.
fn query_param(url: &str, name: &str) -> Option<String> {
    let (_, query) = url.split_once('?')?;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| decode(value))
    })
}

/// The origin of a URL (`scheme://host:port`).
fn origin(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => &url[..after_scheme + i],
        None => url,
    }
}

impl Authorizer {
    /// A client that signs in when the runner gave it no token; `None` when it has one.
    pub(super) fn for_options(options: &ClientOptions, http: reqwest::Client) -> Option<Self> {
        if options.token.is_some() {
            return None;
        }
        Some(Self {
            http,
            mcp_url: options.url.clone(),
            user_url: options.user_url.clone(),
            break_rule: options.break_rule.clone(),
            metadata: None,
            client_id: None,
            resource: options.url.clone(),
            access: None,
            refresh: None,
            first_refresh: None,
            refreshes: 0,
            sign_ins: 0,
            query_pending: false,
            bare_pending: false,
        })
    }

    fn breaks(&self, rule: &str) -> bool {
        self.break_rule.as_deref() == Some(rule)
    }

    /// The current access token, once signed in.
    pub(super) fn access_token(&self) -> Option<&str> {
        self.access.as_deref()
    }

    /// The URL of the next MCP request (breaking `oauth.no-token-in-query`: once after signing
    /// in, the token goes in the query string as well).
    pub(super) fn request_url(&mut self, url: &str) -> String {
        match (&self.access, std::mem::take(&mut self.query_pending)) {
            (Some(token), true) => format!("{url}?access_token={}", percent_encode(token)),
            _ => url.to_owned(),
        }
    }

    /// Whether to send one MCP request without the header now (breaking
    /// `oauth.bearer-every-request`, once after signing in).
    pub(super) fn take_bare_request(&mut self) -> bool {
        std::mem::take(&mut self.bare_pending)
    }

    /// After a 401: a new access token from the refresh token if there is one, else (or when the
    /// refresh is refused) a new sign-in.
    pub(super) async fn unauthorized(
        &mut self,
        challenge: Option<&str>,
    ) -> Result<(), ClientError> {
        if self.refresh.is_some() && self.refresh_tokens().await.is_ok() {
            return Ok(());
        }
        self.sign_in(challenge.unwrap_or_default()).await
    }

    async fn refresh_tokens(&mut self) -> Result<(), ClientError> {
        let (Some(metadata), Some(client_id), Some(current)) = (
            self.metadata.clone(),
            self.client_id.clone(),
            self.refresh.clone(),
        ) else {
            return Err(error("refresh", "not signed in"));
        };
        // Breaking the rotation rule: the second refresh reuses the first refresh token.
        let sent = match (&self.first_refresh, self.refreshes) {
            (Some(first), 1) if self.breaks(ids::OAUTH_REFRESH_NEWEST) => first.clone(),
            _ => current,
        };
        let mut pairs = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", sent.as_str()),
            ("client_id", client_id.as_str()),
        ];
        if !self.breaks(ids::OAUTH_RESOURCE_PARAMETER) {
            pairs.push(("resource", self.resource.as_str()));
        }
        let tokens = self.token_request(&metadata, &form(&pairs)).await;
        self.refreshes += 1;
        match tokens {
            Ok(()) => Ok(()),
            Err(e) => {
                self.access = None;
                self.refresh = None;
                Err(e)
            }
        }
    }

    async fn token_request(&mut self, metadata: &Metadata, body: &str) -> Result<(), ClientError> {
        let url = &metadata.token_endpoint;
        let response = self
            .http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.to_owned())
            .send_paced()
            .await
            .map_err(http_error(url))?;
        let status = response.status();
        let answer: Value = response.json().await.map_err(http_error(url))?;
        let access = answer.get("access_token").and_then(Value::as_str);
        match (status.is_success(), access) {
            (true, Some(access)) => {
                self.access = Some(access.to_owned());
                if let Some(refresh) = answer.get("refresh_token").and_then(Value::as_str) {
                    self.refresh = Some(refresh.to_owned());
                    self.first_refresh.get_or_insert_with(|| refresh.to_owned());
                }
                Ok(())
            }
            _ => Err(error(
                "the token request",
                format!("HTTP {status}: {answer}"),
            )),
        }
    }

    async fn get_json(&self, url: &str, bearer: Option<&str>) -> Result<Value, ClientError> {
        let mut request = self.http.get(url).header("accept", "application/json");
        if let Some(token) = bearer {
            request = request.bearer_auth(token);
        }
        let response = request.send_paced().await.map_err(http_error(url))?;
        let status = response.status();
        if !status.is_success() {
            return Err(error(url, format!("HTTP {status}")));
        }
        response.json().await.map_err(http_error(url))
    }

    /// Discovery: the protected resource metadata (the challenge's URL, else the path-inserted
    /// one), then the authorization server's metadata.
    async fn discover(
        &mut self,
        challenge: &str,
    ) -> Result<(Metadata, Option<String>), ClientError> {
        let prm_url = challenge_param(challenge, "resource_metadata").unwrap_or_else(|| {
            let path = self.mcp_url[origin(&self.mcp_url).len()..].to_owned();
            format!(
                "{}/.well-known/oauth-protected-resource{path}",
                origin(&self.mcp_url)
            )
        });
        let prm = self.get_json(&prm_url, None).await?;
        if let Some(resource) = prm.get("resource").and_then(Value::as_str) {
            self.resource = resource.to_owned();
        }
        let issuer = prm
            .pointer("/authorization_servers/0")
            .and_then(Value::as_str)
            .ok_or_else(|| error(&prm_url, "the metadata names no authorization server"))?
            .trim_end_matches('/')
            .to_owned();
        let url = format!("{issuer}/.well-known/oauth-authorization-server");
        let document = self.get_json(&url, None).await?;
        let text = |key: &str| {
            document
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| error(&url, format!("the metadata has no {key}")))
        };
        let s256 = document
            .get("code_challenge_methods_supported")
            .and_then(Value::as_array)
            .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
        if !s256 {
            return Err(error(&url, "no PKCE S256: refusing to proceed"));
        }
        if text("issuer")? != issuer {
            return Err(error(
                &url,
                "the metadata's issuer is not the one the resource named",
            ));
        }
        let scope = challenge_param(challenge, "scope").or_else(|| {
            prm.get("scopes_supported")
                .and_then(Value::as_array)
                .map(|s| {
                    s.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
        });
        let metadata = Metadata {
            url: url.clone(),
            issuer,
            authorization_endpoint: text("authorization_endpoint")?,
            token_endpoint: text("token_endpoint")?,
            registration_endpoint: text("registration_endpoint")?,
        };
        Ok((metadata, scope))
    }

    async fn register(&mut self, metadata: &Metadata) -> Result<String, ClientError> {
        if let Some(id) = &self.client_id {
            return Ok(id.clone());
        }
        let url = &metadata.registration_endpoint;
        let response = self
            .http
            .post(url)
            .json(&json!({
                "client_name": "conformance-reference-client",
                "redirect_uris": [REDIRECT_URI],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": "native",
            }))
            .send_paced()
            .await
            .map_err(http_error(url))?;
        let answer: Value = response.json().await.map_err(http_error(url))?;
        let id = answer
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| error(url, format!("the registration gave no client_id: {answer}")))?;
        self.client_id = Some(id.to_owned());
        Ok(id.to_owned())
    }

    /// The person opens `url` on the user channel; returns where their browser was sent.
    async fn ask_person(&self, url: &str) -> Result<String, ClientError> {
        let ask = format!("{}/ask", self.user_url);
        let answer: Value = self
            .http
            .post(&ask)
            .json(&json!({"kind": "url", "url": url, "message": "Sign in to Perplexity Computer"}))
            .send_paced()
            .await
            .map_err(http_error(&ask))?
            .json()
            .await
            .map_err(http_error(&ask))?;
        match (
            answer.get("action").and_then(Value::as_str),
            answer.get("redirect").and_then(Value::as_str),
        ) {
            (Some("accept"), Some(redirect)) => Ok(redirect.to_owned()),
            _ => Err(error(
                "signing in",
                format!("the person did not sign in: {answer}"),
            )),
        }
    }

    async fn sign_in(&mut self, challenge: &str) -> Result<(), ClientError> {
        let (metadata, scope) = self.discover(challenge).await?;
        let client_id = self.register(&metadata).await?;
        self.metadata = Some(metadata.clone());
        let verifier = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        let state = uuid::Uuid::new_v4().simple().to_string();
        let authorize = |challenge: &str, method: &str| {
            let mut pairs = vec![
                ("response_type", "code"),
                ("client_id", client_id.as_str()),
                ("redirect_uri", REDIRECT_URI),
                ("state", state.as_str()),
                ("code_challenge", challenge),
                ("code_challenge_method", method),
                ("resource", self.resource.as_str()),
            ];
            if let Some(scope) = &scope {
                pairs.push(("scope", scope));
            }
            format!("{}?{}", metadata.authorization_endpoint, form(&pairs))
        };
        if self.breaks(ids::OAUTH_PKCE_S256) && self.sign_ins == 0 {
            // Breaking PKCE S256: the plain method first; the server refuses it, then S256.
            let refused = self.ask_person(&authorize(&verifier, "plain")).await?;
            if query_param(&refused, "error").is_none() {
                return Err(error("signing in", "the plain PKCE method was not refused"));
            }
        }
        let redirect = self
            .ask_person(&authorize(
                &mock_server::pkce_s256_challenge(&verifier),
                "S256",
            ))
            .await?;
        if let Some(refusal) = query_param(&redirect, "error") {
            return Err(error(
                "signing in",
                format!("the server refused: {refusal}"),
            ));
        }
        if query_param(&redirect, "state").as_deref() != Some(state.as_str()) {
            return Err(error(
                "signing in",
                "the redirect's state is not the one sent",
            ));
        }
        if query_param(&redirect, "iss").as_deref() != Some(metadata.issuer.as_str()) {
            return Err(error("signing in", "the redirect's iss is not the issuer"));
        }
        let code = query_param(&redirect, "code")
            .ok_or_else(|| error("signing in", "the redirect carries no code"))?;
        let mut pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT_URI),
            ("client_id", client_id.as_str()),
            ("code_verifier", verifier.as_str()),
        ];
        if !self.breaks(ids::OAUTH_RESOURCE_PARAMETER) {
            pairs.push(("resource", self.resource.as_str()));
        }
        self.token_request(&metadata, &form(&pairs)).await?;
        self.sign_ins += 1;
        if self.sign_ins == 1 {
            self.misstep_after_first_sign_in(&metadata).await;
        }
        Ok(())
    }

    /// The rules broken once, right after the first sign-in.
    async fn misstep_after_first_sign_in(&mut self, metadata: &Metadata) {
        if self.breaks(ids::OAUTH_TOKEN_AUDIENCE) {
            // Re-reading the metadata with the token attached, as a client whose HTTP client
            // adds it to every request would.
            let token = self.access.clone();
            let _ = self.get_json(&metadata.url, token.as_deref()).await;
        }
        self.query_pending = self.breaks(ids::OAUTH_NO_TOKEN_IN_QUERY);
        self.bare_pending = self.breaks(ids::OAUTH_BEARER_EVERY_REQUEST);
    }
}

/// `headers` with the bearer token of `auth` (when signed in).
pub(super) fn authorize_headers(headers: &mut HeaderMap, auth: Option<&Authorizer>) {
    if let Some(token) = auth.and_then(Authorizer::access_token)
        && let Ok(value) = HeaderValue::from_str(&format!("Bearer {token}"))
    {
        headers.insert("authorization", value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_and_a_redirect_are_read_as_the_mock_writes_them() {
        let challenge = "Bearer error=\"invalid_token\", error_description=\"x\", resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource/rest/computer/mcp\", scope=\"computer\"";
        assert_eq!(
            challenge_param(challenge, "resource_metadata").as_deref(),
            Some("http://127.0.0.1:1/.well-known/oauth-protected-resource/rest/computer/mcp")
        );
        assert_eq!(
            challenge_param(challenge, "scope").as_deref(),
            Some("computer")
        );
        let redirect =
            "http://127.0.0.1:9/callback?code=c%2B1&state=s&iss=http%3A%2F%2F127.0.0.1%3A1";
        assert_eq!(query_param(redirect, "code").as_deref(), Some("c+1"));
        assert_eq!(
            query_param(redirect, "iss").as_deref(),
            Some("http://127.0.0.1:1")
        );
        assert_eq!(
            origin("http://127.0.0.1:1/rest/computer/mcp"),
            "http://127.0.0.1:1"
        );
        assert_eq!(
            form(&[("resource", "http://h/x y")]),
            "resource=http%3A%2F%2Fh%2Fx%20y"
        );
    }
}
