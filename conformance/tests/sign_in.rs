//! The sign-in scenarios' stage: the client gets no token and meets a 401 challenge, and
//! `--auto-consent` (the stage's `auto_consent`) lets a client that opens the authorization URL
//! itself get its code at once, as clients written for the official MCP conformance runner do.

use conformance::runner::{RunClock, Stage, StageOptions};
use conformance::suite::{self, SignIn};
use serde_json::{Value, json};

const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

async fn stage(auto_consent: bool) -> Stage {
    let spec = suite::find("sign-in").expect("scenario");
    assert_eq!(spec.sign_in, SignIn::OAuth);
    Stage::start_with(
        spec,
        StageOptions {
            clock: RunClock::Driven,
            auto_consent,
        },
    )
    .await
    .expect("stage")
}

fn origin(stage: &Stage) -> String {
    stage
        .mcp_url()
        .strip_suffix(mock_server::MCP_PATH)
        .expect("the MCP URL ends with the MCP path")
        .to_owned()
}

/// Registers a public client and returns the authorization URL it would open (PKCE S256, the
/// resource, a state).
async fn authorization_url(stage: &Stage, http: &reqwest::Client) -> String {
    let base = origin(stage);
    let registered: Value = http
        .post(format!("{base}{}", mock_server::REGISTER_PATH))
        .json(
            &json!({"client_name": "runner-style client", "redirect_uris": [REDIRECT_URI],
            "token_endpoint_auth_method": "none"}),
        )
        .send()
        .await
        .expect("registers")
        .json()
        .await
        .expect("json");
    let client_id = registered["client_id"].as_str().expect("client_id");
    let challenge =
        mock_server::pkce_s256_challenge("a-verifier-of-enough-length-0123456789abcdef");
    let enc = |s: &str| s.replace(':', "%3A").replace('/', "%2F");
    format!(
        "{base}{}?response_type=code&client_id={client_id}&redirect_uri={}&state=s1&code_challenge={challenge}&code_challenge_method=S256&resource={}",
        mock_server::AUTHORIZE_PATH,
        enc(REDIRECT_URI),
        enc(&stage.mcp_url())
    )
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_scenario_hands_out_no_token_and_the_mcp_url_answers_401_with_a_challenge() {
    let stage = stage(false).await;
    let spec = suite::find("sign-in").expect("scenario");
    let env = stage.env(spec);
    let names: Vec<&str> = env.iter().map(|(k, _)| *k).collect();
    assert!(!names.contains(&"CONFORMANCE_BEARER_TOKEN"), "{names:?}");
    assert!(!names.contains(&"PERPLEXITY_API_KEY"), "{names:?}");
    let context = env
        .iter()
        .find(|(k, _)| *k == "MCP_CONFORMANCE_CONTEXT")
        .map(|(_, v)| serde_json::from_str::<Value>(v).expect("json"))
        .expect("context");
    assert_eq!(context["sign_in"], "oauth");
    let answer = reqwest::Client::new()
        .post(stage.mcp_url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .expect("answers");
    assert_eq!(answer.status(), 401);
    let challenge = answer
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .expect("a WWW-Authenticate challenge");
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{}/.well-known/oauth-protected-resource",
            origin(&stage)
        )),
        "{challenge}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_consent_redirects_a_client_that_opens_the_page_itself_and_without_it_a_form_waits() {
    let http = no_redirects();
    let waiting = stage(false).await;
    let page = http
        .get(authorization_url(&waiting, &http).await)
        .send()
        .await
        .expect("the consent page");
    assert_eq!(page.status(), 200);
    assert!(
        page.text()
            .await
            .expect("html")
            .contains("name=\"request\"")
    );

    let approving = stage(true).await;
    let answer = http
        .get(authorization_url(&approving, &http).await)
        .send()
        .await
        .expect("the redirect");
    assert_eq!(answer.status(), 302);
    let location = answer
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .expect("a Location");
    assert!(location.starts_with(REDIRECT_URI), "{location}");
    assert!(location.contains("code="), "{location}");
    assert!(location.contains("state=s1"), "{location}");
}
