//! Revoking an account's sign-in through the control API.

use super::*;

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
