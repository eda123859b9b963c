//! What the mock keeps between requests is bounded: a handshake session unused for the idle
//! timeout (real, monotonic time) ends, `POST /_mock/reset` ends every session, sessions, OAuth
//! registrations and outstanding codes are capped, and each cap answers in its surface's shape
//! with a sentence.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::{MockServer, StateLimits};
use serde_json::json;

use crate::common::{self, BASE, MCP, Mock};

fn limited(limits: StateLimits) -> Mock {
    Mock::with(
        MockServer::builder()
            .manual_clock()
            .auto_consent("alice")
            .limits(limits),
    )
}

async fn ping_status(client: &mut common::Client) -> StatusCode {
    client.rpc("ping", json!({})).await.status
}

#[tokio::test(start_paused = true)]
async fn a_session_unused_for_the_idle_timeout_ends_and_one_in_use_does_not() {
    let mock = limited(StateLimits {
        session_idle_timeout: Duration::from_secs(600),
        ..StateLimits::default()
    });
    let mut busy = mock.session("alice-dev-token").await;
    let mut idle = mock.session("alice-dev-token").await;
    for _ in 0..3 {
        tokio::time::advance(Duration::from_secs(400)).await;
        assert_eq!(ping_status(&mut busy).await, StatusCode::OK);
    }
    // 1,200 s since `idle` was last used: past the 600 s timeout.
    let reply = idle.rpc("ping", json!({})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{:?}", reply.body);
    assert_eq!(reply.body["error"]["code"], -32001);
    assert_eq!(ping_status(&mut busy).await, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn virtual_time_never_ends_a_session() {
    let mock = limited(StateLimits {
        session_idle_timeout: Duration::from_secs(600),
        ..StateLimits::default()
    });
    let mut client = mock.session("alice-dev-token").await;
    mock.advance(Duration::from_secs(30 * 24 * 3600));
    assert_eq!(ping_status(&mut client).await, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn reset_ends_every_session() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    assert_eq!(ping_status(&mut client).await, StatusCode::OK);
    let reset = mock.post_json("/_mock/reset", json!({})).await;
    assert_eq!(reset.status, StatusCode::OK);
    assert_eq!(ping_status(&mut client).await, StatusCode::NOT_FOUND);
    // A new one opens as before.
    let mut again = mock.session("alice-dev-token").await;
    assert_eq!(ping_status(&mut again).await, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn past_the_session_cap_initialize_is_a_503_json_rpc_error_until_one_ends() {
    let mock = limited(StateLimits {
        max_sessions: 2,
        session_idle_timeout: Duration::from_secs(600),
        ..StateLimits::default()
    });
    let first = mock.session("alice-dev-token").await;
    let _second = mock.session("bob-dev-token").await;
    let initialize = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "tests", "version": "1"}}});
    let headers = [
        ("authorization", "Bearer alice-dev-token"),
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    let third = || mock.post_mcp(&headers, initialize.to_string());
    let refused = third().await;
    assert_eq!(
        refused.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        refused.body
    );
    assert_eq!(refused.body["id"], 7);
    assert_eq!(refused.body["error"]["code"], -32000);
    let message = refused.body["error"]["message"]
        .as_str()
        .expect("a sentence");
    assert!(message.contains("at most 2"), "{message}");
    assert!(message.contains("DELETE"), "{message}");
    assert!(message.contains("10 minutes"), "{message}");
    // Ending one makes room.
    let delete = Request::delete(MCP)
        .header("authorization", "Bearer alice-dev-token")
        .header("mcp-session-id", first.session.as_deref().expect("an id"))
        .body(Body::empty())
        .expect("request");
    assert_eq!(mock.send(delete).await.status, StatusCode::OK);
    assert_eq!(third().await.status, StatusCode::OK);
    // And so does a session idling out.
    let refused = third().await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    tokio::time::advance(Duration::from_secs(601)).await;
    assert_eq!(third().await.status, StatusCode::OK);
}

async fn register(mock: &Mock) -> common::Reply {
    mock.post_json(
        "/oauth/register",
        json!({"client_name": "tests", "redirect_uris": ["http://127.0.0.1:9/cb"],
               "token_endpoint_auth_method": "none"}),
    )
    .await
}

#[tokio::test(start_paused = true)]
async fn past_the_registration_cap_registration_is_a_503_oauth_error() {
    let mock = limited(StateLimits {
        max_oauth_clients: 1,
        ..StateLimits::default()
    });
    assert_eq!(register(&mock).await.status, StatusCode::CREATED);
    let refused = register(&mock).await;
    assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.body["error"], "temporarily_unavailable");
    let sentence = refused.body["error_description"]
        .as_str()
        .expect("a sentence");
    assert!(sentence.contains("1 registered clients"), "{sentence}");
    assert!(sentence.contains("reuse a client_id"), "{sentence}");
}

#[tokio::test(start_paused = true)]
async fn past_the_code_cap_sign_in_redirects_with_temporarily_unavailable_until_codes_expire() {
    let mock = limited(StateLimits {
        max_oauth_codes: 1,
        ..StateLimits::default()
    });
    let client_id = register(&mock).await.body["client_id"]
        .as_str()
        .expect("client_id")
        .to_owned();
    let authorize = format!(
        "/oauth/authorize?response_type=code&client_id={client_id}&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb\
         &state=s1&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256\
         &resource={}",
        format!("{BASE}{MCP}")
            .replace(':', "%3A")
            .replace('/', "%2F")
    );
    let location = |reply: &common::Reply| {
        assert_eq!(reply.status, StatusCode::FOUND, "{reply:?}");
        reply.headers["location"]
            .to_str()
            .expect("ascii")
            .to_owned()
    };
    let first = location(&mock.get(&authorize).await);
    assert!(first.contains("code="), "{first}");
    let second = location(&mock.get(&authorize).await);
    assert!(second.contains("error=temporarily_unavailable"), "{second}");
    assert!(second.contains("state=s1"), "{second}");
    assert!(second.contains("max-oauth-codes"), "{second}");
    // Codes live ten minutes of virtual time; once the first expired there is room again.
    mock.advance(Duration::from_secs(11 * 60));
    let third = location(&mock.get(&authorize).await);
    assert!(third.contains("code="), "{third}");
}
