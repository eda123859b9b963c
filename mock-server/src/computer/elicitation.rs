//! In-call elicitation for 2026-07-28 clients that declared `elicitation` (MRTR): instead of
//! returning an `ask_user_question`, `confirm_action` or `auth_required` event, the call answers
//! `resultType: "input_required"` with `inputRequests` and an opaque `requestState`; the client
//! retries the same call with `inputResponses` and that `requestState`.
//!
//! The document's rules: one form for the questions of one request, unless a question allows
//! several choices or attachments, or other prompts arrived at the same time (then the event
//! is returned as usual); declining a confirmation denies the action; declining or cancelling a
//! question returns the event so the client can answer it later with `answer_question`; a
//! sign-in is a URL the user finishes on the page. Only the modes the client declared are used.
//!
//! In the handshake era (2025-06-18 and later) the same requests travel as `elicitation/create`
//! on the call's SSE stream, and the client POSTs its response back.
//!
//! `requestState` is a random token naming state kept here, so a changed token matches nothing
//! (tamper-evident) and a token works once (a replay is refused).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use uuid::Uuid;

use super::engine::{CALL_WAIT, Follow, ProgressSink};
use super::model::jsonrpc::{ErrorData, Outgoing, ProgressToken, RequestId, Response as Reply};
use super::model::lifecycle::ElicitationModes as Modes;
use super::model::lifecycle::ResultType;
use super::model::version::ProtocolVersion;
use super::modern;
use super::render::{FileLink, ToolOutput};
use super::tasks::{form_content_problem, question_message, question_schema};
use super::thread::RequestKind;
use super::tools::{self, CallContext};
use super::transport::{self, Runner, Session};
use crate::AppState;
use crate::world::Account;

/// Pending MRTR rounds, by `requestState`.
#[derive(Debug, Default)]
pub(crate) struct Elicitations {
    pending: Mutex<HashMap<String, Pending>>,
    waiting: Waiting,
}

impl Elicitations {
    /// Forgets every pending in-call question (`POST /_mock/reset`): the threads they would
    /// resume are gone, so a later answer or `requestState` is refused as unknown.
    pub(crate) fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Pending>> {
        self.pending
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[derive(Debug, Clone)]
struct Pending {
    account: String,
    tool: String,
    /// The event result the call would have returned, for declines.
    event: Value,
    key: String,
    ask: Ask,
    used: bool,
}

#[derive(Debug, Clone)]
enum Ask {
    Questions {
        request_id: String,
        schema: Value,
    },
    Confirm {
        request_id: String,
    },
    SignIn {
        request_id: String,
    },
    /// A form only Perplexity can show, or the billing page.
    Page,
}

impl AppState {
    pub(crate) fn elicitations(&self) -> &Elicitations {
        &self.inner.elicitations
    }
}

fn invalid(id: &RequestId, message: String) -> Response {
    ErrorData::invalid_params(message)
        .with_id(Some(id.clone()))
        .into_response()
}

fn finished(output: &ToolOutput) -> Value {
    let mut result = transport::call_result(output, ProtocolVersion::STATELESS);
    modern::finish_result(&mut result, ResultType::Complete);
    result
}

/// What to ask instead of returning `output`, if anything.
fn ask_for(
    app: &AppState,
    account: &str,
    modes: Modes,
    output: &ToolOutput,
) -> Option<(Ask, Value)> {
    let body = &output.body;
    let thread_id = body.get("thread_id").and_then(Value::as_str)?;
    if body.get("pending_interactions").is_some() {
        return None;
    }
    let event = body.get("event").and_then(Value::as_str)?;
    // A Perplexity-only form or a top-up: a URL the user finishes on, then a message continues.
    let page = match event {
        "interaction_required" => body.pointer("/interactive/url"),
        "insufficient_credits" => body.pointer("/interactive/billing_url"),
        _ => None,
    };
    if let Some(url) = page.and_then(Value::as_str) {
        if !modes.url {
            return None;
        }
        let message = body.get("text").and_then(Value::as_str).unwrap_or_default();
        return Some((
            Ask::Page,
            json!({"mode": "url", "message": message, "url": url}),
        ));
    }
    if !matches!(
        event,
        "ask_user_question" | "confirm_action" | "auth_required"
    ) {
        return None;
    }
    app.engine()
        .with_thread(account, thread_id, |thread, ctx| {
            let entry = thread.latest()?;
            let mut open = entry.open_requests();
            let request = open.next()?;
            if open.next().is_some() {
                return None;
            }
            match &request.kind {
                RequestKind::Question(questions) if modes.form => {
                    if questions
                        .iter()
                        .any(|q| q.allow_multiple || q.allow_attachments)
                    {
                        return None;
                    }
                    let schema = question_schema(questions);
                    let message = question_message(questions);
                    Some((
                        Ask::Questions {
                            request_id: request.id.clone(),
                            schema: schema.clone(),
                        },
                        json!({"mode": "form", "message": message, "requestedSchema": schema}),
                    ))
                }
                RequestKind::Confirm { action, .. } if modes.form => Some((
                    Ask::Confirm {
                        request_id: request.id.clone(),
                    },
                    json!({"mode": "form", "message": action,
                           "requestedSchema": {"type": "object", "properties": {}}}),
                )),
                RequestKind::SignIn(spec) if modes.url => Some((
                    Ask::SignIn {
                        request_id: request.id.clone(),
                    },
                    json!({"mode": "url",
                           "message": format!("Sign in to {} so Computer can continue.", spec.display_name),
                           "url": ctx.auth_url(thread, request)}),
                )),
                _ => None,
            }
        })
        .ok()
        .flatten()
}

/// The call's answer: an `InputRequiredResult` when the output waits on something the client
/// can elicit, else the tool result.
fn intercept(
    app: &AppState,
    account: &str,
    modes: Modes,
    tool: &str,
    output: &ToolOutput,
) -> Value {
    let Some((ask, params)) = ask_for(app, account, modes, output) else {
        return finished(output);
    };
    let prefix = match ask {
        Ask::Questions { .. } => "answer",
        Ask::Confirm { .. } => "confirm",
        Ask::SignIn { .. } => "sign-in",
        Ask::Page => "page",
    };
    let key = format!("{prefix}:{}", Uuid::new_v4());
    let state = Uuid::new_v4().simple().to_string();
    app.elicitations().lock().insert(
        state.clone(),
        Pending {
            account: account.to_owned(),
            tool: tool.to_owned(),
            event: finished(output),
            key: key.clone(),
            ask,
            used: false,
        },
    );
    let mut result = json!({
        "resultType": "input_required",
        "inputRequests": {key: {"method": "elicitation/create", "params": params}},
        "requestState": state,
    });
    modern::finish_result(&mut result, ResultType::InputRequired);
    result
}

/// `tools/call` from a 2026-07-28 client that declared elicitation (and is not starting a task).
pub(crate) async fn call(
    app: AppState,
    account: Account,
    modes: Modes,
    id: RequestId,
    params: Value,
) -> Response {
    let Ok(tool) = transport::tool_name(&id, &params) else {
        return transport::call_tool(app, account, ProtocolVersion::STATELESS, id, params).await;
    };
    let token = ProgressToken::of(&params);
    let retry = params.get("requestState").or(params.get("inputResponses"));
    if retry.is_none() {
        let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
        let state = app.clone();
        let account_id = account.id.clone();
        let runner: Runner = Box::new(move |ctx, progress, _| {
            Box::pin(async move {
                let output = tools::call(&ctx, &tool, arguments, progress).await;
                intercept(&state, &account_id, modes, &tool, &output)
            })
        });
        return transport::run_call(app, account, id, token, false, runner).await;
    }

    // A retry: check everything before anything changes.
    let state_token = params
        .get("requestState")
        .and_then(Value::as_str)
        .unwrap_or("");
    let pending = app
        .elicitations()
        .lock()
        .get(state_token)
        .filter(|p| p.account == account.id && p.tool == tool)
        .cloned();
    let Some(pending) = pending else {
        return invalid(
            &id,
            "Invalid params: requestState is unknown or was changed. Echo the requestState of \
             the input_required result byte for byte."
                .into(),
        );
    };
    if pending.used {
        return invalid(
            &id,
            "Invalid params: this requestState was already used. Each input_required result \
             takes one retry; call the tool again to start over."
                .into(),
        );
    }
    let Some(responses) = params.get("inputResponses").and_then(Value::as_object) else {
        return invalid(
            &id,
            "Invalid params: a retry needs inputResponses keyed like the inputRequests".into(),
        );
    };
    if let Some(unknown) = responses.keys().find(|k| **k != pending.key) {
        return invalid(
            &id,
            format!(
                "Invalid params: inputResponses has key `{unknown}`, which this requestState \
                 never asked for (expected `{}`)",
                pending.key
            ),
        );
    }
    let response = responses.get(&pending.key).cloned().unwrap_or(Value::Null);
    let action = response
        .get("action")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if !matches!(action.as_str(), "accept" | "decline" | "cancel") {
        // Nothing usable came back: ask again (MRTR's SHOULD), with the same state.
        let mut result = json!({
            "resultType": "input_required",
            "inputRequests": {},
            "requestState": state_token,
        });
        if let Some(ask) = rebuild_request(&pending) {
            result["inputRequests"] = json!({pending.key.clone(): ask});
        }
        modern::finish_result(&mut result, ResultType::InputRequired);
        return Reply::new(&id, result).into_response();
    }
    if action == "accept"
        && let Ask::Questions { schema, .. } = &pending.ask
        && let Some(problem) = form_content_problem(schema, response.get("content"))
    {
        return invalid(
            &id,
            format!(
                "Invalid params: inputResponses[\"{}\"] does not match the requested schema: \
                 {problem}. Nothing was changed.",
                pending.key
            ),
        );
    }
    if let Some(stored) = app.elicitations().lock().get_mut(state_token) {
        stored.used = true;
    }
    let content = response.get("content").cloned();
    let state = app.clone();
    let account_id = account.id.clone();
    let runner: Runner = Box::new(move |ctx, progress, _| {
        Box::pin(async move {
            let next = answer(
                &ctx,
                &pending.event["structuredContent"],
                &pending.ask,
                &action,
                content,
                progress,
            )
            .await;
            match next {
                Some((tool, output)) => intercept(&state, &account_id, modes, &tool, &output),
                // Declined or cancelled: the event, to answer later with the tools.
                None => pending.event.clone(),
            }
        })
    });
    transport::run_call(app, account, id, token, false, runner).await
}

/// Acts on the user's answer to an elicited request, as the document maps it: the tool that
/// ran and what it answered, or `None` when the event should be returned as it was.
async fn answer(
    ctx: &CallContext,
    asked: &Value,
    ask: &Ask,
    action: &str,
    content: Option<Value>,
    progress: Option<ProgressSink>,
) -> Option<(String, ToolOutput)> {
    let thread = asked["thread_id"].as_str().unwrap_or("");
    let (tool, args) = match (ask, action) {
        (Ask::Questions { request_id, .. }, "accept") => (
            "answer_question",
            json!({"thread_id": thread, "answers": content, "followup_uuid": request_id}),
        ),
        (Ask::Confirm { request_id }, "accept") => (
            "confirm_action_approve",
            json!({"thread_id": thread, "result": "Approved.", "followup_uuid": request_id}),
        ),
        (Ask::Confirm { request_id }, "decline") => (
            "confirm_action_deny",
            json!({"thread_id": thread, "result": "Declined.", "followup_uuid": request_id}),
        ),
        (Ask::SignIn { request_id }, "accept") if signed_in_on_page(ctx, thread, request_id) => {
            let output = ctx
                .engine
                .wait(
                    &ctx.account.id,
                    thread,
                    Follow::Latest {
                        activity_from: usize::MAX,
                    },
                    progress,
                )
                .await;
            return Some(("call_perplexity_computer".to_owned(), output));
        }
        // The user finished on the page: a message continues the thread (if the page was not
        // finished, the same request comes back).
        (Ask::Page, "accept") => (
            "call_perplexity_computer",
            json!({"thread_id": thread, "message": "Done, please continue."}),
        ),
        _ => return None,
    };
    let form = matches!(ask, Ask::Questions { .. } | Ask::Confirm { .. });
    if !(form && carries_files_or_sources(asked)) {
        let output = tools::call(ctx, tool, args, progress).await;
        return Some((tool.to_owned(), output));
    }
    // "If the result also had files or sources, the call returns right after your answer with
    // task_status: working and those files": answer without waiting, then hand them back.
    let output = CALL_WAIT
        .scope(Duration::ZERO, tools::call(ctx, tool, args, progress))
        .await;
    if output.body["event"] != "timeout" {
        // The answer led straight to another checkpoint (say, a second question): return it.
        return Some((tool.to_owned(), output));
    }
    Some((tool.to_owned(), continuing_with(asked)))
}

fn carries_files_or_sources(asked: &Value) -> bool {
    ["files", "sources"].iter().any(|key| {
        asked[*key]
            .as_array()
            .is_some_and(|items| !items.is_empty())
    })
}

/// The result returned right after an answer when the asking result had files or sources.
fn continuing_with(asked: &Value) -> ToolOutput {
    let mut body = json!({
        "thread_id": asked["thread_id"],
        "event": "complete",
        "text": "Your answer was sent and Computer is continuing this request. Use read_thread \
                 to follow the rest of the task.",
        "task_status": "working",
    });
    for key in ["sources", "files"] {
        if carries_files_or_sources(&json!({key: asked[key]})) {
            body[key] = asked[key].clone();
        }
    }
    let links = asked["files"]
        .as_array()
        .map(|files| {
            files
                .iter()
                .map(|file| FileLink {
                    url: file["url"].as_str().unwrap_or_default().to_owned(),
                    name: file["filename"].as_str().unwrap_or_default().to_owned(),
                    mime_type: file["media_type"].as_str().map(str::to_owned),
                    size: file["size_bytes"].as_u64(),
                })
                .collect()
        })
        .unwrap_or_default();
    let mut output = ToolOutput::ok(body);
    output.links = links;
    output
}

/// Whether the user finished a sign-in on its page (the request is no longer open).
fn signed_in_on_page(ctx: &CallContext, thread_id: &str, request_id: &str) -> bool {
    ctx.engine
        .with_thread(&ctx.account.id, thread_id, |thread, _| {
            !thread
                .latest()
                .is_some_and(|e| e.open_requests().any(|r| r.id == request_id))
        })
        .unwrap_or(false)
}

fn rebuild_request(pending: &Pending) -> Option<Value> {
    let mut params = Map::new();
    match &pending.ask {
        Ask::Questions { schema, .. } => {
            params.insert("mode".into(), "form".into());
            params.insert("message".into(), "Please answer the question.".into());
            params.insert("requestedSchema".into(), schema.clone());
        }
        _ => return None,
    }
    Some(json!({"method": "elicitation/create", "params": params}))
}

/// Server requests awaiting the client's POSTed response, by session and request id.
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    waiting: Mutex<HashMap<(String, String), Answer>>,
}

/// Where a client's response (its `result`, if it sent one) to a server request goes.
type Answer = oneshot::Sender<Option<Value>>;

impl Waiting {
    fn lock(&self) -> MutexGuard<'_, HashMap<(String, String), Answer>> {
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Hands a response the client POSTed to the call that sent the request (unknown ids are
/// dropped: the call may have ended).
pub(crate) fn deliver(app: &AppState, session_id: &str, id: &RequestId, result: Option<Value>) {
    let sender = app
        .elicitations()
        .waiting
        .lock()
        .remove(&(session_id.to_owned(), id.to_string()));
    if let Some(sender) = sender {
        let _ = sender.send(result);
    }
}

/// `tools/call` in a handshake session whose client declared elicitation: the answer is an SSE
/// stream, and a question, approval or sign-in is sent on it as `elicitation/create`; the
/// client's response (POSTed back) decides what happens, as in the modern era.
pub(crate) async fn handshake_call(
    app: AppState,
    account: Account,
    session: Session,
    id: RequestId,
    params: Value,
) -> Response {
    let version = session.protocol_version;
    let modes = session.capabilities.elicitation.map(|m| Modes {
        // URL mode exists from 2025-11-25 on; elicitation itself from 2025-06-18.
        url: m.url && version.has_url_elicitation(),
        ..m
    });
    let tool = transport::tool_name(&id, &params).ok();
    let (Some(modes), Some(tool)) = (modes, tool) else {
        return transport::call_tool(app, account, version, id, params).await;
    };
    if !version.has_elicitation() {
        return transport::call_tool(app, account, version, id, params).await;
    }
    let arguments = params.get("arguments").cloned().unwrap_or(json!({}));
    let token = ProgressToken::of(&params);
    let state = app.clone();
    let account_id = account.id.clone();
    let session_id = session.id.clone();
    let runner: Runner = Box::new(move |ctx, progress, server| {
        Box::pin(async move {
            let mut output = tools::call(&ctx, &tool, arguments, progress.clone()).await;
            while let (Some((ask, mut params)), Some(server)) =
                (ask_for(&state, &account_id, modes, &output), &server)
            {
                let request_id = format!("elicit-{}", Uuid::new_v4().simple());
                if !version.has_url_elicitation() {
                    // 2025-06-18 has no `mode` field (form only).
                    params.as_object_mut().map(|p| p.remove("mode"));
                } else if params["mode"] == "url" {
                    params["elicitationId"] = Uuid::new_v4().to_string().into();
                }
                let (sender, receiver) = oneshot::channel();
                state
                    .elicitations()
                    .waiting
                    .lock()
                    .insert((session_id.clone(), request_id.clone()), sender);
                let request =
                    Outgoing::request(&request_id, "elicitation/create", &params).to_json();
                if server.send(request).is_err() {
                    break;
                }
                let Ok(result) = receiver.await else {
                    break;
                };
                let result = result.unwrap_or(Value::Null);
                let action = result
                    .get("action")
                    .and_then(Value::as_str)
                    .unwrap_or("cancel")
                    .to_owned();
                let content = result.get("content").cloned();
                // Content that does not fit the form answers nothing: the event comes back.
                if let Ask::Questions { schema, .. } = &ask
                    && action == "accept"
                    && form_content_problem(schema, content.as_ref()).is_some()
                {
                    break;
                }
                let asked = output.body.clone();
                match answer(&ctx, &asked, &ask, &action, content, progress.clone()).await {
                    Some((_, next)) => output = next,
                    None => break,
                }
            }
            transport::call_result(&output, version)
        })
    });
    transport::run_call(app, account, id, token, true, runner).await
}
