//! A run's life on the virtual clock: `queued` (background only) → `in_progress` → one
//! terminal status, with every change written both to the snapshot `GET` shows and to the
//! event log a stream (or a resumed stream) replays.
//!
//! The scripted model walks its turn's steps; each step waits its duration on the virtual
//! clock (a cancel interrupts the wait), then adds its output items. A function call or an
//! approval request pauses the turn; a continuation resumes it at the next step.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::error::ApiError;
use super::models;
use super::store::{Pause, Pending, Run, RunFile};
use super::tools::{self, Server};
use super::validate::Validated;
use super::wire::{Tool, call_token, new_id, user_text};
use crate::clock::Clock;
use crate::fixtures::{AgentScript, AgentStep, EndStatus, ResultSpec};
use crate::world::Account;

/// How long a cancelled run takes to stop after the cancel was acknowledged.
pub(crate) const CANCEL_LATENCY: Duration = Duration::from_secs(1);

/// An approval decision matched to its pending request.
#[derive(Debug, Clone)]
pub(crate) struct Decided {
    /// The request.
    pub(crate) pending: Pending,
    /// Approved or denied.
    pub(crate) approve: bool,
    /// The denial's reason.
    pub(crate) reason: Option<String>,
}

/// Everything a run needs to start.
pub(crate) struct Setup {
    /// The validated request.
    pub(crate) validated: Validated,
    /// Who sent it.
    pub(crate) account: Account,
    /// Scenario name and its script.
    pub(crate) scenario: (String, Arc<AgentScript>),
    /// The turn to play.
    pub(crate) turn: usize,
    /// The step to start at (non-zero when resuming a paused turn).
    pub(crate) next_step: usize,
    /// Approval decisions to carry out first.
    pub(crate) decisions: Vec<Decided>,
    /// The previous response's last tool output (for `{tool_output}`).
    pub(crate) previous_output: String,
}

/// Creates the run, remembers it, and starts it on the clock.
pub(crate) fn start(clock: &Clock, store: &super::store::Store, setup: Setup) -> Arc<Run> {
    let request = &setup.validated.request;
    let id = new_id("resp");
    let created = clock.now();
    let background = request.background == Some(true);
    let status = if background { "queued" } else { "in_progress" };
    let response = initial_response(&id, &setup.validated, created.timestamp(), status);
    let run = Arc::new(Run::new(
        id,
        setup.account.id.clone(),
        request.store != Some(false),
        setup.scenario.0.clone(),
        response,
    ));
    run.state().turn = setup.turn;
    store.insert(run.clone());
    run.emit("response.created", json!({"response": run.snapshot()}));
    // A function's result sent back in a continuation is what the model goes on with.
    let last_output = function_output(&setup.validated.request.input)
        .unwrap_or_else(|| setup.previous_output.clone());
    let engine = Engine {
        at: created,
        clock: clock.clone(),
        run: run.clone(),
        setup,
        last_output,
        searched: HashSet::new(),
        billing: BTreeMap::new(),
        tool_chars: 0,
        steps_taken: 0,
        denied: None,
    };
    tokio::spawn(engine.drive());
    run
}

/// The response object as it first appears (fields as recorded from the live API).
fn initial_response(id: &str, v: &Validated, created_at: i64, status: &str) -> Value {
    let r = &v.request;
    let tools: Vec<Value> = v
        .raw
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| {
                    // Credentials the client sent for a server are never echoed back.
                    let mut t = t.clone();
                    if let Some(map) = t.as_object_mut() {
                        map.remove("authorization");
                        map.remove("headers");
                    }
                    t
                })
                .collect()
        })
        .unwrap_or_default();
    let mut response = json!({
        "background": r.background.unwrap_or(false),
        "completed_at": null,
        "created_at": created_at,
        "error": null,
        "frequency_penalty": 0,
        "id": id,
        "incomplete_details": null,
        "instructions": r.instructions,
        "max_output_tokens": r.max_output_tokens,
        "max_tool_calls": r.max_tool_calls,
        "metadata": r.metadata.clone().unwrap_or_default(),
        "model": shown_model(v, false, None),
        "object": "response",
        "output": [],
        "parallel_tool_calls": true,
        "presence_penalty": 0,
        "previous_response_id": r.previous_response_id,
        "prompt_cache_key": r.prompt_cache_key,
        "reasoning": r.reasoning,
        "safety_identifier": null,
        "service_tier": r.service_tier.clone().unwrap_or_else(|| "default".into()),
        "status": status,
        "store": r.store.unwrap_or(true),
        "temperature": r.temperature.map_or(json!(1), |t| json!(t)),
        "text": r
            .response_format
            .as_ref()
            .filter(|f| !f.is_null())
            .and_then(|f| super::structured::text_format(f).ok())
            .unwrap_or_else(|| json!({"format": {"type": "text"}})),
        "tool_choice": r.tool_choice.clone().unwrap_or_else(|| json!("auto")),
        "tools": tools,
        "top_logprobs": 0,
        "top_p": r.top_p.map_or(json!(1), |t| json!(t)),
        // As sent (`auto` or `disabled`); the recorded echo of a request without it is "".
        "truncation": v.raw.get("truncation").and_then(Value::as_str).unwrap_or(""),
        "usage": null,
        "user": null,
    });
    if let Some(map) = response.as_object_mut() {
        if let Some(preset) = &r.preset {
            map.insert("preset".into(), json!(preset));
        }
        if let Some(effort) = &r.effort {
            map.insert("effort".into(), json!(effort));
        }
    }
    response
}

/// `model` as the live API shows it: the preset name until a preset run completes, then the
/// model it was served by.
fn shown_model(v: &Validated, completed: bool, served: Option<&str>) -> String {
    let r = &v.request;
    if let Some(first) = r.models.as_ref().and_then(|m| m.first()) {
        return first.clone();
    }
    if let Some(model) = &r.model {
        return model.clone();
    }
    let preset = r
        .effort
        .clone()
        .or_else(|| r.preset.clone())
        .unwrap_or_else(|| "fast".into());
    if completed {
        served
            .map(str::to_owned)
            .or_else(|| models::preset_model(&preset).map(str::to_owned))
            .unwrap_or(preset)
    } else {
        preset
    }
}

struct Engine {
    /// Where the script is on the virtual timeline: steps are scheduled from the moment the
    /// run was created, not from when its task got to run.
    at: chrono::DateTime<chrono::Utc>,
    clock: Clock,
    run: Arc<Run>,
    setup: Setup,
    /// The latest tool output, for `{tool_output}` in messages.
    last_output: String,
    /// Deferred servers already searched this turn (a call then needs no new search).
    searched: HashSet<String>,
    /// Billable tool invocations (`search_web`, `fetch_url`, `sandbox`).
    billing: BTreeMap<&'static str, u64>,
    /// Characters of tool output the model read (they count as input tokens).
    tool_chars: usize,
    /// Tool steps taken, against `max_steps`.
    steps_taken: i64,
    /// The reason of a denied approval this request carried, if any.
    denied: Option<String>,
}

enum Flow {
    Next,
    Paused(Pause),
    Cancelled,
    Failed(Value),
}

impl Engine {
    async fn drive(mut self) {
        let flow = self.play().await;
        match flow {
            Flow::Cancelled => self.end_cancelled().await,
            Flow::Failed(error) => self.end_failed(error),
            Flow::Next => self.end_turn(None),
            Flow::Paused(pause) => self.end_turn(Some(pause)),
        }
        self.run.finish();
    }

    fn script(&self) -> Arc<AgentScript> {
        self.setup.scenario.1.clone()
    }

    async fn play(&mut self) -> Flow {
        let script = self.script();
        if self.setup.validated.request.background == Some(true) && self.wait(script.queued).await {
            return Flow::Cancelled;
        }
        self.set_status("in_progress");
        self.run.emit(
            "response.in_progress",
            json!({"response": self.run.snapshot()}),
        );
        let servers = match tools::discover(&self.setup, &script).await {
            Ok(servers) => servers,
            Err(failure) => {
                self.run.state().sync_error = Some(ApiError::new(
                    http::StatusCode::FAILED_DEPENDENCY,
                    "external_connector_error",
                    failure.clone(),
                ));
                return Flow::Failed(json!({
                    "code": "discovery_failed",
                    "message": failure,
                    "type": "external_connector_error",
                }));
            }
        };
        for server in &servers {
            if let Some(item) = server.list_tools_item() {
                self.add_item(item);
            }
        }
        for decided in std::mem::take(&mut self.setup.decisions) {
            if !decided.approve {
                // The model answers without the tool, and knows why if a reason was given.
                self.last_output = match &decided.reason {
                    Some(reason) => format!("the call was denied: {reason}"),
                    None => "the call was denied".into(),
                };
                self.denied = Some(
                    decided
                        .reason
                        .clone()
                        .unwrap_or_else(|| "no reason given".into()),
                );
                continue;
            }
            let Some(server) = servers
                .iter()
                .find(|s| s.label == decided.pending.server_label)
            else {
                // Checked when the run starts, so it arrives the way the request's mode says.
                let message = format!(
                    "the approved call needs the MCP server \"{}\", which this request's tools do \
                     not include: send the same tools again with the approval response",
                    decided.pending.server_label
                );
                self.run.state().sync_error = Some(ApiError::invalid_request(message.clone()));
                return Flow::Failed(json!({
                    "code": "invalid_request",
                    "message": message,
                    "type": "invalid_request",
                }));
            };
            let arguments: Value =
                serde_json::from_str(&decided.pending.arguments).unwrap_or_else(|_| json!({}));
            let (output, error) = server
                .call(&decided.pending.name, &arguments, None, None)
                .await;
            self.record_output(output.as_deref());
            let mut item = server.call_item(&decided.pending.name, &arguments, output, error);
            if let Some(map) = item.as_object_mut() {
                map.insert("approval_request_id".into(), json!(decided.pending.id));
            }
            self.add_item(item);
        }
        let turns = &script.turns;
        let Some(turn) = turns.get(self.setup.turn.min(turns.len().saturating_sub(1))) else {
            return Flow::Next;
        };
        let max_steps = self.setup.validated.request.max_steps.unwrap_or(i64::MAX);
        // `tool_choice: "none"` keeps the model off its tools, like `max_tool_calls: 0`.
        let tools_off = self.setup.validated.raw.get("tool_choice") == Some(&json!("none"));
        let max_tool_calls = if tools_off {
            Some(0)
        } else {
            self.setup.validated.request.max_tool_calls
        };
        for (index, step) in turn.steps.iter().enumerate().skip(self.setup.next_step) {
            if self.wait(step.duration()).await {
                return Flow::Cancelled;
            }
            let is_tool = !matches!(
                step,
                AgentStep::Message { .. } | AgentStep::Reasoning { .. }
            );
            if is_tool {
                // Out of steps or tool calls (`max_tool_calls: 0` turns tools off): the model
                // answers with what it has.
                if self.steps_taken >= max_steps
                    || max_tool_calls.is_some_and(|cap| self.steps_taken >= cap)
                {
                    continue;
                }
                self.steps_taken += 1;
            }
            match self.step(step, &servers, index).await {
                Flow::Next => {}
                other => return other,
            }
        }
        if turn.end.status == EndStatus::Failed {
            return Flow::Failed(json!({
                "code": turn.end.error_code.clone().unwrap_or_else(|| "model_error".into()),
                "message": turn.end.error_message.clone()
                    .unwrap_or_else(|| "the model failed to produce a response".into()),
                "type": turn.end.error_type.clone().unwrap_or_else(|| "internal_error".into()),
            }));
        }
        Flow::Next
    }

    /// Waits on the virtual clock; true if a cancel arrived instead.
    async fn wait(&mut self, by: Duration) -> bool {
        let mut cancel = self.run.cancelled();
        if *cancel.borrow() {
            return true;
        }
        self.at += crate::clock::to_chrono(by);
        if by.is_zero() {
            return false;
        }
        let slept = tokio::select! {
            () = self.clock.sleep_until(self.at) => true,
            _ = cancel.wait_for(|c| *c) => false,
        };
        !slept || *self.run.cancelled().borrow()
    }

    fn has_tool(&self, pred: impl Fn(&Tool) -> bool) -> bool {
        self.setup.validated.tools.iter().any(pred)
    }

    fn sandbox_enabled(&self) -> bool {
        self.has_tool(|t| matches!(t, Tool::Sandbox {}))
            || self
                .setup
                .validated
                .request
                .skills
                .as_ref()
                .is_some_and(|s| !s.is_empty())
    }

    async fn step(&mut self, step: &AgentStep, servers: &[Server], index: usize) -> Flow {
        match step {
            AgentStep::Reasoning { thought, .. } => {
                self.run
                    .emit("response.reasoning.started", json!({"thought": thought}));
                self.run
                    .emit("response.reasoning.stopped", json!({"thought": thought}));
            }
            AgentStep::WebSearch {
                queries, results, ..
            } => {
                if !self.has_tool(|t| matches!(t, Tool::WebSearch { .. })) {
                    return Flow::Next;
                }
                let results = search_results(results);
                let text = user_text(&self.setup.validated.request.input);
                let queries: Vec<String> = queries
                    .iter()
                    .map(|q| q.replace("{input}", &text))
                    .collect();
                self.run.emit(
                    "response.reasoning.search_queries",
                    json!({"queries": queries}),
                );
                self.run.emit(
                    "response.reasoning.search_results",
                    json!({"results": results}),
                );
                self.tool_chars += results.to_string().len();
                *self.billing.entry("search_web").or_default() += 1;
                self.add_item(
                    json!({"type": "search_results", "results": results, "queries": queries}),
                );
            }
            AgentStep::FetchUrl { contents, .. } => {
                if !self.has_tool(|t| matches!(t, Tool::FetchUrl { .. })) {
                    return Flow::Next;
                }
                let urls: Vec<&str> = contents.iter().map(|c| c.url.as_str()).collect();
                let contents: Vec<Value> = contents
                    .iter()
                    .map(|c| json!({"url": c.url, "title": c.title, "snippet": c.snippet}))
                    .collect();
                self.run.emit(
                    "response.reasoning.fetch_url_queries",
                    json!({"urls": urls}),
                );
                self.run.emit(
                    "response.reasoning.fetch_url_results",
                    json!({"contents": contents}),
                );
                self.tool_chars += Value::Array(contents.clone()).to_string().len();
                *self.billing.entry("fetch_url").or_default() += 1;
                self.add_item(json!({"type": "fetch_url_results", "contents": contents}));
            }
            AgentStep::ToolSearch {
                server, queries, ..
            } => {
                let Some(target) = tools::pick_deferred(servers, server.as_deref()) else {
                    return Flow::Next;
                };
                self.searched.insert(target.label.clone());
                self.add_item(target.search_item(queries, None));
            }
            AgentStep::McpCall {
                server,
                tool,
                arguments,
                output,
                error,
                ..
            } => {
                let Some(target) = tools::pick_server(servers, server.as_deref()) else {
                    return Flow::Next;
                };
                if target.sandbox_mode {
                    // GitHub with the sandbox and no allowed_tools runs through git/gh.
                    let name = tool.clone().unwrap_or_else(|| "gh".into());
                    let code = format!("gh api {name}");
                    let stdout = output.clone().unwrap_or_default();
                    self.sandbox(&code, "bash", &stdout, "", 0);
                    return Flow::Next;
                }
                let Some(listed) = target.choose_tool(tool.as_deref()) else {
                    // Nothing listed (not connected, or filtered out): nothing to call.
                    return Flow::Next;
                };
                let name = listed.name.clone();
                // Scripted arguments belong to the scripted tool; when the server does not list
                // it and the model falls back to another tool, it builds arguments for that one.
                let scripted = arguments
                    .clone()
                    .filter(|_| tool.as_deref().is_none_or(|t| t == name));
                let arguments = scripted.unwrap_or_else(|| {
                    tools::example_arguments(
                        &listed.input_schema,
                        &user_text(&self.setup.validated.request.input),
                    )
                });
                if target.deferred && !self.searched.contains(&target.label) {
                    self.searched.insert(target.label.clone());
                    let words: Vec<String> = name.split('_').map(str::to_owned).collect();
                    self.add_item(target.search_item(&words, Some(&name)));
                }
                if target.requires_approval(listed) {
                    let pending = Pending {
                        id: new_id("mcpr"),
                        server_label: target.label.clone(),
                        name: name.clone(),
                        arguments: arguments.to_string(),
                        connector_id: target.connector_id.clone(),
                    };
                    self.add_item(target.approval_item(&pending));
                    return Flow::Paused(Pause {
                        turn: self.setup.turn,
                        next_step: index + 1,
                        approvals: vec![pending],
                    });
                }
                let (out, err) = target
                    .call(&name, &arguments, output.clone(), error.clone())
                    .await;
                self.record_output(out.as_deref());
                self.add_item(target.call_item(&name, &arguments, out, err));
            }
            AgentStep::FunctionCall {
                name, arguments, ..
            } => {
                let function = self.setup.validated.tools.iter().find_map(|t| match t {
                    Tool::Function { name: n, .. }
                        if name.as_ref().is_none_or(|want| want == n) =>
                    {
                        Some(n.clone())
                    }
                    _ => None,
                });
                let Some(function) = function else {
                    return Flow::Next;
                };
                let item = json!({
                    "type": "function_call",
                    "id": new_id("fc"),
                    "call_id": format!("call_{}", call_token()),
                    "name": function,
                    "arguments": arguments.clone().unwrap_or_else(|| json!({})).to_string(),
                    "status": "completed",
                });
                self.add_item(item);
                return Flow::Paused(Pause {
                    turn: self.setup.turn,
                    next_step: index + 1,
                    approvals: Vec::new(),
                });
            }
            AgentStep::Sandbox {
                code,
                language,
                stdout,
                stderr,
                exit_code,
                ..
            } => {
                if !self.sandbox_enabled() {
                    return Flow::Next;
                }
                self.sandbox(code, language, stdout, stderr, *exit_code);
            }
            AgentStep::ShareFile {
                filename, content, ..
            } => {
                if !self.sandbox_enabled() {
                    return Flow::Next;
                }
                let file = RunFile {
                    id: new_id("file"),
                    filename: filename.clone(),
                    content: bytes::Bytes::from(content.clone()),
                    created_at: self.clock.now().timestamp(),
                };
                let item = json!({
                    "type": "share_file",
                    "call_id": format!("call_{}", call_token()),
                    "file_id": file.id,
                    "filename": file.filename,
                    "size_bytes": file.content.len(),
                    "url": format!("/v1/responses/{}/files/{}/content", self.run.id, file.id),
                });
                self.run.state().files.push(file);
                self.add_item(item);
            }
            AgentStep::Message {
                text, denied_text, ..
            } => {
                let text = match (&self.denied, denied_text) {
                    (Some(reason), Some(denied)) => denied.replace("{reason}", reason),
                    _ => text.clone(),
                };
                let text = text
                    .replace("{input}", &user_text(&self.setup.validated.request.input))
                    .replace("{tool_output}", &self.last_output);
                // With a response_format the model answers with a document fitting the schema.
                let schema = self
                    .setup
                    .validated
                    .request
                    .response_format
                    .as_ref()
                    .and_then(|f| f.pointer("/json_schema/schema"));
                let text = schema.map_or(text.clone(), |s| super::structured::answer(s, &text));
                self.message(&text);
            }
        }
        Flow::Next
    }

    fn record_output(&mut self, output: Option<&str>) {
        if let Some(output) = output {
            self.last_output = output.to_owned();
            self.tool_chars += output.len();
        }
    }

    fn sandbox(&mut self, code: &str, language: &str, stdout: &str, stderr: &str, exit_code: i64) {
        *self.billing.entry("sandbox").or_default() += 1;
        self.record_output(Some(stdout));
        self.add_item(json!({
            "type": "sandbox_results",
            "call_id": format!("call_{}", call_token()),
            "code": code,
            "language": if language == "bash" { "bash" } else { "python" },
            "status": if exit_code == 0 { "completed" } else { "failed" },
            "results": [{
                "stdout": stdout,
                "stderr": stderr,
                "exit_code": exit_code,
                "duration_ms": 1200,
                "status": if exit_code == 0 { "completed" } else { "failed" },
            }],
        }));
    }

    /// Adds an item: `output_item.added`, then `output_item.done`.
    fn add_item(&self, item: Value) {
        let index = self.push_output(item.clone());
        self.run.emit(
            "response.output_item.added",
            json!({"item": item, "output_index": index}),
        );
        self.run.emit(
            "response.output_item.done",
            json!({"item": item, "output_index": index}),
        );
    }

    fn push_output(&self, item: Value) -> usize {
        let mut state = self.run.state();
        let output = state
            .response
            .get_mut("output")
            .and_then(Value::as_array_mut);
        match output {
            Some(output) => {
                output.push(item);
                output.len() - 1
            }
            None => 0,
        }
    }

    /// A message item streamed word by word.
    fn message(&mut self, text: &str) {
        let id = new_id("msg");
        let mut item = json!({
            "type": "message",
            "id": id,
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        });
        let index = self.push_output(item.clone());
        self.run.emit(
            "response.output_item.added",
            json!({"item": item, "output_index": index}),
        );
        for delta in chunks(text) {
            self.run.emit(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": delta}),
            );
        }
        self.run.emit(
            "response.output_text.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
        );
        item["status"] = json!("completed");
        item["content"] = json!([{"type": "output_text", "text": text, "annotations": []}]);
        if let Some(slot) = self
            .run
            .state()
            .response
            .get_mut("output")
            .and_then(Value::as_array_mut)
            .and_then(|o| o.get_mut(index))
        {
            *slot = item.clone();
        }
        self.run.emit(
            "response.output_item.done",
            json!({"item": item, "output_index": index}),
        );
    }

    fn set_status(&self, status: &str) {
        self.run.state().response["status"] = json!(status);
    }

    fn end_turn(&mut self, pause: Option<Pause>) {
        let script = self.script();
        let turns = &script.turns;
        let end = turns
            .get(self.setup.turn.min(turns.len().saturating_sub(1)))
            .map(|t| t.end.status)
            .unwrap_or_default();
        let incomplete = pause.is_none() && end == EndStatus::Incomplete;
        let usage = self.usage();
        let model = shown_model(&self.setup.validated, true, script.served_model.as_deref());
        let now = self.clock.now().timestamp();
        {
            let mut state = self.run.state();
            state.pause = pause;
            let response = &mut state.response;
            response["model"] = json!(model);
            response["usage"] = usage;
            if incomplete {
                response["status"] = json!("incomplete");
                response["incomplete_details"] = json!({"reason": "max_output_tokens"});
            } else {
                response["status"] = json!("completed");
                response["completed_at"] = json!(now);
            }
        }
        let kind = if incomplete {
            "response.incomplete"
        } else {
            "response.completed"
        };
        self.run
            .emit(kind, json!({"response": self.run.snapshot()}));
    }

    fn end_failed(&mut self, error: Value) {
        let usage = self.usage();
        {
            let mut state = self.run.state();
            let response = &mut state.response;
            response["status"] = json!("failed");
            response["error"] = error.clone();
            // `completed_at` marks completion only: the recorded incomplete and cancelled
            // responses keep it null, and so does a failed one.
            response["usage"] = usage;
        }
        self.run.emit(
            "response.failed",
            json!({"error": error, "response": self.run.snapshot()}),
        );
    }

    async fn end_cancelled(&mut self) {
        self.clock.sleep(CANCEL_LATENCY).await;
        {
            let mut state = self.run.state();
            let response = &mut state.response;
            response["status"] = json!("cancelled");
            response["error"] =
                json!({"code": "cancelled", "message": "cancelled", "type": "cancelled"});
            response["incomplete_details"] = json!({"reason": "cancelled"});
            response["usage"] = Value::Null;
        }
        self.run.emit(
            "response.cancelled",
            json!({"response": self.run.snapshot()}),
        );
    }

    /// Usage and cost in the recorded shape. Token counts are derived from what the run read
    /// and wrote (about four characters a token), so they are stable for a given script.
    fn usage(&self) -> Value {
        let request = &self.setup.validated.request;
        let input_chars = request.input.to_string().len()
            + request.instructions.as_ref().map_or(0, String::len)
            + self
                .setup
                .validated
                .raw
                .get("tools")
                .map_or(0, |t| t.to_string().len());
        let input_tokens = (1200 + (input_chars + self.tool_chars) / 4) as u64;
        let output_chars: usize = self
            .run
            .state()
            .response
            .get("output")
            .and_then(Value::as_array)
            .map(|items| items.iter().map(|i| i.to_string().len()).sum())
            .unwrap_or(0);
        let output_tokens = (output_chars / 4) as u64;
        let cache_creation = input_tokens / 2;
        let served = shown_model(
            &self.setup.validated,
            true,
            self.script().served_model.as_deref(),
        );
        let model = models::find(&served).copied().unwrap_or(models::MODELS[0]);
        let per_token = |price: f64| price / 1_000_000.0;
        let round = |x: f64| (x * 1e8).round() / 1e8;
        let input_cost = round((input_tokens - cache_creation) as f64 * per_token(model.input));
        let cache_creation_cost = round(cache_creation as f64 * per_token(model.cache_write));
        let output_cost = round(output_tokens as f64 * per_token(model.output));
        let mut details = Map::new();
        let mut cost_details = Map::new();
        let mut tool_cost = 0.0;
        for (key, count) in &self.billing {
            let unit = match *key {
                "search_web" => 0.001,
                "fetch_url" => 0.0005,
                _ => 0.0002,
            };
            let cost = round(unit * *count as f64);
            tool_cost += cost;
            details.insert(
                (*key).into(),
                json!({"cost_usd": models::number(cost), "invocation": count}),
            );
            cost_details.insert((*key).into(), models::number(cost));
        }
        let tool_cost = round(tool_cost);
        json!({
            "cost": {
                "cache_creation_cost": models::number(cache_creation_cost),
                "cache_read_cost": 0,
                "currency": "USD",
                "input_cost": models::number(input_cost),
                "output_cost": models::number(output_cost),
                "tool_calls_cost": models::number(tool_cost),
                "tool_calls_cost_details": cost_details,
                "total_cost": models::number(round(
                    input_cost + cache_creation_cost + output_cost + tool_cost
                )),
            },
            "input_tokens": input_tokens,
            "input_tokens_details": {
                "cache_creation_input_tokens": cache_creation,
                "cache_read_input_tokens": 0,
                "cached_tokens": 0,
            },
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "tool_calls_details": details,
            "total_tokens": input_tokens + output_tokens,
        })
    }
}

/// The output of the last `function_call_output` item in `input`.
fn function_output(input: &Value) -> Option<String> {
    input.as_array()?.iter().rev().find_map(|item| {
        if item.get("type").and_then(Value::as_str) != Some("function_call_output") {
            return None;
        }
        match item.get("output")? {
            Value::String(text) => Some(text.clone()),
            Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    })
}

fn search_results(results: &[ResultSpec]) -> Value {
    Value::Array(
        results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut v = json!({
                    "id": i + 1,
                    "title": r.title,
                    "url": r.url,
                    "snippet": r.snippet,
                    "source": "web",
                });
                if let Some(date) = &r.date {
                    v["date"] = json!(date);
                }
                v
            })
            .collect(),
    )
}

/// Splits text into word-sized deltas that concatenate back to it.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if c == ' ' {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn deltas_concatenate_back_to_the_text() {
        let text = "Hello  world, again ";
        assert_eq!(chunks(text).concat(), text);
        assert_eq!(chunks("Hello world"), ["Hello ", "world"]);
    }
}
