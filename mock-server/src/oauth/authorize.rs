//! The authorization endpoint: `GET /oauth/authorize` checks the request and shows the consent
//! page, where a person picks an account and clicks Allow (`POST /oauth/authorize`); with
//! `--auto-consent ACCOUNT` the GET redirects at once, signed in as that account.
//!
//! Errors follow RFC 6749 §4.1.2.1: an unknown client or an unregistered redirect URI is shown on
//! a page and never redirected to (that would make the mock an open redirector); every other
//! error goes back to the client's redirect URI with `error`, `state` and `iss`.

use std::collections::HashMap;

use axum::extract::rejection::{FormRejection, QueryRejection};
use axum::extract::{Form, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::resource::{self, AUTHORIZE_PATH, SCOPE};
use super::state::OAuthState;
use super::store::{Full, Grant};
use crate::http::encoding::{escape, page, percent_encode};

/// `GET /oauth/authorize`.
pub(crate) async fn authorize(
    State(app): State<OAuthState>,
    query: Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Response {
    // A malformed query is checked like an empty one: the first missing parameter is named.
    let params = query.map(|Query(q)| q).unwrap_or_default();
    let grant = match check(&app, &params) {
        Ok(grant) => grant,
        Err(Refusal::Page(message)) => return error_page(&message),
        Err(Refusal::Redirect {
            redirect_uri,
            state,
            error,
            description,
        }) => {
            return redirect_error(&app, &redirect_uri, state.as_deref(), error, &description);
        }
    };
    if let Some(account) = app.auto_consent() {
        return approve(&app, grant, account);
    }
    let client_name = app
        .oauth()
        .client(&grant.client_id)
        .and_then(|c| c.name)
        .unwrap_or_else(|| grant.client_id.clone());
    let (uri, state) = (grant.redirect_uri.clone(), grant.state.clone());
    match app.oauth().park(grant, app.clock().now()) {
        Ok(request) => consent_page(&app, &request, &client_name),
        Err(full) => too_many_codes(&app, &uri, state.as_deref(), full),
    }
}

/// `POST /oauth/authorize`: the consent page's buttons.
pub(crate) async fn decide(
    State(app): State<OAuthState>,
    form: Result<Form<HashMap<String, String>>, FormRejection>,
) -> Response {
    let form = match form {
        Ok(Form(form)) => form,
        Err(rejection) => {
            return error_page(&format!(
                "The consent form could not be read ({rejection}); start signing in again."
            ));
        }
    };
    let Some(request) = form.get("request") else {
        return error_page("The form is missing its `request` field; start signing in again.");
    };
    let allow = form.get("decision").map(String::as_str) == Some("allow");
    let account = form
        .get("account")
        .map(String::as_str)
        .filter(|account| app.world().account(account).is_some());
    if allow && account.is_none() {
        return error_page("Pick an account (alice or bob) before clicking Allow.");
    }
    let Some(grant) = app.oauth().take_pending(request, app.clock().now()) else {
        return error_page(
            "This sign-in request is unknown, was already answered, or has expired. Start \
             signing in again from your MCP host.",
        );
    };
    match account.filter(|_| allow) {
        Some(account) => approve(&app, grant, account),
        None => {
            let (uri, state) = (grant.redirect_uri.clone(), grant.state.clone());
            redirect_error(
                &app,
                &uri,
                state.as_deref(),
                "access_denied",
                "The person signing in clicked Deny.",
            )
        }
    }
}

/// Issues a code for `account` and sends the browser back to the client.
fn approve(app: &OAuthState, grant: Grant, account: &str) -> Response {
    let redirect_uri = grant.redirect_uri.clone();
    let state = grant.state.clone();
    let code = match app.oauth().issue_code(grant, account, app.clock().now()) {
        Ok(code) => code,
        Err(full) => return too_many_codes(app, &redirect_uri, state.as_deref(), full),
    };
    let mut pairs = vec![("code", code)];
    if let Some(state) = state {
        pairs.push(("state", state));
    }
    pairs.push(("iss", resource::issuer(app.base_url())));
    redirect(&redirect_uri, &pairs)
}

enum Refusal {
    /// Shown to the person: the redirect URI can't be trusted.
    Page(String),
    /// Sent back to the client's redirect URI.
    Redirect {
        redirect_uri: String,
        state: Option<String>,
        error: &'static str,
        description: String,
    },
}

/// Checks an authorization request, in the order RFC 6749 prescribes.
fn check(app: &OAuthState, params: &HashMap<String, String>) -> Result<Grant, Refusal> {
    let Some(client_id) = params.get("client_id") else {
        return Err(Refusal::Page(
            "The request has no `client_id`. Register the client at /oauth/register first.".into(),
        ));
    };
    let Some(client) = app.oauth().client(client_id) else {
        return Err(Refusal::Page(format!(
            "Client `{client_id}` is not registered with this server. Register it at \
             /oauth/register (dynamic client registration) and use the client_id it returns."
        )));
    };
    let redirect_uri = match params.get("redirect_uri") {
        Some(uri) if client.redirect_uris.contains(uri) => uri.clone(),
        Some(uri) => {
            return Err(Refusal::Page(format!(
                "Redirect URI `{uri}` was not registered for client `{client_id}` (registered: \
                 {}). It must match one of them exactly.",
                client.redirect_uris.join(", ")
            )));
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => {
            return Err(Refusal::Page(
                "The request has no `redirect_uri` and the client registered several: say which \
                 one."
                    .into(),
            ));
        }
    };
    let state = params.get("state").cloned();
    let refuse = |error: &'static str, description: String| Refusal::Redirect {
        redirect_uri: redirect_uri.clone(),
        state: state.clone(),
        error,
        description,
    };
    match params.get("response_type").map(String::as_str) {
        Some("code") => {}
        other => {
            return Err(refuse(
                "unsupported_response_type",
                format!(
                    "response_type must be `code` (got {}).",
                    other.map_or("nothing".to_owned(), |o| format!("`{o}`"))
                ),
            ));
        }
    }
    let Some(code_challenge) = params.get("code_challenge") else {
        return Err(refuse(
            "invalid_request",
            "PKCE is required: send code_challenge (BASE64URL(SHA256(code_verifier))) and \
             code_challenge_method=S256."
                .into(),
        ));
    };
    if params.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return Err(refuse(
            "invalid_request",
            "code_challenge_method must be S256; the plain method is not supported.".into(),
        ));
    }
    let well_formed = code_challenge.len() == 43
        && code_challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !well_formed {
        return Err(refuse(
            "invalid_request",
            "code_challenge must be 43 base64url characters: BASE64URL(SHA256(code_verifier)) \
             without padding."
                .into(),
        ));
    }
    let scope = match params
        .get("scope")
        .map(|s| s.split_whitespace().collect::<Vec<_>>())
    {
        None => SCOPE.to_owned(),
        Some(scopes) if scopes.iter().all(|s| *s == SCOPE) => SCOPE.to_owned(),
        Some(scopes) => {
            return Err(refuse(
                "invalid_scope",
                format!(
                    "Scope `{}` is not offered; the only scope is `{SCOPE}`.",
                    scopes.join(" ")
                ),
            ));
        }
    };
    let target = match params.get("resource") {
        // Clients MUST send it; hosts that don't still get a token for the MCP endpoint.
        None => resource::mcp_resource(app.base_url()),
        Some(wanted) => resource::canonical_resource(app.base_url(), wanted).ok_or_else(|| {
            refuse(
                "invalid_target",
                format!(
                    "Resource `{wanted}` is not protected by this server; use the MCP URL {}.",
                    resource::mcp_resource(app.base_url())
                ),
            )
        })?,
    };
    Ok(Grant {
        client_id: client_id.clone(),
        redirect_uri,
        redirect_uri_given: params.contains_key("redirect_uri"),
        state,
        code_challenge: code_challenge.clone(),
        scope,
        resource: target,
    })
}

/// A 302 to `uri` with `pairs` added to its query.
fn redirect(uri: &str, pairs: &[(&str, String)]) -> Response {
    let query: Vec<String> = pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", percent_encode(value)))
        .collect();
    let separator = if uri.contains('?') { '&' } else { '?' };
    let location = format!("{uri}{separator}{}", query.join("&"));
    match HeaderValue::from_str(&location) {
        Ok(value) => {
            let mut response = StatusCode::FOUND.into_response();
            response.headers_mut().insert(header::LOCATION, value);
            response
        }
        Err(_) => error_page("The registered redirect URI cannot be used in a Location header."),
    }
}

fn redirect_error(
    app: &OAuthState,
    uri: &str,
    state: Option<&str>,
    error: &str,
    description: &str,
) -> Response {
    let mut pairs = vec![
        ("error", error.to_owned()),
        ("error_description", description.to_owned()),
    ];
    if let Some(state) = state {
        pairs.push(("state", state.to_owned()));
    }
    pairs.push(("iss", resource::issuer(app.base_url())));
    redirect(uri, &pairs)
}

/// The redirect when the store keeps no more codes: RFC 6749's `temporarily_unavailable`.
fn too_many_codes(app: &OAuthState, uri: &str, state: Option<&str>, full: Full) -> Response {
    redirect_error(
        app,
        uri,
        state,
        "temporarily_unavailable",
        &format!(
            "The mock already holds {} sign-ins waiting for consent or for their code to be \
             exchanged, the most it keeps (--max-oauth-codes); try again once some expire \
             (codes after 10 minutes, consent pages after 30).",
            full.max
        ),
    )
}

fn error_page(message: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        page(
            "Sign-in request refused",
            &format!("<p>{}</p>", escape(message)),
        ),
    )
        .into_response()
}

fn consent_page(app: &OAuthState, request: &str, client_name: &str) -> Response {
    let accounts: String = app
        .world()
        .accounts()
        .iter()
        .enumerate()
        .map(|(i, account)| {
            format!(
                "<p><label><input type=\"radio\" name=\"account\" value=\"{id}\"{checked}> \
                 <strong>{name}</strong> ({email}, {plan:?} plan)</label></p>",
                id = escape(&account.id),
                checked = if i == 0 { " checked" } else { "" },
                name = escape(&account.name),
                email = escape(&account.email),
                plan = account.plan,
            )
        })
        .collect();
    page(
        "Sign in to Perplexity Computer",
        &format!(
            "<p><strong>{client}</strong> wants to use Perplexity Computer on your behalf \
             (scope <code>{SCOPE}</code>).</p>\
             <form method=\"post\" action=\"{AUTHORIZE_PATH}\">\
             <input type=\"hidden\" name=\"request\" value=\"{request}\">{accounts}\
             <button type=\"submit\" name=\"decision\" value=\"allow\">Allow</button> \
             <button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></form>",
            client = escape(client_name),
            request = escape(request),
        ),
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use axum::Router;
    use axum::body::Body;
    use axum::routing::post;
    use http::Request;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    use super::super::state::OAuthSetup;
    use super::*;
    use crate::clock::{Clock, ClockMode};
    use crate::world::World;

    #[tokio::test]
    async fn a_consent_answer_that_is_not_a_form_says_why_it_could_not_be_read() {
        let state = OAuthState::new(OAuthSetup {
            base_url: "http://127.0.0.1:9".into(),
            clock: Clock::new(ClockMode::Manual, Clock::fixed_epoch()),
            world: Arc::new(World::builtin()),
            store: Arc::default(),
            auto_consent: None,
        });
        let router = Router::new()
            .route(AUTHORIZE_PATH, post(decide))
            .with_state(state);
        let request = Request::post(AUTHORIZE_PATH)
            .header("content-type", "application/json")
            .body(Body::from(r#"{"request": "r1", "decision": "allow"}"#))
            .expect("a request");
        let response = router.oneshot(request).await.expect("infallible");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body = response.into_body().collect().await.expect("a body");
        let page = String::from_utf8_lossy(&body.to_bytes()).into_owned();
        assert!(
            page.contains("The consent form could not be read ("),
            "{page}"
        );
        assert!(page.contains("application/x-www-form-urlencoded"), "{page}");
    }
}
