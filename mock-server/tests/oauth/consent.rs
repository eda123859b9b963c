//! The authorization endpoint: auto-consent, the consent page (pick an account, deny), and
//! requests that are refused on a page or sent back to the client.

use super::*;

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
