//! The step engine: a run's life on the virtual clock. `queued` (background only), then
//! `in_progress`, then one terminal status, with every change written both to the snapshot `GET`
//! shows and to the event log a stream (or a resumed stream) replays.
//!
//! The engine discovers the request's servers, carries out the approval decisions the request
//! brought (`decide.rs`), then walks its turn's steps (`steps.rs` says what each one does):
//! each waits its duration on the virtual clock (a cancel interrupts the wait), then adds its
//! output items (`items.rs`). A function call, or the approval requests of one model turn,
//! pause the turn; a continuation resumes it. `finish.rs` writes the terminal status.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use super::honesty::Failure;
use super::response::initial_response;
use super::setup::Setup;
use crate::agent::error::ApiError;
use crate::agent::store::{Pause, Pending, Run, Store};
use crate::agent::tools::{self, Server};
use crate::agent::wire::events::Event;
use crate::agent::wire::ids::new_id;
use crate::agent::wire::request::Tool;
use crate::agent::wire::response::{RunError, Status};
use crate::clock::{Clock, Pacer};
use crate::fixtures::{AgentScript, AgentStep, AgentTurn, EndStatus};

/// Creates the run, remembers it, and starts it on the clock.
pub(crate) fn start(clock: &Clock, store: &Store, setup: Setup) -> Arc<Run> {
    let request = &setup.validated.request;
    let id = new_id("resp");
    let created = clock.now();
    let background = request.background == Some(true);
    let status = if background {
        Status::Queued
    } else {
        Status::InProgress
    };
    let response = initial_response(
        id,
        &setup.validated,
        created.timestamp(),
        status,
        setup.stored,
    );
    let run = Arc::new(Run::new(
        setup.account.id.clone(),
        setup.stored,
        setup.scenario.0.clone(),
        response,
    ));
    run.state().turn = setup.turn;
    // A background run nobody streams sleeps without moving a driven clock: the client's
    // polls do. Every other run has the client waiting on it, so its steps jump.
    let pacer = (background && request.stream != Some(true)).then(|| clock.pacer());
    run.state().waker = pacer.as_ref().map(Pacer::waker);
    store.insert(run.clone(), created);
    if let Some(after) = setup.scenario.1.forget_after {
        // The provider forgets the run: from then on it answers as an id never issued.
        let (clock, forgotten) = (clock.clone(), run.clone());
        let at = created + crate::clock::to_chrono(after);
        tokio::spawn(async move {
            clock.sleep_until(at).await;
            forgotten.forget();
        });
    }
    run.emit(Event::Created(Box::new(run.snapshot())));
    let engine = Engine::new(clock, pacer, run.clone(), setup, created);
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
    /// The tool that wrote it, for `{tool_name}`.
    pub(super) last_tool: String,
    /// The model has a tool's result to answer from in this request (a function's output sent
    /// back, or an MCP call that ran): a message's `tool_output_text` applies.
    pub(super) fresh_output: bool,
    /// Deferred servers already searched this turn (a call then needs no new search).
    pub(super) searched: HashSet<String>,
    /// Billable tool invocations (`search_web`, `fetch_url`, `sandbox`).
    pub(super) billing: BTreeMap<&'static str, u64>,
    /// Characters of tool output the model read (they count as input tokens).
    pub(super) tool_chars: usize,
    /// Tool steps taken, against `max_steps` and `max_tool_calls`.
    steps_taken: i64,
    /// The request's `max_steps` (unbounded when not sent).
    max_steps: i64,
    /// The request's `max_tool_calls` (0 with `tool_choice: "none"`).
    max_tool_calls: Option<i64>,
    /// The reason of a denied approval this request carried, if any.
    pub(super) denied: Option<String>,
    /// The step whose message the output cap cuts (the last message of a turn that ends
    /// `incomplete`): its item says `status: incomplete`.
    pub(super) cut_message: Option<usize>,
    /// Approval requests of the model turn being played, sent together when it ends.
    pub(super) proposed: Vec<Pending>,
    /// The server and tool of the last call proposed, for a parallel call naming no tool.
    pub(super) last_called: Option<(String, String)>,
    /// What the run could not use, for an answer that does not pretend.
    pub(super) failures: Vec<Failure>,
    /// Every search result found so far, `(url, title)` in order: result `id`s number them
    /// across the run, and a message's `[n]` cites the nth.
    pub(super) sources: Vec<(String, String)>,
}

/// How a step (or the whole turn) left the run.
pub(super) enum Flow {
    /// Go on with the next step (or end the turn normally).
    Next,
    /// The turn waits for a continuation (a function's output, approval decisions).
    Paused(Pause),
    /// A cancel arrived.
    Cancelled,
    /// The run fails with this `error` after the model ran.
    Failed(RunError),
    /// The run fails with this `error` before any model ran (a discovery failure, a
    /// continuation refused at run start): no usage, no cost.
    Refused(RunError),
}

impl Engine {
    fn new(
        clock: &Clock,
        pacer: Option<Pacer>,
        run: Arc<Run>,
        setup: Setup,
        created: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        let request = &setup.validated.request;
        // `tool_choice: "none"` keeps the model off its tools, like `max_tool_calls: 0`.
        let max_tool_calls = if request.tools_off() {
            Some(0)
        } else {
            request.max_tool_calls
        };
        Self {
            at: created,
            clock: clock.clone(),
            pacer,
            run,
            last_output: setup.previous.output.clone(),
            last_tool: setup.previous.tool.clone(),
            fresh_output: setup.previous.fresh,
            max_steps: request.max_steps.unwrap_or(i64::MAX),
            max_tool_calls,
            setup,
            searched: HashSet::new(),
            billing: BTreeMap::new(),
            tool_chars: 0,
            steps_taken: 0,
            denied: None,
            cut_message: None,
            proposed: Vec::new(),
            last_called: None,
            failures: Vec::new(),
            sources: Vec::new(),
        }
    }

    async fn drive(mut self) {
        let flow = self.play().await;
        match flow {
            Flow::Cancelled => self.end_cancelled().await,
            Flow::Failed(error) => self.end_failed(error, true),
            Flow::Refused(error) => self.end_failed(error, false),
            Flow::Next => self.end_turn(None),
            Flow::Paused(pause) => self.end_turn(Some(pause)),
        }
        self.run.finish();
    }

    pub(super) fn script(&self) -> Arc<AgentScript> {
        self.setup.scenario.1.clone()
    }

    /// The turn this request plays (the last one repeats).
    pub(super) fn turn(&self) -> Option<AgentTurn> {
        let turns = &self.setup.scenario.1.turns;
        turns
            .get(self.setup.turn.min(turns.len().saturating_sub(1)))
            .cloned()
    }

    async fn play(&mut self) -> Flow {
        let script = self.script();
        if self.setup.validated.request.background == Some(true) && self.wait(script.queued).await {
            return Flow::Cancelled;
        }
        self.set_status(Status::InProgress);
        self.run
            .emit(Event::InProgress(Box::new(self.run.snapshot())));
        let servers =
            match tools::discover(&self.setup.validated, &self.setup.account, &script).await {
                Ok(servers) => servers,
                Err(failure) => {
                    self.run.state().sync_error = Some(ApiError::new(
                        http::StatusCode::FAILED_DEPENDENCY,
                        "external_connector_error",
                        failure.clone(),
                    ));
                    return Flow::Refused(RunError::new(
                        "discovery_failed",
                        failure,
                        "external_connector_error",
                    ));
                }
            };
        for server in &servers {
            if let Some(item) = server.list_tools_item() {
                self.add_item(item);
            }
        }
        if let Flow::Refused(error) = self.carry_out_decisions(&servers).await {
            return Flow::Refused(error);
        }
        let Some(turn) = self.turn() else {
            return Flow::Next;
        };
        if turn.end.status == EndStatus::Incomplete {
            self.cut_message = turn
                .steps
                .iter()
                .rposition(|s| matches!(s, AgentStep::Message { .. }));
        }
        for (index, step) in turn.steps.iter().enumerate().skip(self.setup.next_step) {
            // A status step shows its status for its duration rather than after it.
            let waits_first = !matches!(step, AgentStep::Status { .. });
            if waits_first && self.wait(step.duration()).await {
                return Flow::Cancelled;
            }
            let is_tool = !matches!(
                step,
                AgentStep::Message { .. } | AgentStep::Reasoning { .. } | AgentStep::Status { .. }
            );
            // Out of steps or tool calls (`max_tool_calls: 0` turns tools off): the model
            // answers with what it has, and says what it could not get.
            if is_tool && !self.take_step() {
                if let Some(what) = missed(step, &servers) {
                    let cap = self.cap();
                    self.failures.push(Failure::OutOfSteps { what, cap });
                }
                continue;
            }
            match self.step(step, &servers, index).await {
                Flow::Next => {}
                other => return other,
            }
            // The approval requests of one model turn go out together, when its last
            // parallel call has been proposed.
            let next_is_parallel = matches!(
                turn.steps.get(index + 1),
                Some(AgentStep::McpCall { parallel: true, .. })
            );
            if !self.proposed.is_empty() && !next_is_parallel {
                return Flow::Paused(Pause {
                    turn: self.setup.turn,
                    next_step: index + 1,
                    approvals: std::mem::take(&mut self.proposed),
                });
            }
        }
        if turn.end.status == EndStatus::Failed {
            let end = &turn.end;
            return Flow::Failed(RunError::new(
                end.error_code.as_deref().unwrap_or("model_error"),
                end.error_message
                    .as_deref()
                    .unwrap_or("the model failed to produce a response"),
                end.error_type.as_deref().unwrap_or("internal_error"),
            ));
        }
        Flow::Next
    }

    /// Spends one tool step; false when `max_steps` or `max_tool_calls` is used up.
    pub(super) fn take_step(&mut self) -> bool {
        if self.steps_taken >= self.max_steps
            || self
                .max_tool_calls
                .is_some_and(|cap| self.steps_taken >= cap)
        {
            return false;
        }
        self.steps_taken += 1;
        true
    }

    /// The limit that stops the next tool step, as the answer names it.
    pub(super) fn cap(&self) -> String {
        if self.setup.validated.request.tools_off() {
            "tool_choice none".to_owned()
        } else {
            match self.max_tool_calls {
                Some(calls) if calls <= self.steps_taken => format!("max_tool_calls {calls}"),
                _ => format!("max_steps {}", self.max_steps),
            }
        }
    }

    /// Waits on the virtual clock; true if a cancel arrived instead.
    pub(super) async fn wait(&mut self, by: Duration) -> bool {
        let mut cancel = self.run.cancelled();
        if *cancel.borrow() {
            return true;
        }
        self.at = crate::clock::after(self.at, crate::clock::to_chrono(by));
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
    pub(super) async fn sleep_until(&self, at: chrono::DateTime<chrono::Utc>) {
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

    /// Remembers a tool's output for `{tool_output}` (and counts it as read).
    pub(super) fn record_output(&mut self, tool: &str, output: Option<&str>) {
        if let Some(output) = output {
            self.last_output = output.to_owned();
            self.last_tool = tool.to_owned();
            self.tool_chars += output.len();
        }
    }

    pub(super) fn set_status(&self, status: Status) {
        self.run.state().response.status = status;
    }
}

/// What a tool step cut by the step budget would have fetched for the answer: a connector or
/// MCP server's data, or the sandbox's work (`None` for searches, whose loss leaves an answer
/// from fewer sources, and for steps whose tool the request does not offer).
fn missed(step: &AgentStep, servers: &[Server]) -> Option<String> {
    match step {
        AgentStep::McpCall { server, tool, .. } => {
            let target = tools::pick_server(servers, server.as_deref())?;
            let tool = tool
                .clone()
                .or_else(|| target.tools.first().map(|t| t.name.clone()))
                .unwrap_or_else(|| "its tools".to_owned());
            Some(format!("call {tool} on {}", target.label))
        }
        AgentStep::ToolSearch { server, .. } => {
            let target = tools::pick_deferred(servers, server.as_deref())?;
            Some(format!(
                "search the {} catalog for the tools I needed",
                target.label
            ))
        }
        _ => None,
    }
}
