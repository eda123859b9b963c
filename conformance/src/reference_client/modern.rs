//! The reference client in the stateless 2026-07-28 era: the `_meta` envelope and routing
//! headers on every request, and either MCP Tasks (`tasks/get`, `tasks/update`, `cancel_task`)
//! or in-call elicitation (MRTR retries), as `MCP_CONFORMANCE_CONTEXT.flow` says.
//!
//! Like the handshake client it follows every rule, and with `--break RULE_ID` breaks exactly
//! that one, each time in a way that lets the rest of the scenario run on.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::header::HeaderValue;
use serde_json::{Map, Value, json};

use super::options::ClientOptions;
use super::pace::SendPaced;
use crate::error::ClientError;
use crate::rules::ids;

mod in_call;

const CPC: &str = "call_perplexity_computer";
const EXTENSION: &str = "io.modelcontextprotocol/tasks";
const META_THREAD: &str = "ai.perplexity/threadId";
/// Real time between read_thread polls after an in-call elicitation.
const READ_EVERY: Duration = Duration::from_millis(10);
/// Polls before the client gives up on a thread or a task.
const MAX_POLLS: usize = 3000;

/// How this client follows a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Tasks,
    Elicitation,
}

/// Runs the modern-era reference client to the end of the user's script.
pub(super) async fn run(options: ClientOptions) -> Result<(), ClientError> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    let flow = match context.get("flow").and_then(Value::as_str) {
        Some("elicitation") => Flow::Elicitation,
        _ => Flow::Tasks,
    };
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|source| ClientError::Http {
            url: options.url.clone(),
            source,
        })?;
    let mut client = Modern {
        http,
        options,
        flow,
        next_id: 1,
        polled: false,
    };
    client.converse().await?;
    client.user_post("done", json!({})).await?;
    Ok(())
}

struct Modern {
    http: reqwest::Client,
    options: ClientOptions,
    flow: Flow,
    next_id: u64,
    /// A task was polled already in this run (breaking the far-too-early rule touches only the
    /// very first poll, so later tasks' polls cannot stretch into the "early" band).
    polled: bool,
}

/// One JSON-RPC exchange: the id sent and the message that answered it.
struct Answer {
    id: u64,
    message: Value,
}

impl Answer {
    fn result(&self) -> Option<&Value> {
        self.message.get("result")
    }
}

fn http_error(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
    move |source| ClientError::Http {
        url: url.to_owned(),
        source,
    }
}

/// The task JSON of a tool result (structuredContent, else the first text block).
fn task_json(result: &Value) -> Value {
    if let Some(s) = result.get("structuredContent") {
        return s.clone();
    }
    result
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

impl Modern {
    fn breaks(&self, rule: &str) -> bool {
        super::options::breaks(self.options.break_rule.as_deref(), rule)
    }

    /// The client capabilities this request declares.
    fn capabilities(&self, method: &str) -> Value {
        match self.flow {
            Flow::Tasks => {
                let skip =
                    method == "tasks/cancel" && self.breaks(ids::TASKS_EXTENSION_EVERY_REQUEST);
                if skip {
                    json!({})
                } else {
                    json!({"extensions": {EXTENSION: {}}})
                }
            }
            Flow::Elicitation => json!({"elicitation": {"form": {}, "url": {}}}),
        }
    }

    /// Sends one request with the stateless envelope; `id` reuses a JSON-RPC id when given.
    async fn send(
        &mut self,
        method: &str,
        mut params: Value,
        capabilities: Value,
        id: Option<u64>,
    ) -> Result<Answer, ClientError> {
        // A fresh number even when an id is reused, so progress tokens made from it stay unique.
        let fresh = self.next_id;
        self.next_id += 1;
        let id = id.unwrap_or(fresh);
        let version = self.options.protocol_version.clone();
        params["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(version);
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities;
        params["_meta"]["io.modelcontextprotocol/clientInfo"] =
            json!({"name": "conformance-reference-client", "version": env!("CARGO_PKG_VERSION")});
        let mut headers = self.options.post_headers();
        if let Ok(v) = HeaderValue::from_str(&version) {
            headers.insert("mcp-protocol-version", v);
        }
        if let Ok(v) = HeaderValue::from_str(method) {
            headers.insert("mcp-method", v);
        }
        let name = match method {
            "tools/call" => params.get("name"),
            m if m.starts_with("tasks/") => params.get("taskId"),
            _ => None,
        };
        let omit_name = method == "tasks/cancel" && self.breaks(ids::TASKS_MCP_NAME);
        if let Some(name) = name.and_then(Value::as_str)
            && !omit_name
            && let Ok(v) = HeaderValue::from_str(name)
        {
            headers.insert("mcp-name", v);
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let url = self.options.url.clone();
        let response = self
            .http
            .post(&url)
            .headers(headers)
            .body(body.to_string())
            .send_paced()
            .await
            .map_err(http_error(&url))?;
        let is_sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let status = response.status();
        let text = response.text().await.map_err(http_error(&url))?;
        let message = super::wire::jsonrpc_messages(&text, is_sse)
            .into_iter()
            .find(|m| m.get("id") == Some(&json!(id)))
            .ok_or_else(|| ClientError::Protocol {
                what: method.to_owned(),
                detail: format!(
                    "HTTP {status}: {}",
                    text.chars().take(300).collect::<String>()
                ),
            })?;
        Ok(Answer { id, message })
    }

    /// A request whose result the client needs.
    async fn request(&mut self, method: &str, params: Value) -> Result<Value, ClientError> {
        let capabilities = self.capabilities(method);
        let answer = self.send(method, params, capabilities, None).await?;
        answer
            .result()
            .cloned()
            .ok_or_else(|| ClientError::Protocol {
                what: method.to_owned(),
                detail: answer.message.to_string(),
            })
    }

    fn call_params(&self, tool: &str, arguments: &Value) -> Value {
        json!({"name": tool, "arguments": arguments,
               "_meta": {"progressToken": format!("progress-{}", self.next_id)}})
    }

    // ---- the user channel ----

    async fn user_get(&self, what: &str) -> Result<Option<Value>, ClientError> {
        let url = format!("{}/{what}", self.options.user_url);
        let response = self
            .http
            .get(&url)
            .send_paced()
            .await
            .map_err(http_error(&url))?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(None);
        }
        Ok(Some(response.json().await.map_err(http_error(&url))?))
    }

    async fn user_post(&self, what: &str, body: Value) -> Result<Value, ClientError> {
        let url = format!("{}/{what}", self.options.user_url);
        let response = self
            .http
            .post(&url)
            .json(&body)
            .send_paced()
            .await
            .map_err(http_error(&url))?;
        if response.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(Value::Null);
        }
        response.json().await.map_err(http_error(&url))
    }

    async fn show(&self, kind: &str, task: &Value) -> Result<(), ClientError> {
        self.user_post(
            "show",
            json!({"kind": kind, "text": task.get("text"), "files": task.get("files"), "thread_id": task.get("thread_id")}),
        )
        .await
        .map(|_| ())
    }

    /// Shows an `elicitation/create` request to the user and returns the `ElicitResult`.
    async fn elicit(&self, request: &Value) -> Result<Value, ClientError> {
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        let message = params.get("message").cloned().unwrap_or(Value::Null);
        if params.get("mode").and_then(Value::as_str) == Some("url") {
            let url = params
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let answer = self
                .user_post(
                    "ask",
                    json!({"kind": "url", "url": url, "message": message}),
                )
                .await?;
            // A URL accept is consent to open the page: it carries no content.
            return Ok(json!({"action": answer.get("action").cloned().unwrap_or(json!("cancel"))}));
        }
        let schema = params
            .get("requestedSchema")
            .cloned()
            .unwrap_or(Value::Null);
        let has_fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if !has_fields {
            let answer = self
                .user_post("ask", json!({"kind": "confirm", "message": message}))
                .await?;
            let approved = answer.get("action").and_then(Value::as_str) == Some("accept");
            // Breaking the decision rule: a denial sent as an approval.
            return Ok(
                if approved || self.breaks(ids::COMPUTER_APPROVAL_USER_DECISION) {
                    json!({"action": "accept", "content": {}})
                } else {
                    json!({"action": "decline"})
                },
            );
        }
        let answer = self
            .user_post(
                "ask",
                json!({"kind": "question", "message": message, "schema": schema}),
            )
            .await?;
        match answer.get("action").and_then(Value::as_str) {
            // The user declined (or dismissed) the form: that goes back as they said.
            Some(action @ ("decline" | "cancel")) => Ok(json!({"action": action})),
            _ => Ok(
                json!({"action": "accept", "content": answer.get("content").cloned().unwrap_or_else(|| json!({}))}),
            ),
        }
    }

    /// Asks the user to open `url` (a billing page, a sign-in); whether they did.
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
        let mut last_task: Option<String> = None;
        while let Some(next) = self.user_get("next-message").await? {
            let Some(message) = next.get("message").and_then(Value::as_str) else {
                continue;
            };
            let mut args = json!({"message": message});
            if let Some(t) = &thread {
                // Breaking the thread rule: the follow-up's thread "parsed" from the task id.
                let parsed = last_task
                    .as_deref()
                    .filter(|_| self.breaks(ids::TASKS_THREAD_ID_FROM_META))
                    .map(|task| task.trim_start_matches("task-").to_owned());
                args["thread_id"] = json!(parsed.unwrap_or_else(|| t.clone()));
            }
            let settled = match self.flow {
                Flow::Tasks => self.follow_task(&args).await?,
                Flow::Elicitation => self.follow_call(&args).await?,
            };
            if let Some((t, task)) = settled {
                thread = Some(t);
                last_task = task;
            }
        }
        Ok(())
    }

    /// Starts a request as a task and follows it to the end; returns (thread, task id).
    async fn follow_task(
        &mut self,
        args: &Value,
    ) -> Result<Option<(String, Option<String>)>, ClientError> {
        let created = loop {
            let params = self.call_params(CPC, args);
            let created = self.request("tools/call", params).await?;
            if created.get("resultType").and_then(Value::as_str) == Some("task") {
                break created;
            }
            // A request that could not start comes back as a regular tool result.
            let task = task_json(&created);
            // Breaking the rule: the refusal is never shown (the top-up still happens).
            if !self.breaks(ids::TASKS_REGULAR_RESULT_SHOWN) {
                self.show("error", &task).await?;
            }
            // Refused for credits before sending: send it again once the user topped up.
            let billing = task
                .pointer("/interactive/billing_url")
                .and_then(Value::as_str);
            if task.get("event").and_then(Value::as_str) == Some("insufficient_credits")
                && task.get("thread_id").is_none()
                && let Some(url) = billing
                && self
                    .ask_url(url, "You are out of credits. Add credits here.")
                    .await?
            {
                continue;
            }
            return Ok(task
                .get("thread_id")
                .and_then(Value::as_str)
                .map(|t| (t.to_owned(), None)));
        };
        let Some(task_id) = created
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(ClientError::Protocol {
                what: "tools/call".into(),
                detail: format!("a task result without taskId: {created}"),
            });
        };
        let mut thread = created
            .pointer("/_meta")
            .and_then(|m| m.get(META_THREAD))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut interval = created.get("pollIntervalMs").and_then(Value::as_u64);
        let mut answered: BTreeSet<String> = BTreeSet::new();
        let mut stopping = false;
        let mut shown_early = false;
        let mut reconnected = false;
        let mut misread = self.breaks(ids::TASKS_TASK_ID_EXACT);
        let mut invalid_once = self.breaks(ids::TASKS_UPDATE_INPUT_RESPONSES);
        let mut first_poll = !self.polled;
        self.polled = true;
        for _ in 0..MAX_POLLS {
            self.wait(interval, first_poll).await;
            first_poll = false;
            if misread {
                // Breaking the task-id rule: a poll with an id "parsed" from the real one.
                misread = false;
                let parsed = task_id.trim_start_matches("task-").to_owned();
                let capabilities = self.capabilities("tasks/get");
                self.send("tasks/get", json!({"taskId": parsed}), capabilities, None)
                    .await?;
            }
            let state = match self.request("tasks/get", json!({"taskId": task_id})).await {
                Ok(state) => state,
                // The connection dropped: Computer goes on, so poll the same task again (the
                // token is sent again with it).
                Err(ClientError::Http { .. }) if !reconnected => {
                    reconnected = true;
                    if self.breaks(ids::TASKS_DISCONNECT_POLL_SAME_ID) {
                        // Breaking the rule: the request sent again, as a new task.
                        return Box::pin(self.follow_task(args)).await;
                    }
                    continue;
                }
                Err(e) => return Err(e),
            };
            interval = state
                .get("pollIntervalMs")
                .and_then(Value::as_u64)
                .or(interval);
            if let Some(t) = state
                .pointer("/_meta")
                .and_then(|m| m.get(META_THREAD))
                .and_then(Value::as_str)
            {
                thread = Some(t.to_owned());
            }
            let status = state.get("status").and_then(Value::as_str).unwrap_or("");
            match status {
                "completed" | "failed" | "cancelled" => {
                    let result = state.get("result").map(task_json).unwrap_or(Value::Null);
                    let failed = state.pointer("/result/isError") == Some(&json!(true));
                    // Breaking the error rule: a failed run passed off as an answer.
                    let kind = if status == "completed"
                        && (!failed || self.breaks(ids::COMPUTER_ERROR_SHOWN))
                    {
                        "final"
                    } else {
                        "error"
                    };
                    self.show(kind, &result).await?;
                    if self.breaks(ids::TASKS_NO_RESULT_OR_LIST) {
                        let capabilities = self.capabilities("tasks/result");
                        self.send(
                            "tasks/result",
                            json!({"taskId": task_id}),
                            capabilities,
                            None,
                        )
                        .await?;
                    }
                    return Ok(thread.map(|t| (t, Some(task_id))));
                }
                "input_required" => {
                    let requests = state
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    let mut responses = Map::new();
                    let mut open_late = Vec::new();
                    for (key, request) in &requests {
                        if answered.contains(key) {
                            continue;
                        }
                        let url =
                            request.pointer("/params/mode").and_then(Value::as_str) == Some("url");
                        if url && self.breaks(ids::TASKS_URL_OPEN) {
                            // Breaking the URL rule: accepted first, the page opened after.
                            responses.insert(key.clone(), json!({"action": "accept"}));
                            open_late.push(request.clone());
                            continue;
                        }
                        responses.insert(key.clone(), self.elicit(request).await?);
                    }
                    if responses.is_empty() {
                        continue;
                    }
                    // Only answers the user accepted are spoiled: a decline stays the user's.
                    let accepted = responses
                        .values()
                        .all(|r| r.get("action").and_then(Value::as_str) == Some("accept"));
                    if invalid_once && accepted {
                        // Breaking the update rule: first an answer with a field the form lacks.
                        invalid_once = false;
                        let mut bad = responses.clone();
                        for response in bad.values_mut() {
                            response["content"]["not-a-field"] = json!("x");
                        }
                        self.update(&task_id, bad).await?;
                    }
                    answered.extend(responses.keys().cloned());
                    self.update(&task_id, responses).await?;
                    for request in &open_late {
                        self.elicit(request).await?;
                    }
                    if self.breaks(ids::TASKS_POLL_AFTER_ACK) {
                        // The acknowledgement taken for the answer: the client stops following.
                        self.show("status", &json!({"text": "Answer sent."}))
                            .await?;
                        return Ok(thread.map(|t| (t, Some(task_id))));
                    }
                }
                _ => {
                    if status == "working"
                        && !shown_early
                        && self.breaks(ids::TASKS_STATUS_FINAL_AFTER_TERMINAL)
                    {
                        // Breaking the status rule: resultType "complete" taken for the end.
                        shown_early = true;
                        let text = state.get("statusMessage").cloned().unwrap_or(Value::Null);
                        self.show("final", &json!({"text": text})).await?;
                    }
                    if !stopping && self.user_get("interrupt").await?.is_some() {
                        stopping = true;
                        self.stop(&task_id, thread.as_deref()).await?;
                    }
                }
            }
        }
        Err(ClientError::Protocol {
            what: "tasks/get".into(),
            detail: format!("task {task_id} was not finished after {MAX_POLLS} polls"),
        })
    }

    /// Waits `pollIntervalMs` (or a share of it, when breaking a polling rule).
    async fn wait(&self, interval: Option<u64>, first_poll: bool) {
        // Far too early: the first poll at once (later gaps could stretch into the "slightly
        // early" band while the client talks to the user, which is the other rule's business).
        let share = if self.breaks(ids::TASKS_POLL_FAR_TOO_EARLY) {
            if first_poll { 0.0 } else { 1.0 }
        } else if self.breaks(ids::TASKS_POLL_INTERVAL) {
            0.7
        } else {
            1.0
        };
        if let Some(fixed) = self.options.fixed_poll {
            // A client that hard-codes its interval (`--fixed-poll-ms`), whatever it was told.
            return tokio::time::sleep(fixed).await;
        }
        let ms = interval.unwrap_or(5_000) as f64 * share;
        tokio::time::sleep(Duration::from_secs_f64(ms / 1000.0)).await;
    }

    async fn update(
        &mut self,
        task_id: &str,
        responses: Map<String, Value>,
    ) -> Result<(), ClientError> {
        let capabilities = self.capabilities("tasks/update");
        // The answer is an acknowledgement (or a refusal): either way, polling tells what
        // happened, so the message itself is not needed.
        self.send(
            "tasks/update",
            json!({"taskId": task_id, "inputResponses": responses}),
            capabilities,
            None,
        )
        .await?;
        Ok(())
    }

    /// The user wants the task stopped: tasks/cancel (an acknowledgement), then cancel_task on
    /// the thread, which really stops Computer; polling then confirms `cancelled`.
    async fn stop(&mut self, task_id: &str, thread: Option<&str>) -> Result<(), ClientError> {
        let capabilities = self.capabilities("tasks/cancel");
        self.send(
            "tasks/cancel",
            json!({"taskId": task_id}),
            capabilities,
            None,
        )
        .await?;
        if self.breaks(ids::TASKS_CANCEL_CANCEL_TASK) {
            return Ok(());
        }
        if let Some(thread) = thread {
            let params = self.call_params("cancel_task", &json!({"thread_id": thread}));
            self.request("tools/call", params).await?;
        }
        Ok(())
    }
}
