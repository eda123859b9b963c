//! No request can break the clock: an advance beyond 100 years or past the clock's end is a
//! 400 with a sentence, a time scale out of range stops the mock from starting, and two
//! proptests (a manual and a driven clock) drive the clock endpoint and the time-dependent
//! endpoints with any advance, up to the end of time, asserting no panic, no hang and each
//! surface's documented answer.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::MockServer;
use proptest::prelude::*;
use serde_json::json;

use crate::common::agent::ALICE;
use crate::common::{BASE, MCP, Mock, Reply};

fn manual() -> Mock {
    Mock::with(MockServer::builder().manual_clock().auto_consent("alice"))
}

fn driven() -> Mock {
    Mock::with(
        MockServer::builder()
            .driven_clock(Duration::from_secs(60))
            .auto_consent("alice"),
    )
}

#[tokio::test(start_paused = true)]
async fn an_advance_of_u64_max_ms_is_a_400_and_the_mock_keeps_serving() {
    let mock = manual();
    let reply = mock
        .post_json("/_mock/clock/advance", json!({"ms": u64::MAX}))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let error = reply.body["error"].as_str().expect("a sentence");
    assert!(error.contains("more than the 100 years"), "{error}");
    assert!(error.contains("advance in smaller steps"), "{error}");
    assert_eq!(
        mock.get("/_mock/clock").await.body["now"],
        "2026-10-24T00:11:18.000Z"
    );
    assert_eq!(
        mock.post_json("/_mock/reset", json!({})).await.status,
        StatusCode::OK
    );
    let mut client = mock.session("alice-dev-token").await;
    assert!(client.call("models_list", json!({})).await.is_object());
}

#[tokio::test(start_paused = true)]
async fn the_clock_stops_at_the_end_of_9999_and_an_advance_past_it_is_refused() {
    let mock = manual();
    let century = json!({"ms": 3_155_760_000_000u64});
    let mut steps = 0;
    let refused = loop {
        let reply = mock
            .post_json("/_mock/clock/advance", century.clone())
            .await;
        if reply.status != StatusCode::OK {
            break reply;
        }
        steps += 1;
        assert!(steps < 100, "8,000 years take fewer than 100 centuries");
    };
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    let error = refused.body["error"].as_str().expect("a sentence");
    assert!(error.contains("past 9999-12-31T23:59:59.999Z"), "{error}");
    // Sign-in, refresh and the Agent API still answer at the end of time (a run in the
    // background; its steps, all due past the end, happen at once).
    let reply = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "hi", "background": true}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let tokens = sign_in(&mock).await;
    assert_eq!(tokens.status, StatusCode::OK, "{tokens:?}");
}

#[tokio::test(start_paused = true)]
async fn a_time_scale_out_of_range_stops_the_mock_from_starting() {
    for factor in [1e12, 0.0, -3.0, f64::NAN] {
        let error = MockServer::builder()
            .time_scale(factor)
            .router(BASE)
            .err()
            .expect("refused");
        assert!(
            error.to_string().contains("from 0.001 to 1000000"),
            "{error}"
        );
    }
}

#[test]
fn the_command_line_refuses_a_huge_time_scale_with_a_sentence() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_mock-server"))
        .args(["--listen", "127.0.0.1:0", "--time-scale", "1e12"])
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("from 0.001 to 1000000"), "{stderr}");
}

/// Registers a public client, gets a code at once (auto-consent) and exchanges and refreshes
/// it: the answer to the refresh.
async fn sign_in(mock: &Mock) -> Reply {
    const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    let redirect = "http%3A%2F%2F127.0.0.1%3A9%2Fcb";
    let registered = mock
        .post_json(
            "/oauth/register",
            json!({"redirect_uris": ["http://127.0.0.1:9/cb"], "token_endpoint_auth_method": "none"}),
        )
        .await;
    let Some(client) = registered.body["client_id"].as_str() else {
        return registered;
    };
    let authorize = mock
        .get(&format!(
            "/oauth/authorize?response_type=code&client_id={client}&redirect_uri={redirect}\
             &code_challenge={CHALLENGE}&code_challenge_method=S256"
        ))
        .await;
    let code = authorize
        .headers
        .get("location")
        .and_then(|l| l.to_str().ok())
        .and_then(|l| l.split(['?', '&']).find_map(|p| p.strip_prefix("code=")))
        .map(str::to_owned);
    let Some(code) = code else {
        return authorize;
    };
    let tokens = form(
        mock,
        &format!(
            "grant_type=authorization_code&code={code}&redirect_uri={redirect}\
             &client_id={client}&code_verifier={VERIFIER}"
        ),
    )
    .await;
    let Some(refresh) = tokens.body["refresh_token"].as_str() else {
        return tokens;
    };
    form(
        mock,
        &format!("grant_type=refresh_token&refresh_token={refresh}&client_id={client}"),
    )
    .await
}

async fn form(mock: &Mock, body: &str) -> Reply {
    let request = Request::post("/oauth/token")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body.to_owned()))
        .expect("request");
    mock.send(request).await
}

/// One step of the property test.
#[derive(Debug, Clone)]
enum Step {
    /// `POST /_mock/clock/advance` with this many milliseconds.
    Advance(u64),
    /// An advance body that is no `{"ms": N}`.
    BadAdvance(String),
    /// A whole OAuth sign-in and refresh.
    SignIn,
    /// An Agent API background response, created then read.
    Background,
    /// An upload envelope (it expires on the virtual clock).
    Upload,
    /// Advances (a century at a time, then the rest) to the clock's last instant.
    EndOfTime,
    /// A `call_perplexity_computer` the client is blocked on (driven clock only: a manual
    /// clock would wait for an advance).
    BlockingCall,
    /// A synchronous Agent API run (driven clock only, likewise).
    SyncRun,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => prop_oneof![
            any::<u64>(),
            0..=3_155_760_000_000u64,
            3_155_760_000_000u64..=3_155_760_000_010u64,
            Just(u64::MAX),
            Just(8_200_000_000_000_000u64),
        ]
        .prop_map(Step::Advance),
        1 => "[ -~]{0,12}".prop_map(Step::BadAdvance),
        1 => Just(Step::SignIn),
        1 => Just(Step::Background),
        1 => Just(Step::Upload),
        1 => Just(Step::EndOfTime),
    ]
}

/// [`step`], plus the requests a client is blocked on, for a driven clock.
fn driven_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => step(),
        1 => Just(Step::BlockingCall),
        1 => Just(Step::SyncRun),
    ]
}

/// The last instant the clock shows.
const END_OF_TIME: &str = "9999-12-31T23:59:59.999Z";

/// Advances to [`END_OF_TIME`]: centuries while they fit, then the milliseconds left.
async fn to_the_end_of_time(mock: &Mock) -> Result<(), TestCaseError> {
    let century = json!({"ms": 3_155_760_000_000u64});
    while mock
        .post_json("/_mock/clock/advance", century.clone())
        .await
        .status
        .is_success()
    {}
    let now = mock.get("/_mock/clock").await.body["now"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let rest = chrono::DateTime::parse_from_rfc3339(END_OF_TIME)
        .ok()
        .zip(chrono::DateTime::parse_from_rfc3339(&now).ok())
        .map(|(end, now)| (end - now).num_milliseconds());
    prop_assert!(rest.is_some(), "an RFC 3339 time: {}", now);
    let reply = mock
        .post_json("/_mock/clock/advance", json!({"ms": rest}))
        .await;
    prop_assert_eq!(&reply.body["now"], END_OF_TIME, "{:?}", reply);
    Ok(())
}

/// The OAuth error shape, or success.
fn oauth_shaped(reply: &Reply) -> bool {
    reply.status.is_success() || reply.status.is_redirection() || reply.body["error"].is_string()
}

/// The Agent API envelope, or success.
fn agent_shaped(reply: &Reply) -> bool {
    reply.status.is_success()
        || (reply.body["error"]["message"].is_string()
            && reply.body["error"]["code"] == reply.status.as_u16())
}

async fn run(mock: Mock, steps: Vec<Step>) -> Result<(), TestCaseError> {
    let mut client = mock.session("alice-dev-token").await;
    for step in steps {
        match step {
            Step::Advance(ms) => {
                let reply = mock
                    .post_json("/_mock/clock/advance", json!({"ms": ms}))
                    .await;
                match reply.status {
                    StatusCode::OK => prop_assert!(reply.body["now"].is_string()),
                    StatusCode::BAD_REQUEST => {
                        let error = reply.body["error"].as_str().unwrap_or_default();
                        prop_assert!(error.contains("advanc"), "{}", error);
                    }
                    other => prop_assert!(false, "advance {} answered {}", ms, other),
                }
            }
            Step::BadAdvance(text) => {
                let request = Request::post("/_mock/clock/advance")
                    .body(Body::from(text))
                    .expect("request");
                let reply = mock.send(request).await;
                prop_assert_eq!(reply.status, StatusCode::BAD_REQUEST);
                prop_assert!(reply.body["error"].is_string());
            }
            Step::SignIn => {
                let reply = sign_in(&mock).await;
                prop_assert!(oauth_shaped(&reply), "{:?}", reply);
            }
            Step::Background => {
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
            Step::Upload => {
                let reply = client
                    .rpc(
                        "tools/call",
                        json!({"name": "create_attachment_upload", "arguments":
                               {"filename": "a.txt", "mime_type": "text/plain", "size_bytes": 3}}),
                    )
                    .await;
                prop_assert_eq!(reply.status, StatusCode::OK);
                prop_assert!(reply.body["result"].is_object() || reply.body["error"].is_object());
            }
            Step::EndOfTime => to_the_end_of_time(&mock).await?,
            Step::BlockingCall => {
                let result = client.start("#timeout-then-complete Summarize HN").await;
                let event = result["event"].as_str().unwrap_or_default();
                prop_assert!(["timeout", "complete"].contains(&event), "{}", result);
            }
            Step::SyncRun => {
                let reply = mock
                    .agent_create(ALICE, json!({"preset": "medium", "input": "hi"}))
                    .await;
                prop_assert_eq!(reply.status, StatusCode::OK, "{:?}", reply);
            }
        }
    }
    // Whatever happened, every surface still answers.
    let clock = mock.get("/_mock/clock").await;
    prop_assert_eq!(clock.status, StatusCode::OK);
    let now = clock.body["now"].as_str().unwrap_or_default().to_owned();
    prop_assert!(
        now.len() == 24 && now.ends_with('Z'),
        "an RFC 3339 time: {}",
        now
    );
    prop_assert_eq!(
        mock.post_json("/_mock/reset", json!({})).await.status,
        StatusCode::OK
    );
    let reply = mock
        .post_json(MCP, json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    prop_assert!(reply.body["jsonrpc"] == "2.0", "{:?}", reply);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn no_advance_and_no_time_dependent_request_panics_the_mock(
        steps in proptest::collection::vec(step(), 1..8)
    ) {
        within_a_minute(manual, steps)?;
    }

    #[test]
    fn on_a_driven_clock_no_request_hangs_even_at_the_end_of_time(
        steps in proptest::collection::vec(driven_step(), 1..8)
    ) {
        within_a_minute(driven, steps)?;
    }
}

/// Runs the steps on a paused runtime; a step still waiting after a minute fails the case (a
/// wait that spins never yields, so such a case hangs the test instead of failing it).
fn within_a_minute(mock: fn() -> Mock, steps: Vec<Step>) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("runtime");
    runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), run(mock(), steps))
            .await
            .unwrap_or_else(|_| Err(TestCaseError::fail("a step hung")))
    })
}
