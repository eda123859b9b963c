//! OAuth access tokens at the Agent API.

use super::*;

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
