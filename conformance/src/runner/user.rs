//! The user channel: the client plays the host, the runner plays the person.
//!
//! Served on the mock's own port under [`USER_PATH`]:
//!
//! | request | answer |
//! |---|---|
//! | `GET  next-message` | the next turn `{"message": "...", ...}` (attachments, project, settings, request), or 204 when the user has nothing more to say; a turn with `after_seconds` moves the mock's clock that far first |
//! | `POST ask {"kind": "question", "message", ...}` | `{"action": "accept", "content": {question id: answer}}` |
//! | `POST ask {"kind": "confirm", "message"}` | `{"action": "accept"}` (approve), `{"action": "decline"}`, `{"action": "accept", "always": true}` (approve and "Always allow" this tool), or `{"action": "cancel"}` (the person closed the prompt without deciding and moves on) |
//! | `POST ask {"kind": "url", "url", "message"}` | the person opens the URL (and adds credits on a billing page), then `{"action": "accept"}` |
//! | `GET  interrupt` | `{"action": "cancel"}` when the user wants the running task stopped, else 204 |
//! | `POST show {"kind": "final" \| "error" \| "status" \| "files" \| "file", "text", ...}` | 204; what the client showed the user |
//! | `POST done` | 204 |
//!
//! Every request and answer is logged with the journal position, so checks can order them
//! against the client's MCP traffic.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mock_server::Journal;
use serde_json::{Value, json};

use crate::transcript::UserRecord;

use super::clock::ClockDriver;

/// Where the user channel lives on the mock's port.
pub const USER_PATH: &str = "/_conformance/user";
/// The User-Agent the runner sends when the person opens a page.
pub(super) const PERSON_AGENT: &str = "conformance-user/1";

/// The scripted person behind the channel; cheap to clone.
#[derive(Clone)]
pub struct UserChannel {
    inner: Arc<Inner>,
}

struct Inner {
    script: Value,
    journal: Journal,
    clock: ClockDriver,
    state: Mutex<State_>,
    http: reqwest::Client,
}

struct State_ {
    /// The turns still to come (objects with at least `message`).
    messages: VecDeque<Value>,
    interrupted: bool,
    log: Vec<UserRecord>,
}

impl UserChannel {
    /// A person following `script` (see `ScenarioSpec::script`), logging against `journal`;
    /// a pause in the script (`after_seconds`) moves the clock through `clock`.
    pub(crate) fn new(script: Value, journal: Journal, clock: ClockDriver) -> Self {
        let messages = script
            .get("turns")
            .and_then(Value::as_array)
            .map(|turns| turns.iter().cloned().collect())
            .unwrap_or_default();
        Self {
            inner: Arc::new(Inner {
                script,
                journal,
                clock,
                state: Mutex::new(State_ {
                    messages,
                    interrupted: false,
                    log: Vec::new(),
                }),
                http: reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .user_agent(PERSON_AGENT)
                    .build()
                    .unwrap_or_default(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State_> {
        // Each mutation is a single push or pop, so a poisoned lock is still consistent.
        self.inner
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Everything the client did on the channel so far.
    pub fn log(&self) -> Vec<UserRecord> {
        self.lock().log.clone()
    }

    fn record(&self, kind: &str, request: Value, response: Value) {
        let at = self.inner.journal.exchanges().len();
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
