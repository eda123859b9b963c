//! A mock that answers as a server of one protocol era (`--eras`), and one that refuses the
//! dev tokens (`--no-dev-tokens`) as a scenario that tests sign-in does.

use http::StatusCode;
use mock_server::{Eras, MockServer};
use serde_json::json;

use crate::common::modern::MODERN;
use crate::common::{Mock, initialize_body};

const JSON_AND_SSE: (&str, &str) = ("accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("content-type", "application/json");
const ALICE: (&str, &str) = ("authorization", "Bearer alice-dev-token");

#[tokio::test(start_paused = true)]
async fn a_handshake_only_mock_does_not_know_server_discover_and_initializes_a_session() {
    let mock = Mock::with(MockServer::builder().eras(Eras::Handshake));

    let probe = mock
        .modern("alice-dev-token")
        .rpc("server/discover", json!({}))
        .await;

    // What a 2025-11-25 server answers to a method it does not have, so a client in
    // `mode="auto"` falls back to initialize.
    assert_eq!(probe.status, StatusCode::OK, "{probe:?}");
    assert_eq!(probe.body["error"]["code"], -32601, "{probe:?}");
    let message = probe.body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("Method not found: server/discover.") && message.contains("initialize"),
        "{message}"
    );
    assert!(probe.headers.get("mcp-session-id").is_none());
    let session = mock.session("alice-dev-token").await;
    assert_eq!(session.version, "2025-11-25");
}

#[tokio::test(start_paused = true)]
async fn a_modern_only_mock_does_not_know_initialize_and_has_no_get_stream() {
    let mock = Mock::with(MockServer::builder().eras(Eras::Modern));

    let init = mock
        .post_mcp(
            &[JSON, JSON_AND_SSE, ALICE],
            initialize_body("2025-11-25").to_string(),
        )
        .await;

    // A 2026-07-28-only server: 404 with -32601 (the reference server's answer).
    assert_eq!(init.status, StatusCode::NOT_FOUND, "{init:?}");
    assert_eq!(init.body["error"]["code"], -32601);
    assert!(
        init.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("2026-07-28 removed initialize")),
        "{init:?}"
    );
    assert!(init.headers.get("mcp-session-id").is_none());
    let get = mock
        .send(
            http::Request::get(crate::common::MCP)
                .header("accept", "text/event-stream")
                .header(ALICE.0, ALICE.1)
                .body(axum::body::Body::empty())
                .expect("request"),
        )
        .await;
    assert_eq!(get.status, StatusCode::METHOD_NOT_ALLOWED, "{get:?}");
    let discover = mock
        .modern("alice-dev-token")
        .rpc("server/discover", json!({}))
        .await;
    assert_eq!(discover.status, StatusCode::OK);
    assert_eq!(discover.body["result"]["supportedVersions"][0], MODERN);
}

#[tokio::test(start_paused = true)]
async fn both_eras_by_default() {
    let mock = Mock::new();
    let discover = mock
        .modern("alice-dev-token")
        .rpc("server/discover", json!({}))
        .await;
    assert_eq!(discover.status, StatusCode::OK);
    assert!(discover.body.get("result").is_some(), "{discover:?}");
    assert_eq!(mock.session("alice-dev-token").await.version, "2025-11-25");
}

#[tokio::test(start_paused = true)]
async fn without_dev_tokens_a_dev_token_gets_a_401_that_asks_for_a_real_sign_in() {
    let mock = Mock::with(MockServer::builder().dev_tokens(false));

    for token in ["alice-dev-token", "bob-dev-token"] {
        let reply = mock
            .post_mcp(
                &[
                    JSON,
                    JSON_AND_SSE,
                    ("authorization", &format!("Bearer {token}")),
                ],
                initialize_body("2025-11-25").to_string(),
            )
            .await;

        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{reply:?}");
        let challenge = reply
            .headers
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(
            challenge.starts_with("Bearer ") && challenge.contains("resource_metadata="),
            "{challenge}"
        );
        let message = reply.body["error"]["message"].as_str().unwrap_or_default();
        for said in [challenge, message] {
            assert!(
                said.contains("this scenario needs a real OAuth sign-in")
                    && said.contains("dev tokens (alice-dev-token, bob-dev-token) are refused"),
                "{said}"
            );
        }
    }
    // With no token at all, the 401 does not offer a dev token either.
    let bare = mock
        .post_mcp(
            &[JSON, JSON_AND_SSE],
            initialize_body("2025-11-25").to_string(),
        )
        .await;
    assert_eq!(bare.status, StatusCode::UNAUTHORIZED);
    let message = bare.body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("real OAuth sign-in") && !message.contains("send `Authorization: Bearer"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn dev_tokens_work_by_default() {
    let mock = Mock::new();
    assert_eq!(mock.session("alice-dev-token").await.version, "2025-11-25");
}
