//! The mock authorization server: discovery, registration, consent, PKCE, tokens on the virtual
//! clock, rotation, and every abuse the issue lists, each refused with an OAuth error body.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::{MockServer, percent_encode};
use serde_json::{Value, json};

use crate::common::{self, BASE, MCP, Mock, Reply};

mod agent_api;
mod codes;
mod consent;
mod registration;
mod revocation;
mod tokens;

/// RFC 7636 Appendix B: a verifier and its S256 challenge.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
/// Query parameters to change in an authorization request.
type Params<'a> = &'a [(&'a str, &'a str)];

const REDIRECT: &str = "http://127.0.0.1:33418/callback";

fn mcp_url() -> String {
    format!("{BASE}{MCP}")
}

fn auto(account: &str) -> Mock {
    Mock::with(MockServer::builder().auto_consent(account))
}

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The query parameters of a URL, decoded.
fn query(url: &str) -> std::collections::HashMap<String, String> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), decode(v)))
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("ascii");
                out.push(u8::from_str_radix(hex, 16).expect("hex"));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("utf-8")
}

async fn post_form(mock: &Mock, path: &str, body: String, extra: &[(&str, &str)]) -> Reply {
    let mut request =
        Request::post(path).header("content-type", "application/x-www-form-urlencoded");
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    mock.send(request.body(Body::from(body)).expect("request"))
        .await
}

/// Registers a public client with one redirect URI; returns its `client_id`.
async fn register(mock: &Mock) -> String {
    let reply = mock
        .post_json(
            "/oauth/register",
            json!({
                "client_name": "tests", "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none", "application_type": "native",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            }),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    reply.body["client_id"]
        .as_str()
        .expect("client_id")
        .to_owned()
}

fn authorize_url(client_id: &str, extra: &[(&str, &str)]) -> String {
    let mut pairs = vec![
        ("response_type", "code"),
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("state", "st-123"),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("scope", "computer"),
    ];
    let resource = mcp_url();
    pairs.push(("resource", &resource));
    for (k, v) in extra {
        pairs.retain(|(name, _)| name != k);
        if !v.is_empty() {
            pairs.push((k, v));
        }
    }
    format!("/oauth/authorize?{}", form(&pairs))
}

/// The `Location` of a redirect.
fn location(reply: &Reply) -> String {
    assert_eq!(reply.status, StatusCode::FOUND, "{reply:?}");
    reply.headers["location"]
        .to_str()
        .expect("ascii")
        .to_owned()
}

/// A code from an auto-consent mock.
async fn code(mock: &Mock, client_id: &str) -> String {
    let reply = mock.get(&authorize_url(client_id, &[])).await;
    query(&location(&reply))["code"].clone()
}

async fn exchange(mock: &Mock, client_id: &str, code: &str, verifier: &str) -> Reply {
    let resource = mcp_url();
    post_form(
        mock,
        "/oauth/token",
        form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("client_id", client_id),
            ("code_verifier", verifier),
            ("resource", &resource),
        ]),
        &[],
    )
    .await
}

async fn refresh(mock: &Mock, client_id: &str, token: &str) -> Reply {
    post_form(
        mock,
        "/oauth/token",
        form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", token),
            ("client_id", client_id),
        ]),
        &[],
    )
    .await
}

/// A full sign-in: returns the token response.
async fn sign_in(mock: &Mock) -> (String, Value) {
    let client = register(mock).await;
    let code = code(mock, &client).await;
    let reply = exchange(mock, &client, &code, VERIFIER).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    (client, reply.body)
}

fn assert_oauth_error(reply: &Reply, status: StatusCode, error: &str, says: &str) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(reply.body["error"], error, "{reply:?}");
    let description = reply.body["error_description"].as_str().unwrap_or_default();
    assert!(description.contains(says), "{description}");
}

/// Whether a bearer token opens an MCP session; the 401 challenge text otherwise.
async fn try_token(mock: &Mock, token: &str) -> Result<(), String> {
    let auth = format!("Bearer {token}");
    let reply = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", &auth),
            ],
            common::initialize_body("2025-11-25").to_string(),
        )
        .await;
    if reply.status == StatusCode::OK {
        return Ok(());
    }
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{reply:?}");
    Err(reply.headers["www-authenticate"]
        .to_str()
        .expect("ascii")
        .to_owned())
}

/// `POST /_mock/oauth/revoke` with `body`.
async fn revoke(mock: &Mock, body: &str) -> Reply {
    mock.send(
        Request::post("/_mock/oauth/revoke")
            .header("content-type", "application/json")
            .body(Body::from(body.to_owned()))
            .expect("request"),
    )
    .await
}
