//! `mock-server record` and `verify` against a second mock as the upstream, on loopback and on
//! driven clocks (a call the client waits on jumps to its next event; nothing sleeps): a
//! recorded `#timeout-then-complete` replays the same events, statuses and results; nothing
//! secret sent through the proxy is written; `verify` passes against the same upstream and
//! names the field that differs against a changed one.

use std::time::Duration;

use mock_server::record::{Proxy, UserRedactions, VerifyOptions, write_fixture};
use mock_server::{MockServer, TOKEN_PATH};
use serde_json::{Value, json};

const TOKEN: &str = "alice-dev-token";
const FIRST: &str = "#timeout-then-complete Summarize the top 5 stories on Hacker News right now";

async fn upstream(scenario: Option<&str>) -> MockServer {
    let mut builder = MockServer::builder()
        .listen("127.0.0.1:0")
        .driven_clock(Duration::from_secs(60))
        .auto_consent("alice");
    if let Some(json) = scenario {
        builder = builder.scenario_json(json).expect("scenario");
    }
    builder.start().await.expect("mock starts")
}

/// A small handshake-era MCP client: each answer's JSON-RPC result (the last SSE event's).
struct Client {
    http: reqwest::Client,
    url: String,
    token: String,
    session: Option<String>,
    next_id: u64,
}

impl Client {
    async fn connect(base: &str, token: &str) -> Self {
        let mut client = Self {
            http: reqwest::Client::new(),
            url: format!("{base}{}", mock_server::MCP_PATH),
            token: token.to_owned(),
            session: None,
            next_id: 1,
        };
        client
            .rpc(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "record-test", "version": "1"}}),
            )
            .await;
        client.notify("notifications/initialized").await;
        client
    }

    async fn post(&mut self, body: &Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .json(body);
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let response = request.send().await.expect("mcp answers");
        if let Some(id) = response.headers().get("mcp-session-id") {
            self.session = id.to_str().ok().map(str::to_owned);
        }
        response
    }

    async fn notify(&mut self, method: &str) {
        self.post(&json!({"jsonrpc": "2.0", "method": method}))
            .await;
    }

    async fn rpc(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let text = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
            .text()
            .await
            .expect("body");
        let last = text.lines().rev().find_map(|l| l.strip_prefix("data: "));
        let answer: Value = serde_json::from_str(last.unwrap_or(&text)).expect("json");
        answer["result"].clone()
    }

    async fn tool(&mut self, name: &str, arguments: Value) -> Value {
        let result = self
            .rpc(
                "tools/call",
                json!({"name": name, "arguments": arguments,
                "_meta": {"progressToken": self.next_id}}),
            )
            .await;
        result["structuredContent"].clone()
    }
}

/// The `#timeout-then-complete` conversation: a call that times out, then `read_thread` until
/// the task settles. Returns what the client saw, ids and times masked.
async fn timeout_then_complete(base: &str) -> Vec<Value> {
    let mut client = Client::connect(base, TOKEN).await;
    let mut seen = Vec::new();
    let first = client
        .tool("call_perplexity_computer", json!({"message": FIRST}))
        .await;
    let thread = first["thread_id"].clone();
    seen.push(first);
    for _ in 0..10 {
        let read = client
            .tool("read_thread", json!({"thread_id": thread}))
            .await;
        let settled = read["web_state"]["task_status"] != "working";
        seen.push(read);
        if settled {
            break;
        }
    }
    mask(seen)
}

fn mask(seen: Vec<Value>) -> Vec<Value> {
    let text = serde_json::to_string(&seen).unwrap_or_default();
    let ids = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        .expect("regex");
    serde_json::from_str(&ids.replace_all(&text, "<id>")).unwrap_or_default()
}

/// Records `conversation` through a proxy in front of `upstream`; returns the fixture's text.
async fn record<F, Fut>(upstream: &MockServer, out: &std::path::Path, conversation: F) -> String
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let proxy = Proxy::start(upstream.uri(), "127.0.0.1:0")
        .await
        .expect("proxy");
    conversation(proxy.uri().to_owned()).await;
    let captures = proxy.stop().await;
    write_fixture(
        &captures,
        upstream.uri(),
        out,
        None,
        &UserRedactions::default(),
    )
    .expect("written");
    std::fs::read_to_string(out).expect("fixture")
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("record-replay-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    dir.join("timeout-then-complete.json")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_timeout_then_complete_replays_the_same_events_statuses_and_results() {
    let live = upstream(None).await;
    let out = temp_file("replay");
    let fixture = record(&live, &out, |base| async move {
        let direct = timeout_then_complete(&base).await;
        // The proxy answered what the upstream answered.
        assert_eq!(direct[0]["event"], "timeout");
        assert_eq!(
            direct.last().map(|r| r["web_state"]["task_status"].clone()),
            Some(json!("completed"))
        );
    })
    .await;
    let recorded: Value = serde_json::from_str(&fixture).expect("json");
    // The upstream's own timestamps became the step durations.
    let durations: Vec<&Value> = recorded["turns"][0]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|s| &s["duration"])
        .collect();
    assert_eq!(
        durations,
        [
            &json!(30_000),
            &json!(60_000),
            &json!(50_000),
            &json!(40_000)
        ]
    );

    // The fixture is valid against the schema (the builder checks it) and plays under its name.
    let replay = upstream(Some(&fixture)).await;
    // What a fresh upstream answers (the replay's clock starts where a fresh mock's does).
    let fresh = upstream(None).await;
    let before = timeout_then_complete(fresh.uri()).await;
    let replayed = timeout_then_complete(replay.uri()).await;
    let events = |seen: &[Value]| -> Vec<(Value, Value)> {
        seen.iter()
            .map(|r| {
                let status = r
                    .get("task_status")
                    .unwrap_or(&r["web_state"]["task_status"]);
                (r["event"].clone(), status.clone())
            })
            .collect()
    };
    assert_eq!(events(&replayed), events(&before));
    assert_eq!(
        replayed, before,
        "the replay answers exactly as the upstream did"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_recorded_byte_equals_a_credential_sent() {
    let live = upstream(None).await;
    let out = temp_file("secrets");
    let proxy = Proxy::start(live.uri(), "127.0.0.1:0")
        .await
        .expect("proxy");
    let base = proxy.uri().to_owned();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    // OAuth sign-in through the proxy: registration, an auto-consented code, the exchange.
    let registered: Value = http
        .post(format!("{base}/oauth/register"))
        .json(&json!({"client_name": "t", "redirect_uris": ["http://127.0.0.1:9/cb"],
            "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"]}))
        .send().await.expect("register").json().await.expect("json");
    let client_id = registered["client_id"]
        .as_str()
        .expect("client_id")
        .to_owned();
    let verifier = "a-very-secret-code-verifier-0123456789-abcdefghij";
    let challenge = mock_server::pkce_s256_challenge(verifier);
    let resource = format!("{base}{}", mock_server::MCP_PATH);
    let authorize = http
        .get(format!("{base}/oauth/authorize"))
        .query(&[
            ("response_type", "code"),
            ("client_id", &client_id),
            ("redirect_uri", "http://127.0.0.1:9/cb"),
            ("state", "s1"),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
            ("resource", &resource),
        ])
        .send()
        .await
        .expect("authorize");
    let location = authorize.headers()["location"]
        .to_str()
        .expect("location")
        .to_owned();
    let code = location
        .split("code=")
        .nth(1)
        .and_then(|c| c.split('&').next())
        .expect("code")
        .to_owned();
    let token: Value = http
        .post(format!("{base}{TOKEN_PATH}"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:9/cb"),
            ("client_id", &client_id),
            ("code_verifier", verifier),
            ("resource", &resource),
        ])
        .send()
        .await
        .expect("token")
        .json()
        .await
        .expect("json");
    let access = token["access_token"]
        .as_str()
        .expect("access token")
        .to_owned();
    let refresh = token["refresh_token"]
        .as_str()
        .expect("refresh token")
        .to_owned();
    // The Computer surface with the issued token, an upload envelope, and an Agent API request
    // whose mcp tool carries a third party's credentials.
    let mut mcp = Client::connect(&base, &access).await;
    mcp.tool(
        "call_perplexity_computer",
        json!({"message": "#complete hello alice@example.com"}),
    )
    .await;
    let envelope = mcp
        .tool(
            "create_attachment_upload",
            json!({"filename": "a.csv", "content_type": "text/csv"}),
        )
        .await;
    let agent_secret = "ghp_third-party-secret-123456";
    let header_secret = "header-secret-7890";
    http.post(format!("{base}/v1/responses"))
        .bearer_auth(TOKEN)
        .header("cookie", "session=cookie-secret-abcdef")
        .json(
            &json!({"model": "openai/gpt-5.6-terra", "input": "#default hi",
            "tools": [{"type": "mcp", "server_label": "x", "server_url": "http://127.0.0.1:9/mcp",
                       "authorization": agent_secret, "headers": {"X-Key": header_secret}}]}),
        )
        .send()
        .await
        .expect("agent");
    let captures = proxy.stop().await;
    let redactions = UserRedactions::new(&["alice@example\\.com".to_owned()]).expect("pattern");
    write_fixture(&captures, live.uri(), &out, Some("secrets"), &redactions).expect("written");
    let written = std::fs::read_to_string(&out).expect("fixture");

    let mut sent: Vec<String> = vec![
        TOKEN.into(),
        access,
        refresh,
        code,
        verifier.into(),
        agent_secret.into(),
        header_secret.into(),
        "cookie-secret-abcdef".into(),
    ];
    for field in envelope["upload_fields"]
        .as_object()
        .into_iter()
        .flat_map(|f| f.values())
    {
        sent.push(field.as_str().unwrap_or_default().to_owned());
    }
    sent.extend(
        mock_server::record::Secrets::of(&captures)
            .values()
            .map(str::to_owned),
    );
    assert!(
        sent.len() > 9,
        "the envelope had presigned fields: {envelope}"
    );
    for secret in sent.iter().filter(|s| s.len() >= 6) {
        assert!(!written.contains(secret.as_str()), "`{secret}` was written");
    }
    assert!(
        !written.contains("alice@example.com"),
        "the --redact pattern was applied"
    );
    assert!(written.contains("<redacted>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_passes_against_the_same_upstream_and_names_the_field_a_changed_one_differs_in() {
    let live = upstream(None).await;
    let out = temp_file("verify");
    record(&live, &out, |base| async move {
        timeout_then_complete(&base).await;
    })
    .await;
    let recorded = mock_server::record::recorded_exchanges(&out).expect("recording");
    let options = |upstream: &MockServer| VerifyOptions {
        upstream: upstream.uri().to_owned(),
        token: Some(TOKEN.into()),
        wait: false,
        stream_timeout: Duration::from_secs(5),
    };
    let same = upstream(None).await;
    let report = mock_server::record::verify(&recorded, &options(&same))
        .await
        .expect("verify");
    assert!(report.matches(), "{report}");

    // The service moved: its answers now cite sources and the task finishes inside the window.
    let changed = upstream(Some(
        r#"{"name": "timeout-then-complete", "description": "changed", "turns": [{"steps": [
            {"title": "Searching", "type": "search_web", "duration": "10s"}],
            "outcome": {"event": "complete", "text": "Done.", "sources": [{"url": "https://example.com/"}]}}]}"#,
    ))
    .await;
    let report = mock_server::record::verify(&recorded, &options(&changed))
        .await
        .expect("verify");
    assert!(!report.matches());
    let shown = report.to_string();
    assert!(
        shown.contains(".event: value changed: \"timeout\" recorded, \"complete\" now"),
        "{shown}"
    );
    assert!(shown.contains(".sources: field added"), "{shown}");

    // The command line exits 0 and 1 the same way.
    let bin = env!("CARGO_BIN_EXE_mock-server");
    for (mock, code) in [(&same, 0), (&changed, 1)] {
        let status = tokio::process::Command::new(bin)
            .args(["verify", "--no-wait", "--upstream", mock.uri()])
            .arg(&out)
            .env("PERPLEXITY_API_KEY", TOKEN)
            .stdout(std::process::Stdio::null())
            .status()
            .await
            .expect("runs");
        assert_eq!(status.code(), Some(code), "against {}", mock.uri());
    }
}

/// An `https://` upstream is reached over TLS: against a server that speaks plain HTTP the
/// handshake is attempted and fails, and the proxy and `verify` say why in a sentence (not
/// "scheme not supported", which a build without TLS gave).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_https_upstream_is_attempted_over_tls_and_a_failure_is_explained() {
    let plain_http = upstream(None).await;
    let https = plain_http.uri().replacen("http://", "https://", 1);
    let proxy = Proxy::start(&https, "127.0.0.1:0").await.expect("proxy");
    let answer = reqwest::Client::new()
        .post(format!("{}{}", proxy.uri(), mock_server::MCP_PATH))
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#)
        .send()
        .await
        .expect("the proxy answers");
    assert_eq!(answer.status(), 502);
    let text = answer.text().await.unwrap_or_default();
    assert!(
        text.contains(&format!("the upstream {https} did not answer")),
        "{text}"
    );
    assert!(!text.contains("scheme"), "{text}");
    let lower = text.to_lowercase();
    assert!(
        lower.contains("tls")
            || lower.contains("certificate")
            || lower.contains("handshake")
            || lower.contains("corrupt message"),
        "not a TLS failure: {text}"
    );
    drop(proxy.stop().await);

    let recorded = vec![json!({"wait_ms": 0, "request": {"method": "POST",
        "path": mock_server::MCP_PATH, "headers": {"content-type": "application/json"},
        "body": {"jsonrpc": "2.0", "id": 1, "method": "ping"}},
        "response": {"status": 200}})];
    let options = VerifyOptions {
        upstream: https.clone(),
        token: None,
        wait: false,
        stream_timeout: Duration::from_secs(5),
    };
    let report = mock_server::record::verify(&recorded, &options)
        .await
        .expect("verify runs");
    assert!(!report.matches());
    let shown = report.to_string();
    assert!(shown.contains("the upstream did not answer"), "{shown}");
    assert!(!shown.contains("scheme"), "{shown}");
}

/// One fixture is one scenario: a recording with two Computer threads scripts the first and
/// says, in the fixture's description, that the other is not replayed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_thread_is_left_out_of_the_script_and_the_fixture_says_so() {
    let live = upstream(None).await;
    let out = temp_file("two-threads");
    let text = record(&live, &out, |base| async move {
        let mut client = Client::connect(&base, TOKEN).await;
        for message in ["#complete first thread", "#complete second thread"] {
            let started = client
                .tool("call_perplexity_computer", json!({"message": message}))
                .await;
            assert!(started["thread_id"].is_string(), "{started}");
        }
    })
    .await;
    let fixture: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(fixture["turns"].as_array().map(Vec::len), Some(1), "{text}");
    assert_eq!(
        fixture["match"],
        json!("^\\#complete first thread$"),
        "{text}"
    );
    let description = fixture["description"].as_str().unwrap_or_default();
    assert!(
        description.contains("1 other thread(s) seen are kept in `recording`"),
        "{description}"
    );
}

/// An Agent API conversation (a background run polled to its end, then a streamed one) as the
/// client saw it: each response's status and output items (ids masked), and the stream's event
/// types in order.
async fn background_then_stream(base: &str) -> Value {
    const INPUT: &str = "Explain record and replay in one paragraph";
    let http = reqwest::Client::new();
    let create = |body: Value| {
        http.post(format!("{base}/v1/responses"))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
    };
    let mut response: Value = create(json!({"model": "openai/gpt-5.6-terra", "input": INPUT,
        "background": true}))
    .await
    .expect("create")
    .json()
    .await
    .expect("json");
    let mut statuses = vec![response["status"].clone()];
    for _ in 0..20 {
        if !matches!(response["status"].as_str(), Some("queued" | "in_progress")) {
            break;
        }
        let id = response["id"].as_str().unwrap_or_default().to_owned();
        response = http
            .get(format!("{base}/v1/responses/{id}"))
            .bearer_auth(TOKEN)
            .send()
            .await
            .expect("poll")
            .json()
            .await
            .expect("json");
        statuses.push(response["status"].clone());
    }
    statuses.dedup();
    let stream = create(json!({"model": "openai/gpt-5.6-terra", "input": INPUT, "stream": true}))
        .await
        .expect("stream")
        .text()
        .await
        .unwrap_or_default();
    let events: Vec<Value> = stream
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .collect();
    let types: Vec<Value> = events.iter().map(|e| e["type"].clone()).collect();
    let streamed = events
        .iter()
        .rev()
        .find_map(|e| e.get("response").filter(|r| r["status"] == "completed"))
        .cloned()
        .unwrap_or(Value::Null);
    let items = |response: &Value| -> Vec<Value> {
        response["output"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|item| json!({"type": item["type"], "content": item["content"]}))
            .collect()
    };
    json!({"statuses": statuses, "background": items(&response), "stream_types": types,
        "streamed": items(&streamed)})
}

/// An Agent API recording replays: the same statuses, output items and stream event types.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorded_agent_api_background_and_stream_conversation_replays_the_same() {
    let live = upstream(None).await;
    let out = temp_file("agent");
    let mut direct = Value::Null;
    let fixture = record(&live, &out, |base| {
        let direct = &mut direct;
        async move {
            *direct = background_then_stream(&base).await;
        }
    })
    .await;
    assert_eq!(
        direct["statuses"].as_array().and_then(|s| s.last()),
        Some(&json!("completed")),
        "{direct}"
    );
    assert!(
        direct["stream_types"]
            .as_array()
            .is_some_and(|t| t.len() > 2),
        "{direct}"
    );
    assert!(
        direct["background"]
            .as_array()
            .is_some_and(|i| !i.is_empty()),
        "{direct}"
    );
    let recorded: Value = serde_json::from_str(&fixture).expect("json");
    // The second create (no previous_response_id, the same input) is a fresh conversation: it
    // plays turn 0 again, so the script has one turn, read from the stream (reasoning and all).
    let turns = recorded["agent"]["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 1, "{fixture}");
    assert_eq!(turns[0]["steps"][0]["type"], "reasoning", "{fixture}");
    let replay = upstream(Some(&fixture)).await;
    let replayed = background_then_stream(replay.uri()).await;
    assert_eq!(replayed, direct, "fixture: {fixture}");
}
