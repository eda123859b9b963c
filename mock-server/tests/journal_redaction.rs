//! No secret leaves the journal: each credential is shown as its fingerprint, in the control
//! API's lines, in the `Exchange` view and in the journal file, so a reader can tell which
//! token was used without being able to use it.

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::{AuthMode, MockServer, fingerprint};
use serde_json::{Value, json};

use crate::common::agent::ALICE;
use crate::common::{self, BASE, MCP, Mock};

const REDIRECT: &str = "http://127.0.0.1:33418/callback";
/// RFC 7636 Appendix B.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// The journal as the control API serves it, as text.
async fn journal_text(mock: &Mock) -> String {
    mock.journal_lines()
        .await
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

async fn post_form(mock: &Mock, path: &str, body: String) -> common::Reply {
    let request = Request::post(path)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .expect("request");
    mock.send(request).await
}

#[tokio::test(start_paused = true)]
async fn oauth_codes_verifiers_tokens_and_client_secrets_are_fingerprinted() {
    let mock = Mock::with(MockServer::builder().auto_consent("alice"));
    let registered = mock
        .post_json(
            "/oauth/register",
            json!({"client_name": "tests", "redirect_uris": [REDIRECT],
                   "token_endpoint_auth_method": "client_secret_post"}),
        )
        .await;
    assert_eq!(registered.status, StatusCode::CREATED, "{registered:?}");
    let client = registered.body["client_id"]
        .as_str()
        .expect("id")
        .to_owned();
    let secret = registered.body["client_secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let resource = format!("{BASE}{MCP}")
        .replace(':', "%3A")
        .replace('/', "%2F");
    let authorize = mock
        .get(&format!(
            "/oauth/authorize?response_type=code&client_id={client}&redirect_uri={}&state=s1\
             &code_challenge={CHALLENGE}&code_challenge_method=S256&resource={resource}",
            REDIRECT.replace(':', "%3A").replace('/', "%2F")
        ))
        .await;
    let location = authorize.headers["location"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let code = location
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix("code="))
        .expect("a code")
        .to_owned();
    let token_request = format!(
        "grant_type=authorization_code&code={code}&redirect_uri={}&client_id={client}\
         &client_secret={secret}&code_verifier={VERIFIER}&resource={resource}",
        REDIRECT.replace(':', "%3A").replace('/', "%2F")
    );
    let tokens = post_form(&mock, "/oauth/token", token_request).await;
    assert_eq!(tokens.status, StatusCode::OK, "{tokens:?}");
    let access = tokens.body["access_token"]
        .as_str()
        .expect("access")
        .to_owned();
    let refresh = tokens.body["refresh_token"]
        .as_str()
        .expect("refresh")
        .to_owned();
    let refreshed = post_form(
        &mock,
        "/oauth/token",
        format!(
            "grant_type=refresh_token&refresh_token={refresh}&client_id={client}&client_secret={secret}"
        ),
    )
    .await;
    assert_eq!(refreshed.status, StatusCode::OK, "{refreshed:?}");
    let new_access = refreshed.body["access_token"]
        .as_str()
        .expect("access")
        .to_owned();
    mock.session(&new_access).await;

    let text = journal_text(&mock).await;
    for leaked in [
        secret.as_str(),
        &code,
        VERIFIER,
        &access,
        &refresh,
        &new_access,
    ] {
        assert!(!text.contains(leaked), "{leaked} is in the journal");
    }
    let exchanges = mock.handle.journal().exchanges();
    let registration = &exchanges[0];
    assert_eq!(
        registration.response_body["client_secret"],
        fingerprint(&secret)
    );
    let redirect = exchanges[1].response_headers["location"]
        .as_str()
        .expect("location");
    assert!(
        redirect.contains(&format!("code={}", fingerprint(&code))),
        "{redirect}"
    );
    // Rules that need to know which code was exchanged compare fingerprints.
    let exchange = exchanges[2].request_body.as_str().expect("form text");
    assert!(
        exchange.contains(&format!("code={}", fingerprint(&code))),
        "{exchange}"
    );
    assert!(exchange.contains(&format!("code_verifier={}", fingerprint(VERIFIER))));
    assert!(exchange.contains(&format!("client_secret={}", fingerprint(&secret))));
    assert!(
        exchange.contains(&format!("client_id={client}")),
        "not a secret"
    );
    assert_eq!(
        exchanges[2].response_body["access_token"],
        fingerprint(&access)
    );
    assert_eq!(
        exchanges[2].response_body["refresh_token"],
        fingerprint(&refresh)
    );
    assert_eq!(exchanges[2].response_body["token_type"], "Bearer");
    let rotation = exchanges[3].request_body.as_str().expect("form text");
    assert!(rotation.contains(&format!("refresh_token={}", fingerprint(&refresh))));
    assert_eq!(
        exchanges[3].response_body["access_token"],
        fingerprint(&new_access)
    );
    assert_eq!(
        exchanges[4].request_headers["authorization"],
        format!("Bearer {}", fingerprint(&new_access))
    );

    // A JSON token request is redacted the same way.
    let json_request = mock
        .post_json(
            "/oauth/token",
            json!({"grant_type": "refresh_token", "refresh_token": "json-refresh-secret"}),
        )
        .await;
    assert_ne!(json_request.status, StatusCode::OK);
    let last = mock.handle.journal().exchanges().pop().expect("journaled");
    assert_eq!(
        last.request_body["refresh_token"],
        fingerprint("json-refresh-secret")
    );
}

#[tokio::test(start_paused = true)]
async fn the_mcp_tools_authorization_and_headers_are_fingerprinted() {
    let mock = Mock::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let body = json!({
        "model": "openai/gpt-5.6-terra", "input": "#mcp-approval hi",
        "tools": [{"type": "mcp", "server_label": "gh", "server_url": format!("http://127.0.0.1:{port}/mcp"),
                   "authorization": "ghp_thirdPartySecret1", "headers": {"X-Api-Key": "key-secret-2"}}],
    });
    mock.agent_create(ALICE, body).await;
    let text = journal_text(&mock).await;
    assert!(!text.contains("ghp_thirdPartySecret1"));
    assert!(!text.contains("key-secret-2"));
    let create = mock.handle.journal().exchanges().remove(0);
    let tool = &create.request_body["tools"][0];
    assert_eq!(tool["authorization"], fingerprint("ghp_thirdPartySecret1"));
    assert_eq!(tool["headers"]["X-Api-Key"], fingerprint("key-secret-2"));
    assert_eq!(tool["server_label"], "gh");
    assert_eq!(
        create.request_headers["authorization"],
        format!("Bearer {}", fingerprint(ALICE))
    );
}

#[tokio::test(start_paused = true)]
async fn a_connector_key_shows_only_as_a_fingerprint_on_the_server_it_reaches() {
    // The server behind the connector takes any token, so the key can be a real secret.
    let target = MockServer::builder()
        .auth(AuthMode::None)
        .start()
        .await
        .expect("mcp target");
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world fixture");
    world["accounts"][0]["agent_api"]["custom_connectors"] = json!([{
        "id": "connector_acme_computer", "url": target.mcp_url(),
        "authorization": "connector-key-5f3a",
    }]);
    let path = std::env::temp_dir().join(format!("redaction-world-{}.json", std::process::id()));
    std::fs::write(&path, world.to_string()).expect("write world");
    let mock = Mock::with(MockServer::builder().world(&path));
    let tools = json!([{"type": "connector", "id": "connector_acme_computer", "server_label": "acme",
                        "allowed_tools": ["models_list"]}]);
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval which models?", "tools": tools}),
        )
        .await;
    let _ = std::fs::remove_file(&path);
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let reached = target.journal().exchanges();
    assert!(!reached.is_empty());
    for exchange in &reached {
        assert_eq!(
            exchange.request_headers["authorization"],
            format!("Bearer {}", fingerprint("connector-key-5f3a"))
        );
    }
    let remote_text = target.journal().to_json_lines();
    assert!(!remote_text.contains("connector-key-5f3a"));
    assert!(!journal_text(&mock).await.contains("connector-key-5f3a"));
}
