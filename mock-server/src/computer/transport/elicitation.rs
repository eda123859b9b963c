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
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};

use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use tokio::sync::oneshot;
use uuid::Uuid;

use super::call::{self, Answered, CallAnswer, Runner};
use super::replay::Streams;
use crate::computer::engine::{Follow, ProgressSink};
use crate::computer::model::arguments::{AnswerQuestion, CallComputer, ConfirmAction};
use crate::computer::model::content::Reply as ToolReply;
use crate::computer::model::elicitation::{
    ELICIT, ElicitAction, ElicitParams, ElicitResult, InputRequest, InputRequests,
    InputRequiredResult, form_problem,
};
use crate::computer::model::error::ErrorData;
use crate::computer::model::jsonrpc::{RequestId, Response as Reply};
use crate::computer::model::lifecycle::ElicitationModes as Modes;
use crate::computer::model::outgoing::Outgoing;
use crate::computer::model::request::CallToolRequestParams;
use crate::computer::model::results::{AwaitingKind, Checkpoint, Event, Interactive, TaskStatus};
use crate::computer::model::tools::ToolName;
use crate::computer::model::version::ProtocolVersion;
use crate::computer::service::{Service, Wait};
use crate::computer::tools;
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
        self.pending.lock()
    }
}

/// One MRTR round waiting for its retry.
#[derive(Debug, Clone)]
struct Pending {
    account: String,
    /// The tool the retry must name.
    tool: ToolName,
    /// The result the call would have returned, for declines.
    event: Box<Checkpoint>,
    key: String,
    ask: Ask,
    used: bool,
}

/// What a round asked.
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

fn invalid(id: &RequestId, message: String) -> Response {
    ErrorData::invalid_params(message)
        .with_id(Some(id.clone()))
        .into_response()
}

/// The stateless result of a reply.
fn finished(reply: ToolReply) -> Answered {
    call::answered(reply, ProtocolVersion::STATELESS)
}

/// What to ask instead of returning `reply`, if anything: one question form, confirmation or
/// sign-in the client's modes allow, or the page a form or top-up is finished on.
fn ask_for(modes: Modes, reply: &ToolReply) -> Option<(Ask, ElicitParams)> {
    let asked = reply.checkpoint()?;
    if !asked.pending_interactions.is_empty() {
        return None;
    }
    // A Perplexity-only form or a top-up: a URL the user finishes on, then a message continues.
    let page = match (&asked.event, &asked.interactive) {
        (Event::InteractionRequired, Some(Interactive::InteractionRequired { url, .. }))
        | (
            Event::InsufficientCredits,
            Some(Interactive::InsufficientCredits {
                billing_url: Some(url),
                ..
            }),
        ) => Some(url),
        _ => None,
    };
    if let Some(url) = page {
        return modes.url.then(|| {
            (
                Ask::Page,
                ElicitParams::url(asked.text.clone(), url.clone()),
            )
        });
    }
    if !matches!(
        asked.event,
        Event::AskUserQuestion | Event::ConfirmAction | Event::AuthRequired
    ) {
        return None;
    }
    let mut requests = asked.awaiting.iter().filter(|a| !a.kind.is_page());
    let request = requests.next()?;
    if requests.next().is_some() {
        return None;
    }
    let request_id = request.request_id.clone();
    let ask = match &request.kind {
        AwaitingKind::Questions {
            schema,
            fits_a_form: true,
            ..
        } if modes.form => Ask::Questions {
            request_id,
            schema: schema.clone(),
        },
        AwaitingKind::Confirm { .. } if modes.form => Ask::Confirm { request_id },
        AwaitingKind::SignIn { .. } if modes.url => Ask::SignIn { request_id },
        _ => return None,
    };
    Some((ask, ElicitParams::asking(&request.kind)?))
}

/// The call's answer: an `InputRequiredResult` when the reply waits on something the client
/// can elicit, else the tool result.
fn intercept(
    elicitations: &Elicitations,
    account: &str,
    modes: Modes,
    tool: ToolName,
    reply: ToolReply,
) -> Answered {
    let Some((ask, params)) = ask_for(modes, &reply) else {
        return finished(reply);
    };
    let ToolReply::Checkpoint(event) = reply else {
        return finished(reply);
    };
    let prefix = match ask {
        Ask::Questions { .. } => "answer",
        Ask::Confirm { .. } => "confirm",
        Ask::SignIn { .. } => "sign-in",
        Ask::Page => "page",
    };
    let key = format!("{prefix}:{}", Uuid::new_v4());
    let state = Uuid::new_v4().simple().to_string();
    elicitations.lock().insert(
        state.clone(),
        Pending {
            account: account.to_owned(),
            tool,
            event,
            key: key.clone(),
            ask,
            used: false,
        },
    );
    let requests = InputRequests(vec![(key, InputRequest::new(params))]);
    Ok(CallAnswer::InputRequired(InputRequiredResult::new(
        requests, state,
    )))
}

/// `tools/call` from a 2026-07-28 client that declared elicitation (and is not starting a task).
pub(crate) async fn call(
    service: Service,
    elicitations: Arc<Elicitations>,
    account: Arc<Account>,
    modes: Modes,
    id: RequestId,
    params: CallToolRequestParams,
) -> Response {
    let Ok(tool) = call::tool(&id, &params) else {
        return call::plain(
            service,
            account,
            ProtocolVersion::STATELESS,
            id,
            params,
            None,
        )
        .await;
    };
    let token = params.meta.progress_token.clone();
    if !params.is_retry() {
        let arguments = params.arguments;
        let runner: Runner = Box::new(move |progress, _| {
            Box::pin(async move {
                let wait = service.call_wait(progress);
                let reply = tools::call(&service, &account, tool, arguments, wait).await;
                intercept(&elicitations, &account.id, modes, tool, reply)
            })
        });
        return call::run(id, token, false, None, runner).await;
    }

    // A retry: check everything before anything changes.
    let state_token = params.request_state.as_deref().unwrap_or("");
    let pending = elicitations
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
    let Some(responses) = params.input_responses.as_deref().and_then(Value::as_object) else {
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
    let Some(response) = responses.get(&pending.key).and_then(ElicitResult::read) else {
        // Nothing usable came back: ask again (MRTR's SHOULD), with the same state.
        let mut requests = InputRequests::default();
        if let Ask::Questions { schema, .. } = &pending.ask {
            let params = ElicitParams::form("Please answer the question.", schema.clone());
            requests
                .0
                .push((pending.key.clone(), InputRequest::new(params)));
        }
        return Reply::new(&id, InputRequiredResult::new(requests, state_token)).into_response();
    };
    if response.action == ElicitAction::Accept
        && let Ask::Questions { schema, .. } = &pending.ask
        && let Some(problem) = form_problem(schema, response.content.as_ref())
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
    if let Some(stored) = elicitations.lock().get_mut(state_token) {
        stored.used = true;
    }
    let ElicitResult { action, content } = response;
    // MRTR: "the client retries the original request", so every later round is keyed to the
    // tool the first round asked from, whichever follow-up command answered it.
    let original = pending.tool;
    let runner: Runner = Box::new(move |progress, _| {
        Box::pin(async move {
            let next = answer(
                &service,
                &account,
                &pending.event,
                &pending.ask,
                action,
                content,
                progress,
            )
            .await;
            match next {
                Some(reply) => intercept(&elicitations, &account.id, modes, original, reply),
                // Declined or cancelled: the event, to answer later with the tools.
                None => finished(ToolReply::Checkpoint(pending.event)),
            }
        })
    });
    call::run(id, token, false, None, runner).await
}

/// Acts on the user's answer to an elicited request, as the document maps it (through the
/// command of the tool that answers it): what the command answered, or `None` when the event
/// should be returned as it was.
async fn answer(
    service: &Service,
    account: &Account,
    asked: &Checkpoint,
    ask: &Ask,
    action: ElicitAction,
    content: Option<Map<String, Value>>,
    progress: Option<ProgressSink>,
) -> Option<ToolReply> {
    let thread_id = asked.thread_id.clone();
    // "If the result also had files or sources, the call returns right after your answer with
    // task_status: working and those files": answer without waiting, then hand them back.
    let form = matches!(ask, Ask::Questions { .. } | Ask::Confirm { .. });
    let at_once = form && !(asked.files.is_empty() && asked.sources.is_empty());
    let wait = if at_once {
        Wait {
            progress,
            ..Wait::none()
        }
    } else {
        service.call_wait(progress)
    };
    let decision = |request_id: &str, result: &str| ConfirmAction {
        thread_id: thread_id.clone(),
        result: result.to_owned(),
        attachment_urls: Vec::new(),
        followup_uuid: Some(request_id.to_owned()),
    };
    let reply = match (ask, action) {
        (Ask::Questions { request_id, .. }, ElicitAction::Accept) => {
            // An accepted form without fields answers nothing.
            let answers = content.unwrap_or_default();
            let args = AnswerQuestion {
                thread_id: thread_id.clone(),
                answers,
                attachment_urls: Vec::new(),
                followup_uuid: Some(request_id.clone()),
            };
            service.answer(account, args, wait).await
        }
        (Ask::Confirm { request_id }, ElicitAction::Accept) => {
            let args = decision(request_id, "Approved.");
            service.confirm(account, args, true, wait).await
        }
        (Ask::Confirm { request_id }, ElicitAction::Decline) => {
            let args = decision(request_id, "Declined.");
            service.confirm(account, args, false, wait).await
        }
        (Ask::SignIn { request_id }, ElicitAction::Accept)
            if service.resume_signed_in(account, &thread_id, request_id) =>
        {
            // The user finished the sign-in on its page: follow the request it resumed.
            let follow = Follow::Latest {
                activity_from: usize::MAX,
            };
            service.follow(account, &thread_id, follow, wait).await
        }
        // Accepted, but the account is still out of credits: nothing can be sent, so the
        // result is the event as it was ("During a task: the thread keeps its state and
        // task_status is input_required"), not a refusal without the thread.
        (Ask::Page, ElicitAction::Accept)
            if asked.event == Event::InsufficientCredits && !service.has_credits(account) =>
        {
            return None;
        }
        // The user finished on the page: a message continues the thread (if the page was not
        // finished, the same request comes back).
        (Ask::Page, ElicitAction::Accept) => {
            let args = CallComputer {
                thread_id: Some(thread_id.clone()),
                message: Some("Done, please continue.".to_owned()),
                ..CallComputer::default()
            };
            service.send(account, args, wait).await.reply
        }
        _ => return None,
    };
    let timed_out = reply
        .checkpoint()
        .is_some_and(|c| c.event == Event::Timeout);
    if at_once && timed_out {
        return Some(continuing_with(asked).into());
    }
    // The answer led straight to another checkpoint (say, a second question): return it.
    Some(reply)
}

/// The result returned right after an answer when the asking result had files or sources.
fn continuing_with(asked: &Checkpoint) -> Checkpoint {
    let mut checkpoint = Checkpoint::bare(
        asked.thread_id.clone(),
        Event::Complete,
        "Your answer was sent and Computer is continuing this request. Use read_thread to \
         follow the rest of the task.",
        TaskStatus::Working,
    );
    checkpoint.sources = asked.sources.clone();
    checkpoint.files = asked.files.clone();
    checkpoint
}

/// Server requests awaiting the client's POSTed response, by session and request id.
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    waiting: Mutex<HashMap<(String, String), Answer>>,
}

/// Where a client's response to a server request goes: the elicitation result it carries
/// (`None`: an error response, or no action this server knows).
type Answer = oneshot::Sender<Option<ElicitResult>>;

impl Waiting {
    fn lock(&self) -> MutexGuard<'_, HashMap<(String, String), Answer>> {
        self.waiting.lock()
    }
}

/// Hands a response the client POSTed to the call that sent the request (unknown ids are
/// dropped: the call may have ended).
pub(crate) fn deliver(
    elicitations: &Elicitations,
    session_id: &str,
    id: &RequestId,
    result: Option<ElicitResult>,
) {
    let sender = elicitations
        .waiting
        .lock()
        .remove(&(session_id.to_owned(), id.to_string()));
    if let Some(sender) = sender {
        let _ = sender.send(result);
    }
}

/// The handshake session a call with elicitation comes from.
#[derive(Debug, Clone)]
pub(crate) struct Asking {
    /// The session's id: the client POSTs its answers to it.
    pub(crate) session_id: String,
    /// The negotiated version.
    pub(crate) version: ProtocolVersion,
    /// The elicitation modes the client declared.
    pub(crate) declared: Modes,
    /// The session's streams, which a dropped call's stream is resumed from.
    pub(crate) streams: Arc<Streams>,
}

/// `tools/call` in a handshake session whose client declared elicitation: the answer is an SSE
/// stream, and a question, approval or sign-in is sent on it as `elicitation/create`; the
/// client's response (POSTed back) decides what happens, as in the modern era.
pub(crate) async fn handshake_call(
    service: Service,
    elicitations: Arc<Elicitations>,
    account: Arc<Account>,
    asking: Asking,
    id: RequestId,
    params: CallToolRequestParams,
) -> Response {
    let Asking {
        session_id,
        version,
        declared,
        streams,
    } = asking;
    let modes = Modes {
        // URL mode exists from 2025-11-25 on; elicitation itself from 2025-06-18.
        url: declared.url && version.has_url_elicitation(),
        ..declared
    };
    let tool = call::tool(&id, &params).ok();
    let (true, Some(tool)) = (version.has_elicitation(), tool) else {
        return call::plain(service, account, version, id, params, Some(streams)).await;
    };
    let CallToolRequestParams {
        arguments, meta, ..
    } = params;
    let token = meta.progress_token;
    let runner: Runner = Box::new(move |progress, server| {
        Box::pin(async move {
            let wait = service.call_wait(progress.clone());
            let mut reply = tools::call(&service, &account, tool, arguments, wait).await;
            while let (Some((ask, mut params)), Some(server)) = (ask_for(modes, &reply), &server) {
                let request_id = format!("elicit-{}", Uuid::new_v4().simple());
                if !version.has_url_elicitation() {
                    // 2025-06-18 has no `mode` field (form only).
                    params.mode = None;
                } else if params.url.is_some() {
                    params.elicitation_id = Some(Uuid::new_v4().to_string());
                }
                let (sender, receiver) = oneshot::channel();
                elicitations
                    .waiting
                    .lock()
                    .insert((session_id.clone(), request_id.clone()), sender);
                let request = Outgoing::request(&request_id, ELICIT, &params).to_json();
                if server.send(request).is_err() {
                    break;
                }
                let Ok(result) = receiver.await else {
                    break;
                };
                // A missing or unknown action answers nothing, as a cancel does.
                let ElicitResult { action, content } =
                    result.unwrap_or(ElicitResult::bare(ElicitAction::Cancel));
                // Content that does not fit the form answers nothing: the event comes back.
                if let Ask::Questions { schema, .. } = &ask
                    && action == ElicitAction::Accept
                    && form_problem(schema, content.as_ref()).is_some()
                {
                    break;
                }
                let Some(asked) = reply.checkpoint().cloned() else {
                    break;
                };
                match answer(
                    &service,
                    &account,
                    &asked,
                    &ask,
                    action,
                    content,
                    progress.clone(),
                )
                .await
                {
                    Some(next) => reply = next,
                    None => break,
                }
            }
            call::answered(reply, version)
        })
    });
    call::run(id, token, true, Some(streams), runner).await
}
