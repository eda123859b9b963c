//! No web page a developer happens to open can drive the mock: like the MCP endpoint (see
//! handshake.rs), the control API, the pages, the Agent API and OAuth refuse a foreign
//! `Host` (DNS rebinding) or `Origin`, and the state-changing control routes refuse what a page
//! can send anywhere without asking (simple-request CSRF): a `text/plain`, form or multipart
//! body, `Origin: null`, or a cross-site request without an `Origin`. Same-origin requests (the
//! dashboard), clients that send no `Origin` (curl, SDKs) and `--allow-origin` pages pass. Each
//! refusal comes in its surface's shape with a sentence saying what to do.

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::agent::ALICE;
use crate::common::{Mock, Reply};

const EVIL: &str = "https://evil.example";
const START: &str = "2026-10-24T00:11:18.000Z";

fn manual() -> Mock {
    Mock::with(MockServer::builder().manual_clock())
}

/// A request to `path` with these headers and body.
async fn send(
    mock: &Mock,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut request = Request::builder().method(method).uri(path);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    mock.send(request.body(Body::from(body.to_owned())).expect("request"))
        .await
}

/// `POST /_mock/clock/advance` by a minute with these headers and a JSON body.
async fn advance(mock: &Mock, headers: &[(&str, &str)]) -> Reply {
    send(
        mock,
        "POST",
        "/_mock/clock/advance",
        headers,
        r#"{"ms": 60000}"#,
    )
    .await
}

async fn now(mock: &Mock) -> Value {
    mock.get("/_mock/clock").await.body["now"].clone()
}

/// The control API's shape: `{"error": sentence}` and nothing else.
fn control_error(reply: &Reply, status: StatusCode) -> String {
    assert_eq!(reply.status, status, "{reply:?}");
    let sentence = reply.body["error"].as_str().expect("a sentence").to_owned();
    assert_eq!(
        reply.body.as_object().map(|o| o.len()),
        Some(1),
        "{reply:?}"
    );
    sentence
}

#[tokio::test(start_paused = true)]
async fn a_foreign_host_is_refused_on_every_surface_beside_the_mcp_endpoint() {
    let mock = manual();
    let host = [
        ("host", "evil.example:8080"),
        ("content-type", "application/json"),
    ];
    let reset = send(&mock, "POST", "/_mock/reset", &host, "{}").await;
    let sentence = control_error(&reset, StatusCode::FORBIDDEN);
    assert!(sentence.contains("Host `evil.example`"), "{sentence}");
    assert!(sentence.contains("--public-url"), "{sentence}");
    // Reads too: a rebound name must not read the journal or the dashboard.
    let journal = send(&mock, "GET", "/_mock/journal", &host, "").await;
    control_error(&journal, StatusCode::FORBIDDEN);
    let page = send(&mock, "GET", "/_mock", &host, "").await;
    control_error(&page, StatusCode::FORBIDDEN);

    let agent = send(
        &mock,
        "POST",
        "/v1/agent",
        &[
            host[0],
            host[1],
            ("authorization", "Bearer alice-dev-token"),
        ],
        r#"{"model": "openai/gpt-5.6-terra", "input": "hi"}"#,
    )
    .await;
    assert_eq!(agent.status, StatusCode::FORBIDDEN, "{agent:?}");
    assert_eq!(agent.body["error"]["type"], "forbidden");
    assert_eq!(agent.body["error"]["code"], 403);
    assert!(
        agent.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("evil.example"))
    );

    let register = send(
        &mock,
        "POST",
        "/oauth/register",
        &host,
        r#"{"redirect_uris": ["http://127.0.0.1:9/cb"]}"#,
    )
    .await;
    assert_eq!(register.status, StatusCode::FORBIDDEN, "{register:?}");
    assert_eq!(register.body["error"], "access_denied");
    assert!(
        register.body["error_description"].is_string(),
        "{register:?}"
    );
    let metadata = send(
        &mock,
        "GET",
        "/.well-known/oauth-authorization-server",
        &host,
        "",
    )
    .await;
    assert_eq!(metadata.status, StatusCode::FORBIDDEN, "{metadata:?}");
    assert_eq!(metadata.body["error"], "access_denied");

    // The loopback names and the mock's own URL still pass.
    for host in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080"] {
        let reply = send(&mock, "GET", "/_mock/clock", &[("host", host)], "").await;
        assert_eq!(reply.status, StatusCode::OK, "{host}: {reply:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_page_on_another_origin_cannot_change_the_mocks_state() {
    let mock = manual();
    let json = ("content-type", "application/json");
    let refused = advance(&mock, &[("origin", EVIL), json]).await;
    let sentence = control_error(&refused, StatusCode::FORBIDDEN);
    assert!(sentence.contains(&format!("Origin `{EVIL}`")), "{sentence}");
    assert!(
        sentence.contains(&format!("--allow-origin {EVIL}")),
        "{sentence}"
    );
    assert_eq!(now(&mock).await, START, "the clock did not move");
    // `Origin: null` (a sandboxed page, a privacy-hidden origin) and a cross-site request
    // without an Origin cannot change state either.
    let null = advance(&mock, &[("origin", "null"), json]).await;
    assert!(control_error(&null, StatusCode::FORBIDDEN).contains("Origin: null"));
    let cross_site = advance(&mock, &[("sec-fetch-site", "cross-site"), json]).await;
    assert!(control_error(&cross_site, StatusCode::FORBIDDEN).contains("cross-site"));
    assert_eq!(now(&mock).await, START);
    // A foreign page cannot use the Agent API through a browser either.
    let agent = send(
        &mock,
        "POST",
        "/v1/agent",
        &[
            ("origin", EVIL),
            json,
            ("authorization", "Bearer alice-dev-token"),
        ],
        r#"{"model": "openai/gpt-5.6-terra", "input": "hi"}"#,
    )
    .await;
    assert_eq!(agent.status, StatusCode::FORBIDDEN, "{agent:?}");
    assert_eq!(agent.body["error"]["type"], "forbidden");
}

#[tokio::test(start_paused = true)]
async fn a_body_any_page_could_send_is_refused_on_a_state_changing_control_route() {
    let mock = manual();
    for content_type in [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        // No Origin at all, as an old browser would send: the type alone is refused.
        let refused = advance(&mock, &[("content-type", content_type)]).await;
        let sentence = control_error(&refused, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(sentence.contains("application/json"), "{sentence}");
        assert!(sentence.contains(content_type), "{sentence}");
    }
    let reset = send(
        &mock,
        "POST",
        "/_mock/reset",
        &[("content-type", "text/plain")],
        "",
    )
    .await;
    control_error(&reset, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(now(&mock).await, START, "the clock did not move");
}

#[tokio::test(start_paused = true)]
async fn the_dashboard_same_origin_pages_and_clients_without_an_origin_pass() {
    let mock = manual();
    // The dashboard: same origin, JSON.
    let own = [
        ("host", "127.0.0.1:8080"),
        ("origin", "http://127.0.0.1:8080"),
        ("sec-fetch-site", "same-origin"),
        ("content-type", "application/json"),
    ];
    assert_eq!(advance(&mock, &own).await.status, StatusCode::OK);
    // curl: no Origin, no type, no body.
    let curl = send(&mock, "POST", "/_mock/accounts/bob/top-up", &[], "").await;
    assert_eq!(curl.status, StatusCode::OK, "{curl:?}");
    // A page of the mock posting its form to the mock (the billing page's button).
    let form = send(
        &mock,
        "POST",
        "/_mock/billing/bob/top-up",
        &[
            ("origin", "http://127.0.0.1:8080"),
            ("content-type", "application/x-www-form-urlencoded"),
        ],
        "",
    )
    .await;
    assert!(
        form.status.is_success() || form.status.is_redirection(),
        "{form:?}"
    );
    // A developer's own page on another localhost port (an MCP inspector) is a local page too.
    let local = advance(
        &mock,
        &[
            ("origin", "http://localhost:6274"),
            ("content-type", "application/json"),
        ],
    )
    .await;
    assert_eq!(local.status, StatusCode::OK, "{local:?}");
    // An SDK: a token, no Origin (on a clock that runs, so the run finishes).
    let agent = Mock::new()
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi"}),
        )
        .await;
    assert_eq!(agent.status, StatusCode::OK, "{agent:?}");
}

#[tokio::test(start_paused = true)]
async fn allow_origin_lets_that_page_in_and_no_other() {
    let mock = Mock::with(
        MockServer::builder()
            .manual_clock()
            .allow_origin("https://dash.example:8443"),
    );
    let json = ("content-type", "application/json");
    let allowed = advance(&mock, &[("origin", "https://dash.example:8443"), json]).await;
    assert_eq!(allowed.status, StatusCode::OK, "{allowed:?}");
    for other in ["https://dash.example", "http://dash.example:8443", EVIL] {
        let refused = advance(&mock, &[("origin", other), json]).await;
        assert_eq!(
            refused.status,
            StatusCode::FORBIDDEN,
            "{other}: {refused:?}"
        );
    }
}

#[test]
fn the_command_line_refuses_an_allow_origin_that_is_no_origin() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mock-server"))
        .args([
            "--listen",
            "127.0.0.1:0",
            "--allow-origin",
            "evil.example/path",
        ])
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--allow-origin"), "{stderr}");
    assert!(stderr.contains("https://"), "{stderr}");
}
