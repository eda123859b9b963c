//! The `io.modelcontextprotocol/tasks` extension (2026-07-28 only), as the Computer document
//! describes it: `call_perplexity_computer` answers `resultType: "task"` at once, the client
//! polls `tasks/get`, answers `inputRequests` with `tasks/update`, and `tasks/cancel` only
//! acknowledges (the stop URL or `cancel_task` really stops Computer).
//!
//! A task is a view of one message on one thread: its state is read from the thread on every
//! poll (task state lives in the mock, not in a connection). A newer message on the thread
//! starts another task, which follows the entries from that message on, so the older task keeps
//! answering for its own request and a finished result stays readable. Answers are the same
//! service commands a handshake client's tools run (answer, approve, deny), so both eras move
//! the thread identically.

use parking_lot::{Mutex, MutexGuard};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use uuid::Uuid;

use crate::clock::{iso, to_chrono};
use crate::computer::model::arguments::{AnswerQuestion, CallComputer, ConfirmAction};
use crate::computer::model::content::CallToolResult;
use crate::computer::model::elicitation::{
    ElicitAction, ElicitParams, ElicitResult, InputRequest, InputRequests, form_problem,
};
use crate::computer::model::error::ErrorData;
use crate::computer::model::jsonrpc::{RequestId, Response as Reply};
use crate::computer::model::lifecycle::ResultType;
use crate::computer::model::request::{
    CallToolRequestParams, TaskRequestParams, UpdateTaskRequestParams,
};
use crate::computer::model::results::{AwaitingKind, Checkpoint, Event, TaskStatus};
use crate::computer::model::tasks::{
    CreateTaskResult, GetTaskResult, TaskAck, TaskInfo, TaskMeta, TaskState,
};
use crate::computer::model::tools::ToolName;
use crate::computer::model::version::ProtocolVersion;
use crate::computer::render;
use crate::computer::service::queries::TaskView;
use crate::computer::service::{Service, Wait};
use crate::computer::tools;
use crate::world::Account;

/// The document's default poll interval.
const DEFAULT_POLL_INTERVAL_MS: u64 = 5_000;
/// The document's default lifetime: 30 days.
const DEFAULT_TTL_MS: u64 = 30 * 24 * 3_600_000;

/// Every task of every account.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    tasks: Mutex<HashMap<String, Task>>,
}

impl Tasks {
    /// Forgets every task (`POST /_mock/reset`); their threads are gone too.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Task>> {
        self.tasks.lock()
    }

    /// Every task, oldest first, as the dashboard lists them: the status is the one the last
    /// `tasks/get` saw (`None` before the first poll).
    pub(crate) fn listing(&self) -> Vec<TaskRow> {
        let mut rows: Vec<TaskRow> = self
            .lock()
            .values()
            .map(|t| {
                let polled = t.last_seen.as_ref();
                TaskRow {
                    task_id: t.id.clone(),
                    account: t.account.clone(),
                    thread_id: t.thread_id.clone(),
                    created_at: iso(t.created_at),
                    last_updated_at: iso(t.last_updated_at),
                    ttl_ms: t.ttl_ms,
                    poll_interval_ms: announced_interval(t),
                    last_polled_status: polled.map(|seen| seen.status.as_str().to_owned()),
                    last_polled_message: polled.map(|seen| seen.status_message.clone()),
                }
            })
            .collect();
        rows.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        rows
    }

    /// The newest task on a thread, if any.
    fn current(&self, account: &str, thread_id: &str) -> Option<String> {
        self.lock()
            .values()
            .filter(|t| t.account == account && t.thread_id == thread_id)
            .max_by_key(|t| t.created_at)
            .map(|t| t.id.clone())
    }

    /// The task `task_id` if it exists, belongs to `account` and has not expired at `now`.
    fn owned(&self, account: &str, task_id: &str, now: DateTime<Utc>) -> Option<Task> {
        let tasks = self.lock();
        let task = tasks.get(task_id).filter(|t| t.account == account)?;
        let expires = task.created_at + to_chrono(Duration::from_millis(task.ttl_ms));
        (now < expires).then(|| task.clone())
    }
}

/// A task as the dashboard lists it (`GET /_mock/tasks`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TaskRow {
    /// The `taskId`.
    pub(crate) task_id: String,
    /// The account that created it.
    pub(crate) account: String,
    /// The thread it follows.
    pub(crate) thread_id: String,
    /// When it was created (virtual time).
    pub(crate) created_at: String,
    /// When a poll last saw it change.
    pub(crate) last_updated_at: String,
    /// Its lifetime.
    pub(crate) ttl_ms: u64,
    /// The poll interval it asks for.
    pub(crate) poll_interval_ms: u64,
    /// The `status` the last `tasks/get` answered.
    pub(crate) last_polled_status: Option<String>,
    /// The `statusMessage` the last `tasks/get` answered.
    pub(crate) last_polled_message: Option<String>,
}

#[derive(Debug, Clone)]
struct Task {
    id: String,
    account: String,
    thread_id: String,
    created_at: DateTime<Utc>,
    last_updated_at: DateTime<Utc>,
    ttl_ms: u64,
    /// The intervals announced in turn (creation, then each `tasks/get`); the last repeats.
    poll_intervals_ms: Vec<u64>,
    /// Answers given so far (creation included), to pick the interval the next one announces.
    answers: usize,
    /// The last state a poll saw, to date changes.
    last_seen: Option<Polled>,
    /// The thread entry this task's message created (or resumed, or will create once queued).
    first_entry: usize,
    /// The last entry this task covers, once a newer message started another task.
    last_entry: Option<usize>,
    /// Input-request keys whose response was delivered (never reused).
    used_keys: HashSet<String>,
    /// How often each request was asked again after a `decline`/`cancel` left it open.
    rounds: HashMap<String, u32>,
}

/// The poll interval `task`'s latest answer announced (its creation's before any poll).
fn announced_interval(task: &Task) -> u64 {
    let schedule = &task.poll_intervals_ms;
    schedule
        .get(task.answers.saturating_sub(1))
        .or(schedule.last())
        .copied()
        .unwrap_or(DEFAULT_POLL_INTERVAL_MS)
}

fn invalid_params(id: &RequestId, message: String) -> Response {
    ErrorData::invalid_params(message)
        .with_id(Some(id.clone()))
        .into_response()
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

/// The task a request names (`""` when it named none: no task has that id).
fn named_task(task_id: &Option<String>) -> &str {
    task_id.as_deref().unwrap_or("")
}

/// `tools/call` of `call_perplexity_computer` from a client that declared the extension.
pub(crate) async fn create(
    service: &Service,
    tasks: &Tasks,
    account: &Account,
    id: RequestId,
    params: CallToolRequestParams,
) -> Response {
    let arguments = params.arguments;
    let sent = match tools::arguments::<CallComputer>(ToolName::CallPerplexityComputer, &arguments)
    {
        Ok(args) => {
            let follow_up = args.thread_id.is_some();
            let sent = service.send(account, args, Wait::none()).await;
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
            return match render::call_result(reply, ProtocolVersion::STATELESS) {
                Ok(result) => Reply::new(&id, result.stateless()).into_response(),
                Err(error) => error.with_id(Some(id)).into_response(),
            };
        }
    };
    // The message's task covers its entry from now on; the thread's previous task ends with
    // the entry before (or with the entry it resumed).
    if follow_up
        && let Some(previous) = tasks.current(&account.id, &thread_id)
        && let Some(task) = tasks.lock().get_mut(&previous)
        && task.last_entry.is_none()
    {
        task.last_entry = delivered.previous;
    }
    let timing = service.task_timing(account, &thread_id);
    let now = service.now();
    let task = Task {
        // Unguessable and unrelated to the thread id, so a client that parses it is caught.
        id: format!("task-{}", Uuid::new_v4().simple()),
        account: account.id.clone(),
        thread_id: thread_id.clone(),
        created_at: now,
        last_updated_at: now,
        ttl_ms: timing.ttl_ms.unwrap_or(DEFAULT_TTL_MS),
        poll_intervals_ms: if timing.poll_intervals_ms.is_empty() {
            vec![DEFAULT_POLL_INTERVAL_MS]
        } else {
            timing.poll_intervals_ms
        },
        answers: 0,
        last_seen: None,
        first_entry: delivered.entry,
        last_entry: None,
        used_keys: HashSet::new(),
        rounds: HashMap::new(),
    };
    let task_id = task.id.clone();
    tasks.lock().insert(task_id.clone(), task);
    let state = match poll(service, tasks, account, &task_id).await {
        Ok(Some(state)) => state,
        Ok(None) => {
            return ErrorData::internal("The task vanished")
                .with_id(Some(id))
                .into_response();
        }
        Err(error) => return error.with_id(Some(id)).into_response(),
    };
    let mut meta = TaskMeta::new(thread_id.clone());
    meta.stop_url = Some(service.stop_url(&thread_id));
    let result = CreateTaskResult {
        info: state.info,
        result_type: ResultType::Task,
        meta,
    };
    Reply::new(&id, result).into_response()
}

/// `tasks/get`.
pub(crate) async fn get(
    service: &Service,
    tasks: &Tasks,
    account: &Account,
    id: RequestId,
    params: TaskRequestParams,
) -> Response {
    let task_id = named_task(&params.task_id);
    if tasks.owned(&account.id, task_id, service.now()).is_none() {
        return not_found(&id, task_id);
    }
    // A look: a driven clock moves on by its look step before the task is read.
    service.look().await;
    match poll(service, tasks, account, task_id).await {
        Ok(Some(state)) => Reply::new(&id, state).into_response(),
        Ok(None) => not_found(&id, task_id),
        Err(error) => error.with_id(Some(id)).into_response(),
    }
}

/// One outstanding input request of a task.
#[derive(Debug, Clone)]
struct Outstanding {
    request_id: String,
    kind: Asked,
    request: InputRequest,
}

/// What a task asked, and so what each action does.
#[derive(Debug, Clone)]
enum Asked {
    /// Questions: a form; `accept` answers them.
    Questions(Value),
    /// An approval: a form without fields; `accept` approves, `decline` denies.
    Approval,
    /// A sign-in, a Perplexity-only form or a top-up: a URL the user finishes on.
    Url,
}

/// A task's status line while it waits on two-factor authentication.
const TWO_FACTOR_STATUS: &str = "Waiting for you: two-factor authentication. Open the URL in \
                                 inputRequests and finish signing in in Perplexity; the task \
                                 then continues.";

/// The outstanding requests of the thread's latest request, keyed as this task names them.
fn outstanding(
    task: &Task,
    awaiting: &[crate::computer::model::results::Awaiting],
) -> Vec<(String, Outstanding)> {
    let key =
        |prefix: &str, request_id: &str| match task.rounds.get(request_id).copied().unwrap_or(0) {
            0 => format!("{prefix}:{request_id}"),
            n => format!("{prefix}:{request_id}.{n}"),
        };
    awaiting
        .iter()
        .filter_map(|a| {
            let (prefix, asked, params) = match &a.kind {
                AwaitingKind::Questions { schema, .. } => (
                    "answer",
                    Asked::Questions(schema.clone()),
                    ElicitParams::asking(&a.kind)?,
                ),
                AwaitingKind::Confirm { .. } => {
                    ("confirm", Asked::Approval, ElicitParams::asking(&a.kind)?)
                }
                AwaitingKind::SignIn { .. } => {
                    ("sign-in", Asked::Url, ElicitParams::asking(&a.kind)?)
                }
                AwaitingKind::Form { title, url } => (
                    "form",
                    Asked::Url,
                    ElicitParams::url(format!("{title}: finish this in Perplexity."), url.clone()),
                ),
                AwaitingKind::TwoFactor { url } => (
                    "two-factor",
                    Asked::Url,
                    ElicitParams::url(
                        "Two-factor authentication: follow the instructions in Perplexity to \
                         finish signing in, and Computer continues.",
                        url.clone(),
                    ),
                ),
                AwaitingKind::Credits { url } => (
                    "credits",
                    Asked::Url,
                    ElicitParams::url(
                        "Your account is out of credits: add credits so Computer can continue.",
                        url.clone(),
                    ),
                ),
            };
            Some((
                key(prefix, &a.request_id),
                Outstanding {
                    request_id: a.request_id.clone(),
                    kind: asked,
                    request: InputRequest::new(params),
                },
            ))
        })
        .collect()
}

/// What a poll saw of a task: its status and message for the dashboard, and the whole state
/// (status, statusMessage, result, inputRequests) as JSON, which the next poll compares to tell
/// whether the task changed.
#[derive(Debug, Clone, PartialEq)]
struct Polled {
    status: TaskState,
    status_message: String,
    state: String,
}

/// The state a poll compares, as it is written.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Seen<'a> {
    status: TaskState,
    status_message: &'a str,
    result: &'a Option<CallToolResult>,
    input_requests: &'a Option<InputRequests>,
}

/// The task as `tasks/get` shows it (`None` when the task or its thread is gone), or the
/// internal error that answers the poll when its result cannot be written.
async fn poll(
    service: &Service,
    tasks: &Tasks,
    account: &Account,
    task_id: &str,
) -> Result<Option<GetTaskResult>, ErrorData> {
    let Some(task) = tasks.lock().get(task_id).cloned() else {
        return Ok(None);
    };
    if task.last_entry.is_none() {
        service.continue_after_page(account, &task.thread_id).await;
    }
    let Some(view) = service.task_view(account, &task.thread_id, task.first_entry, task.last_entry)
    else {
        return Ok(None);
    };
    let TaskView {
        checkpoint,
        steps,
        awaiting,
        wake_at,
        current_step,
        thread_status,
    } = view;
    let output = checkpoint.unwrap_or_else(|| {
        Checkpoint::bare(
            task.thread_id.clone(),
            Event::Queued,
            "Queued: Computer starts on this message when the current request ends.",
            TaskStatus::Working,
        )
    });
    let status = match (output.event, output.task_status) {
        (Event::Complete | Event::Error, _) | (_, TaskStatus::Completed | TaskStatus::Failed) => {
            TaskState::Completed
        }
        (_, TaskStatus::Cancelled) => TaskState::Cancelled,
        (_, TaskStatus::InputRequired) => TaskState::InputRequired,
        (_, TaskStatus::Working) => TaskState::Working,
    };
    let text = output.text.as_str();
    let status_message = match (status, output.event) {
        (TaskState::Completed, _) if output.is_error => {
            format!("Computer failed: {}", first_line(text))
        }
        (TaskState::Completed, _) => format!("Completed: {}", first_line(text)),
        (TaskState::Cancelled, _) => "Cancelled: Computer stopped working on this task.".to_owned(),
        // The event's text tells a tool client to reply on the thread, but in a task a message
        // starts a new task ("Each new message starts a new task"): two-factor is finished in
        // Perplexity ("Open the URL and complete the required action in Perplexity").
        (TaskState::InputRequired, Event::TwoFactorRequired) => TWO_FACTOR_STATUS.to_owned(),
        (TaskState::InputRequired, _) => format!("Waiting for you: {}", first_line(text)),
        (_, Event::Sleep) => match wake_at {
            Some(at) => format!("Sleeping until {at}; Computer continues then."),
            None => "Sleeping; Computer continues later.".to_owned(),
        },
        (_, Event::Waiting) => format!("Waiting: {}", first_line(text)),
        (_, Event::Queued) => first_line(text),
        _ => match current_step {
            Some(step) => format!("Working: {step}"),
            None => format!("Working (thread {thread_status})."),
        },
    };
    let input_requests = (status == TaskState::InputRequired).then(|| {
        InputRequests(
            outstanding(&task, &awaiting)
                .into_iter()
                .map(|(key, o)| (key, o.request))
                .collect(),
        )
    });
    let result = (status == TaskState::Completed)
        .then(|| render::call_result(output.into(), ProtocolVersion::STATELESS))
        .transpose()?;
    let state = serde_json::to_string(&Seen {
        status,
        status_message: &status_message,
        result: &result,
        input_requests: &input_requests,
    })
    .map_err(|error| {
        ErrorData::internal(format!(
            "Internal error: the task's state could not be written as JSON ({error})."
        ))
    })?;
    let seen = Polled {
        status,
        status_message: status_message.clone(),
        state,
    };
    let now = service.now();
    let (last_updated_at, poll_interval_ms) = {
        let mut all = tasks.lock();
        let Some(stored) = all.get_mut(task_id) else {
            return Ok(None);
        };
        if stored.last_seen.as_ref() != Some(&seen) {
            if stored.last_seen.is_some() {
                stored.last_updated_at = now;
            }
            stored.last_seen = Some(seen);
        }
        let schedule = &stored.poll_intervals_ms;
        let interval = schedule
            .get(stored.answers)
            .or(schedule.last())
            .copied()
            .unwrap_or(DEFAULT_POLL_INTERVAL_MS);
        stored.answers = stored.answers.saturating_add(1);
        (stored.last_updated_at, interval)
    };
    let mut meta = TaskMeta::new(task.thread_id.clone());
    meta.steps = Some(steps);
    // "_meta["ai.perplexity/stopUrl"], also available from task creation and tasks/get".
    meta.stop_url = Some(service.stop_url(&task.thread_id));
    Ok(Some(GetTaskResult {
        result,
        input_requests,
        info: TaskInfo {
            task_id: task.id.clone(),
            status,
            status_message,
            created_at: iso(task.created_at),
            last_updated_at: iso(last_updated_at),
            ttl_ms: task.ttl_ms,
            poll_interval_ms,
        },
        meta,
        result_type: ResultType::Complete,
    }))
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
    service: &Service,
    tasks: &Tasks,
    account: &Account,
    id: RequestId,
    params: UpdateTaskRequestParams,
) -> Response {
    let task_id = named_task(&params.task_id);
    let Some(task) = tasks.owned(&account.id, task_id, service.now()) else {
        return not_found(&id, task_id);
    };
    let Some(responses) = params.input_responses.as_ref().and_then(Value::as_object) else {
        return invalid_params(
            &id,
            "tasks/update needs params.inputResponses, an object keyed by the inputRequests \
             keys of tasks/get"
                .into(),
        );
    };
    let awaiting =
        service.task_awaiting(account, &task.thread_id, task.first_entry, task.last_entry);
    let requests = outstanding(&task, &awaiting);
    // Check everything first, so a bad response changes nothing.
    let mut plan = Vec::new();
    for (key, response) in responses {
        let Some((_, asked)) = requests.iter().find(|(k, _)| k == key) else {
            continue;
        };
        if task.used_keys.contains(key) {
            continue;
        }
        let Some(ElicitResult { action, content }) = ElicitResult::read(response) else {
            return invalid_params(
                &id,
                format!(
                    "inputResponses[\"{key}\"] needs action \"accept\", \"decline\" or \
                     \"cancel\" (an elicitation result)"
                ),
            );
        };
        if action == ElicitAction::Accept
            && let Asked::Questions(schema) = &asked.kind
            && let Some(problem) = form_problem(schema, content.as_ref())
        {
            return invalid_params(
                &id,
                format!(
                    "inputResponses[\"{key}\"] does not match the requested schema: {problem}. \
                     Nothing was changed."
                ),
            );
        }
        plan.push((key.clone(), asked.clone(), action, content));
    }
    for (key, asked, action, content) in plan {
        let thread_id = task.thread_id.clone();
        let request_id = asked.request_id.clone();
        let confirm = |result: &str| ConfirmAction {
            thread_id: thread_id.clone(),
            result: result.to_owned(),
            attachment_urls: Vec::new(),
            followup_uuid: Some(request_id.clone()),
        };
        let mut ask_again = false;
        match (&asked.kind, action) {
            (Asked::Questions(_), ElicitAction::Accept) => {
                // An accepted form without fields answers nothing.
                let answers = content.unwrap_or_default();
                let args = AnswerQuestion {
                    thread_id: thread_id.clone(),
                    answers,
                    attachment_urls: Vec::new(),
                    followup_uuid: Some(request_id.clone()),
                };
                service.answer(account, args, Wait::none()).await;
            }
            (Asked::Approval, ElicitAction::Accept) => {
                service
                    .confirm(account, confirm("Approved."), true, Wait::none())
                    .await;
            }
            (Asked::Approval, ElicitAction::Decline) => {
                service
                    .confirm(account, confirm("Declined."), false, Wait::none())
                    .await;
            }
            // A declined or cancelled question and a cancelled approval stay open: they are
            // asked again under a new key (keys are never reused).
            (Asked::Questions(_) | Asked::Approval, _) => ask_again = true,
            // "Sign-ins | URL | ... `decline` dismisses the sign-in": the thread drops it from
            // its auth_requests and goes on without that connector.
            (Asked::Url, ElicitAction::Decline) if key.starts_with("sign-in:") => {
                service.dismiss_sign_in(account, &thread_id, &request_id);
            }
            // "For URL requests, accept does not complete the action. The user must finish on
            // the linked page": the request stays listed under the same key until then. A
            // page (form, two-factor, credits) has nothing to dismiss: declined or cancelled,
            // it is asked again.
            // Accepting changes nothing, so the key stays open for a later decline.
            (Asked::Url, ElicitAction::Accept) => continue,
            (Asked::Url, _) => ask_again = !key.starts_with("sign-in:"),
        }
        let mut all = tasks.lock();
        if let Some(stored) = all.get_mut(&task.id) {
            if ask_again {
                *stored.rounds.entry(request_id.clone()).or_insert(0) += 1;
            }
            stored.used_keys.insert(key);
        }
    }
    let ack = TaskAck {
        meta: TaskMeta::new(task.thread_id),
        result_type: ResultType::Complete,
    };
    Reply::new(&id, ack).into_response()
}

/// `tasks/cancel`: an acknowledgement with the stop URL; Computer keeps its status.
pub(crate) fn cancel(
    service: &Service,
    tasks: &Tasks,
    account: &Account,
    id: RequestId,
    params: &TaskRequestParams,
) -> Response {
    let task_id = named_task(&params.task_id);
    let Some(task) = tasks.owned(&account.id, task_id, service.now()) else {
        return not_found(&id, task_id);
    };
    let mut meta = TaskMeta::new(task.thread_id.clone());
    meta.stop_url = Some(service.stop_url(&task.thread_id));
    Reply::new(
        &id,
        TaskAck {
            meta,
            result_type: ResultType::Complete,
        },
    )
    .into_response()
}
