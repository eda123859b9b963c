//! Nothing reachable from a request can panic the mock: a proptest drives the control API
//! (clock, reset, accounts, top-ups, billing, journal queries with odd `since`, `limit` and
//! filters), the OAuth token endpoint (odd forms, and sign-ins whose tokens are refreshed and
//! used after any clock move) and Computer and Agent API calls after extreme clock moves. Each
//! answer must be its surface's documented shape, and afterwards every surface still answers.
//!
//! The clock here is the default one (real-time factor 1 on tokio's paused clock), so Computer
//! work scheduled on virtual time runs to its checkpoint while the test waits.

use std::time::Duration;

use axum::body::Body;
use http::{HeaderMap, Request, StatusCode, header};
use http_body_util::BodyExt;
use mock_server::MockServer;
use proptest::prelude::*;
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::agent::ALICE;
use crate::common::{self, Mock, Reply};

/// One step of the property test.
#[derive(Debug, Clone)]
enum Step {
    /// `POST /_mock/clock/advance` with this many milliseconds.
    Advance(u64),
    /// `GET /_mock/clock`.
    Clock,
    /// `POST /_mock/reset`.
    Reset,
    /// `GET /_mock/accounts`.
    Accounts,
    /// `POST /_mock/accounts/{segment}/top-up` (the segment as it goes on the wire).
    TopUp(String),
    /// `GET /_mock/billing/{segment}`.
    Billing(String),
    /// `GET /_mock/journal?{query}`.
    Journal(String),
    /// `POST /oauth/token` with this form body.
    Token(String),
    /// A whole sign-in; the clock moves by this many ms before the refresh and the MCP call.
    SignIn(u64),
    /// A Computer tool call on the test's session.
    Computer(Tool),
    /// An Agent API background response, created then read.
    Agent,
    /// `GET /v1/responses/{segment}`.
    AgentRead(String),
}

/// The Computer calls the test makes.
#[derive(Debug, Clone, Copy)]
enum Tool {
    Models,
    Projects,
    Upload,
    /// `call_perplexity_computer`, then `read_thread` of its thread.
    Thread,
}

/// Milliseconds: small, a century and around it, the 100-year bound, and anything.
fn millis() -> impl Strategy<Value = u64> {
    prop_oneof![
        0..=86_400_000u64,
        3_155_760_000_000u64..=3_155_760_000_010u64,
        Just(2_592_000_000u64), // the 30-day refresh lifetime
        Just(u64::MAX),
        any::<u64>(),
    ]
}

/// A path segment as it goes on the wire: accounts, junk, percent-escapes good and bad.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("alice".to_owned()),
        Just("bob".to_owned()),
        Just("%FF%FE".to_owned()),
        Just("%00".to_owned()),
        "[A-Za-z0-9%._~-]{1,12}",
    ]
}

/// A number as a query might carry it.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<u64>().prop_map(|n| n.to_string()),
        (0..50u64).prop_map(|n| n.to_string()),
        Just(usize::MAX.to_string()),
        Just("18446744073709551616".to_owned()),
        Just("-1".to_owned()),
        Just(String::new()),
        "[A-Za-z0-9%.]{0,6}",
    ]
}

/// A `GET /_mock/journal` query string of up to five parameters, good or bad.
fn journal_query() -> impl Strategy<Value = String> {
    let parameter = prop_oneof![
        number().prop_map(|n| format!("since={n}")),
        number().prop_map(|n| format!("limit={n}")),
        prop_oneof![
            Just("/rest/computer/mcp".to_owned()),
            Just("%2F_mock%2F*".to_owned()),
            Just("*".to_owned()),
            "[A-Za-z0-9%*/._~-]{0,10}",
        ]
        .prop_map(|p| format!("path={p}")),
        prop_oneof![Just("post".to_owned()), "[A-Za-z%]{0,6}"].prop_map(|m| format!("method={m}")),
        prop_oneof![
            Just("200".to_owned()),
            Just("4xx".to_owned()),
            Just("0".to_owned()),
            Just("65536".to_owned()),
            Just("0xx".to_owned()),
            "[0-9x%]{0,5}",
        ]
        .prop_map(|s| format!("status={s}")),
        prop_oneof![Just("true"), Just("false"), Just(""), Just("maybe")]
            .prop_map(|f| format!("follow={f}")),
        "[A-Za-z0-9%=]{0,8}",
    ];
    proptest::collection::vec(parameter, 0..5).prop_map(|parts| parts.join("&"))
}

/// A form the token endpoint might get: any grant, codes and tokens that are junk or empty.
fn token_form() -> impl Strategy<Value = String> {
    let value = "[A-Za-z0-9%._~-]{0,16}";
    let pair = prop_oneof![
        prop_oneof![
            Just("authorization_code".to_owned()),
            Just("refresh_token".to_owned()),
            Just("client_credentials".to_owned()),
            value.prop_map(|v| v.to_owned()),
        ]
        .prop_map(|g| format!("grant_type={g}")),
        value.prop_map(|v| format!("code={v}")),
        value.prop_map(|v| format!("refresh_token={v}")),
        value.prop_map(|v| format!("client_id={v}")),
        value.prop_map(|v| format!("code_verifier={v}")),
        value.prop_map(|v| format!("redirect_uri={v}")),
        "[A-Za-z0-9%=&]{0,12}",
    ];
    proptest::collection::vec(pair, 0..6).prop_map(|parts| parts.join("&"))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => millis().prop_map(Step::Advance),
        1 => Just(Step::Clock),
        1 => Just(Step::Reset),
        1 => Just(Step::Accounts),
        1 => segment().prop_map(Step::TopUp),
        1 => segment().prop_map(Step::Billing),
        3 => journal_query().prop_map(Step::Journal),
        2 => token_form().prop_map(Step::Token),
        2 => millis().prop_map(Step::SignIn),
        3 => prop_oneof![
            Just(Tool::Models),
            Just(Tool::Projects),
            Just(Tool::Upload),
            Just(Tool::Thread),
        ]
        .prop_map(Step::Computer),
        1 => Just(Step::Agent),
        1 => segment().prop_map(Step::AgentRead),
    ]
}

/// An answer read whole, or (for an endless `follow=true` stream) as far as it got.
struct Raw {
    status: StatusCode,
    headers: HeaderMap,
    text: String,
}

/// Sends a request; a body still open after a second of virtual time is read no further.
async fn raw(mock: &Mock, request: Request<Body>) -> Raw {
    let response = mock
        .router
        .clone()
        .oneshot(request)
        .await
        .expect("router is infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    while let Ok(Some(Ok(frame))) = tokio::time::timeout(Duration::from_secs(1), body.frame()).await
    {
        if let Some(data) = frame.data_ref() {
            bytes.extend_from_slice(data);
        }
    }
    Raw {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn get(path: &str) -> Request<Body> {
    Request::get(path).body(Body::empty()).expect("request")
}

fn form(path: &str, body: String) -> Request<Body> {
    Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .expect("request")
}

/// The control API's error shape: a JSON object whose `error` is a sentence.
fn control_error(raw: &Raw) -> bool {
    serde_json::from_str::<Value>(&raw.text)
        .is_ok_and(|body| body["error"].as_str().is_some_and(|e| !e.is_empty()))
}

/// The OAuth error shape (RFC 6749 section 5.2), or success.
fn oauth_shaped(reply: &Reply) -> bool {
    reply.status.is_success() || reply.status.is_redirection() || reply.body["error"].is_string()
}

/// The Agent API envelope, or success.
fn agent_shaped(reply: &Reply) -> bool {
    reply.status.is_success()
        || (reply.body["error"]["message"].is_string()
            && reply.body["error"]["code"] == reply.status.as_u16())
}

/// A JSON-RPC answer: a result or an error object, for the request's id.
fn jsonrpc_shaped(reply: &Reply) -> bool {
    let message = reply.events.last().unwrap_or(&reply.body);
    message["jsonrpc"] == "2.0" && (message["result"].is_object() || message["error"].is_object())
}

/// The query parameter `name` of a redirect's `Location`.
fn location_parameter(reply: &Reply, name: &str) -> Option<String> {
    let location = reply.headers.get("location")?.to_str().ok()?;
    location
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
        .map(str::to_owned)
}

/// Registers a public client, signs alice in (auto-consent) and exchanges the code; moves the
/// clock by `ms`; refreshes and opens an MCP session with the access token. Every answer must
/// have its documented shape.
async fn sign_in(mock: &Mock, ms: u64) -> Result<(), TestCaseError> {
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    let redirect = "http%3A%2F%2F127.0.0.1%3A9%2Fcb";
    let registered = mock
        .post_json(
            "/oauth/register",
            json!({"redirect_uris": ["http://127.0.0.1:9/cb"], "token_endpoint_auth_method": "none"}),
        )
        .await;
    prop_assert!(oauth_shaped(&registered), "{:?}", registered);
    let Some(client) = registered.body["client_id"].as_str() else {
        return Ok(());
    };
    let authorize = mock
        .get(&format!(
            "/oauth/authorize?response_type=code&client_id={client}&redirect_uri={redirect}\
             &code_challenge={CHALLENGE}&code_challenge_method=S256"
        ))
        .await;
    prop_assert!(oauth_shaped(&authorize), "{:?}", authorize);
    let Some(code) = location_parameter(&authorize, "code") else {
        return Ok(());
    };
    let tokens = mock
        .send(form(
            "/oauth/token",
            format!(
                "grant_type=authorization_code&code={code}&redirect_uri={redirect}\
                 &client_id={client}&code_verifier={VERIFIER}"
            ),
        ))
        .await;
    prop_assert!(oauth_shaped(&tokens), "{:?}", tokens);
    let (Some(access), Some(refresh)) = (
        tokens.body["access_token"].as_str(),
        tokens.body["refresh_token"].as_str(),
    ) else {
        return Ok(());
    };
    let moved = mock
        .post_json("/_mock/clock/advance", json!({"ms": ms}))
        .await;
    prop_assert!(moved.status == StatusCode::OK || moved.status == StatusCode::BAD_REQUEST);
    let refreshed = mock
        .send(form(
            "/oauth/token",
            format!("grant_type=refresh_token&refresh_token={refresh}&client_id={client}"),
        ))
        .await;
    prop_assert!(
        oauth_shaped(&refreshed) && !refreshed.status.is_server_error(),
        "{:?}",
        refreshed
    );
    // The old access token, used after the move: an answer, or a 401 with its challenge.
    let call = mock
        .post_mcp(
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", &format!("Bearer {access}")),
            ],
            common::initialize_body("2025-11-25").to_string(),
        )
        .await;
    match call.status {
        StatusCode::OK => prop_assert!(jsonrpc_shaped(&call), "{:?}", call),
        StatusCode::UNAUTHORIZED => {
            prop_assert!(
                call.headers.contains_key(header::WWW_AUTHENTICATE),
                "{:?}",
                call
            );
        }
        other => prop_assert!(
            false,
            "an initialize with an access token answered {}",
            other
        ),
    }
    Ok(())
}

async fn computer(client: &mut common::Client, tool: Tool) -> Result<(), TestCaseError> {
    let (name, arguments) = match tool {
        Tool::Models => ("models_list", json!({})),
        Tool::Projects => ("projects_list", json!({})),
        Tool::Upload => (
            "create_attachment_upload",
            json!({"filename": "a.txt", "mime_type": "text/plain", "size_bytes": 3}),
        ),
        Tool::Thread => ("call_perplexity_computer", json!({"message": "hello"})),
    };
    let reply = client
        .rpc("tools/call", json!({"name": name, "arguments": arguments}))
        .await;
    // A reset in an earlier step forgot the session: 404 with a JSON-RPC error, as documented.
    if reply.status == StatusCode::NOT_FOUND {
        prop_assert!(reply.body["error"].is_object(), "{:?}", reply);
        return Ok(());
    }
    prop_assert_eq!(reply.status, StatusCode::OK, "{:?}", reply);
    prop_assert!(jsonrpc_shaped(&reply), "{:?}", reply);
    let result = &reply.events.last().unwrap_or(&reply.body)["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let thread = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|t| t["thread_id"].as_str().map(str::to_owned));
    if let (Tool::Thread, Some(thread)) = (tool, thread) {
        let read = client
            .rpc(
                "tools/call",
                json!({"name": "read_thread", "arguments": {"thread_id": thread}}),
            )
            .await;
        prop_assert_eq!(read.status, StatusCode::OK, "{:?}", read);
        prop_assert!(jsonrpc_shaped(&read), "{:?}", read);
    }
    Ok(())
}

async fn run(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let mock = Mock::with(MockServer::builder().auto_consent("alice"));
    let mut client = mock.session("alice-dev-token").await;
    for step in steps {
        match step {
            Step::Advance(ms) => {
                let reply = mock
                    .post_json("/_mock/clock/advance", json!({"ms": ms}))
                    .await;
                match reply.status {
                    StatusCode::OK => prop_assert!(reply.body["now"].is_string()),
                    StatusCode::BAD_REQUEST => prop_assert!(reply.body["error"].is_string()),
                    other => prop_assert!(false, "advance {} answered {}", ms, other),
                }
            }
            Step::Clock => {
                let reply = mock.get("/_mock/clock").await;
                prop_assert_eq!(reply.status, StatusCode::OK);
                prop_assert!(reply.body["now"].is_string(), "{:?}", reply);
            }
            Step::Reset => {
                let reply = mock.post_json("/_mock/reset", json!({})).await;
                prop_assert_eq!(reply.status, StatusCode::OK);
            }
            Step::Accounts => {
                let reply = mock.get("/_mock/accounts").await;
                prop_assert_eq!(reply.status, StatusCode::OK);
                prop_assert!(reply.body["accounts"].is_array(), "{:?}", reply);
            }
            Step::TopUp(segment) => {
                let path = format!("/_mock/accounts/{segment}/top-up");
                let raw = raw(
                    &mock,
                    Request::post(&path).body(Body::empty()).expect("uri"),
                )
                .await;
                match raw.status {
                    StatusCode::OK => prop_assert!(raw.text.contains("\"credits\"")),
                    StatusCode::NOT_FOUND | StatusCode::BAD_REQUEST => {
                        prop_assert!(control_error(&raw), "{} answered {}", path, raw.text);
                    }
                    other => prop_assert!(false, "{} answered {}", path, other),
                }
            }
            Step::Billing(segment) => {
                let path = format!("/_mock/billing/{segment}");
                let raw = raw(&mock, get(&path)).await;
                prop_assert!(
                    !raw.status.is_server_error() && raw.text.contains("<html"),
                    "{} answered {} {}",
                    path,
                    raw.status,
                    raw.text
                );
            }
            Step::Journal(query) => {
                let path = format!("/_mock/journal?{query}");
                let raw = raw(&mock, get(&path)).await;
                match raw.status {
                    StatusCode::OK => {
                        prop_assert_eq!(
                            raw.headers.get(header::CONTENT_TYPE),
                            Some(&http::HeaderValue::from_static("application/x-ndjson"))
                        );
                        for line in raw.text.lines() {
                            let parsed = serde_json::from_str::<Value>(line);
                            prop_assert!(parsed.is_ok_and(|v| v.is_object()), "{}: {}", path, line);
                        }
                    }
                    StatusCode::BAD_REQUEST => {
                        prop_assert!(control_error(&raw), "{} answered {}", path, raw.text);
                    }
                    other => prop_assert!(false, "{} answered {}", path, other),
                }
            }
            Step::Token(body) => {
                let reply = mock.send(form("/oauth/token", body.clone())).await;
                prop_assert!(
                    !reply.status.is_success() && reply.body["error"].is_string(),
                    "{} answered {:?}",
                    body,
                    reply
                );
            }
            Step::SignIn(ms) => sign_in(&mock, ms).await?,
            Step::Computer(tool) => computer(&mut client, tool).await?,
            Step::Agent => {
                let reply = mock
                    .agent_create(
                        ALICE,
                        json!({"model": "openai/gpt-5.6-terra", "input": "hi", "background": true}),
                    )
                    .await;
                prop_assert!(agent_shaped(&reply), "{:?}", reply);
                if let Some(id) = reply.body["id"].as_str() {
                    let read = mock.agent_get(ALICE, &format!("/v1/responses/{id}")).await;
                    prop_assert!(agent_shaped(&read), "{:?}", read);
                }
            }
            Step::AgentRead(segment) => {
                let reply = mock
                    .agent_get(ALICE, &format!("/v1/responses/{segment}"))
                    .await;
                prop_assert!(
                    !reply.status.is_success() && agent_shaped(&reply),
                    "{}: {:?}",
                    segment,
                    reply
                );
            }
        }
    }
    // Whatever happened, every surface still answers.
    let clock = mock.get("/_mock/clock").await;
    prop_assert_eq!(clock.status, StatusCode::OK);
    prop_assert_eq!(
        mock.post_json("/_mock/reset", json!({})).await.status,
        StatusCode::OK
    );
    let journal = raw(&mock, get("/_mock/journal")).await;
    prop_assert_eq!(journal.status, StatusCode::OK);
    let mut fresh = mock.session("alice-dev-token").await;
    let models = fresh
        .rpc(
            "tools/call",
            json!({"name": "models_list", "arguments": {}}),
        )
        .await;
    prop_assert!(models.body["result"]["structuredContent"]["models"].is_array());
    let agent = mock.agent_get(ALICE, "/v1/models").await;
    prop_assert!(agent_shaped(&agent), "{:?}", agent);
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_path_segment_that_is_not_utf8_gets_each_surface_shape() {
    let mock = Mock::new();
    let top_up = raw(
        &mock,
        Request::post("/_mock/accounts/%FF/top-up")
            .body(Body::empty())
            .expect("uri"),
    )
    .await;
    assert_eq!(top_up.status, StatusCode::BAD_REQUEST);
    assert!(control_error(&top_up), "{}", top_up.text);
    assert!(
        top_up.text.contains("not valid percent-encoded UTF-8"),
        "{}",
        top_up.text
    );
    for page in ["/_mock/billing/%FF", "/_mock/projects/%FF"] {
        let answer = raw(&mock, get(page)).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{page}");
        assert!(answer.text.contains("<html"), "{page}: {}", answer.text);
    }
    let form = raw(
        &mock,
        Request::post("/_mock/billing/%FF/top-up")
            .body(Body::empty())
            .expect("uri"),
    )
    .await;
    assert_eq!(form.status, StatusCode::NOT_FOUND);
    assert!(form.text.contains("<html"), "{}", form.text);
    let upload = raw(&mock, get("/_mock/uploads/a/%FF")).await;
    assert_eq!(upload.status, StatusCode::NOT_FOUND);
    assert!(
        upload.text.contains("<Code>NoSuchKey</Code>"),
        "{}",
        upload.text
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn no_control_oauth_computer_or_agent_request_panics_the_mock(
        steps in proptest::collection::vec(step(), 1..10)
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("runtime");
        runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(3600), run(steps))
                .await
                .unwrap_or_else(|_| Err(TestCaseError::fail("a step hung")))
        })?;
    }
}
