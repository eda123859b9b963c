//! `account=NAME`: a fault that touches only the requests of one account, whichever way they
//! authenticate (its dev token, which is also its API key; an OAuth access token the mock
//! issued; no token at all under `--auth none`, which acts as alice).

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::{AuthMode, MockServer, percent_encode};
use serde_json::json;

use crate::common::agent::{ALICE, BOB};
use crate::common::sonar::ask;
use crate::common::{BASE, MCP, Mock, initialize_body};

const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
const REDIRECT: &str = "http://127.0.0.1:33418/callback";

fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// An OAuth access token for the account the mock's consent page approves at once.
async fn oauth_token(mock: &Mock) -> String {
    let registered = mock
        .post_json(
            "/oauth/register",
            json!({"client_name": "tests", "redirect_uris": [REDIRECT],
                   "token_endpoint_auth_method": "none"}),
        )
        .await;
    let client = registered.body["client_id"].as_str().expect("client_id");
    let resource = format!("{BASE}{MCP}");
    let authorize = mock
        .get(&format!(
            "/oauth/authorize?{}",
            form(&[
                ("response_type", "code"),
                ("client_id", client),
                ("redirect_uri", REDIRECT),
                ("state", "s"),
                ("code_challenge", CHALLENGE),
                ("code_challenge_method", "S256"),
                ("resource", &resource),
            ])
        ))
        .await;
    let location = authorize.headers["location"].to_str().expect("ascii");
    let code = location
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix("code="))
        .expect("a code");
    let body = form(&[
        ("grant_type", "authorization_code"),
        ("code", &mock_server::percent_decode(code)),
        ("redirect_uri", REDIRECT),
        ("client_id", client),
        ("code_verifier", VERIFIER),
        ("resource", &resource),
    ]);
    let request = Request::post("/oauth/token")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .expect("request");
    let tokens = mock.send(request).await;
    assert_eq!(tokens.status, StatusCode::OK, "{:?}", tokens.body);
    tokens.body["access_token"]
        .as_str()
        .expect("access_token")
        .to_owned()
}

/// An MCP `initialize` with `token`; its status.
async fn initialize(mock: &Mock, token: &str) -> StatusCode {
    let auth = format!("Bearer {token}");
    mock.post_mcp(
        &[
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("authorization", &auth),
        ],
        initialize_body("2025-11-25").to_string(),
    )
    .await
    .status
}

#[tokio::test(start_paused = true)]
async fn a_fault_kept_to_an_account_touches_its_dev_token_and_its_oauth_token_only() {
    let mock = Mock::with(
        MockServer::builder()
            .auto_consent("bob")
            .fault("status=503,account=bob")
            .expect("the spec reads"),
    );
    let bobs_oauth = oauth_token(&mock).await;
    assert_eq!(initialize(&mock, &bobs_oauth).await, 503);
    assert_eq!(initialize(&mock, ALICE).await, 200);
    // The same fault, on another surface, through bob's dev token (his API key).
    let bob = mock
        .sonar_post("/chat/completions", BOB, ask("sonar", "Hello"))
        .await;
    assert_eq!(bob.status, 503);
    assert_eq!(bob.body["error"]["type"], "service_unavailable");
    assert_eq!(mock.chat(ask("sonar", "Hello")).await.status, 200);
    // A token nobody issued acts as no account: the surface answers it (401).
    assert_eq!(initialize(&mock, "forged").await, 401);
    let listed = mock.get("/_mock/faults").await;
    assert_eq!(listed.body["faults"][0]["spec"], "status=503,account=bob");
    assert_eq!(listed.body["faults"][0]["hits"], 2);
}

#[tokio::test(start_paused = true)]
async fn without_authentication_every_request_is_alices() {
    let mock = Mock::with(
        MockServer::builder()
            .auth(AuthMode::None)
            .fault("status=500,account=alice,times=1")
            .expect("the spec reads"),
    );
    let request = Request::post("/search")
        .header("content-type", "application/json")
        .body(Body::from(json!({"query": "solar"}).to_string()))
        .expect("request");
    let refused = mock.send(request).await;
    assert_eq!(refused.status, 500, "{:?}", refused.body);
    let journal = mock.handle.journal().exchanges();
    assert_eq!(
        journal[0].fault.as_deref(),
        Some("fault-1 status=500"),
        "the journal names it"
    );
}

#[tokio::test(start_paused = true)]
async fn an_account_scope_is_refused_empty_over_the_control_api() {
    let mock = Mock::new();
    let refused = mock
        .post_json("/_mock/faults", json!({"status": 503, "account": ""}))
        .await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let says = refused.body["error"].as_str().unwrap_or_default();
    assert!(says.contains("`account` needs a value"), "{says}");
}
