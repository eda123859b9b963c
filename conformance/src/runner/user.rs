//! The user channel: the client plays the host, the runner plays the person.
//!
//! Served on the mock's own port under [`USER_PATH`]:
//!
//! | request | answer |
//! |---|---|
//! | `GET  next-message` | the next turn `{"message": "...", ...}` (attachments, project, settings, request), or 204 when the user has nothing more to say; a turn with `after_seconds` moves the mock's clock that far first, and one with `revoke_sign_in` revokes every OAuth token the mock issued (an administrator signing the host out) |
//! | `POST ask {"kind": "question", "message", ...}` | `{"action": "accept", "content": {question id: answer}}`; a user who answers `later` declines the first one (`{"action": "decline"}`) |
//! | `POST ask {"kind": "confirm", "message"}` | `{"action": "accept"}` (approve), `{"action": "decline"}`, `{"action": "accept", "always": true}` (approve and "Always allow" this tool), or `{"action": "cancel"}` (the person closed the prompt without deciding and moves on) |
//! | `POST ask {"kind": "url", "url", "message"}` | the person opens the URL (and adds credits on a billing page), then `{"action": "accept"}`; on the mock's OAuth consent page they pick the script's account and click Allow, and the answer adds `"redirect"`: where the browser was sent (the client's redirect URI with `code`, `state` and `iss`), which the browser also opens when it is a loopback URL |
//! | `GET  interrupt` | `{"action": "cancel"}` when the user wants the running task stopped, else 204 |
//! | `POST show {"kind": "final" \| "error" \| "status" \| "files" \| "file", "text", ...}` | 204; what the client showed the user |
//! | `POST done` | 204 |
//!
//! Every request and answer is logged with the journal position, so checks can order them
//! against the client's MCP traffic.

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mock_server::{Journal, MockHandle, percent_encode};
use serde_json::{Value, json};

use crate::transcript::{PERSON_USER_AGENT, UserRecord, path_of};

use super::clock::ClockDriver;

/// Where the user channel lives on the mock's port.
pub const USER_PATH: &str = "/_conformance/user";
/// The account the person signs in as on the consent page (and `--auto-consent` approves as).
pub(super) const CONSENT_ACCOUNT: &str = "alice";
/// How long the person's browser tries a loopback redirect URI (the client's callback).
const CALLBACK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The scripted person behind the channel; cheap to clone.
#[derive(Clone)]
pub struct UserChannel {
    inner: Arc<Inner>,
}

struct Inner {
    script: Value,
    mock: MockHandle,
    journal: Journal,
    clock: ClockDriver,
    state: Mutex<State_>,
    http: reqwest::Client,
}

struct State_ {
    /// The turns still to come (objects with at least `message`).
    messages: VecDeque<Value>,
    interrupted: bool,
    /// Whether a user who answers `later` has declined a question form already.
    declined_question: bool,
    log: Vec<UserRecord>,
}

impl UserChannel {
    /// A person following `script` (see `ScenarioSpec::script`) in front of `mock`, logging
    /// against its journal; a pause in the script (`after_seconds`) moves the clock through
    /// `clock`.
    pub(crate) fn new(script: Value, mock: MockHandle, clock: ClockDriver) -> Self {
        let journal = mock.journal().clone();
        let messages = script
            .get("turns")
            .and_then(Value::as_array)
            .map(|turns| turns.iter().cloned().collect())
            .unwrap_or_default();
        Self {
            inner: Arc::new(Inner {
                script,
                mock,
                journal,
                clock,
                state: Mutex::new(State_ {
                    messages,
                    interrupted: false,
                    declined_question: false,
                    log: Vec::new(),
                }),
                http: reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .user_agent(PERSON_USER_AGENT)
                    .build()
                    .unwrap_or_default(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State_> {
        // Each mutation is a single push or pop: consistent after a panic (the lock never
        // poisons).
        self.inner.state.lock()
    }

    /// Everything the client did on the channel so far.
    pub fn log(&self) -> Vec<UserRecord> {
        self.lock().log.clone()
    }

    /// How many exchanges the journal has recorded so far.
    fn position(&self) -> usize {
        self.inner.journal.exchanges().len()
    }

    fn record(&self, kind: &str, request: Value, response: Value) {
        self.record_at(self.position(), kind, request, response);
    }

    fn record_at(&self, at: usize, kind: &str, request: Value, response: Value) {
        self.lock().log.push(UserRecord {
            at,
            kind: kind.to_owned(),
            request,
            response,
        });
    }

    /// The channel's routes, to merge into the mock's router.
    pub fn routes(&self) -> Router {
        Router::new()
            .route(&format!("{USER_PATH}/next-message"), get(next_message))
            .route(&format!("{USER_PATH}/ask"), post(ask))
            .route(&format!("{USER_PATH}/interrupt"), get(interrupt))
            .route(&format!("{USER_PATH}/show"), post(show))
            .route(&format!("{USER_PATH}/done"), post(done))
            .with_state(self.clone())
    }

    fn script(&self, key: &str) -> &str {
        self.inner
            .script
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The person opens a page; on a billing page they press "Add credits".
    async fn open(&self, url: &str) -> Result<u16, String> {
        let page = self
            .inner
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| format!("could not open {url}: {e}"))?;
        let status = page.status().as_u16();
        if url.contains("/_mock/billing/") && self.script("topup") != "decline" {
            let top_up = format!("{}/top-up", url.trim_end_matches('/'));
            self.inner
                .http
                .post(&top_up)
                .header("content-type", "application/x-www-form-urlencoded")
                .send()
                .await
                .map_err(|e| format!("could not add credits at {top_up}: {e}"))?;
        }
        Ok(status)
    }
}

/// The person signs in on the mock's consent page at `url`: picks the script's account, clicks
/// Allow (Deny when the script declines sign-ins), and follows the redirect. Returns the answer
/// for the client and the one to log (with the code fingerprinted, as the journal shows it).
async fn consent(user: &UserChannel, url: &str) -> (Value, Value) {
    let http = &user.inner.http;
    let cancel = |error: String| {
        let answer = json!({"action": "cancel", "error": error});
        (answer.clone(), answer)
    };
    let page = match http.get(url).send().await {
        Ok(page) => page,
        Err(e) => return cancel(format!("could not open {url}: {e}")),
    };
    let opened = page.status().as_u16();
    let declined = user.script("signin") == "decline";
    let location = if page.status().is_redirection() {
        // --auto-consent: the mock approved at once.
        location(&page)
    } else {
        let html = page.text().await.unwrap_or_default();
        let Some(request) = hidden_field(&html, "request") else {
            return cancel(format!(
                "the sign-in page answered {opened} without a consent form (the authorization \
                 request was refused): {}",
                page_text(&html)
            ));
        };
        let account = match user.script("account") {
            "" => CONSENT_ACCOUNT,
            other => other,
        };
        let decision = if declined { "deny" } else { "allow" };
        let form = format!(
            "request={}&account={}&decision={decision}",
            percent_encode(&request),
            percent_encode(account)
        );
        let action = format!("{}{}", origin(url), mock_server::AUTHORIZE_PATH);
        match http
            .post(&action)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
        {
            Ok(answer) => location(&answer),
            Err(e) => {
                return cancel(format!(
                    "could not submit the consent form to {action}: {e}"
                ));
            }
        }
    };
    let Some(location) = location else {
        return cancel("the consent page did not send the browser back to the client".into());
    };
    if is_loopback(&location) {
        // The browser goes back to the client; a client with a callback listener gets the code
        // there. One without (most test clients) reads it from the answer.
        let _ = http.get(&location).timeout(CALLBACK_TIMEOUT).send().await;
    }
    let action = if declined { "decline" } else { "accept" };
    let answer = json!({"action": action, "opened": opened, "redirect": location});
    let logged = json!({"action": action, "opened": opened, "redirect": redact_code(&location)});
    (answer, logged)
}

fn location(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The `value` of the hidden input `name` of an HTML form (the mock's consent page).
fn hidden_field(html: &str, name: &str) -> Option<String> {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker)? + marker.len();
    let end = html[start..].find('"')? + start;
    Some(
        html[start..end]
            .replace("&quot;", "\"")
            .replace("&amp;", "&"),
    )
}

/// The readable part of a page, for an error sentence.
fn page_text(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn origin(url: &str) -> &str {
    let path = path_of(url);
    url.strip_suffix(path.as_str()).unwrap_or(url)
}

fn is_loopback(url: &str) -> bool {
    ["http://127.0.0.1", "http://localhost", "http://[::1]"]
        .iter()
        .any(|prefix| url.starts_with(prefix))
}

/// A redirect URL with its `code` fingerprinted, as the journal shows the mock's `Location`.
fn redact_code(url: &str) -> String {
    let Some((base, query)) = url.split_once('?') else {
        return url.to_owned();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some(("code", code)) => format!("code={}", mock_server::fingerprint(code)),
            _ => pair.to_owned(),
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}

fn parse(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.to_owned()))
}

async fn next_message(State(user): State<UserChannel>) -> Response {
    let message = user.lock().messages.pop_front();
    match message {
        Some(answer) => {
            // The person comes back later: time passes for Computer (and its links) too.
            if let Some(secs) = answer.get("after_seconds").and_then(Value::as_u64) {
                user.inner
                    .clock
                    .pause(std::time::Duration::from_secs(secs))
                    .await;
            }
            // Meanwhile an administrator signed the host out: it must sign in again.
            if answer.get("revoke_sign_in") == Some(&Value::Bool(true)) {
                user.inner.mock.revoke_oauth_tokens(None);
            }
            user.record("next-message", Value::Null, answer.clone());
            axum::Json(answer).into_response()
        }
        None => {
            user.record("next-message", Value::Null, Value::Null);
            StatusCode::NO_CONTENT.into_response()
        }
    }
}

async fn interrupt(State(user): State<UserChannel>) -> Response {
    let wants = user.script("interrupt") == "cancel" && {
        let mut state = user.lock();
        !std::mem::replace(&mut state.interrupted, true)
    };
    if wants {
        let answer = json!({"action": "cancel"});
        user.record("interrupt", Value::Null, answer.clone());
        axum::Json(answer).into_response()
    } else {
        user.record("interrupt", Value::Null, Value::Null);
        StatusCode::NO_CONTENT.into_response()
    }
}

async fn ask(State(user): State<UserChannel>, body: String) -> Response {
    let request = parse(&body);
    let kind = request
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let answer = match kind {
        "question"
            if user.script("question") == "later"
                && !std::mem::replace(&mut user.lock().declined_question, true) =>
        {
            json!({"action": "decline"})
        }
        "question" => json!({
            "action": "accept",
            "content": user.inner.script.get("answers").cloned().unwrap_or_else(|| json!({})),
        }),
        "confirm" => match user.script("confirm") {
            "deny" => json!({"action": "decline"}),
            "always" => json!({"action": "accept", "always": true}),
            "dismiss" => json!({"action": "cancel"}),
            _ => json!({"action": "accept"}),
        },
        "url" => {
            let Some(url) = request.get("url").and_then(Value::as_str) else {
                let error = json!({"error": "an ask of kind `url` needs a `url`"});
                user.record("ask", request, error.clone());
                return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
            };
            if path_of(url).starts_with(mock_server::AUTHORIZE_PATH) {
                // Logged where it was asked: the person's visits to the consent page follow it.
                let asked = user.position();
                let (answer, logged) = consent(&user, url).await;
                user.record_at(asked, "ask", request, logged);
                return axum::Json(answer).into_response();
            }
            if user.script("signin") == "decline" && !url.contains("/_mock/billing/") {
                json!({"action": "decline"})
            } else {
                match user.open(url).await {
                    Ok(status) => json!({"action": "accept", "opened": status}),
                    Err(e) => json!({"action": "cancel", "error": e}),
                }
            }
        }
        _ => {
            let error = json!({
                "error": "`kind` must be `question`, `confirm` or `url`",
            });
            user.record("ask", request, error.clone());
            return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
        }
    };
    user.record("ask", request, answer.clone());
    axum::Json(answer).into_response()
}

async fn show(State(user): State<UserChannel>, body: String) -> Response {
    user.record("show", parse(&body), Value::Null);
    StatusCode::NO_CONTENT.into_response()
}

async fn done(State(user): State<UserChannel>, body: String) -> Response {
    user.record("done", parse(&body), Value::Null);
    StatusCode::NO_CONTENT.into_response()
}
