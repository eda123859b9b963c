//! Bearer tokens: the 401 challenge, its metadata, per-account identity, and `--auth none`.

use http::StatusCode;
use mock_server::{AuthMode, MockServer};
use serde_json::json;

use crate::common::{self, MCP, Mock, initialize_body};

const METADATA: &str =
    "http://127.0.0.1:8080/.well-known/oauth-protected-resource/rest/computer/mcp";

async fn initialize_with(mock: &Mock, authorization: Option<&str>) -> common::Reply {
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    if let Some(value) = authorization {
        headers.push(("authorization", value));
    }
    mock.post_mcp(&headers, initialize_body("2025-11-25").to_string())
        .await
}

fn assert_challenge(reply: &common::Reply, says: &str) {
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{reply:?}");
    let challenge = reply.headers["www-authenticate"].to_str().expect("ascii");
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains(&format!("resource_metadata=\"{METADATA}\"")),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"computer\""), "{challenge}");
    assert!(reply.body.is_object(), "a JSON body: {reply:?}");
    let message = reply.body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{message}");
}

#[tokio::test(start_paused = true)]
async fn a_missing_token_gets_401_pointing_at_the_resource_metadata() {
    let mock = Mock::new();
    let reply = initialize_with(&mock, None).await;
    assert_challenge(&reply, "Authorization: Bearer alice-dev-token");
}

#[tokio::test(start_paused = true)]
async fn a_wrong_token_gets_401_pointing_at_the_resource_metadata() {
    let mock = Mock::new();
    let reply = initialize_with(&mock, Some("Bearer not-a-token")).await;
    assert_challenge(&reply, "use alice-dev-token or bob-dev-token");
}

#[tokio::test(start_paused = true)]
async fn the_resource_metadata_names_the_mcp_url() {
    let mock = Mock::new();
    let reply = mock.get(METADATA).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(
        reply.body["resource"],
        format!("{}{MCP}", common::BASE),
        "{:?}",
        reply.body
    );
}

#[tokio::test(start_paused = true)]
async fn the_root_metadata_url_serves_the_same_document() {
    let mock = Mock::new();
    let root = mock.get("/.well-known/oauth-protected-resource").await;
    let inserted = mock.get(METADATA).await;
    assert_eq!(root.status, StatusCode::OK);
    assert_eq!(root.body, inserted.body);
    assert_eq!(root.body["scopes_supported"], json!(["computer"]));
}

#[tokio::test(start_paused = true)]
async fn bobs_token_acts_as_bob() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    let world = mock.handle.world();
    let (alice_before, bob_before) = (world.credits("alice"), world.credits("bob"));
    let started = bob.start("#complete Hello from bob").await;
    let thread = common::thread_id(&started);
    assert!(world.credits("bob") < bob_before, "bob paid for it");
    assert_eq!(world.credits("alice"), alice_before);

    let read_by_bob = bob.read(&thread).await;
    assert_eq!(read_by_bob["thread_id"], thread.as_str());

    let mut alice = mock.session("alice-dev-token").await;
    let read_by_alice = alice
        .call("read_thread", json!({"thread_id": thread.clone()}))
        .await;
    assert_eq!(
        read_by_alice["isError"], true,
        "alice cannot read bob's thread: {read_by_alice}"
    );

    // Bob is on the free plan: 30 MB is over its 25 MB attachment limit, not over alice's.
    let upload =
        json!({"filename": "big.pdf", "mime_type": "application/pdf", "size_bytes": 30_000_000});
    let bobs = bob.call("create_attachment_upload", upload.clone()).await;
    assert_eq!(bobs["isError"], true, "{bobs}");
    let alices = alice.call("create_attachment_upload", upload).await;
    assert_ne!(alices["isError"], true, "{alices}");
}

#[tokio::test(start_paused = true)]
async fn auth_none_serves_without_a_token_as_alice() {
    let mock = Mock::with(MockServer::builder().auth(AuthMode::None));
    let init = initialize_with(&mock, None).await;
    assert_eq!(init.status, StatusCode::OK, "{init:?}");

    let mut anonymous = mock.session("ignored").await;
    anonymous.token = None;
    let world = mock.handle.world();
    let (alice_before, bob_before) = (world.credits("alice"), world.credits("bob"));
    let started = anonymous.start("#complete Hello").await;
    assert_eq!(started["event"], "complete", "{started}");

    // The message was billed to alice.
    assert!(world.credits("alice") < alice_before);
    assert_eq!(world.credits("bob"), bob_before);
}

#[tokio::test(start_paused = true)]
async fn a_session_opened_by_alice_is_not_found_for_bob() {
    let mock = Mock::new();
    let mut session = mock.session("alice-dev-token").await;
    session.token = Some("bob-dev-token".to_owned());
    let reply = session.rpc("ping", json!({})).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_eq!(reply.body["error"]["code"], -32001);
}
