//! The reference client's Agent API side, on reqwest: what an application built on
//! `POST /v1/responses` does for its user. It follows every `agent.*` rule, and with
//! `--break RULE_ID` breaks exactly that one.
//!
//! Per turn of the user's script it sends the turn's `agent` settings (model or preset, tools,
//! `background`, `stream`) with the message as `input`; it polls a background run with GET
//! (asking the user channel's `interrupt` between polls, and cancelling when told), resumes a
//! dropped stream with `starting_after`, asks the user about every `mcp_approval_request` and
//! continues with their decisions, and shows in-band `mcp_call` errors.

use std::time::Duration;

use serde_json::{Value, json};

use super::agent_conversation::{Conversation, Decision, decision_item, server_url_of, user_item};
use super::options::ClientOptions;
use super::pace::SendPaced;
use super::retry::{self, RetryRules};
use crate::error::ClientError;
use crate::rules::ids;

/// Real time between polls of a background run.
const POLL_EVERY: Duration = Duration::from_millis(20);
/// Polls before the client gives up on a run (about 30 s).
const MAX_POLLS: usize = 1500;
/// Approval rounds before the client gives up on a conversation.
const MAX_ROUNDS: usize = 8;
/// The rules the client's retries follow (and break one at a time).
const RETRIES: RetryRules = RetryRules {
    retry_after: ids::AGENT_RATE_LIMIT_RETRY_AFTER,
    backoff: ids::AGENT_SERVER_ERROR_BACKOFF,
    give_up: ids::AGENT_SERVER_ERROR_GIVE_UP,
};

struct Agent {
    http: reqwest::Client,
    base: String,
    key: String,
    user_url: String,
    break_rule: Option<String>,
    zero_data_retention: bool,
}

/// Runs the Agent API client to the end of the user's script.
pub(super) async fn run(options: ClientOptions, context: &Value) -> Result<(), ClientError> {
    let base = std::env::var("PERPLEXITY_BASE_URL")
        .map_err(|_| ClientError::MissingEnv("PERPLEXITY_BASE_URL"))?;
    let key = std::env::var("PERPLEXITY_API_KEY")
        .map_err(|_| ClientError::MissingEnv("PERPLEXITY_API_KEY"))?;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|source| ClientError::Http {
            url: base.clone(),
            source,
        })?;
    let agent = Agent {
        http,
        base: base.trim_end_matches('/').to_owned(),
        key,
        user_url: options.user_url,
        break_rule: options.break_rule,
        zero_data_retention: context
            .pointer("/user/zero_data_retention")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    };
    let mut conversation = Conversation::default();
    while let Some(turn) = agent.next_turn().await? {
        agent.converse(&mut conversation, &turn).await?;
    }
    agent.user_post("done", json!({})).await
}

impl Agent {
    fn breaks(&self, rule: &str) -> bool {
        super::options::breaks(self.break_rule.as_deref(), rule)
    }

    fn err(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
        move |source| ClientError::Http {
            url: url.to_owned(),
            source,
        }
    }

    // ---- the user channel ----

    async fn next_turn(&self) -> Result<Option<Value>, ClientError> {
        let url = format!("{}/next-message", self.user_url);
        let r = self
            .http
            .get(&url)
            .send_paced()
            .await
            .map_err(Self::err(&url))?;
        if r.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(None);
        }
        r.json().await.map(Some).map_err(Self::err(&url))
    }

    async fn user_post(&self, what: &str, body: Value) -> Result<(), ClientError> {
        let url = format!("{}/{what}", self.user_url);
        self.http
            .post(&url)
            .json(&body)
            .send_paced()
            .await
            .map_err(Self::err(&url))?;
        Ok(())
    }

    async fn show(&self, kind: &str, text: &str) -> Result<(), ClientError> {
        self.user_post("show", json!({"kind": kind, "text": text}))
            .await
    }

    async fn wants_to_stop(&self) -> Result<bool, ClientError> {
        let url = format!("{}/interrupt", self.user_url);
        let r = self
            .http
            .get(&url)
            .send_paced()
            .await
            .map_err(Self::err(&url))?;
        if r.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(false);
        }
        let answer: Value = r.json().await.map_err(Self::err(&url))?;
        Ok(answer.get("action").and_then(Value::as_str) == Some("cancel"))
    }

    async fn ask_confirm(&self, request: &Value) -> Result<Decision, ClientError> {
        let label = str_field(request, "server_label");
        let name = str_field(request, "name");
        let arguments: Value =
            serde_json::from_str(str_field(request, "arguments")).unwrap_or(Value::Null);
        let url = format!("{}/ask", self.user_url);
        let answer: Value = self
            .http
            .post(&url)
            .json(&json!({
                "kind": "confirm",
                "message": format!("Allow the {label} server to run {name} with {arguments}?"),
                "server_label": label,
                "name": name,
                "arguments": arguments,
                "choices": ["allow once", "always allow", "deny"],
            }))
            .send_paced()
            .await
            .map_err(Self::err(&url))?
            .json()
            .await
            .map_err(Self::err(&url))?;
        Ok(match answer.get("action").and_then(Value::as_str) {
            Some("accept") => Decision::Approve {
                always: answer.get("always").and_then(Value::as_bool) == Some(true),
            },
            Some("cancel") => Decision::Undecided,
            _ => Decision::Deny,
        })
    }

    // ---- the API ----

    fn responses(&self, rest: &str) -> String {
        format!("{}/v1/responses{rest}", self.base)
    }

    /// Sends the request `build` makes, retrying a 429 or a 5xx as the SDKs do; the answer and
    /// how many tries it took.
    async fn send(
        &self,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<(reqwest::Response, usize), ClientError> {
        retry::send(RETRIES, self.break_rule.as_deref(), url, build).await
    }

    /// POSTs a create; `Err(text)` is an API error to show the user.
    async fn create(&self, body: &Value) -> Result<Result<Value, String>, ClientError> {
        let url = self.responses("");
        let post = || self.http.post(&url).bearer_auth(&self.key).json(body);
        let (r, tries) = self.send(&url, post).await?;
        let answer = Self::answer(&url, r).await?;
        if answer.is_ok() && tries > 1 {
            self.resend_if_breaking(&url, post).await?;
        }
        Ok(answer)
    }

    /// Breaking agent.answered.no-resend: a retry loop that goes once more after the answer, so
    /// the create that was answered (and spent credits) is sent again.
    async fn resend_if_breaking(
        &self,
        url: &str,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<(), ClientError> {
        if self.breaks(ids::AGENT_ANSWERED_NO_RESEND) {
            build().send_paced().await.map_err(Self::err(url))?;
        }
        Ok(())
    }

    async fn get(&self, id: &str) -> Result<Result<Value, String>, ClientError> {
        let url = self.responses(&format!("/{id}"));
        let (r, _) = self
            .send(&url, || self.http.get(&url).bearer_auth(&self.key))
            .await?;
        Self::answer(&url, r).await
    }

    async fn answer(url: &str, r: reqwest::Response) -> Result<Result<Value, String>, ClientError> {
        let status = r.status();
        let body: Value = r.json().await.map_err(Self::err(url))?;
        if status.is_success() {
            Ok(Ok(body))
        } else {
            Ok(Err(format!("HTTP {status}: {body}")))
        }
    }

    // ---- a turn ----

    async fn converse(
        &self,
        conversation: &mut Conversation,
        turn: &Value,
    ) -> Result<(), ClientError> {
        let message = str_field(turn, "message").to_owned();
        let mut settings = turn.get("agent").cloned().unwrap_or_else(|| json!({}));
        self.choose_max_steps(&mut settings);
        if !conversation.always.is_empty()
            && !self.breaks(ids::AGENT_ALWAYS_ALLOW_NEVER_FILTER)
            && let Some(tools) = settings.get_mut("tools")
        {
            let by_label = self.breaks(ids::AGENT_ALWAYS_ALLOW_BY_SERVER_URL);
            conversation.apply_always_allow(tools, by_label);
        }
        if !conversation.unavailable.is_empty()
            && self.breaks(ids::AGENT_CONNECTOR_TRANSIENT_RETRIED_LATER)
            && let Some(tools) = settings.get_mut("tools").and_then(Value::as_array_mut)
        {
            // Breaking the rule: a connector that was unreachable is dropped for good.
            tools.retain(|t| {
                !conversation
                    .unavailable
                    .contains(str_field(t, "server_label"))
            });
        }
        let mut body = settings.clone();
        let mut owed = std::mem::take(&mut conversation.pending);
        if !owed.is_empty() && self.breaks(ids::AGENT_APPROVAL_DENY_ON_MOVE_ON) {
            // Breaking the rule: the undecided calls are forgotten, a new conversation begins.
            owed.clear();
            conversation.previous = None;
            conversation.history.clear();
        }
        if self.zero_data_retention {
            let first = conversation.history.is_empty() && owed.is_empty();
            conversation.history.extend(owed);
            conversation.history.push(user_item(&message));
            body["input"] = if first {
                json!(message)
            } else {
                Value::Array(conversation.history.clone())
            };
        } else if let Some(previous) = conversation.previous.clone() {
            // The new message after the decisions owed, in the same input.
            owed.push(user_item(&message));
            body["previous_response_id"] = json!(previous);
            body["input"] = Value::Array(owed);
        } else {
            body["input"] = json!(message);
        }
        if body.get("background").and_then(Value::as_bool) == Some(true) {
            // A background run must be stored to be polled.
            body["store"] = json!(true);
        }
        let streamed = body.get("stream").and_then(Value::as_bool) == Some(true);
        let background = body.get("background").and_then(Value::as_bool) == Some(true);
        let mut response = if streamed {
            self.stream(&body).await?
        } else {
            match self.create(&body).await? {
                Ok(r) if background => self.follow_background(r).await?,
                other => other,
            }
        };
        for round in 0..MAX_ROUNDS {
            let current = match response {
                Ok(r) => r,
                Err(text) => return self.show_failure(&text).await,
            };
            if let Some(id) = current.get("id").and_then(Value::as_str) {
                conversation.previous = Some(id.to_owned());
            }
            if self.zero_data_retention {
                let has_calls = !items(&current, "mcp_call").is_empty();
                let drop_calls = has_calls && self.breaks(ids::AGENT_ZDR_MCP_CALL_UNCHANGED);
                conversation.remember_output(&current, drop_calls);
            }
            self.show_mcp_errors(&current).await?;
            self.notice_empty_tools(&current).await?;
            conversation.unavailable = items(&current, "mcp_call")
                .iter()
                .filter(|c| str_field(c, "error") == "CONNECTOR_UNAVAILABLE")
                .map(|c| str_field(c, "server_label").to_owned())
                .collect();
            let denied = items(&current, "mcp_call")
                .iter()
                .any(|c| str_field(c, "error") == "POLICY_DENIED");
            if denied && self.breaks(ids::AGENT_CONNECTOR_POLICY_DENIED_NOT_RETRIED) {
                // Breaking the rule: the blocked request is sent once more.
                if let Ok(again) = self.create(&body).await? {
                    self.show_mcp_errors(&again).await?;
                }
            }
            let requests: Vec<Value> = items(&current, "mcp_approval_request")
                .into_iter()
                .cloned()
                .collect();
            if requests.is_empty() || (round > 0 && self.breaks(ids::AGENT_APPROVAL_LATER_ROUNDS)) {
                return self.finish(&current).await;
            }
            if self.wants_to_stop().await? {
                if self.breaks(ids::AGENT_APPROVAL_STOP_BY_DENY) {
                    // Breaking the rule: the tool is dropped from allowed_tools and the
                    // message sent again, leaving the call pending.
                    let mut again = settings.clone();
                    drop_tools(&mut again, &requests);
                    again["input"] = json!(message);
                    response = self.create(&again).await?;
                    continue;
                }
                let decisions: Vec<Value> = requests
                    .iter()
                    .map(|r| decision_item(r, false, "The user stopped this call."))
                    .collect();
                let continuation = self.continuation(conversation, &settings, &current, decisions);
                response = self.create(&continuation).await?;
                continue;
            }
            let mut decisions = Vec::new();
            let mut undecided = false;
            // Breaking the rule: of several pending requests, only the first is decided.
            let only_first = requests.len() > 1 && self.breaks(ids::AGENT_APPROVAL_EVERY_PENDING);
            for request in requests
                .iter()
                .take(if only_first { 1 } else { usize::MAX })
            {
                let decision = self.ask_confirm(request).await?;
                if decision == (Decision::Approve { always: true })
                    && let Some(url) = settings
                        .get("tools")
                        .and_then(|t| server_url_of(t, str_field(request, "server_label")))
                {
                    let key = if self.breaks(ids::AGENT_ALWAYS_ALLOW_BY_SERVER_URL) {
                        str_field(request, "server_label").to_owned()
                    } else {
                        url.to_owned()
                    };
                    conversation
                        .always
                        .insert((key, str_field(request, "name").to_owned()));
                }
                let approve = match decision {
                    Decision::Undecided => {
                        undecided = true;
                        decisions.push(decision_item(
                            request,
                            false,
                            "The user moved on without deciding.",
                        ));
                        continue;
                    }
                    Decision::Approve { .. } => true,
                    Decision::Deny => false,
                };
                let approve = approve || self.breaks(ids::AGENT_APPROVAL_USER_DECISION);
                let decision = decision_item(request, approve, "The user declined this call.");
                if self.breaks(ids::AGENT_APPROVAL_RESPOND_EACH) {
                    decisions.push(decision.clone());
                }
                decisions.push(decision);
            }
            if undecided {
                // The person closed the prompt: the decisions go out with their next message.
                conversation.pending = decisions;
                return self
                    .show("status", "waiting for your decision on the tool call")
                    .await;
            }
            let continuation = self.continuation(conversation, &settings, &current, decisions);
            response = self.create(&continuation).await?;
        }
        self.show("error", "too many approval rounds").await
    }

    /// `max_steps` for a request with deferred tools (connectors, `defer_loading`) when the
    /// turn does not set it: room to search the catalog and call what it finds.
    fn choose_max_steps(&self, settings: &mut Value) {
        let deferred = settings
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|tools| {
                tools.iter().any(|t| {
                    str_field(t, "type") == "connector"
                        || t.get("defer_loading").and_then(Value::as_bool) == Some(true)
                })
            });
        if deferred && settings.get("max_steps").is_none() {
            let steps = if self.breaks(ids::AGENT_DEFERRED_MAX_STEPS) {
                1
            } else {
                6
            };
            settings["max_steps"] = json!(steps);
        }
    }

    /// The request continuing `current` with `decisions` (history or previous_response_id).
    fn continuation(
        &self,
        conversation: &mut Conversation,
        settings: &Value,
        current: &Value,
        decisions: Vec<Value>,
    ) -> Value {
        let mut body = settings.clone();
        if self.breaks(ids::AGENT_APPROVAL_RESEND_TOOLS)
            && let Some(map) = body.as_object_mut()
        {
            map.remove("tools");
        }
        if self.breaks(ids::AGENT_ALWAYS_ALLOW_NO_EMPTY_NEVER) {
            // Breaking the policy rule: "nothing always allowed" sent as an empty never list.
            for tool in body
                .get_mut("tools")
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if tool.get("type").and_then(Value::as_str) == Some("mcp") {
                    tool["require_approval"] = json!({"always": {}, "never": {"tool_names": []}});
                }
            }
        }
        if self.zero_data_retention && !self.breaks(ids::AGENT_ZDR_HISTORY) {
            // No previous_response_id: the history itself, items sent back as issued.
            conversation.history.extend(decisions);
            body["input"] = Value::Array(conversation.history.clone());
        } else {
            body["previous_response_id"] = current["id"].clone();
            body["input"] = Value::Array(decisions);
        }
        body
    }

    /// Shows a failed request; a discovery failure names the error and what to check.
    async fn show_failure(&self, text: &str) -> Result<(), ClientError> {
        if text.contains("external_connector_error")
            && self.breaks(ids::AGENT_DISCOVERY_FAILURE_SHOWN)
        {
            return self.show("error", "Something went wrong.").await;
        }
        self.show("error", text).await
    }

    /// Shows each connector that listed no tools and reported no error: it is probably not
    /// connected.
    async fn notice_empty_tools(&self, response: &Value) -> Result<(), ClientError> {
        for list in items(response, "mcp_list_tools") {
            let empty = list
                .get("tools")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty);
            if !empty
                || list.get("error").is_some_and(|e| !e.is_null())
                || self.breaks(ids::AGENT_CONNECTOR_EMPTY_TOOLS_NOTICED)
            {
                continue;
            }
            let label = str_field(list, "server_label");
            self.show(
                "status",
                &format!(
                    "The {label} connector lists no tools: it is probably not connected. Connect it on the Project connectors page."
                ),
            )
            .await?;
        }
        Ok(())
    }

    async fn show_mcp_errors(&self, response: &Value) -> Result<(), ClientError> {
        for call in items(response, "mcp_call") {
            let error = str_field(call, "error");
            let label = str_field(call, "server_label");
            let text = match error {
                "" => continue,
                "AUTH_REQUIRED" if self.breaks(ids::AGENT_CONNECTOR_AUTH_REQUIRED_SHOWN) => {
                    continue;
                }
                "AUTH_REQUIRED" => format!(
                    "The {label} connector needs reconnecting (AUTH_REQUIRED): ask a Project administrator to reconnect it in the API Console."
                ),
                "INVALID_ARGUMENTS"
                | "POLICY_DENIED"
                | "CONNECTOR_UNAVAILABLE"
                | "CONNECTOR_INTERNAL_ERROR" => format!(
                    "The {label} tool {} failed: {error}",
                    str_field(call, "name")
                ),
                // TOOL_ERROR and any value the documents do not list: a tool failure.
                _ if self.breaks(ids::AGENT_CONNECTOR_ERROR_IS_FAILURE) => continue,
                other => format!(
                    "The {label} tool {} failed: {other}",
                    str_field(call, "name")
                ),
            };
            self.show("error", &text).await?;
        }
        Ok(())
    }

    async fn finish(&self, response: &Value) -> Result<(), ClientError> {
        let status = str_field(response, "status");
        if status != "completed" {
            return self
                .show("status", &format!("the run ended `{status}`"))
                .await;
        }
        let text: String = items(response, "message")
            .iter()
            .filter_map(|m| m.get("content").and_then(Value::as_array))
            .flatten()
            .filter(|c| str_field(c, "type") == "output_text")
            .map(|c| str_field(c, "text"))
            .collect();
        self.show("final", &text).await
    }

    // ---- background ----

    /// Polls a background run with GET until it is terminal; cancels when the user asks.
    async fn follow_background(
        &self,
        created: Value,
    ) -> Result<Result<Value, String>, ClientError> {
        let id = str_field(&created, "id").to_owned();
        let mut cancelled = false;
        for _ in 0..MAX_POLLS {
            if !cancelled && self.wants_to_stop().await? {
                cancelled = true;
                let url = self.responses(&format!("/{id}/cancel"));
                let ack = self
                    .http
                    .post(&url)
                    .bearer_auth(&self.key)
                    .send_paced()
                    .await
                    .map_err(Self::err(&url))?;
                let ack = Self::answer(&url, ack).await?;
                if self.breaks(ids::AGENT_CANCEL_CONFIRM) {
                    // Takes the acknowledgement (`cancelling`) for the outcome.
                    return Ok(ack);
                }
            }
            if self.breaks(ids::AGENT_BACKGROUND_POLL) && !cancelled {
                return Ok(Ok(created));
            }
            let current = match self.get(&id).await? {
                Ok(r) => r,
                Err(text) => return Ok(Err(text)),
            };
            if crate::transcript::terminal(str_field(&current, "status"))
                || str_field(&current, "status") == "incomplete"
            {
                return Ok(Ok(current));
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
        Ok(Err(format!("{id} did not finish")))
    }

    // ---- streaming ----

    /// Streams a create; a dropped connection, or a stream that ends before its terminal event,
    /// is resumed from the last `sequence_number`.
    async fn stream(&self, body: &Value) -> Result<Result<Value, String>, ClientError> {
        let url = self.responses("");
        let post = || self.http.post(&url).bearer_auth(&self.key).json(body);
        let mut cursor = Cursor::default();
        let (mut r, tries) = self.send(&url, post).await?;
        if tries > 1 && r.status().is_success() {
            self.resend_if_breaking(&url, post).await?;
        }
        for _ in 0..4 {
            if !r.status().is_success() {
                return Self::answer(&url, r).await;
            }
            let ended = cursor.read(r).await;
            if cursor.terminal.is_some() {
                break;
            }
            let Some(id) = cursor.id.clone() else {
                return Ok(Err("the stream ended before naming its response".into()));
            };
            if ended == StreamEnd::Clean && self.breaks(ids::AGENT_STREAM_UNFINISHED_RESUME) {
                // Breaking the rule: a stream that ended without its terminal event is taken
                // for the whole answer.
                return Ok(Ok(json!({"id": id, "status": "completed", "output": []})));
            }
            r = if ended == StreamEnd::Dropped && self.breaks(ids::AGENT_STREAM_RESUME) {
                post().send_paced().await.map_err(Self::err(&url))?
            } else {
                let resume = self.responses(&format!(
                    "/{id}?stream=true&starting_after={}",
                    cursor.last.unwrap_or_default()
                ));
                self.send(&resume, || self.http.get(&resume).bearer_auth(&self.key))
                    .await?
                    .0
            };
        }
        let Some(id) = cursor.id.clone() else {
            return Ok(Err("the stream never named its response".into()));
        };
        match cursor.terminal {
            Some(event) => match event.get("response") {
                Some(r) if r.is_object() => Ok(Ok(r.clone())),
                _ => self.get(&id).await,
            },
            None => Ok(Err(format!("the stream of {id} never ended"))),
        }
    }
}

/// How a stream's body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamEnd {
    /// The body ended as a body should (whether or not a terminal event came).
    Clean,
    /// The connection broke mid-body.
    Dropped,
}

/// What a client keeps of a stream: the response id, the last `sequence_number`, the terminal
/// event.
#[derive(Default)]
struct Cursor {
    id: Option<String>,
    last: Option<u64>,
    terminal: Option<Value>,
}

impl Cursor {
    /// Reads frames until the stream ends or breaks; says which.
    async fn read(&mut self, mut r: reqwest::Response) -> StreamEnd {
        let mut pending = String::new();
        loop {
            let chunk = match r.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => return StreamEnd::Clean,
                Err(_) => return StreamEnd::Dropped,
            };
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find("\n\n") {
                let frame: String = pending.drain(..end + 2).collect();
                for data in frame.lines().filter_map(|l| l.strip_prefix("data:")) {
                    let Ok(event) = serde_json::from_str::<Value>(data.trim()) else {
                        continue;
                    };
                    self.take(event);
                }
            }
        }
    }

    fn take(&mut self, event: Value) {
        if let Some(n) = event.get("sequence_number").and_then(Value::as_u64) {
            self.last = Some(n);
        }
        if self.id.is_none()
            && let Some(id) = event.pointer("/response/id").and_then(Value::as_str)
        {
            self.id = Some(id.to_owned());
        }
        if matches!(
            event.get("type").and_then(Value::as_str),
            Some(
                "response.completed"
                    | "response.failed"
                    | "response.incomplete"
                    | "response.cancelled"
            )
        ) {
            self.terminal = Some(event);
        }
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Drops the tools of `requests` from `allowed_tools` (the whole `mcp` tool when none is
/// left): what a client that thinks this cancels a pending call does.
fn drop_tools(settings: &mut Value, requests: &[Value]) {
    let Some(tools) = settings.get_mut("tools").and_then(Value::as_array_mut) else {
        return;
    };
    for tool in tools.iter_mut() {
        let label = str_field(tool, "server_label").to_owned();
        if let Some(allowed) = tool.get_mut("allowed_tools").and_then(Value::as_array_mut) {
            allowed.retain(|a| {
                !requests.iter().any(|r| {
                    str_field(r, "server_label") == label
                        && a.as_str() == Some(str_field(r, "name"))
                })
            });
        }
    }
    tools.retain(|t| {
        t.get("allowed_tools")
            .and_then(Value::as_array)
            .is_none_or(|a| !a.is_empty())
    });
}

/// The output items of `response` of one type.
fn items<'a>(response: &'a Value, kind: &str) -> Vec<&'a Value> {
    response
        .get("output")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter(|i| str_field(i, "type") == kind).collect())
        .unwrap_or_default()
}
