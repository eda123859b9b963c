//! The `io.modelcontextprotocol/tasks` extension (2026-07-28 only), as the Computer document
//! describes it: `call_perplexity_computer` answers `resultType: "task"` at once, the client
//! polls `tasks/get`, answers `inputRequests` with `tasks/update`, and `tasks/cancel` only
//! acknowledges (the stop URL or `cancel_task` really stops Computer).
//!
//! A task is a view of one message on one thread: its state is read from the thread's entries
//! on every poll (task state lives in the mock, not in a connection). A newer message on the
//! thread starts another task, which follows the entries from that message on, so the older
//! task keeps answering for its own request and a finished result stays readable. Answers go
//! through the same tools a handshake client calls (`answer_question`, `confirm_action_*`,
//! `notify_connected`), so both eras move the thread identically.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::model::arguments::CallComputer;
use super::model::content::Reply as ToolReply;
use super::model::elicitation::form_content_problem;
use super::model::jsonrpc::{ErrorData, RequestId, Response as Reply};
use super::model::lifecycle::ResultType;
use super::model::results::{Checkpoint, Event, TaskStatus};
use super::model::version::ProtocolVersion;
use super::modern;
use super::render;
use super::service::{Service, Wait};
use super::thread::{InputKind, Phase, RequestKind, RequestState, Thread};
use super::tools;
use super::view::{self, Links, question_message, question_schema};
use crate::AppState;
use crate::clock::{iso, to_chrono};
use crate::world::Account;

/// The document's default poll interval.
const DEFAULT_POLL_INTERVAL_MS: u64 = 5_000;
/// The document's default lifetime: 30 days.
const DEFAULT_TTL_MS: u64 = 30 * 24 * 3_600_000;

const META_THREAD: &str = "ai.perplexity/threadId";
const META_STOP: &str = "ai.perplexity/stopUrl";
const META_STEPS: &str = "ai.perplexity/steps";

/// Every task of every account.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    tasks: Mutex<HashMap<String, Task>>,
}

impl Tasks {
    /// Forgets every task (`POST /_mock/reset`); their threads are gone too.
    pub(crate) fn clear(&self) {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }
}

#[derive(Debug, Clone)]
struct Task {
    id: String,
    account: String,
    thread_id: String,
    created_at: DateTime<Utc>,
    last_updated_at: DateTime<Utc>,
    ttl_ms: u64,
    poll_interval_ms: u64,
    /// The last state a poll saw (status, statusMessage, extra fields), to date changes.
    last_seen: Option<Value>,
    /// The thread entry this task's message created (or resumed, or will create once queued).
    first_entry: usize,
    /// The last entry this task covers, once a newer message started another task.
    last_entry: Option<usize>,
    /// Input-request keys whose response was delivered (never reused).
    used_keys: HashSet<String>,
    /// How often each request was asked again after a `decline`/`cancel` left it open.
    rounds: HashMap<String, u32>,
    /// Requests no longer asked in this task: URL requests the user accepted (they finish on
    /// the page) or declined (dismissed).
    settled: HashSet<String>,
}

impl Tasks {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Task>> {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl AppState {
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }
}

/// Who calls, through which door.
struct CallContext {
    service: Service,
    account: Account,
}

fn ctx(app: &AppState, account: Account) -> CallContext {
    CallContext {
        service: Service::new(app.engine()),
        account,
    }
}

/// Runs a tool without waiting for Computer: the client polls instead.
async fn call_now(ctx: &CallContext, tool: &str, args: Value) -> ToolReply {
    tools::call(&ctx.service, &ctx.account, tool, args, Wait::none()).await
}

fn invalid_params(id: &RequestId, message: String) -> Response {
    ErrorData::invalid_params(message)
        .with_id(Some(id.clone()))
        .into_response()
}

fn success(id: &RequestId, mut result: Value) -> Response {
    modern::finish_result(&mut result, ResultType::Complete);
    Reply::new(id, result).into_response()
}

fn stop_url(app: &AppState, thread_id: &str) -> String {
    format!("{}/_mock/stop/{thread_id}", app.base_url())
}

/// `tools/call` of `call_perplexity_computer` from a client that declared the extension.
pub(crate) async fn create(
    app: AppState,
    account: Account,
    id: RequestId,
    params: Value,
) -> Response {
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    let ctx = ctx(&app, account.clone());
    let sent = match tools::arguments::<CallComputer>("call_perplexity_computer", &arguments) {
        Ok(args) => {
            let follow_up = args.thread_id.is_some();
            let sent = ctx.service.send(&account, args, Wait::none()).await;
            sent.delivered
                .map(|delivered| (follow_up, delivered))
                .ok_or(sent.reply)
        }
        Err(refused) => Err(refused),
    };
    let (follow_up, (thread_id, delivered)) = match sent {
        Ok(sent) => sent,
        Err(reply) => {
            // Nothing was sent: a regular tool result, as the document says.
            let result = render::call_result(reply, ProtocolVersion::STATELESS).stateless();
            return Reply::new(&id, result).into_response();
        }
    };
    // A new entry, a queued message (its entry comes once the current request ends), or a
    // message that resumed the waiting request (no new entry).
    let (first_entry, previous_last) = (delivered.entry, delivered.previous);
    if follow_up
        && let Some(previous) = current_task(&app, &account.id, &thread_id)
        && let Some(task) = app.tasks().lock().get_mut(&previous)
        && task.last_entry.is_none()
    {
        task.last_entry = previous_last;
    }
    let settings = app
        .engine()
        .with_thread(&account.id, &thread_id, |t, _| {
            t.scenario.scenario.settings.clone()
        })
        .ok();
    let now = app.clock().now();
    let task = Task {
        // Unguessable and unrelated to the thread id, so a client that parses it is caught.
        id: format!("task-{}", Uuid::new_v4().simple()),
        account: account.id.clone(),
        thread_id: thread_id.clone(),
        created_at: now,
        last_updated_at: now,
        ttl_ms: settings
            .as_ref()
            .and_then(|s| s.ttl_ms)
            .unwrap_or(DEFAULT_TTL_MS),
        poll_interval_ms: settings
            .as_ref()
            .and_then(|s| s.poll_interval_ms)
            .unwrap_or(DEFAULT_POLL_INTERVAL_MS),
        last_seen: None,
        first_entry,
        last_entry: None,
        used_keys: HashSet::new(),
        rounds: HashMap::new(),
        settled: HashSet::new(),
    };
    let task_id = task.id.clone();
    app.tasks().lock().insert(task_id.clone(), task);
    let Some(state) = detailed_state(&app, &ctx, &task_id).await else {
        return ErrorData::internal("The task vanished")
            .with_id(Some(id))
            .into_response();
    };
    let mut result = Map::new();
    for key in [
        "taskId",
        "status",
        "statusMessage",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
    ] {
        if let Some(value) = state.get(key) {
            result.insert(key.into(), value.clone());
        }
    }
    result.insert("resultType".into(), "task".into());
    result.insert(
        "_meta".into(),
        json!({META_STOP: stop_url(&app, &thread_id), META_THREAD: thread_id}),
    );
    let mut result = Value::Object(result);
    modern::finish_result(&mut result, ResultType::Task);
    Reply::new(&id, result).into_response()
}

/// The newest task on a thread, if any.
fn current_task(app: &AppState, account: &str, thread_id: &str) -> Option<String> {
    app.tasks()
        .lock()
        .values()
        .filter(|t| t.account == account && t.thread_id == thread_id)
        .max_by_key(|t| t.created_at)
        .map(|t| t.id.clone())
}

/// The task `task_id` if it exists, belongs to `account` and has not expired.
fn owned_task(app: &AppState, account: &str, task_id: &str) -> Option<Task> {
    let now = app.clock().now();
    let tasks = app.tasks().lock();
    let task = tasks.get(task_id).filter(|t| t.account == account)?;
    let expires = task.created_at + to_chrono(Duration::from_millis(task.ttl_ms));
    (now < expires).then(|| task.clone())
}

fn not_found(id: &RequestId, task_id: &str) -> Response {
    invalid_params(
        id,
        format!(
            "Failed to retrieve task: Task not found (`{task_id}` is unknown, expired or belongs \
             to another account). Poll with the exact taskId a tools/call returned."
        ),
    )
}

fn task_id_param(params: &Value) -> &str {
    params.get("taskId").and_then(Value::as_str).unwrap_or("")
}

/// `tasks/get`.
pub(crate) async fn get(app: AppState, account: Account, id: RequestId, params: Value) -> Response {
    let task_id = task_id_param(&params);
    if owned_task(&app, &account.id, task_id).is_none() {
        return not_found(&id, task_id);
    }
    let ctx = ctx(&app, account);
    match detailed_state(&app, &ctx, task_id).await {
        Some(state) => success(&id, state),
        None => not_found(&id, task_id),
    }
}

/// One outstanding input request of a task.
#[derive(Debug, Clone)]
struct Outstanding {
    request_id: String,
    kind: Asked,
    /// The elicitation request (`{method, params}`).
    request: Value,
}

#[derive(Debug, Clone)]
enum Asked {
    /// Questions: a form; `accept` answers with `answer_question`.
    Questions(Value),
    /// An approval: a form without fields; `accept` approves, `decline` denies.
    Approval,
    /// A sign-in, a Perplexity-only form or a top-up: a URL the user finishes on.
    Url,
}

/// The outstanding requests of the thread's latest entry, keyed as this task names them.
fn outstanding(task: &Task, thread: &Thread, ctx: &Links<'_>) -> Vec<(String, Outstanding)> {
    let Some(entry) = thread.latest() else {
        return Vec::new();
    };
    let latest = thread.entries.len() - 1;
    if latest < task.first_entry || task.last_entry.is_some_and(|last| last < latest) {
        return Vec::new();
    }
    let Phase::Input { kind, .. } = &entry.phase else {
        return Vec::new();
    };
    let key =
        |prefix: &str, request_id: &str| match task.rounds.get(request_id).copied().unwrap_or(0) {
            0 => format!("{prefix}:{request_id}"),
            n => format!("{prefix}:{request_id}.{n}"),
        };
    let mut out = Vec::new();
    for request in entry.open_requests() {
        if task.settled.contains(&request.id) {
            continue;
        }
        let (prefix, asked, params) = match &request.kind {
            RequestKind::Question(questions) => {
                let schema = question_schema(questions);
                let message = question_message(questions);
                let params = json!({"mode": "form", "message": message, "requestedSchema": schema});
                ("answer", Asked::Questions(schema), params)
            }
            RequestKind::Confirm { action, .. } => (
                "confirm",
                Asked::Approval,
                json!({"mode": "form", "message": action,
                       "requestedSchema": {"type": "object", "properties": {}}}),
            ),
            RequestKind::SignIn(spec) => (
                "sign-in",
                Asked::Url,
                json!({"mode": "url",
                       "message": format!("Sign in to {} so Computer can continue.", spec.display_name),
                       "url": ctx.auth_url(thread, request)}),
            ),
        };
        out.push((
            key(prefix, &request.id),
            Outstanding {
                request_id: request.id.clone(),
                kind: asked,
                request: json!({"method": "elicitation/create", "params": params}),
            },
        ));
    }
    let page = match kind {
        InputKind::Interaction { request_id, title } => Some((
            "form",
            request_id.clone(),
            format!("{title}: finish this in Perplexity."),
            ctx.form_url(thread, request_id),
        )),
        InputKind::Credits => Some((
            "credits",
            format!("credits-{}", entry.id),
            "Your account is out of credits: add credits so Computer can continue.".to_owned(),
            ctx.billing_url(&thread.owner),
        )),
        _ => None,
    };
    if let Some((prefix, request_id, message, url)) = page
        && !task.settled.contains(&request_id)
    {
        out.push((
            key(prefix, &request_id),
            Outstanding {
                request_id,
                kind: Asked::Url,
                request: json!({"method": "elicitation/create",
                                "params": {"mode": "url", "message": message, "url": url}}),
            },
        ));
    }
    out
}

/// Moves the thread on where the task flow (not a tool call) finishes a request: credits added
/// after a top-up (a sign-in page resumes Computer by itself).
async fn continue_after_pages(app: &AppState, ctx: &CallContext, thread_id: &str) {
    let account = &ctx.account.id;
    let credits = app.engine().world.credits(account);
    let next = app.engine().with_thread(account, thread_id, |thread, _| {
        let entry = thread.latest()?;
        match &entry.phase {
            Phase::Input {
                kind: InputKind::Credits,
                ..
            } if credits > 0 => Some((
                "call_perplexity_computer",
                json!({"thread_id": thread_id, "message": "Credits added. Continue."}),
            )),
            _ => None,
        }
    });
    if let Ok(Some((tool, args))) = next {
        call_now(ctx, tool, args).await;
    }
}

/// The task as `tasks/get` shows it (`None` when the task or its thread is gone).
async fn detailed_state(app: &AppState, ctx: &CallContext, task_id: &str) -> Option<Value> {
    let task = app.tasks().lock().get(task_id).cloned()?;
    if task.last_entry.is_none() {
        continue_after_pages(app, ctx, &task.thread_id).await;
    }
    let engine = app.engine();
    let account = ctx.account.id.clone();
    let view = engine
        .with_thread(&account, &task.thread_id, |thread, rctx| {
            let latest = thread.entries.len().checked_sub(1)?;
            let index = task.last_entry.map_or(latest, |last| last.min(latest));
            if index < task.first_entry {
                // The message is queued behind the request in progress.
                return Some(None);
            }
            let entry = &thread.entries[index];
            let output = if matches!(entry.phase, Phase::Running { .. }) {
                view::timeout(thread)
            } else {
                view::checkpoint(thread, entry, rctx)
            };
            let steps = serde_json::to_value(view::steps(entry)).unwrap_or_default();
            let requests = outstanding(&task, thread, rctx);
            let wake_at = match &entry.phase {
                Phase::Sleeping { wake_at, .. } => Some(iso(*wake_at)),
                _ => None,
            };
            let current = entry
                .steps
                .iter()
                .rev()
                .find(|s| s.completed_at.is_none())
                .map(|s| s.title.clone());
            Some(Some((
                output,
                steps,
                requests,
                (wake_at, current, thread.status()),
            )))
        })
        .ok()??;
    let (output, steps, requests, wake_at) = match view {
        Some(view) => view,
        None => (
            Checkpoint::bare(
                task.thread_id.clone(),
                Event::Queued,
                "Queued: Computer starts on this message when the current request ends.",
                TaskStatus::Working,
            ),
            json!([]),
            Vec::new(),
            (None, None, "queued"),
        ),
    };
    let event = serde_json::to_value(output.event).unwrap_or_default();
    let event = event.as_str().unwrap_or("");
    let task_status = output.task_status.as_str();
    let text = output.text.as_str();
    let result = || {
        let result = render::call_result(output.clone().into(), ProtocolVersion::STATELESS);
        serde_json::to_value(result).unwrap_or_default()
    };
    let (wake, current_step, thread_status) = wake_at;
    let mut state = Map::new();
    let status = match task_status {
        _ if event == "complete" || event == "error" => {
            state.insert("result".into(), result());
            "completed"
        }
        "completed" | "failed" => {
            state.insert("result".into(), result());
            "completed"
        }
        "cancelled" => "cancelled",
        "input_required" => "input_required",
        _ => "working",
    };
    let status_message = match (status, event) {
        ("completed", _) if output.is_error => format!("Computer failed: {}", first_line(text)),
        ("completed", _) => format!("Completed: {}", first_line(text)),
        ("cancelled", _) => "Cancelled: Computer stopped working on this task.".to_owned(),
        ("input_required", _) => format!("Waiting for you: {}", first_line(text)),
        (_, "sleep") => format!(
            "Sleeping until {}; Computer continues then.",
            wake.unwrap_or_default()
        ),
        (_, "waiting") => format!("Waiting: {}", first_line(text)),
        (_, "queued") => first_line(text),
        _ => match current_step {
            Some(step) => format!("Working: {step}"),
            None => format!("Working (thread {thread_status})."),
        },
    };
    if status == "input_required" {
        let input: Map<String, Value> = requests
            .iter()
            .map(|(key, o)| (key.clone(), o.request.clone()))
            .collect();
        state.insert("inputRequests".into(), Value::Object(input));
    }
    let now = app.clock().now();
    let seen = json!({"status": status, "statusMessage": status_message, "result": state.get("result"), "inputRequests": state.get("inputRequests")});
    let last_updated_at = {
        let mut tasks = app.tasks().lock();
        let stored = tasks.get_mut(task_id)?;
        if stored.last_seen.as_ref() != Some(&seen) {
            if stored.last_seen.is_some() {
                stored.last_updated_at = now;
            }
            stored.last_seen = Some(seen);
        }
        stored.last_updated_at
    };
    state.insert("taskId".into(), task.id.clone().into());
    state.insert("status".into(), status.into());
    state.insert("statusMessage".into(), status_message.into());
    state.insert("createdAt".into(), iso(task.created_at).into());
    state.insert("lastUpdatedAt".into(), iso(last_updated_at).into());
    state.insert("ttlMs".into(), task.ttl_ms.into());
    state.insert("pollIntervalMs".into(), task.poll_interval_ms.into());
    state.insert(
        "_meta".into(),
        json!({META_STEPS: steps, META_THREAD: task.thread_id}),
    );
    Some(Value::Object(state))
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > 200 {
        format!("{}…", line.chars().take(200).collect::<String>())
    } else {
        line.to_owned()
    }
}

/// `tasks/update`: delivers `inputResponses`; unknown or no-longer-waiting keys are ignored.
pub(crate) async fn update(
    app: AppState,
    account: Account,
    id: RequestId,
    params: Value,
) -> Response {
    let task_id = task_id_param(&params);
    let Some(task) = owned_task(&app, &account.id, task_id) else {
        return not_found(&id, task_id);
    };
    let Some(responses) = params.get("inputResponses").and_then(Value::as_object) else {
        return invalid_params(
            &id,
            "tasks/update needs params.inputResponses, an object keyed by the inputRequests \
             keys of tasks/get"
                .into(),
        );
    };
    let ctx = ctx(&app, account.clone());
    let requests = app
        .engine()
        .with_thread(&account.id, &task.thread_id, |thread, rctx| {
            outstanding(&task, thread, rctx)
        })
        .unwrap_or_default();
    // Check everything first, so a bad response changes nothing.
    let mut plan = Vec::new();
    for (key, response) in responses {
        let Some((_, asked)) = requests.iter().find(|(k, _)| k == key) else {
            continue;
        };
        if task.used_keys.contains(key) {
            continue;
        }
        let action = response.get("action").and_then(Value::as_str);
        let Some(action @ ("accept" | "decline" | "cancel")) = action else {
            return invalid_params(
                &id,
                format!(
                    "inputResponses[\"{key}\"] needs action \"accept\", \"decline\" or \
                     \"cancel\" (an elicitation result)"
                ),
            );
        };
        if action == "accept"
            && let Asked::Questions(schema) = &asked.kind
            && let Some(problem) = form_content_problem(schema, response.get("content"))
        {
            return invalid_params(
                &id,
                format!(
                    "inputResponses[\"{key}\"] does not match the requested schema: {problem}. \
                     Nothing was changed."
                ),
            );
        }
        plan.push((
            key.clone(),
            asked.clone(),
            action,
            response.get("content").cloned(),
        ));
    }
    for (key, asked, action, content) in plan {
        let thread_id = task.thread_id.as_str();
        let request_id = asked.request_id.as_str();
        let mut ask_again = false;
        match (&asked.kind, action) {
            (Asked::Questions(_), "accept") => {
                call_now(
                    &ctx,
                    "answer_question",
                    json!({"thread_id": thread_id, "answers": content, "followup_uuid": request_id}),
                )
                .await;
            }
            (Asked::Approval, "accept") => {
                call_now(
                    &ctx,
                    "confirm_action_approve",
                    json!({"thread_id": thread_id, "result": "Approved.", "followup_uuid": request_id}),
                )
                .await;
            }
            (Asked::Approval, "decline") => {
                call_now(
                    &ctx,
                    "confirm_action_deny",
                    json!({"thread_id": thread_id, "result": "Declined.", "followup_uuid": request_id}),
                )
                .await;
            }
            // A declined or cancelled question and a cancelled approval stay open: they are
            // asked again under a new key (keys are never reused).
            (Asked::Questions(_), _) | (Asked::Approval, _) => ask_again = true,
            // URL requests: accept is consent to open the page (the user finishes there), so
            // this task stops asking; decline dismisses a sign-in ("decline dismisses the
            // sign-in"), which the thread drops from its auth_requests and stops waiting on.
            // Other pages (forms, billing) have nothing to dismiss.
            (Asked::Url, "decline") => {
                let engine = app.engine();
                let now = engine.clock.now();
                let _ = engine.with_thread(&ctx.account.id, thread_id, |thread, _| {
                    thread.resolve(request_id, RequestState::Dismissed, now);
                });
            }
            (Asked::Url, _) => {}
        }
        let mut tasks = app.tasks().lock();
        if let Some(stored) = tasks.get_mut(&task.id) {
            stored.used_keys.insert(key);
            if ask_again {
                *stored.rounds.entry(asked.request_id.clone()).or_insert(0) += 1;
            }
            if matches!(asked.kind, Asked::Url) {
                stored.settled.insert(asked.request_id.clone());
            }
        }
    }
    success(&id, json!({"_meta": {META_THREAD: task.thread_id}}))
}

/// `tasks/cancel`: an acknowledgement with the stop URL; Computer keeps its status.
pub(crate) async fn cancel(
    app: AppState,
    account: Account,
    id: RequestId,
    params: Value,
) -> Response {
    let task_id = task_id_param(&params);
    let Some(task) = owned_task(&app, &account.id, task_id) else {
        return not_found(&id, task_id);
    };
    success(
        &id,
        json!({"_meta": {META_STOP: stop_url(&app, &task.thread_id), META_THREAD: task.thread_id}}),
    )
}
