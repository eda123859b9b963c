//! Authorization codes: PKCE, replay, and a code used by another client, another redirect or too
//! late.

use super::*;

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
