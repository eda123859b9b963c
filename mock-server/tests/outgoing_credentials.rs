//! No journal view shows a credential the mock sent out: when an Agent API `mcp` tool calls the
//! mock's own MCP endpoint (the README's example), the calls it makes are journaled with their
//! `Authorization`, `Cookie` and custom header values and the credentials of the `server_url`
//! (`user:pass@`, `?api_key=`) fingerprinted, and so is the request that named them and the
//! error that quotes the URL.

use mock_server::{Exchange, MockServer, fingerprint};
use serde_json::{Value, json};

use crate::common::agent::ALICE;

const PASSWORD: &str = "pw-secret-9";
const QUERY_KEY: &str = "qkey-secret-3";
const COOKIE: &str = "cookie-secret-4";
const CUSTOM: &str = "hdr-secret-5";
const TOKEN: &str = "tok-secret-6";

/// Every credential the tests put in an `mcp` tool.
const ALL: [&str; 5] = [PASSWORD, QUERY_KEY, COOKIE, CUSTOM, TOKEN];

/// An `mcp` tool for `server_url`, with a cookie and a custom header besides its token.
fn tool(server_url: &str) -> Value {
    json!({
        "type": "mcp",
        "server_label": "computer",
        "server_url": server_url,
        "authorization": ALICE,
        "headers": {"Cookie": format!("session={COOKIE}; theme=dark"), "X-Custom-Token": CUSTOM},
    })
}

/// `POST /v1/agent` to the mock on its socket, as a client would.
async fn create(mock: &MockServer, tools: Value) -> Value {
    reqwest::Client::new()
        .post(mock.agent_url())
        .bearer_auth(ALICE)
        .json(
            &json!({"model": "openai/gpt-5.6-terra", "input": "#mcp-approval list them",
                      "tools": tools}),
        )
        .send()
        .await
        .expect("the mock answers")
        .json()
        .await
        .expect("a JSON answer")
}

/// Each credential that shows in the journal's lines.
fn shown(mock: &MockServer) -> Vec<&'static str> {
    let lines = mock.journal().to_json_lines();
    ALL.into_iter().filter(|s| lines.contains(s)).collect()
}

fn mcp_calls(mock: &MockServer) -> Vec<Exchange> {
    mock.journal()
        .exchanges()
        .into_iter()
        .filter(|e| e.path == "/rest/computer/mcp")
        .collect()
}

#[tokio::test(start_paused = true)]
async fn an_mcp_tool_calling_the_mocks_own_endpoint_leaves_no_credential_in_its_journal() {
    let mock = MockServer::start().await.expect("the mock starts");
    let url = mock
        .mcp_url()
        .replace("http://", &format!("http://alice:{PASSWORD}@"));
    let server_url = format!("{url}?api_key={QUERY_KEY}&token={TOKEN}&region=eu");
    let answer = create(&mock, json!([tool(&server_url)])).await;
    assert!(answer["error"].is_null(), "{answer:#}");

    let calls = mcp_calls(&mock);
    assert!(
        calls.len() >= 3,
        "initialize, initialized, tools/list: {calls:?}"
    );
    for call in &calls {
        assert_eq!(
            call.request_headers["x-custom-token"],
            fingerprint(CUSTOM),
            "{call:?}"
        );
        assert_eq!(
            call.request_headers["cookie"],
            format!(
                "session={}; theme={}",
                fingerprint(COOKIE),
                fingerprint("dark")
            )
        );
        assert_eq!(
            call.query.as_deref(),
            Some(
                format!(
                    "api_key={}&token={}&region=eu",
                    fingerprint(QUERY_KEY),
                    fingerprint(TOKEN)
                )
                .as_str()
            )
        );
        let authorization = call.request_headers["authorization"].as_str();
        assert!(
            authorization.is_some_and(|a| a.contains("redacted:")),
            "{call:?}"
        );
    }
    // The request that named them shows the URL with its credentials fingerprinted.
    let request = mock
        .journal()
        .exchanges()
        .into_iter()
        .find(|e| e.path == "/v1/agent")
        .expect("the Agent API request");
    let shown_url = request.request_body["tools"][0]["server_url"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        shown_url.starts_with(&format!(
            "http://alice:{}@127.0.0.1:",
            fingerprint(PASSWORD)
        )),
        "{shown_url}"
    );
    assert!(
        shown_url.ends_with(&format!(
            "?api_key={}&token={}&region=eu",
            fingerprint(QUERY_KEY),
            fingerprint(TOKEN)
        )),
        "{shown_url}"
    );
    assert_eq!(shown(&mock), Vec::<&str>::new());
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_server_url_is_quoted_without_its_credentials() {
    let mock = MockServer::start().await.expect("the mock starts");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let server_url =
        format!("http://alice:{PASSWORD}@127.0.0.1:{port}/mcp?api_key={QUERY_KEY}&token={TOKEN}");
    let answer = create(&mock, json!([tool(&server_url)])).await;
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("127.0.0.1"), "{answer:#}");
    assert!(message.contains(&fingerprint(QUERY_KEY)), "{message}");
    assert_eq!(shown(&mock), Vec::<&str>::new());
}
