//! The step engine: a run's life on the virtual clock. `queued` (background only), then
//! `in_progress`, then one terminal status, with every change written both to the snapshot `GET`
//! shows and to the event log a stream (or a resumed stream) replays.
//!
//! The engine discovers the request's servers, carries out the approval decisions the request
//! brought, then walks its turn's steps (`steps.rs` says what each one does): each waits its
//! duration on the virtual clock (a cancel interrupts the wait), then adds its output items. A
//! function call or an approval request pauses the turn; a continuation resumes it at the next
//! step.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::response::{initial_response, shown_model};
use super::setup::Setup;
use super::usage::{self, Consumed};
use crate::agent::error::ApiError;
use crate::agent::store::{Pause, Run, Store};
use crate::agent::tools;
use crate::agent::wire::{Tool, new_id};
use crate::clock::{Clock, Pacer};
use crate::fixtures::{AgentScript, AgentStep, EndStatus};

/// How long a cancelled run takes to stop after the cancel was acknowledged.
const CANCEL_LATENCY: Duration = Duration::from_secs(1);

/// Creates the run, remembers it, and starts it on the clock.
pub(crate) fn start(clock: &Clock, store: &Store, setup: Setup) -> Arc<Run> {
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
    // A background run nobody streams sleeps without moving a driven clock: the client's
    // polls do. Every other run has the client waiting on it, so its steps jump.
    let pacer = (background && request.stream != Some(true)).then(|| clock.pacer());
    run.state().waker = pacer.as_ref().map(Pacer::waker);
    store.insert(run.clone());
    run.emit("response.created", json!({"response": run.snapshot()}));
    // A function's result sent back in a continuation is what the model goes on with.
    let last_output = function_output(&setup.validated.request.input)
        .unwrap_or_else(|| setup.previous_output.clone());
    let engine = Engine {
        at: created,
        clock: clock.clone(),
        pacer,
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

/// One run being played: where it is on the virtual timeline and what it consumed so far.
pub(super) struct Engine {
    /// Where the script is on the virtual timeline: steps are scheduled from the moment the
    /// run was created, not from when its task got to run.
    at: chrono::DateTime<chrono::Utc>,
    /// The mock's virtual clock.
    pub(super) clock: Clock,
    /// A background run's registration as background work (see [`Pacer`]); `None` when the
    /// client waits on the run.
    pacer: Option<Pacer>,
    /// The run's snapshot and event log.
    pub(super) run: Arc<Run>,
    /// What the run started from.
    pub(super) setup: Setup,
    /// The latest tool output, for `{tool_output}` in messages.
    pub(super) last_output: String,
    /// Deferred servers already searched this turn (a call then needs no new search).
    pub(super) searched: HashSet<String>,
    /// Billable tool invocations (`search_web`, `fetch_url`, `sandbox`).
    pub(super) billing: BTreeMap<&'static str, u64>,
    /// Characters of tool output the model read (they count as input tokens).
    pub(super) tool_chars: usize,
    /// Tool steps taken, against `max_steps`.
    steps_taken: i64,
    /// The reason of a denied approval this request carried, if any.
    pub(super) denied: Option<String>,
}

/// How a step (or the whole turn) left the run.
pub(super) enum Flow {
    /// Go on with the next step (or end the turn normally).
    Next,
    /// The turn waits for a continuation (a function's output, approval decisions).
    Paused(Pause),
    /// A cancel arrived.
    Cancelled,
    /// The run fails with this `error` object.
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
        let servers =
            match tools::discover(&self.setup.validated, &self.setup.account, &script).await {
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
            () = self.sleep_until(self.at) => true,
            _ = cancel.wait_for(|c| *c) => false,
        };
        !slept || *self.run.cancelled().borrow()
    }

    /// Sleeps on the virtual clock: as background work when nobody waits on the run, else as
    /// a wait the client is blocked on (a driven clock jumps).
    async fn sleep_until(&self, at: chrono::DateTime<chrono::Utc>) {
        match &self.pacer {
            Some(pacer) => pacer.sleep_until(at).await,
            None => self.clock.block_until(at).await,
        }
    }

    pub(super) fn has_tool(&self, pred: impl Fn(&Tool) -> bool) -> bool {
        self.setup.validated.tools.iter().any(pred)
    }

    pub(super) fn sandbox_enabled(&self) -> bool {
        self.has_tool(|t| matches!(t, Tool::Sandbox {}))
            || self
                .setup
                .validated
                .request
                .skills
                .as_ref()
                .is_some_and(|s| !s.is_empty())
    }

    pub(super) fn record_output(&mut self, output: Option<&str>) {
        if let Some(output) = output {
            self.last_output = output.to_owned();
            self.tool_chars += output.len();
        }
    }

    /// Adds an item: `output_item.added`, then `output_item.done`.
    pub(super) fn add_item(&self, item: Value) {
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

    pub(super) fn push_output(&self, item: Value) -> usize {
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
        let stopped =
            crate::clock::after(self.clock.now(), crate::clock::to_chrono(CANCEL_LATENCY));
        self.sleep_until(stopped).await;
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

    /// The run's `usage`, from what it read and wrote so far.
    fn usage(&self) -> Value {
        let served = shown_model(
            &self.setup.validated,
            true,
            self.script().served_model.as_deref(),
        );
        let state = self.run.state();
        let output = state
            .response
            .get("output")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        usage::usage(&Consumed {
            validated: &self.setup.validated,
            served_model: &served,
            tool_chars: self.tool_chars,
            output,
            billing: &self.billing,
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
