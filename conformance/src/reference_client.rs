//! The reference client: a hand-written MCP client on reqwest (handshake era here, 2026-07-28 in
//! `modern`) that follows every rule, and with `--break RULE_ID` breaks exactly that one, to prove
//! each check can fail.
//!
//! It plays the host: it asks the user channel (`CONFORMANCE_USER_URL`) for messages, answers
//! and sign-ins, and reports what it shows the user.

mod account;
mod agent;

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use crate::error::ClientError;
use crate::rules::ids;

mod modern;

const CPC: &str = "call_perplexity_computer";
/// Polls of read_thread before the client gives up on a thread (real time: about 30 s).
const MAX_POLLS: usize = 3000;
/// Real time between read_thread polls.
const POLL_EVERY: Duration = Duration::from_millis(10);

/// How the reference client is started.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The MCP endpoint.
    pub url: String,
    /// The rule to break on purpose, if any.
    pub break_rule: Option<String>,
    /// The user channel.
    pub user_url: String,
    /// Bearer token.
    pub token: Option<String>,
    /// Protocol version to offer.
    pub protocol_version: String,
}

impl ClientOptions {
    /// The headers of every JSON-RPC POST in both eras: JSON in, JSON or SSE back, the token.
    fn post_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert(
            "accept",
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Some(token) = &self.token
            && let Ok(v) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            headers.insert("authorization", v);
        }
        headers
    }

    /// Options from the environment the conformance runner sets.
    pub fn from_env(url: String, break_rule: Option<String>) -> Result<Self, ClientError> {
        let user_url = std::env::var("CONFORMANCE_USER_URL")
            .map_err(|_| ClientError::MissingEnv("CONFORMANCE_USER_URL"))?;
        // Either era, as the runner announces; anything else falls back to the handshake era.
        let protocol_version = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
            Ok(v) if mock_server::HANDSHAKE_VERSIONS.contains(&v.as_str()) => v,
            Ok(v) if v == mock_server::MODERN_VERSION => v,
            _ => mock_server::LATEST_HANDSHAKE_VERSION.to_owned(),
        };
        Ok(Self {
            url,
            break_rule,
            user_url,
            token: std::env::var("CONFORMANCE_BEARER_TOKEN").ok(),
            protocol_version,
        })
    }
}

/// Runs the reference client to the end of the user's script.
pub async fn run(options: ClientOptions) -> Result<(), ClientError> {
    // An Agent API scenario: the client speaks `/v1/responses`, not MCP.
    let context: serde_json::Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_default();
    if context.get("suite").and_then(serde_json::Value::as_str) == Some("agent") {
        return agent::run(options, &context).await;
    }
    if options.protocol_version == mock_server::MODERN_VERSION {
        return modern::run(options).await;
    }
    let mut client = Client::new(options)?;
    client.initialize().await?;
    client.converse().await?;
    client.user_post("done", json!({})).await?;
    Ok(())
}

struct Client {
    http: reqwest::Client,
    options: ClientOptions,
    session: Option<String>,
    version: String,
    next_id: u64,
    /// Set after a `waiting` result when breaking `computer.waiting.same-thread`.
    forget_thread: bool,
    /// Whether the last request settled on `waiting` (thread reuse is broken only elsewhere).
    after_waiting: bool,
    /// Download links, settings and Project of the conversation.
    account: account::AccountState,
}

/// What a conversation turn ended with.
struct Settled {
    thread: Option<String>,
}

impl Client {
    fn new(options: ClientOptions) -> Result<Self, ClientError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(60))
            .build()
            .map_err(|source| ClientError::Http {
                url: options.url.clone(),
                source,
            })?;
        let version = options.protocol_version.clone();
        Ok(Self {
            http,
            options,
            session: None,
            version,
            next_id: 1,
            forget_thread: false,
            after_waiting: false,
            account: account::AccountState::default(),
        })
    }

    fn breaks(&self, rule: &str) -> bool {
        self.options.break_rule.as_deref() == Some(rule)
    }

    fn http_error(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
        move |source| ClientError::Http {
            url: url.to_owned(),
            source,
        }
    }

    /// POSTs one JSON-RPC message; returns the response to `id` (JSON or SSE), or null.
    async fn post(&mut self, body: Value, initializing: bool) -> Result<Value, ClientError> {
        let url = self.options.url.clone();
        let mut headers = self.options.post_headers();
        if !initializing {
            // Breaking the session rule on the one request whose answer the client never needs
            // (the mock refuses it), so the rest of the scenario still runs.
            let notification = body.get("id").is_none();
            if let Some(session) = &self.session
                && !(notification && self.breaks(ids::MCP_TRANSPORT_SESSION_ID))
                && let Ok(v) = HeaderValue::from_str(session)
            {
                headers.insert("mcp-session-id", v);
            }
            if !self.breaks(ids::MCP_TRANSPORT_PROTOCOL_VERSION_HEADER)
                && let Ok(v) = HeaderValue::from_str(&self.version)
            {
                headers.insert("mcp-protocol-version", v);
            }
        }
        let response = self
            .http
            .post(&url)
            .headers(headers)
            .body(body.to_string())
            .send()
            .await
            .map_err(Self::http_error(&url))?;
        if initializing && let Some(session) = response.headers().get("mcp-session-id") {
            self.session = session.to_str().ok().map(str::to_owned);
        }
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let status = response.status();
        let text = response.text().await.map_err(Self::http_error(&url))?;
        let id = body.get("id").cloned();
        if id.is_none() {
            return Ok(Value::Null);
        }
        let messages = jsonrpc_messages(&text, is_sse);
        messages
            .into_iter()
            .find(|m| m.get("id") == id.as_ref())
            .ok_or_else(|| ClientError::Protocol {
                what: body
                    .get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("request")
                    .to_owned(),
                detail: format!(
                    "HTTP {status}: {}",
                    text.chars().take(300).collect::<String>()
                ),
            })
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(body, method == "initialize").await?;
        match response.get("result") {
            Some(result) => Ok(result.clone()),
            None => Err(ClientError::Protocol {
                what: method.to_owned(),
                detail: response.to_string(),
            }),
        }
    }

    async fn initialize(&mut self) -> Result<(), ClientError> {
        let result = self
            .request(
                "initialize",
                json!({
                    "protocolVersion": self.options.protocol_version,
                    "capabilities": {},
                    "clientInfo": {"name": "conformance-reference-client", "version": env!("CARGO_PKG_VERSION")},
                }),
            )
            .await?;
        if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
            self.version = v.to_owned();
        }
        if !self.breaks(ids::MCP_LIFECYCLE_INITIALIZED) {
            self.post(
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                false,
            )
            .await?;
        }
        Ok(())
    }

    /// Calls a tool and returns its task JSON (structuredContent, else the first text block).
    async fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, ClientError> {
        let mut params = json!({"name": tool, "arguments": arguments});
        if !self.breaks(ids::COMPUTER_PROGRESS_TOKEN) {
            params["_meta"] = json!({"progressToken": format!("progress-{}", self.next_id)});
        }
        let result = self.request("tools/call", params).await?;
        if let Some(s) = result.get("structuredContent") {
            return Ok(s.clone());
        }
        Ok(result
            .pointer("/content/0/text")
            .and_then(Value::as_str)
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null))
    }

    // ---- the user channel ----

    async fn user_get(&self, what: &str) -> Result<Option<Value>, ClientError> {
        let url = format!("{}/{what}", self.options.user_url);
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .map_err(Self::http_error(&url))?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(None);
        }
        Ok(Some(response.json().await.map_err(Self::http_error(&url))?))
    }

    async fn user_post(&self, what: &str, body: Value) -> Result<Value, ClientError> {
        let url = format!("{}/{what}", self.options.user_url);
        let response = self
            .http
            .post(&url)
            .json(&body)
            .send()
            .await
            .map_err(Self::http_error(&url))?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(Value::Null);
        }
        response.json().await.map_err(Self::http_error(&url))
    }

    async fn show(&self, kind: &str, result: &Value) -> Result<(), ClientError> {
        self.user_post(
            "show",
            json!({"kind": kind, "text": result.get("text"), "files": result.get("files"), "thread_id": result.get("thread_id")}),
        )
        .await
        .map(|_| ())
    }

    async fn ask_url(&self, url: &str, message: &str) -> Result<bool, ClientError> {
        let answer = self
            .user_post(
                "ask",
                json!({"kind": "url", "url": url, "message": message}),
            )
            .await?;
        Ok(answer.get("action").and_then(Value::as_str) == Some("accept"))
    }

    // ---- the conversation ----

    async fn converse(&mut self) -> Result<(), ClientError> {
        let mut thread: Option<String> = None;
        while let Some(next) = self.user_get("next-message").await? {
            let Some(message) = next
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
            else {
                continue;
            };
            // Something the person asks of the host itself (list files, download one).
            if let Some(request) = next.get("request") {
                self.host_request(request, thread.as_deref()).await?;
                continue;
            }
            let mut args = json!({"message": message});
            let keep = match thread.as_deref() {
                Some(_) if self.forget_thread => false,
                // Breaking thread reuse: a follow-up starts a new conversation.
                Some(_) if self.breaks(ids::COMPUTER_THREAD_REUSE) && !self.after_waiting => false,
                Some(_) => true,
                None => false,
            };
            if keep && let Some(t) = &thread {
                args["thread_id"] = json!(t);
            }
            self.after_waiting = false;
            self.turn_arguments(&next, &mut args).await?;
            let result = self.call(CPC, args.clone()).await?;
            let settled = self.drive(result, args).await?;
            if settled.thread.is_some() {
                thread = settled.thread;
            }
        }
        Ok(())
    }

    /// Follows one request until it settles, and returns the thread to continue.
    async fn drive(&mut self, mut result: Value, sent: Value) -> Result<Settled, ClientError> {
        let mut thread: Option<String> = sent
            .get("thread_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut handled: Vec<String> = Vec::new();
        let mut had_pending = false;
        loop {
            if let Some(t) = result.get("thread_id").and_then(Value::as_str) {
                thread = Some(t.to_owned());
            }
            self.account.remember_files(&result);
            let event = result
                .get("event")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let status = result
                .get("task_status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let Some(t) = thread.clone() else {
                // No thread: only an out-of-credits refusal before sending gets here.
                if event == "insufficient_credits" {
                    self.show("error", &result).await?;
                    if self.breaks(ids::COMPUTER_CREDITS_BEFORE_SEND) {
                        return Ok(Settled { thread: None });
                    }
                    if !self.top_up(&result).await? {
                        return Ok(Settled { thread: None });
                    }
                    result = self.call(CPC, sent.clone()).await?;
                    continue;
                }
                self.show("error", &result).await?;
                return Ok(Settled { thread: None });
            };
            match event.as_str() {
                "insufficient_credits" => {
                    self.show("error", &result).await?;
                    if !self.top_up(&result).await? {
                        return Ok(Settled { thread: Some(t) });
                    }
                    let message = "Credits are topped up; please continue.";
                    if self.breaks(ids::COMPUTER_CREDITS_DURING_TASK) {
                        // A new conversation instead of the same thread; then the client gives up.
                        self.call(CPC, json!({"message": message})).await?;
                        return Ok(Settled { thread: Some(t) });
                    }
                    result = self
                        .call(CPC, json!({"message": message, "thread_id": t}))
                        .await?;
                }
                "timeout" => {
                    if self.user_get("interrupt").await?.is_some() {
                        return self.cancel(&t).await;
                    }
                    if self.breaks(ids::COMPUTER_TIMEOUT_READ_THREAD) {
                        result = self
                            .call(CPC, json!({"thread_id": t, "message": "Is it done yet?"}))
                            .await?;
                        continue;
                    }
                    result = self.poll(&t).await?;
                }
                "sleep" => {
                    if self.breaks(ids::COMPUTER_SLEEP_NO_RESEND) {
                        result = self
                            .call(
                                CPC,
                                json!({"thread_id": t, "message": "Wake up and check now."}),
                            )
                            .await?;
                        continue;
                    }
                    self.show("status", &result).await?;
                    result = self.poll(&t).await?;
                }
                "waiting" => {
                    self.show("status", &result).await?;
                    if self.breaks(ids::COMPUTER_WAITING_SAME_THREAD) {
                        self.forget_thread = true;
                    }
                    self.after_waiting = true;
                    return Ok(Settled { thread: Some(t) });
                }
                "ask_user_question" | "confirm_action" => {
                    let items: Vec<Value> =
                        match result.get("pending_interactions").and_then(Value::as_array) {
                            Some(list) if !list.is_empty() => {
                                had_pending |= list.len() > 1;
                                list.clone()
                            }
                            _ => result.get("interactive").cloned().into_iter().collect(),
                        };
                    let next = items.into_iter().find(|i| {
                        let uuid = i
                            .get("followup_uuid")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        !handled.iter().any(|h| h == uuid)
                    });
                    let Some(item) = next else {
                        result = self.poll(&t).await?;
                        continue;
                    };
                    if had_pending && !handled.is_empty() && self.breaks(ids::COMPUTER_PENDING_EACH)
                    {
                        return Ok(Settled { thread: Some(t) });
                    }
                    if let Some(uuid) = item.get("followup_uuid").and_then(Value::as_str) {
                        handled.push(uuid.to_owned());
                    }
                    result = self.interact(&t, &item, &result).await?;
                }
                "auth_required" => {
                    result = self.sign_in(&t, &result).await?;
                }
                _ => {
                    let finished = if self.breaks(ids::COMPUTER_STATUS_TASK_STATUS) {
                        // The mistake the document warns about: "complete" taken as finished.
                        matches!(
                            event.as_str(),
                            "complete" | "error" | "cancelled" | "access_denied"
                        )
                    } else {
                        crate::transcript::terminal(&status)
                    };
                    if finished {
                        self.show(
                            if status == "completed" {
                                "final"
                            } else {
                                "error"
                            },
                            &result,
                        )
                        .await?;
                        if self.breaks(ids::COMPUTER_AUTH_OPTIONAL_IGNORED) {
                            self.notify_optional(&t, &result).await?;
                        }
                        return Ok(Settled { thread: Some(t) });
                    }
                    if status == "input_required" {
                        // Waiting on something the result does not show: read_thread tells.
                        let read = self.call("read_thread", json!({"thread_id": t})).await?;
                        if let Some(sign_in) = first_auth_request(&read) {
                            result = self.sign_in(&t, &json!({"interactive": sign_in})).await?;
                            continue;
                        }
                    }
                    result = self.poll(&t).await?;
                }
            }
        }
    }

    /// Polls read_thread until the request needs something or ends; returns it as a result.
    async fn poll(&mut self, thread: &str) -> Result<Value, ClientError> {
        for _ in 0..MAX_POLLS {
            let read = self
                .call("read_thread", json!({"thread_id": thread}))
                .await?;
            let status = read
                .pointer("/web_state/task_status")
                .and_then(Value::as_str)
                .unwrap_or("working");
            if crate::transcript::terminal(status) {
                let mut done = read.clone();
                done["event"] = json!("complete");
                done["task_status"] = json!(status);
                return Ok(done);
            }
            if status == "input_required" {
                if let Some(sign_in) = first_auth_request(&read) {
                    return Ok(
                        json!({"thread_id": thread, "event": "auth_required", "task_status": status, "interactive": sign_in}),
                    );
                }
                return Ok(
                    json!({"thread_id": thread, "event": "complete", "task_status": "failed", "text": "The task waits on input this client cannot give."}),
                );
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
        Err(ClientError::Protocol {
            what: "read_thread".into(),
            detail: format!("thread {thread} was still working after {MAX_POLLS} polls"),
        })
    }

    async fn top_up(&mut self, result: &Value) -> Result<bool, ClientError> {
        match result
            .pointer("/interactive/billing_url")
            .and_then(Value::as_str)
        {
            Some(url) => {
                self.ask_url(url, "You are out of credits. Add credits here.")
                    .await
            }
            None => Ok(false),
        }
    }

    /// Answers a question or a confirmation.
    async fn interact(
        &mut self,
        thread: &str,
        item: &Value,
        result: &Value,
    ) -> Result<Value, ClientError> {
        let uuid = item.get("followup_uuid").cloned();
        let text = result.get("text").cloned().unwrap_or(Value::Null);
        if item.get("type").and_then(Value::as_str) == Some("confirm_action") {
            let answer = self
                .user_post(
                    "ask",
                    json!({"kind": "confirm", "message": text, "thread_id": thread}),
                )
                .await?;
            let approve = answer.get("action").and_then(Value::as_str) == Some("accept");
            let mut args = json!({
                "thread_id": thread,
                "result": if approve { "Approved by the user." } else { "Denied by the user." },
            });
            if let Some(u) = uuid
                && !self.breaks(ids::COMPUTER_CONFIRM_DECIDE)
            {
                args["followup_uuid"] = u;
            }
            let tool = if approve {
                "confirm_action_approve"
            } else {
                "confirm_action_deny"
            };
            return self.call(tool, args).await;
        }
        let answer = self
            .user_post(
                "ask",
                json!({"kind": "question", "message": text, "thread_id": thread}),
            )
            .await?;
        let answers = answer.get("content").cloned().unwrap_or_else(|| json!({}));
        let mut args = json!({"thread_id": thread, "answers": answers});
        if let Some(u) = uuid
            && !self.breaks(ids::COMPUTER_QUESTION_ANSWER)
        {
            args["followup_uuid"] = u;
        }
        self.call("answer_question", args).await
    }

    /// Opens the sign-in URL (through the user), then notify_connected with the connector.
    async fn sign_in(&mut self, thread: &str, result: &Value) -> Result<Value, ClientError> {
        let read = self
            .call("read_thread", json!({"thread_id": thread}))
            .await?;
        let waiting = auth_requests(&read);
        let sign_in = result
            .get("interactive")
            .cloned()
            .or_else(|| waiting.first().cloned())
            .unwrap_or(Value::Null);
        let connector = sign_in
            .get("connector")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let name = sign_in
            .get("display_name")
            .and_then(Value::as_str)
            .unwrap_or(&connector)
            .to_owned();
        if !self.breaks(ids::COMPUTER_AUTH_OPEN_THEN_NOTIFY)
            && let Some(url) = sign_in.get("auth_url").and_then(Value::as_str)
            && !self.ask_url(url, &format!("Sign in to {name}")).await?
        {
            return Ok(
                json!({"thread_id": thread, "event": "complete", "task_status": "failed", "text": "The user declined the sign-in."}),
            );
        }
        let mut args = json!({"thread_id": thread, "message": format!("{name} connected")});
        let omit = waiting.len() > 1 && self.breaks(ids::COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL);
        if !connector.is_empty() && !omit {
            args["connector"] = json!(connector);
        }
        self.call("notify_connected", args).await
    }

    /// Breaking `computer.auth.optional-ignored`: "reconnects" every optional connector.
    async fn notify_optional(&mut self, thread: &str, result: &Value) -> Result<(), ClientError> {
        let optional = result
            .get("optional_auth_requests")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for o in optional {
            if let Some(c) = o.get("connector").and_then(Value::as_str) {
                self.call(
                    "notify_connected",
                    json!({"thread_id": thread, "message": "Connected", "connector": c}),
                )
                .await?;
            }
        }
        Ok(())
    }

    /// cancel_task, then confirm with read_thread, retrying while the task stays active.
    async fn cancel(&mut self, thread: &str) -> Result<Settled, ClientError> {
        for _ in 0..3 {
            let cancelled = self
                .call("cancel_task", json!({"thread_id": thread}))
                .await?;
            if self.breaks(ids::COMPUTER_CANCEL_CONFIRM) {
                self.show("final", &cancelled).await?;
                return Ok(Settled {
                    thread: Some(thread.to_owned()),
                });
            }
            let read = self
                .call("read_thread", json!({"thread_id": thread}))
                .await?;
            let status = read
                .pointer("/web_state/task_status")
                .and_then(Value::as_str);
            if status.is_some_and(crate::transcript::terminal) {
                self.show("final", &read).await?;
                return Ok(Settled {
                    thread: Some(thread.to_owned()),
                });
            }
        }
        Err(ClientError::Protocol {
            what: "cancel_task".into(),
            detail: format!("thread {thread} stayed active after three cancellations"),
        })
    }
}

/// Sign-ins the thread still waits on, from a read_thread result.
fn auth_requests(read: &Value) -> Vec<Value> {
    read.pointer("/web_state/entries")
        .and_then(Value::as_array)
        .and_then(|entries| entries.last())
        .and_then(|e| e.get("auth_requests"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn first_auth_request(read: &Value) -> Option<Value> {
    auth_requests(read).into_iter().next()
}

/// The JSON-RPC messages of a response body, JSON or SSE.
fn jsonrpc_messages(text: &str, is_sse: bool) -> Vec<Value> {
    if !is_sse {
        return serde_json::from_str(text).ok().into_iter().collect();
    }
    text.split("\n\n")
        .filter_map(|frame| {
            let data: Vec<&str> = frame
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty())
                .then(|| serde_json::from_str(&data.join("\n")).ok())
                .flatten()
        })
        .collect()
}
