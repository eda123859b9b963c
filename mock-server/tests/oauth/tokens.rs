//! Access and refresh tokens on the virtual clock: expiry, rotation, audience, forgeries and
//! malformed token requests.

use super::*;

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
