//! The mock authorization server: discovery, registration, consent, PKCE, tokens on the virtual
//! clock, rotation, and every abuse the issue lists, each refused with an OAuth error body.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::{MockServer, percent_encode};
use serde_json::{Value, json};

use crate::common::{self, BASE, MCP, Mock, Reply};

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

#[tokio::test(start_paused = true)]
async fn the_resource_metadata_names_the_mock_as_its_authorization_server() {
    let mock = Mock::new();
    let prm = mock
        .get("/.well-known/oauth-protected-resource/rest/computer/mcp")
        .await;
    let asm = mock.get("/.well-known/oauth-authorization-server").await;
    assert_eq!(prm.body["authorization_servers"], json!([BASE]));
    assert_eq!(asm.body["issuer"], BASE, "no trailing slash");
    let oidc = mock.get("/.well-known/openid-configuration").await;
    assert_eq!(oidc.body, asm.body);
}

#[tokio::test(start_paused = true)]
async fn the_authorization_server_metadata_offers_code_s256_and_iss() {
    let mock = Mock::new();
    let asm = mock.get("/.well-known/oauth-authorization-server").await;
    assert_eq!(asm.status, StatusCode::OK);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description("GET /.well-known/oauth-authorization-server");
    settings.bind(|| insta::assert_json_snapshot!("oauth-authorization-server-metadata", asm.body));
}

#[tokio::test(start_paused = true)]
async fn registration_echoes_the_metadata_and_gives_public_clients_no_secret() {
    let mock = Mock::new();
    let request = json!({
        "client_name": "probe", "redirect_uris": [REDIRECT, "cursor://anysphere.cursor-retrieval/oauth/callback"],
        "token_endpoint_auth_method": "none", "application_type": "native", "scope": "computer",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
    });
    let reply = mock.post_json("/oauth/register", request.clone()).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    for field in [
        "client_name",
        "redirect_uris",
        "token_endpoint_auth_method",
        "application_type",
        "grant_types",
        "response_types",
        "scope",
    ] {
        assert_eq!(reply.body[field], request[field], "{field}");
    }
    assert!(reply.body["client_id"].is_string());
    assert!(
        reply.body.get("client_secret").is_none(),
        "{:?}",
        reply.body
    );
    assert_eq!(reply.headers["cache-control"], "no-store");
}

#[tokio::test(start_paused = true)]
async fn confidential_clients_get_a_secret_and_must_present_it() {
    let mock = auto("alice");
    for method in ["client_secret_post", "client_secret_basic"] {
        let reply = mock
            .post_json(
                "/oauth/register",
                json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
        assert_eq!(reply.body["application_type"], "web", "the RFC default");
        let id = reply.body["client_id"].as_str().expect("id").to_owned();
        let secret = reply.body["client_secret"]
            .as_str()
            .expect("secret")
            .to_owned();
        let code = code(&mock, &id).await;
        let resource = mcp_url();
        let mut fields = vec![
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", resource.as_str()),
        ];
        // First without the secret: refused, and the code stays usable.
        let bare = post_form(
            &mock,
            "/oauth/token",
            form(&[fields.clone(), vec![("client_id", id.as_str())]].concat()),
            &[],
        )
        .await;
        assert_oauth_error(&bare, StatusCode::UNAUTHORIZED, "invalid_client", method);
        let wrong = post_form(
            &mock,
            "/oauth/token",
            form(
                &[
                    fields.clone(),
                    vec![("client_id", id.as_str()), ("client_secret", "nope")],
                ]
                .concat(),
            ),
            &[],
        )
        .await;
        if method == "client_secret_post" {
            assert_oauth_error(&wrong, StatusCode::UNAUTHORIZED, "invalid_client", "wrong");
        }
        let reply = if method == "client_secret_post" {
            fields.push(("client_id", &id));
            fields.push(("client_secret", &secret));
            post_form(&mock, "/oauth/token", form(&fields), &[]).await
        } else {
            let basic = format!("Basic {}", base64(&format!("{id}:{secret}")));
            post_form(
                &mock,
                "/oauth/token",
                form(&fields),
                &[("authorization", &basic)],
            )
            .await
        };
        assert_eq!(reply.status, StatusCode::OK, "{method}: {reply:?}");
    }
}

fn base64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn registration_without_usable_metadata_is_refused_saying_what_to_fix() {
    let mock = Mock::new();
    let cases = [
        (
            json!({"client_name": "x"}),
            "invalid_redirect_uri",
            "`redirect_uris` is required",
        ),
        (
            json!({"redirect_uris": []}),
            "invalid_redirect_uri",
            "empty",
        ),
        (
            json!({"redirect_uris": ["not a uri"]}),
            "invalid_redirect_uri",
            "absolute URI",
        ),
        (
            json!({"redirect_uris": ["http://127.0.0.1/cb#frag"]}),
            "invalid_redirect_uri",
            "fragment",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "private_key_jwt"}),
            "invalid_client_metadata",
            "private_key_jwt",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "application_type": "desktop"}),
            "invalid_client_metadata",
            "application_type",
        ),
        (
            json!({"redirect_uris": [REDIRECT], "grant_types": ["implicit"]}),
            "invalid_client_metadata",
            "grant_types",
        ),
    ];
    for (request, error, says) in cases {
        let reply = mock.post_json("/oauth/register", request).await;
        assert_oauth_error(&reply, StatusCode::BAD_REQUEST, error, says);
    }
    let garbage = mock
        .send(
            Request::post("/oauth/register")
                .body(Body::from("{"))
                .expect("request"),
        )
        .await;
    assert_oauth_error(
        &garbage,
        StatusCode::BAD_REQUEST,
        "invalid_client_metadata",
        "JSON object",
    );
}

#[tokio::test(start_paused = true)]
async fn auto_consent_redirects_at_once_with_code_state_and_the_exact_issuer() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let reply = mock.get(&authorize_url(&client, &[])).await;
    let location = location(&reply);
    assert!(location.starts_with(&format!("{REDIRECT}?")), "{location}");
    let params = query(&location);
    assert_eq!(params["state"], "st-123");
    assert_eq!(params["iss"], BASE, "byte-identical to the issuer");
    assert!(params["code"].len() > 16);
}

#[tokio::test(start_paused = true)]
async fn an_oauth_token_works_like_a_dev_token_and_acts_as_its_account() {
    let mock = auto("alice");
    let (_, tokens) = sign_in(&mock).await;
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);
    assert_eq!(tokens["scope"], "computer");
    let token = tokens["access_token"].as_str().expect("token");
    let mut session = mock.session(token).await;
    let before = mock.handle.world().credits("alice");
    let started = session.start("#complete Hello over OAuth").await;
    assert_eq!(started["event"], "complete", "{started}");
    assert!(
        mock.handle.world().credits("alice") < before,
        "billed to alice"
    );
}

#[tokio::test(start_paused = true)]
async fn a_person_picks_bob_on_the_consent_page_and_the_token_is_bobs() {
    let mock = Mock::new();
    let client = register(&mock).await;
    let page = mock.get(&authorize_url(&client, &[])).await;
    assert_eq!(page.status, StatusCode::OK, "{page:?}");
    let html = page.body.as_str().expect("html");
    assert!(
        html.contains("value=\"alice\"") && html.contains("value=\"bob\""),
        "{html}"
    );
    assert!(
        html.contains("Allow") && html.contains("tests"),
        "names the client: {html}"
    );
    let action = common::form_action(&page.body, "/oauth/authorize");
    let request = html
        .split("name=\"request\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("request id");
    let allowed = post_form(
        &mock,
        &action,
        form(&[
            ("request", request),
            ("account", "bob"),
            ("decision", "allow"),
        ]),
        &[],
    )
    .await;
    let params = query(&location(&allowed));
    assert_eq!(params["state"], "st-123");
    let tokens = exchange(&mock, &client, &params["code"], VERIFIER).await;
    let token = tokens.body["access_token"].as_str().expect("token");

    let mut bob = mock.session(token).await;
    let started = bob.start("#complete Hello as bob").await;
    let thread = common::thread_id(&started);
    let mut alice = mock.session("alice-dev-token").await;
    let read = alice
        .call("read_thread", json!({"thread_id": thread}))
        .await;
    assert_eq!(
        read["isError"], true,
        "bob's OAuth thread is not alice's: {read}"
    );

    // The consent request was answered: a second click does nothing.
    let again = post_form(
        &mock,
        &action,
        form(&[
            ("request", request),
            ("account", "alice"),
            ("decision", "allow"),
        ]),
        &[],
    )
    .await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert!(
        again
            .body
            .as_str()
            .unwrap_or_default()
            .contains("already answered")
    );
}

#[tokio::test(start_paused = true)]
async fn deny_on_the_consent_page_redirects_with_access_denied() {
    let mock = Mock::new();
    let client = register(&mock).await;
    let page = mock.get(&authorize_url(&client, &[])).await;
    let html = page.body.as_str().expect("html");
    let request = html
        .split("name=\"request\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("request id");
    let denied = post_form(
        &mock,
        "/oauth/authorize",
        form(&[("request", request), ("decision", "deny")]),
        &[],
    )
    .await;
    let params = query(&location(&denied));
    assert_eq!(params["error"], "access_denied");
    assert_eq!(params["state"], "st-123");
    assert_eq!(params["iss"], BASE);
}

#[tokio::test(start_paused = true)]
async fn an_unregistered_redirect_uri_or_client_is_shown_on_a_page_never_redirected_to() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let evil = mock
        .get(&authorize_url(
            &client,
            &[("redirect_uri", "http://evil.example/cb")],
        ))
        .await;
    assert_eq!(evil.status, StatusCode::BAD_REQUEST, "{evil:?}");
    assert!(evil.headers.get("location").is_none());
    assert!(
        evil.body
            .as_str()
            .unwrap_or_default()
            .contains("was not registered")
    );

    let stranger = mock.get(&authorize_url("mock-client-forged", &[])).await;
    assert_eq!(stranger.status, StatusCode::BAD_REQUEST);
    assert!(stranger.headers.get("location").is_none());
    assert!(
        stranger
            .body
            .as_str()
            .unwrap_or_default()
            .contains("not registered")
    );
}

#[tokio::test(start_paused = true)]
async fn bad_authorization_requests_go_back_to_the_client_with_an_error() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let cases: [(Params<'_>, &str, &str); 6] = [
        (
            &[("response_type", "token")],
            "unsupported_response_type",
            "`code`",
        ),
        (
            &[("code_challenge", "")],
            "invalid_request",
            "PKCE is required",
        ),
        (
            &[("code_challenge_method", "plain")],
            "invalid_request",
            "S256",
        ),
        (
            &[("code_challenge", "short")],
            "invalid_request",
            "43 base64url",
        ),
        (&[("scope", "computer admin")], "invalid_scope", "admin"),
        (
            &[("resource", "https://elsewhere.example/mcp")],
            "invalid_target",
            "elsewhere.example",
        ),
    ];
    for (change, error, says) in cases {
        let reply = mock.get(&authorize_url(&client, change)).await;
        let params = query(&location(&reply));
        assert_eq!(params["error"], error, "{change:?}");
        assert!(params["error_description"].contains(says), "{params:?}");
        assert_eq!(params["state"], "st-123");
        assert_eq!(params["iss"], BASE);
        assert!(!params.contains_key("code"));
    }
}

#[tokio::test(start_paused = true)]
async fn a_pkce_mismatch_is_refused_and_the_code_is_not_spent() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let code = code(&mock, &client).await;
    let wrong = exchange(
        &mock,
        &client,
        &code,
        "a-different-verifier-that-is-long-enough-123456",
    )
    .await;
    assert_oauth_error(
        &wrong,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "PKCE verification failed",
    );
    let missing = post_form(
        &mock,
        "/oauth/token",
        form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("redirect_uri", REDIRECT),
        ]),
        &[],
    )
    .await;
    assert_oauth_error(
        &missing,
        StatusCode::BAD_REQUEST,
        "invalid_request",
        "code_verifier",
    );
    let right = exchange(&mock, &client, &code, VERIFIER).await;
    assert_eq!(right.status, StatusCode::OK, "{right:?}");
}

#[tokio::test(start_paused = true)]
async fn a_replayed_code_is_refused_and_revokes_what_it_produced() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let code = code(&mock, &client).await;
    let first = exchange(&mock, &client, &code, VERIFIER).await;
    let token = first.body["access_token"]
        .as_str()
        .expect("token")
        .to_owned();
    assert_eq!(try_token(&mock, &token).await, Ok(()));

    let replay = exchange(&mock, &client, &code, VERIFIER).await;
    assert_oauth_error(
        &replay,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "already used",
    );
    let refused = try_token(&mock, &token).await.expect_err("revoked");
    assert!(refused.contains("revoked"), "{refused}");
}

#[tokio::test(start_paused = true)]
async fn a_code_for_another_client_another_redirect_or_after_ten_minutes_is_refused() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let other = register(&mock).await;
    let code = code(&mock, &client).await;
    let stolen = exchange(&mock, &other, &code, VERIFIER).await;
    assert_oauth_error(
        &stolen,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "another client",
    );
    let resource = mcp_url();
    let redirected = post_form(
        &mock,
        "/oauth/token",
        form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("redirect_uri", "http://127.0.0.1:1/other"),
            ("code_verifier", VERIFIER),
            ("resource", &resource),
        ]),
        &[],
    )
    .await;
    assert_oauth_error(
        &redirected,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "redirect_uri",
    );
    let wrong_resource = post_form(
        &mock,
        "/oauth/token",
        form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", &format!("{BASE}/v1")),
        ]),
        &[],
    )
    .await;
    assert_oauth_error(
        &wrong_resource,
        StatusCode::BAD_REQUEST,
        "invalid_target",
        "differs",
    );

    mock.advance(Duration::from_secs(601));
    let late = exchange(&mock, &client, &code, VERIFIER).await;
    assert_oauth_error(&late, StatusCode::BAD_REQUEST, "invalid_grant", "expired");
    let forged = exchange(&mock, &client, "mock-code-forged", VERIFIER).await;
    assert_oauth_error(
        &forged,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "never issued",
    );
}

#[tokio::test(start_paused = true)]
async fn access_tokens_expire_on_the_virtual_clock_and_a_refresh_brings_a_new_pair() {
    let mock = auto("alice");
    let (client, tokens) = sign_in(&mock).await;
    let access = tokens["access_token"].as_str().expect("access");
    let refresh_token = tokens["refresh_token"].as_str().expect("refresh");
    mock.advance(Duration::from_secs(3599));
    assert_eq!(try_token(&mock, access).await, Ok(()));
    mock.advance(Duration::from_secs(1));
    let expired = try_token(&mock, access).await.expect_err("expired");
    assert!(
        expired.contains("expired") && expired.contains("refresh token"),
        "{expired}"
    );
    assert!(expired.contains("resource_metadata="), "{expired}");

    let renewed = refresh(&mock, &client, refresh_token).await;
    assert_eq!(renewed.status, StatusCode::OK, "{renewed:?}");
    assert_ne!(
        renewed.body["refresh_token"], tokens["refresh_token"],
        "rotated"
    );
    let fresh = renewed.body["access_token"].as_str().expect("access");
    assert_eq!(try_token(&mock, fresh).await, Ok(()));
}

#[tokio::test(start_paused = true)]
async fn a_reused_refresh_token_is_refused_and_revokes_the_whole_sign_in() {
    let mock = auto("alice");
    let (client, tokens) = sign_in(&mock).await;
    let old = tokens["refresh_token"].as_str().expect("refresh");
    let renewed = refresh(&mock, &client, old).await;
    let fresh_access = renewed.body["access_token"]
        .as_str()
        .expect("access")
        .to_owned();
    let fresh_refresh = renewed.body["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_owned();

    let reused = refresh(&mock, &client, old).await;
    assert_oauth_error(
        &reused,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "already used",
    );
    assert!(try_token(&mock, &fresh_access).await.is_err(), "revoked");
    let after = refresh(&mock, &client, &fresh_refresh).await;
    assert_oauth_error(&after, StatusCode::BAD_REQUEST, "invalid_grant", "revoked");

    let other = register(&mock).await;
    let (_, mine) = sign_in(&mock).await;
    let theirs = refresh(&mock, &other, mine["refresh_token"].as_str().expect("rt")).await;
    assert_oauth_error(
        &theirs,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "another client",
    );
    let forged = refresh(&mock, &client, "mock-rt-forged").await;
    assert_oauth_error(
        &forged,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "never issued",
    );
}

#[tokio::test(start_paused = true)]
async fn a_token_issued_for_another_resource_is_refused_at_the_mcp_endpoint() {
    let mock = auto("alice");
    let client = register(&mock).await;
    let agent_api = format!("{BASE}/v1");
    let reply = mock
        .get(&authorize_url(&client, &[("resource", &agent_api)]))
        .await;
    let code = query(&location(&reply))["code"].clone();
    let tokens = post_form(
        &mock,
        "/oauth/token",
        form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("client_id", &client),
            ("redirect_uri", REDIRECT),
            ("code_verifier", VERIFIER),
            ("resource", &agent_api),
        ]),
        &[],
    )
    .await;
    assert_eq!(tokens.status, StatusCode::OK, "{tokens:?}");
    let refused = try_token(&mock, tokens.body["access_token"].as_str().expect("at"))
        .await
        .expect_err("wrong audience");
    assert!(
        refused.contains("issued for resource") && refused.contains("/v1"),
        "{refused}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_origin_without_the_path_names_the_mcp_resource_too() {
    let mock = auto("bob");
    let client = register(&mock).await;
    let reply = mock
        .get(&authorize_url(&client, &[("resource", BASE)]))
        .await;
    let code = query(&location(&reply))["code"].clone();
    let tokens = exchange(&mock, &client, &code, VERIFIER).await;
    assert_eq!(tokens.status, StatusCode::OK, "{tokens:?}");
    let token = tokens.body["access_token"].as_str().expect("at");
    assert_eq!(try_token(&mock, token).await, Ok(()));
}

#[tokio::test(start_paused = true)]
async fn a_forged_token_is_refused_with_the_challenge() {
    let mock = auto("alice");
    let refused = try_token(&mock, "mock-at-0123456789abcdef")
        .await
        .expect_err("forged");
    assert!(refused.contains("not valid"), "{refused}");
}

#[tokio::test(start_paused = true)]
async fn token_requests_without_a_grant_type_or_form_are_refused() {
    let mock = Mock::new();
    let none = post_form(&mock, "/oauth/token", String::new(), &[]).await;
    assert_oauth_error(
        &none,
        StatusCode::BAD_REQUEST,
        "invalid_request",
        "grant_type",
    );
    let implicit = post_form(
        &mock,
        "/oauth/token",
        form(&[("grant_type", "password")]),
        &[],
    )
    .await;
    assert_oauth_error(
        &implicit,
        StatusCode::BAD_REQUEST,
        "unsupported_grant_type",
        "password",
    );
    let json = mock
        .post_json("/oauth/token", json!({"grant_type": "authorization_code"}))
        .await;
    assert_oauth_error(
        &json,
        StatusCode::BAD_REQUEST,
        "invalid_request",
        "form-urlencoded",
    );
}

#[tokio::test]
async fn an_unknown_auto_consent_account_stops_the_mock_from_starting() {
    let error = MockServer::builder()
        .auto_consent("carol")
        .router(BASE)
        .err()
        .expect("refused");
    let message = error.to_string();
    assert!(
        message.contains("carol") && message.contains("alice"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_configured_lifetime_is_announced_and_ends_the_token_on_the_virtual_clock() {
    let mock = Mock::with(
        MockServer::builder()
            .auto_consent("alice")
            .access_token_lifetime(Duration::from_secs(90)),
    );
    let (client, tokens) = sign_in(&mock).await;
    assert_eq!(tokens["expires_in"], 90);
    let access = tokens["access_token"].as_str().expect("access");
    mock.advance(Duration::from_secs(89));
    assert_eq!(try_token(&mock, access).await, Ok(()));
    mock.advance(Duration::from_secs(1));
    let expired = try_token(&mock, access).await.expect_err("expired");
    assert!(expired.contains("expired"), "{expired}");
    // The refreshed token lives as long, and so on.
    let renewed = refresh(
        &mock,
        &client,
        tokens["refresh_token"].as_str().expect("rt"),
    )
    .await;
    assert_eq!(renewed.body["expires_in"], 90, "{renewed:?}");
}

async fn revoke(mock: &Mock, body: &str) -> Reply {
    mock.send(
        Request::post("/_mock/oauth/revoke")
            .header("content-type", "application/json")
            .body(Body::from(body.to_owned()))
            .expect("request"),
    )
    .await
}

#[tokio::test(start_paused = true)]
async fn revoking_an_account_signs_it_out_and_its_refresh_token_is_refused() {
    let mock = auto("alice");
    let (client, tokens) = sign_in(&mock).await;
    let access = tokens["access_token"].as_str().expect("access");
    let refresh_token = tokens["refresh_token"].as_str().expect("refresh");

    // Another account's revocation leaves alice signed in.
    let reply = revoke(&mock, r#"{"account": "bob"}"#).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        reply.body,
        json!({"account": "bob", "revoked_access_tokens": 0, "revoked_refresh_tokens": 0})
    );
    assert_eq!(try_token(&mock, access).await, Ok(()));

    let reply = revoke(&mock, r#"{"account": "alice"}"#).await;
    assert_eq!(
        reply.body,
        json!({"account": "alice", "revoked_access_tokens": 1, "revoked_refresh_tokens": 1})
    );
    let refused = try_token(&mock, access).await.expect_err("revoked");
    assert!(refused.contains("revoked"), "{refused}");
    let renewed = refresh(&mock, &client, refresh_token).await;
    assert_oauth_error(
        &renewed,
        StatusCode::BAD_REQUEST,
        "invalid_grant",
        "revoked",
    );
    // Dev tokens are not OAuth sign-ins: they keep working.
    assert_eq!(try_token(&mock, "alice-dev-token").await, Ok(()));

    // Signing in again works, and an empty body revokes everyone's.
    let (_, again) = sign_in(&mock).await;
    let fresh = again["access_token"].as_str().expect("access");
    assert_eq!(try_token(&mock, fresh).await, Ok(()));
    let reply = revoke(&mock, "").await;
    assert_eq!(reply.body["revoked_access_tokens"], 1, "{reply:?}");
    assert_eq!(reply.body["account"], Value::Null);
    assert!(try_token(&mock, fresh).await.is_err());
}

#[tokio::test(start_paused = true)]
async fn a_revocation_for_no_such_account_or_with_a_bad_body_is_refused_with_a_sentence() {
    let mock = auto("alice");
    let (_, tokens) = sign_in(&mock).await;
    for (body, status, says) in [
        (
            r#"{"account": "carol"}"#,
            StatusCode::NOT_FOUND,
            "no account `carol`; the accounts are alice, bob",
        ),
        (
            "{not json",
            StatusCode::BAD_REQUEST,
            "must be empty or {\"account\"",
        ),
        (
            r#"{"user": "alice"}"#,
            StatusCode::BAD_REQUEST,
            "unknown field `user`",
        ),
    ] {
        let reply = revoke(&mock, body).await;
        assert_eq!(reply.status, status, "{body}: {reply:?}");
        let error = reply.body["error"].as_str().unwrap_or_default();
        assert!(error.contains(says), "{body}: {error}");
    }
    // Nothing was revoked by the refusals.
    let access = tokens["access_token"].as_str().expect("access");
    assert_eq!(try_token(&mock, access).await, Ok(()));
}

#[tokio::test]
async fn an_access_token_lifetime_outside_one_second_to_a_year_stops_the_mock() {
    for lifetime in [
        Duration::ZERO,
        Duration::from_millis(999),
        Duration::from_secs(400 * 86400),
    ] {
        let error = MockServer::builder()
            .access_token_lifetime(lifetime)
            .router(BASE)
            .err()
            .expect("refused");
        let message = error.to_string();
        assert!(
            message.contains("--access-token-lifetime") && message.contains("at least 1 second"),
            "{message}"
        );
    }
}

/// `POST /v1/responses` as `token`: the status and the error message, if any.
async fn agent_api_with(mock: &Mock, token: &str) -> (u16, String) {
    let reply = mock
        .agent_create(
            token,
            serde_json::json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    let message = reply.body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (reply.status.as_u16(), message)
}

#[tokio::test(start_paused = true)]
async fn the_agent_api_takes_an_oauth_access_token_until_it_expires_and_then_says_so() {
    let mock = auto("alice");
    let (_client, tokens) = sign_in(&mock).await;
    let access = tokens["access_token"].as_str().expect("access");
    // Issued for the MCP endpoint; an API key is not bound to a resource.
    assert_eq!(agent_api_with(&mock, access).await.0, 200);
    mock.advance(Duration::from_secs(3600));
    let (status, message) = agent_api_with(&mock, access).await;
    assert_eq!(status, 401, "{message}");
    assert!(
        message.starts_with("invalid API key")
            && message.contains("expired")
            && message.contains("refresh"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_agent_api_refuses_a_revoked_access_token_saying_to_sign_in_again() {
    let mock = auto("alice");
    let (_client, tokens) = sign_in(&mock).await;
    let access = tokens["access_token"].as_str().expect("access");
    assert_eq!(
        revoke(&mock, r#"{"account": "alice"}"#).await.status,
        StatusCode::OK
    );
    let (status, message) = agent_api_with(&mock, access).await;
    assert_eq!(status, 401, "{message}");
    assert!(message.contains("sign in again"), "{message}");
}
