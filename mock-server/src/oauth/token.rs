//! The token endpoint, `POST /oauth/token`: the authorization code grant with PKCE S256 and the
//! refresh token grant, with rotation.
//!
//! Abuse is refused and, where RFC 6749 §4.1.2 and RFC 9700 §4.14 say so, punished: a replayed
//! code or a reused refresh token revokes every token descended from that grant, since one of
//! the two users of the secret is an attacker.

use std::collections::HashMap;

use axum::Json;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::error::{Code, OAuthError};
use super::pkce::s256_challenge;
use super::resource::canonical_resource;
use super::state::OAuthState;
use super::store::{self, AuthMethod, Issued, Store};
use crate::http::encoding::base64_decode;

/// `POST /oauth/token` (form-encoded).
pub(crate) async fn token(
    State(app): State<OAuthState>,
    headers: HeaderMap,
    form: Result<Form<HashMap<String, String>>, FormRejection>,
) -> Response {
    let Ok(Form(params)) = form else {
        return OAuthError::new(
            Code::InvalidRequest,
            "The token request must be an application/x-www-form-urlencoded POST body.",
        )
        .into_response();
    };
    let result = match params.get("grant_type").map(String::as_str) {
        Some("authorization_code") => authorization_code(&app, &headers, &params),
        Some("refresh_token") => refresh(&app, &headers, &params),
        Some(other) => Err(OAuthError::new(
            Code::UnsupportedGrantType,
            format!(
                "grant_type `{other}` is not supported: use authorization_code or refresh_token."
            ),
        )),
        None => Err(OAuthError::new(
            Code::InvalidRequest,
            "grant_type is missing: use authorization_code or refresh_token.",
        )),
    };
    match result {
        Ok(issued) => {
            let mut response = Json(json!({
                "access_token": issued.access_token,
                "token_type": "Bearer",
                "expires_in": app.oauth().access_lifetime().num_seconds(),
                "refresh_token": issued.refresh_token,
                "scope": issued.scope,
            }))
            .into_response();
            let headers = response.headers_mut();
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
            response
        }
        Err(e) => e.into_response(),
    }
}

fn required<'a>(params: &'a HashMap<String, String>, name: &str) -> Result<&'a str, OAuthError> {
    params
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| OAuthError::new(Code::InvalidRequest, format!("`{name}` is missing.")))
}

/// Authenticates the client the way it registered; returns its id.
fn client_id(
    store: &Store,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<String, OAuthError> {
    let invalid = |message: String| OAuthError::new(Code::InvalidClient, message);
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .map(|encoded| {
            base64_decode(encoded.trim())
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .and_then(|pair| {
                    pair.split_once(':')
                        .map(|(id, secret)| (id.to_owned(), secret.to_owned()))
                })
                .ok_or_else(|| {
                    invalid(
                        "The Authorization: Basic header is not base64 of client_id:client_secret."
                            .into(),
                    )
                })
        })
        .transpose()?;
    let id = match (&basic, params.get("client_id")) {
        (Some((id, _)), Some(form_id)) if id != form_id => {
            return Err(invalid(
                "client_id in the form differs from the one in the Basic header.".into(),
            ));
        }
        (Some((id, _)), _) => id.clone(),
        (None, Some(id)) => id.clone(),
        (None, None) => {
            return Err(invalid(
                "No client authentication: send client_id (public clients) or the credentials \
                 your client registered with."
                    .into(),
            ));
        }
    };
    let Some(client) = store.client(&id) else {
        return Err(invalid(format!(
            "Client `{id}` is not registered with this server."
        )));
    };
    let presented = match client.auth_method {
        AuthMethod::None => return Ok(id),
        AuthMethod::SecretBasic => basic.map(|(_, secret)| secret),
        AuthMethod::SecretPost => params.get("client_secret").cloned(),
    };
    match presented {
        Some(secret) if Some(&secret) == client.secret.as_ref() => Ok(id),
        Some(_) => Err(invalid(format!("The client secret for `{id}` is wrong."))),
        None => Err(invalid(format!(
            "Client `{id}` registered with {}: send its client_secret that way.",
            client.auth_method.as_str()
        ))),
    }
}

fn authorization_code(
    app: &OAuthState,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<Issued, OAuthError> {
    let store = app.oauth();
    let client = client_id(store, headers, params)?;
    let code = required(params, "code")?;
    let now = app.clock().now();
    let grant = |message: String| OAuthError::new(Code::InvalidGrant, message);
    // Check and spend the code in one step, so two racing exchanges can't both win.
    let family = Store::new_family();
    let checked = store.with_code(code, |found| -> Result<_, CodeError> {
        let Some(found) = found else {
            return Err(grant(
                "The authorization code is not valid: it was never issued by this server.".into(),
            )
            .into());
        };
        if let Some(family) = &found.used_by_family {
            return Err(CodeError::Replayed(family.clone()));
        }
        check_code(app, found, &client, params, now)?;
        found.used_by_family = Some(family.clone());
        Ok(found.clone())
    });
    let found = match checked {
        Ok(found) => found,
        Err(CodeError::Refused(e)) => return Err(e),
        Err(CodeError::Replayed(family)) => {
            store.revoke_family(&family);
            return Err(grant(
                "The authorization code was already used. Codes work once; the tokens it \
                 produced have been revoked. Sign in again."
                    .into(),
            ));
        }
    };
    Ok(store.issue_tokens(
        &client,
        &found.account,
        &found.grant.scope,
        &found.grant.resource,
        &family,
        now,
    ))
}

enum CodeError {
    Refused(OAuthError),
    Replayed(String),
}

impl From<OAuthError> for CodeError {
    fn from(e: OAuthError) -> Self {
        Self::Refused(e)
    }
}

fn refresh(
    app: &OAuthState,
    headers: &HeaderMap,
    params: &HashMap<String, String>,
) -> Result<Issued, OAuthError> {
    let store = app.oauth();
    let client = client_id(store, headers, params)?;
    let token = required(params, "refresh_token")?;
    let now = app.clock().now();
    let grant = |message: &str| OAuthError::new(Code::InvalidGrant, message);
    let checked = store.with_refresh(token, |found| {
        let Some(found) = found else {
            return Err(CodeError::Refused(grant(
                "The refresh token is not valid: it was never issued by this server.",
            )));
        };
        if found.used {
            return Err(CodeError::Replayed(found.family.clone()));
        }
        if found.revoked {
            return Err(CodeError::Refused(grant(
                "The refresh token was revoked; sign in again.",
            )));
        }
        if now >= found.expires_at {
            return Err(CodeError::Refused(grant(
                "The refresh token has expired; sign in again.",
            )));
        }
        if found.client_id != client {
            return Err(CodeError::Refused(grant(
                "The refresh token was issued to another client.",
            )));
        }
        if let Some(resource) = params.get("resource") {
            let same =
                canonical_resource(app.base_url(), resource).is_some_and(|r| r == found.resource);
            if !same {
                return Err(CodeError::Refused(OAuthError::new(
                    Code::InvalidTarget,
                    format!(
                        "resource `{resource}` differs from the one this refresh token is for \
                         (`{}`).",
                        found.resource
                    ),
                )));
            }
        }
        if let Some(scope) = params.get("scope")
            && !scope
                .split_whitespace()
                .all(|s| found.scope.split_whitespace().any(|g| g == s))
        {
            return Err(CodeError::Refused(OAuthError::new(
                Code::InvalidScope,
                format!(
                    "scope `{scope}` is wider than the one granted (`{}`).",
                    found.scope
                ),
            )));
        }
        found.used = true;
        Ok(found.clone())
    });
    let found = match checked {
        Ok(found) => found,
        Err(CodeError::Refused(e)) => return Err(e),
        Err(CodeError::Replayed(family)) => {
            store.revoke_family(&family);
            return Err(grant(
                "The refresh token was already used. Refresh tokens rotate: use the one the \
                 last refresh returned. Every token from this sign-in has been revoked; sign in \
                 again.",
            ));
        }
    };
    Ok(store.issue_tokens(
        &client,
        &found.account,
        &found.scope,
        &found.resource,
        &found.family,
        now,
    ))
}

/// Every check of a code that has not been used yet.
fn check_code(
    app: &OAuthState,
    found: &store::Code,
    client: &str,
    params: &HashMap<String, String>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), OAuthError> {
    let grant = |message: String| OAuthError::new(Code::InvalidGrant, message);
    if now >= found.expires_at {
        return Err(grant(
            "The authorization code has expired (codes last 10 minutes); sign in again.".into(),
        ));
    }
    if found.grant.client_id != client {
        return Err(grant(
            "The authorization code was issued to another client.".into(),
        ));
    }
    match params.get("redirect_uri") {
        Some(uri) if *uri != found.grant.redirect_uri => {
            return Err(grant(format!(
                "redirect_uri `{uri}` differs from the one in the authorization request (`{}`).",
                found.grant.redirect_uri
            )));
        }
        None if found.grant.redirect_uri_given => {
            return Err(OAuthError::new(
                Code::InvalidRequest,
                "redirect_uri is missing; send the one used in the authorization request.",
            ));
        }
        _ => {}
    }
    let Some(verifier) = params.get("code_verifier") else {
        return Err(OAuthError::new(
            Code::InvalidRequest,
            "code_verifier is missing: PKCE is required, send the verifier whose S256 challenge \
             you sent to /oauth/authorize.",
        ));
    };
    if s256_challenge(verifier) != found.grant.code_challenge {
        return Err(grant(
            "PKCE verification failed: BASE64URL(SHA256(code_verifier)) does not match the \
             code_challenge of the authorization request."
                .into(),
        ));
    }
    if let Some(resource) = params.get("resource") {
        let same =
            canonical_resource(app.base_url(), resource).is_some_and(|r| r == found.grant.resource);
        if !same {
            return Err(OAuthError::new(
                Code::InvalidTarget,
                format!(
                    "resource `{resource}` differs from the one authorized (`{}`).",
                    found.grant.resource
                ),
            ));
        }
    }
    Ok(())
}
