//! The normalised journal (`mock_server::journal::normalize`, `GET /_mock/journal?normalize=true`):
//! two runs of the same client on mocks with other ports, tokens, ids and random OAuth values
//! give the same document, each random value a numbered placeholder.

use axum::Router;
use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use mock_server::{MockHandle, MockServer, percent_encode};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::Mock;

/// RFC 7636 Appendix B: a verifier and its S256 challenge.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// A mock on `base`, and what the client learnt so far.
struct Run {
    router: Router,
    handle: MockHandle,
    base: String,
}

impl Run {
    fn new(port: u16) -> Self {
        let base = format!("http://127.0.0.1:{port}");
        let (router, handle) = MockServer::builder()
            .auto_consent("alice")
            .router(&base)
            .expect("mock builds");
        Self {
            router,
            handle,
            base,
        }
    }

    async fn send(&self, request: Request<Body>) -> (StatusCode, http::HeaderMap, String) {
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("infallible");
        let (status, headers) = (response.status(), response.headers().clone());
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        (
            status,
            headers,
            String::from_utf8_lossy(&bytes).into_owned(),
        )
    }

    async fn mcp(
        &self,
        token: &str,
        session: Option<&str>,
        body: Value,
    ) -> (http::HeaderMap, String) {
        let mut request = Request::post("/rest/computer/mcp")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("authorization", format!("Bearer {token}"))
            .header("user-agent", format!("client/{}", self.base.len()));
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let (status, headers, text) = self
            .send(request.body(Body::from(body.to_string())).expect("request"))
            .await;
        assert!(status.is_success(), "{status}: {text}");
        (headers, text)
    }
}

fn query_param(url: &str, name: &str) -> String {
    url.split_once('?')
        .map_or("", |(_, q)| q)
        .split('&')
        .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
        .unwrap_or_default()
        .to_owned()
}

/// What one client does: a 401, discovery, registration, consent (approved at once), the token,
/// then an MCP session with one Computer call. `state` is the client's random value.
async fn client(run: &Run, state: &str) {
    let (status, _, _) = run
        .send(
            Request::post("/rest/computer/mcp")
                .body(Body::from("{}"))
                .expect("request"),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    run.send(
        Request::get("/.well-known/oauth-protected-resource/rest/computer/mcp")
            .body(Body::empty())
            .expect("request"),
    )
    .await;
    let redirect = "http://127.0.0.1:33418/callback";
    let (_, _, registered) = run
        .send(
            Request::post("/oauth/register")
                .header("content-type", "application/json")
                .body(Body::from(
                    json!({"client_name": "n", "redirect_uris": [redirect],
                           "token_endpoint_auth_method": "none"})
                    .to_string(),
                ))
                .expect("request"),
        )
        .await;
    let registered: Value = serde_json::from_str(&registered).expect("json");
    let client_id = registered["client_id"].as_str().expect("client_id");
    let resource = format!("{}/rest/computer/mcp", run.base);
    let authorize = format!(
        "/oauth/authorize?response_type=code&client_id={client_id}&redirect_uri={}&state={state}\
         &code_challenge={CHALLENGE}&code_challenge_method=S256&resource={}",
        percent_encode(redirect),
        percent_encode(&resource)
    );
    let (status, headers, _) = run
        .send(
            Request::get(authorize)
                .body(Body::empty())
                .expect("request"),
        )
        .await;
    assert_eq!(status, StatusCode::FOUND);
    let location = headers["location"].to_str().expect("location");
    let code = query_param(location, "code");
    let form = format!(
        "grant_type=authorization_code&code={code}&code_verifier={VERIFIER}&client_id={client_id}\
         &redirect_uri={}&resource={}",
        percent_encode(redirect),
        percent_encode(&resource)
    );
    let (status, _, tokens) = run
        .send(
            Request::post("/oauth/token")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::from(form))
                .expect("request"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let tokens: Value = serde_json::from_str(&tokens).expect("json");
    let token = tokens["access_token"].as_str().expect("access_token");
    let (headers, _) = run
        .mcp(
            token,
            None,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "normalize-test", "version": "1"}}}),
        )
        .await;
    let session = headers["mcp-session-id"]
        .to_str()
        .expect("session")
        .to_owned();
    run.mcp(
        token,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let (_, answer) = run
        .mcp(
            token,
            Some(&session),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "call_perplexity_computer", "arguments": {"message": "#complete Hello"}}}),
        )
        .await;
    let answer: Value = serde_json::from_str(&answer).expect("json");
    let thread = answer["result"]["structuredContent"]["thread_id"]
        .as_str()
        .expect("thread_id");
    run.mcp(
        token,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "read_thread", "arguments": {"thread_id": thread}}}),
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn two_runs_with_other_ports_tokens_and_ids_normalise_to_the_same_bytes() {
    let (first, second) = (Run::new(8080), Run::new(41999));
    client(&first, "c3RhdGUtb25l").await;
    client(&second, "YW5vdGhlci1zdGF0ZQ").await;
    let (a, b) = (
        mock_server::journal::normalize(&first.handle.journal().exchanges()),
        mock_server::journal::normalize(&second.handle.journal().exchanges()),
    );
    let (a, b) = (
        serde_json::to_string_pretty(&a).expect("json"),
        serde_json::to_string_pretty(&b).expect("json"),
    );
    assert_eq!(a, b);
    // The raw journals did differ: ports, tokens, the client id, the session and the thread.
    let raw = |run: &Run| run.handle.journal().to_json_lines();
    assert_ne!(raw(&first), raw(&second));
}

#[tokio::test(start_paused = true)]
async fn each_random_value_becomes_a_placeholder_of_its_kind() {
    let run = Run::new(8080);
    client(&run, "c3RhdGUtb25l").await;
    let doc = mock_server::journal::normalize(&run.handle.journal().exchanges());
    let text = doc.to_string();
    // The 401's challenge names the metadata URL with the port replaced.
    assert_eq!(doc[0]["response"]["status"], 401);
    let challenge = doc[0]["response"]["headers"]["www-authenticate"]
        .as_str()
        .expect("challenge");
    assert!(
        challenge.contains("resource_metadata=\"http://127.0.0.1:<port-1>/.well-known/"),
        "{challenge}"
    );
    // The authorization request: its query decoded, the client's random values placeholders.
    let authorize = &doc[3]["request"];
    assert_eq!(authorize["path"], "/oauth/authorize");
    assert_eq!(authorize["query"]["state"], "<random-2>");
    assert_eq!(authorize["query"]["code_challenge"], "<random-1>");
    assert_eq!(authorize["query"]["client_id"], "mock-client-<uuid-1>");
    assert_eq!(
        authorize["query"]["resource"],
        "http://127.0.0.1:<port-1>/rest/computer/mcp"
    );
    // The redirect carries the code (a credential), the same state and the issuer.
    assert_eq!(
        doc[3]["response"]["headers"]["location"],
        "http://127.0.0.1:<port-2>/callback?code=<token-1>&state=<random-2>&iss=http%3A%2F%2F127.0.0.1%3A<port-1>"
    );
    // The token request is a form: the code is the same placeholder, the verifier another.
    let token = &doc[4];
    assert_eq!(token["request"]["form"]["code"], "<token-1>");
    assert_eq!(token["request"]["form"]["code_verifier"], "<token-2>");
    assert_eq!(token["response"]["body"]["access_token"], "<token-3>");
    // MCP: the bearer token is the one issued, ids and the session are placeholders, the
    // user-agent (which varies) is left out.
    let init = &doc[5];
    assert_eq!(
        init["request"]["headers"]["authorization"],
        "Bearer <token-3>"
    );
    assert!(init["request"]["headers"].get("user-agent").is_none());
    assert_eq!(init["request"]["body"]["id"], "<id-1>");
    assert_eq!(init["response"]["body"]["id"], "<id-1>");
    assert_eq!(init["response"]["headers"]["mcp-session-id"], "<session-1>");
    let call = &doc[7];
    assert_eq!(
        call["response"]["body"]["result"]["structuredContent"]["thread_id"],
        "<thread-1>"
    );
    let read = &doc[8];
    assert_eq!(
        read["request"]["body"]["params"]["arguments"]["thread_id"],
        "<thread-1>"
    );
    assert!(text.contains("<time-1>"), "timestamps become placeholders");
    for raw in ["mock-at-", "mock-code-", ":8080", "c3RhdGUtb25l"] {
        assert!(
            !text.contains(raw),
            "{raw} is still in the normalised journal"
        );
    }
}

async fn get(mock: &Mock, path: &str) -> (StatusCode, String, String) {
    let response = mock
        .router
        .clone()
        .oneshot(Request::get(path).body(Body::empty()).expect("request"))
        .await
        .expect("infallible");
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (
        status,
        content_type,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

#[tokio::test(start_paused = true)]
async fn the_journal_endpoint_serves_the_normalised_selection() {
    let mock = Mock::new();
    let mut session = mock.session("alice-dev-token").await;
    session.call("models_list", json!({})).await;
    let (status, content_type, text) =
        get(&mock, "/_mock/journal?normalize=true&path=/rest/*").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(content_type, "application/json");
    let served: Value = serde_json::from_str(&text).expect("one JSON document");
    let selected = mock.handle.journal().query(&mock_server::JournalQuery {
        path: Some("/rest/*".into()),
        ..Default::default()
    });
    assert_eq!(served, mock_server::journal::normalize(&selected));
    assert_eq!(served.as_array().map(Vec::len), Some(3));
    assert_eq!(
        served[2]["request"]["body"]["params"]["name"],
        "models_list"
    );
}

#[tokio::test(start_paused = true)]
async fn normalize_cannot_follow_and_takes_only_true_or_false() {
    let mock = Mock::new();
    for (query, says) in [
        ("normalize=true&follow=true", "cannot follow new exchanges"),
        ("normalize=maybe", "normalize must be true or false"),
        ("sort=asc", "normalize=true"),
    ] {
        let (status, _, text) = get(&mock, &format!("/_mock/journal?{query}")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}");
        let error: Value = serde_json::from_str(&text).expect("json");
        assert!(
            error["error"].as_str().is_some_and(|e| e.contains(says)),
            "{query}: {error}"
        );
    }
    let (status, _, text) = get(&mock, "/_mock/journal?normalize=false").await;
    assert_eq!(status, StatusCode::OK);
    assert!(text.is_empty() || text.starts_with('{'), "{text}");
}

#[tokio::test(start_paused = true)]
async fn identical_polls_collapse_into_one_marked_exchange() {
    let mock = Mock::new();
    let mut session = mock.session("alice-dev-token").await;
    for _ in 0..5 {
        session.call("models_list", json!({})).await;
    }
    let doc = mock_server::journal::normalize(&mock.handle.journal().exchanges());
    let calls: Vec<&Value> = doc
        .as_array()
        .expect("array")
        .iter()
        .filter(|e| e["request"]["body"]["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 1, "{doc:#}");
    assert_eq!(calls[0]["repeats"], "this item, again one or more times");
    let every = mock_server::journal::Normalizer::new()
        .keep_repeats()
        .normalize(&mock.handle.journal().exchanges());
    assert_eq!(every.as_array().map(Vec::len), Some(7));
}
