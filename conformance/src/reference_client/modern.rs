//! The reference client in the stateless 2026-07-28 era: the `_meta` envelope and routing
//! headers on every request, and either MCP Tasks (`tasks/get`, `tasks/update`, `cancel_task`)
//! or in-call elicitation (MRTR retries), as `MCP_CONFORMANCE_CONTEXT.flow` says.
//!
//! Like the handshake client it follows every rule, and with `--break RULE_ID` breaks exactly
//! that one, each time in a way that lets the rest of the scenario run on.

use std::collections::BTreeSet;
use std::time::Duration;

use mock_server::model::arguments::{CallComputer, ThreadRef};
use mock_server::model::elicitation::{ElicitAction, ElicitParams, ElicitResult, InputResponses};
use mock_server::model::jsonrpc::{JsonRpcMessage, RequestId};
use mock_server::model::lifecycle::{ClientCapabilities, ElicitationModes, ResultType};
use mock_server::model::request::{
    CallToolRequestParams, ClientRequest, CustomRequest, RequestMeta, StatelessEnvelope,
    TaskRequestParams, UpdateTaskRequestParams,
};
use mock_server::model::results::Event;
use mock_server::model::tools::ToolName;
use reqwest::header::HeaderValue;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::options::ClientOptions;
use super::pace::SendPaced;
use super::session::client_info;
use super::wire::{self, Outbound};
use crate::error::ClientError;
use crate::rules::ids;

mod in_call;

const CPC: ToolName = ToolName::CallPerplexityComputer;
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
    message: JsonRpcMessage,
}

impl Answer {
    fn result(&self) -> Option<&Value> {
        self.message.result.as_ref()
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
    wire::task_json(result).unwrap_or(Value::Null)
}

/// Whether a result is of `kind` (`resultType`).
fn is_result(result: &Value, kind: ResultType) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some(kind.as_str())
}

/// The params of an `elicitation/create` request inside a result, if it is one this client can
/// read.
fn elicit_params(request: &Value) -> Option<ElicitParams> {
    ElicitParams::deserialize(request.get("params")?).ok()
}

impl Modern {
    fn breaks(&self, rule: &str) -> bool {
        super::options::breaks(self.options.break_rule.as_deref(), rule)
    }

    /// The client capabilities a request of `method` declares.
    fn capabilities(&self, method: &str) -> ClientCapabilities {
        match self.flow {
            Flow::Tasks => {
                let skip =
                    method == "tasks/cancel" && self.breaks(ids::TASKS_EXTENSION_EVERY_REQUEST);
                ClientCapabilities {
                    tasks: !skip,
                    ..ClientCapabilities::default()
                }
            }
            Flow::Elicitation => ClientCapabilities {
                elicitation: Some(ElicitationModes {
                    form: true,
                    url: true,
                }),
                ..ClientCapabilities::default()
            },
        }
    }

    /// Sends one request with the stateless envelope (declaring `capabilities`) and the routing
    /// headers; `id` reuses a JSON-RPC id when given.
    async fn send(
        &mut self,
        mut request: ClientRequest,
        capabilities: ClientCapabilities,
        id: Option<u64>,
    ) -> Result<Answer, ClientError> {
        // A fresh number even when an id is reused, so progress tokens made from it stay unique.
        let fresh = self.next_id;
        self.next_id += 1;
        let id = id.unwrap_or(fresh);
        let version = self.options.protocol_version.clone();
        request.meta_mut().envelope = Some(Box::new(StatelessEnvelope::new(
            version.clone(),
            capabilities,
            client_info(),
        )));
        let mut headers = self.options.post_headers();
        if let Ok(v) = HeaderValue::from_str(&version) {
            headers.insert("mcp-protocol-version", v);
        }
        let method = request.method().to_owned();
        if let Ok(v) = HeaderValue::from_str(&method) {
            headers.insert("mcp-method", v);
        }
        let omit_name = method == "tasks/cancel" && self.breaks(ids::TASKS_MCP_NAME);
        if let Some((_, name)) = request.routing_name()
            && !omit_name
            && let Ok(v) = HeaderValue::from_str(name)
        {
            headers.insert("mcp-name", v);
        }
        let body = Outbound::request(id, request).body()?;
        let url = self.options.url.clone();
        let response = self
            .http
            .post(&url)
            .headers(headers)
            .body(body)
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
        let answering = RequestId::from(id);
        let message = wire::jsonrpc_messages(&text, is_sse)
            .into_iter()
            .find(|m| m.answers(&answering))
            .ok_or_else(|| ClientError::Protocol {
                what: method.clone(),
                detail: format!(
                    "HTTP {status}: {}",
                    text.chars().take(300).collect::<String>()
                ),
            })?;
        Ok(Answer { id, message })
    }

    /// A request whose result the client needs.
    async fn request(&mut self, request: ClientRequest) -> Result<Value, ClientError> {
        let method = request.method().to_owned();
        let capabilities = self.capabilities(&method);
        let answer = self.send(request, capabilities, None).await?;
        answer
            .result()
            .cloned()
            .ok_or_else(|| ClientError::Protocol {
                what: method,
                detail: wire::describe(&answer.message),
            })
    }

    /// A progress token of its own for the next request.
    fn progress(&self) -> RequestMeta {
        RequestMeta::progress(format!("progress-{}", self.next_id))
    }

    /// A call of `tool` with `arguments`, asking for progress.
    fn call_params(
        &self,
        tool: ToolName,
        arguments: &impl Serialize,
    ) -> Result<CallToolRequestParams, ClientError> {
        let arguments = wire::to_json(arguments, tool.as_str())?;
        Ok(CallToolRequestParams::new(tool, arguments).with_meta(self.progress()))
    }

    /// Calls `tool` with `arguments` and returns its result.
    async fn call(
        &mut self,
        tool: ToolName,
        arguments: &impl Serialize,
    ) -> Result<Value, ClientError> {
        let params = self.call_params(tool, arguments)?;
        self.request(ClientRequest::CallTool(params)).await
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
    async fn elicit(&self, request: &Value) -> Result<ElicitResult, ClientError> {
        let Some(params) = elicit_params(request) else {
            // A request this host cannot read is dismissed, as a person would dismiss it.
            return Ok(ElicitResult::bare(ElicitAction::Cancel));
        };
        let message = &params.message;
        if params.is_url() {
            let url = params.url.as_deref().unwrap_or_default();
            let answer = self
                .user_post(
                    "ask",
                    json!({"kind": "url", "url": url, "message": message}),
                )
                .await?;
            // A URL accept is consent to open the page: it carries no content.
            let action = answer
                .get("action")
                .and_then(Value::as_str)
                .and_then(ElicitAction::parse)
                .unwrap_or(ElicitAction::Cancel);
            return Ok(ElicitResult::bare(action));
        }
        if !params.has_fields() {
            let answer = self
                .user_post("ask", json!({"kind": "confirm", "message": message}))
                .await?;
            let approved = answer.get("action").and_then(Value::as_str) == Some("accept");
            // Breaking the decision rule: a denial sent as an approval.
            return Ok(
                if approved || self.breaks(ids::COMPUTER_APPROVAL_USER_DECISION) {
                    ElicitResult::accept(Map::new())
                } else {
                    ElicitResult::bare(ElicitAction::Decline)
                },
            );
        }
        let schema = params.requested_schema.clone().unwrap_or(Value::Null);
        let answer = self
            .user_post(
                "ask",
                json!({"kind": "question", "message": message, "schema": schema}),
            )
            .await?;
        let action = answer.get("action").and_then(Value::as_str);
        match action.and_then(ElicitAction::parse) {
            // The user declined (or dismissed) the form: that goes back as they said.
            Some(action @ (ElicitAction::Decline | ElicitAction::Cancel)) => {
                Ok(ElicitResult::bare(action))
            }
            _ => {
                let content = answer
                    .get("content")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                Ok(ElicitResult::accept(content))
            }
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
            let mut args = CallComputer::new(message);
            if let Some(t) = &thread {
                // Breaking the thread rule: the follow-up's thread "parsed" from the task id.
                let parsed = last_task
                    .as_deref()
                    .filter(|_| self.breaks(ids::TASKS_THREAD_ID_FROM_META))
                    .map(|task| task.trim_start_matches("task-").to_owned());
                args.thread_id = Some(parsed.unwrap_or_else(|| t.clone()));
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
        args: &CallComputer,
    ) -> Result<Option<(String, Option<String>)>, ClientError> {
        let created = loop {
            let created = self.call(CPC, args).await?;
            if is_result(&created, ResultType::Task) {
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
            if task.get("event").and_then(Value::as_str)
                == Some(Event::InsufficientCredits.as_str())
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
                let poll = ClientRequest::GetTask(TaskRequestParams::new(parsed));
                self.send(poll, capabilities, None).await?;
            }
            let poll = ClientRequest::GetTask(TaskRequestParams::new(task_id.clone()));
            let state = match self.request(poll).await {
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
                        // A method the extension does not have, so no typed request: by name.
                        let capabilities = self.capabilities("tasks/result");
                        let mut params = Map::new();
                        params.insert("taskId".to_owned(), Value::from(task_id.as_str()));
                        let result =
                            ClientRequest::Custom(CustomRequest::new("tasks/result", params));
                        self.send(result, capabilities, None).await?;
                    }
                    return Ok(thread.map(|t| (t, Some(task_id))));
                }
                "input_required" => {
                    let requests = state
                        .get("inputRequests")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default();
                    let mut responses = InputResponses::default();
                    let mut open_late = Vec::new();
                    for (key, request) in &requests {
                        if answered.contains(key) {
                            continue;
                        }
                        let url = elicit_params(request).is_some_and(|p| p.is_url());
                        if url && self.breaks(ids::TASKS_URL_OPEN) {
                            // Breaking the URL rule: accepted first, the page opened after.
                            let accepted = ElicitResult::bare(ElicitAction::Accept);
                            responses.0.push((key.clone(), accepted));
                            open_late.push(request.clone());
                            continue;
                        }
                        let result = self.elicit(request).await?;
                        responses.0.push((key.clone(), result));
                    }
                    if responses.is_empty() {
                        continue;
                    }
                    // Only answers the user accepted are spoiled: a decline stays the user's.
                    let accepted = responses
                        .0
                        .iter()
                        .all(|(_, r)| r.action == ElicitAction::Accept);
                    if invalid_once && accepted {
                        // Breaking the update rule: first an answer with a field the form lacks.
                        invalid_once = false;
                        let mut bad = responses.clone();
                        for (_, response) in &mut bad.0 {
                            response
                                .content
                                .get_or_insert_with(Map::new)
                                .insert("not-a-field".to_owned(), json!("x"));
                        }
                        self.update(&task_id, &bad).await?;
                    }
                    answered.extend(responses.0.iter().map(|(key, _)| key.clone()));
                    self.update(&task_id, &responses).await?;
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
        responses: &InputResponses,
    ) -> Result<(), ClientError> {
        let capabilities = self.capabilities("tasks/update");
        // The answer is an acknowledgement (or a refusal): either way, polling tells what
        // happened, so the message itself is not needed.
        let update = UpdateTaskRequestParams::new(task_id, responses);
        self.send(ClientRequest::UpdateTask(update), capabilities, None)
            .await?;
        Ok(())
    }

    /// The user wants the task stopped: tasks/cancel (an acknowledgement), then cancel_task on
    /// the thread, which really stops Computer; polling then confirms `cancelled`.
    async fn stop(&mut self, task_id: &str, thread: Option<&str>) -> Result<(), ClientError> {
        let capabilities = self.capabilities("tasks/cancel");
        let cancel = ClientRequest::CancelTask(TaskRequestParams::new(task_id));
        self.send(cancel, capabilities, None).await?;
        if self.breaks(ids::TASKS_CANCEL_CANCEL_TASK) {
            return Ok(());
        }
        if let Some(thread) = thread {
            self.call(ToolName::CancelTask, &ThreadRef::new(thread))
                .await?;
        }
        Ok(())
    }
}
