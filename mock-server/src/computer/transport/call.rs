//! The pipeline every `tools/call` goes through, in both eras: the tool's name checked, the
//! call run, and its answer sent as one JSON response or, when the request asked for progress
//! (or the server has requests of its own to make), as an SSE stream of progress notifications
//! and server requests followed by the response. In a handshake session the stream is
//! resumable ([`replay`](super::replay)): its events are kept, and the call runs on if the
//! client goes away; elsewhere closing the stream stops the call.

use std::sync::Arc;

use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use futures::future::BoxFuture;
use serde::Serialize;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;

use crate::computer::engine::ProgressSink;
use crate::computer::model::content::{CallToolResult, Reply as ToolReply};
use crate::computer::model::elicitation::InputRequiredResult;
use crate::computer::model::error::ErrorData;
use crate::computer::model::jsonrpc::{RequestId, Response as Reply};
use crate::computer::model::outgoing::{Outgoing, Progress};
use crate::computer::model::request::{CallToolRequestParams, ProgressToken};
use crate::computer::model::tools::ToolName;
use crate::computer::model::version::ProtocolVersion;
use crate::computer::render;
use crate::computer::service::Service;
use crate::computer::tools;
use crate::http::sse;
use crate::world::Account;

use super::replay::{Log, Streams};

/// A `tools/call`'s answer.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum CallAnswer {
    /// The tool's result.
    Tool(Box<CallToolResult>),
    /// Input first (2026-07-28 MRTR): retry with `inputResponses`.
    InputRequired(InputRequiredResult),
}

/// Sends server-to-client messages (requests, as JSON text) on the call's SSE stream.
pub(crate) type ServerMessages = mpsc::UnboundedSender<String>;

/// A call's answer, or the internal error that answers the call instead (a result that could
/// not be written).
pub(crate) type Answered = Result<CallAnswer, ErrorData>;

/// Runs a call and produces its answer; it gets the progress sink (when the request sent a
/// token) and the channel for server requests (when the answer is a stream).
pub(crate) type Runner = Box<
    dyn FnOnce(Option<ProgressSink>, Option<ServerMessages>) -> BoxFuture<'static, Answered> + Send,
>;

/// The tool a `tools/call` names, or the error to answer: it names none, or an unknown one.
pub(crate) fn tool(id: &RequestId, params: &CallToolRequestParams) -> Result<ToolName, ErrorData> {
    let Some(name) = params.name.as_deref() else {
        return Err(
            ErrorData::invalid_params("tools/call needs params.name, the tool to call")
                .with_id(Some(id.clone())),
        );
    };
    ToolName::parse(name).ok_or_else(|| {
        ErrorData::invalid_params(format!(
            "Unknown tool: {name}. Call tools/list for the twelve tools this server offers."
        ))
        .with_id(Some(id.clone()))
    })
}

/// The `CallToolResult` of `reply` for `version`; stateless results also carry `resultType`
/// and the server info.
pub(crate) fn tool_result(
    reply: ToolReply,
    version: ProtocolVersion,
) -> Result<CallToolResult, ErrorData> {
    let result = render::call_result(reply, version)?;
    Ok(if version.is_stateless() {
        result.stateless()
    } else {
        result
    })
}

/// The answer of a call that returned `reply` to a client on `version`.
pub(crate) fn answered(reply: ToolReply, version: ProtocolVersion) -> Answered {
    tool_result(reply, version).map(|result| CallAnswer::Tool(Box::new(result)))
}

/// The response to request `id`: its answer, or the error that replaced it.
fn respond(id: RequestId, answer: Result<impl Serialize, ErrorData>) -> Response {
    match answer {
        Ok(answer) => Reply::new(&id, answer).into_response(),
        Err(error) => error.with_id(Some(id)).into_response(),
    }
}

/// [`respond`] as one line of JSON, for the last event of a stream.
fn respond_json(id: &RequestId, answer: Answered) -> String {
    match answer {
        Ok(answer) => Reply::new(id, answer).to_json(),
        Err(error) => error.with_id(Some(id.clone())).to_json(),
    }
}

/// Answers `tools/call` with the tool's result, for a client on protocol `version`; a stream
/// is resumable from `streams` when the call comes from a handshake session.
///
/// The params are taken apart before the call's future is made, so that it keeps only what the
/// call needs (every call's future is moved into a box by the router).
pub(crate) fn plain(
    service: Service,
    account: Arc<Account>,
    version: ProtocolVersion,
    id: RequestId,
    params: CallToolRequestParams,
    streams: Option<Arc<Streams>>,
) -> impl Future<Output = Response> + Send + 'static {
    let checked = tool(&id, &params).map(|tool| CheckedCall {
        tool,
        arguments: params.arguments,
        token: params.meta.progress_token,
    });
    async move {
        match checked {
            Ok(call) => run_plain(service, account, version, id, call, streams).await,
            Err(error) => error.into_response(),
        }
    }
}

/// What a `tools/call` whose tool was found keeps of its params.
struct CheckedCall {
    tool: ToolName,
    arguments: serde_json::Value,
    token: Option<ProgressToken>,
}

/// Runs a checked `tools/call`: at once as JSON, or on a stream when it sent a progress token.
async fn run_plain(
    service: Service,
    account: Arc<Account>,
    version: ProtocolVersion,
    id: RequestId,
    call: CheckedCall,
    streams: Option<Arc<Streams>>,
) -> Response {
    let CheckedCall {
        tool,
        arguments,
        token,
    } = call;
    let Some(token) = token else {
        // One JSON response: the call runs right here, without the runner a stream needs.
        let wait = service.call_wait(None);
        let reply = tools::call(&service, &account, tool, arguments, wait).await;
        return respond(id, tool_result(reply, version));
    };
    let runner: Runner = Box::new(move |progress, _| {
        Box::pin(async move {
            let wait = service.call_wait(progress);
            let reply = tools::call(&service, &account, tool, arguments, wait).await;
            answered(reply, version)
        })
    });
    run(id, Some(token), false, streams, runner).await
}

/// Answers a call as JSON, or (with a progress token, or `stream` for server requests) as an
/// SSE stream of notifications and requests followed by the response: one of `streams` when
/// given, so that it can be resumed.
pub(crate) async fn run(
    id: RequestId,
    progress_token: Option<ProgressToken>,
    stream: bool,
    streams: Option<Arc<Streams>>,
    runner: Runner,
) -> Response {
    if progress_token.is_none() && !stream {
        let answer = runner(None, None).await;
        return respond(id, answer);
    }
    // One task runs the call and relays its progress lines, so none can overtake the result.
    let token = progress_token;
    let (events, receiver) = mpsc::unbounded_channel::<String>();
    let (progress, mut lines) = mpsc::unbounded_channel::<String>();
    let task = tokio::spawn(async move {
        // Lines only come when the call got a sink, that is when the request sent a token.
        let notify = |count: u64, line: String| {
            token.as_ref().map(|token| {
                Outgoing::notification(
                    "notifications/progress",
                    Progress {
                        progress_token: token,
                        progress: count,
                        message: &line,
                    },
                )
                .to_json()
            })
        };
        let sink = token.is_some().then_some(progress);
        let call = runner(sink, Some(events.clone()));
        tokio::pin!(call);
        let mut count = 0u64;
        let answer = loop {
            tokio::select! {
                biased;
                Some(line) = lines.recv() => {
                    count += 1;
                    if let Some(message) = notify(count, line) {
                        let _ = events.send(message);
                    }
                }
                answer = &mut call => break answer,
            }
        };
        while let Ok(line) = lines.try_recv() {
            count += 1;
            if let Some(message) = notify(count, line) {
                let _ = events.send(message);
            }
        }
        let _ = events.send(respond_json(&id, answer));
    });
    match streams {
        Some(streams) => resumable(&streams.open(), task, receiver),
        None => closing_stops(task, receiver),
    }
}

/// The stream of a handshake session: kept in `log` as it goes, and the call runs on if the
/// client goes away (it may come back with `Last-Event-ID`); ending the session stops it.
fn resumable(
    log: &Arc<Log>,
    call: tokio::task::JoinHandle<()>,
    mut messages: mpsc::UnboundedReceiver<String>,
) -> Response {
    log.feeds(call.abort_handle());
    let response = log.follow_from_start();
    let log = log.clone();
    tokio::spawn(async move {
        while let Some(message) = messages.recv().await {
            log.push(message);
        }
        log.finish();
    });
    response
}

/// A stream that is not resumable (a 2026-07-28 one, where closing the stream is cancelling):
/// the call stops when the client drops it.
fn closing_stops(
    call: tokio::task::JoinHandle<()>,
    messages: mpsc::UnboundedReceiver<String>,
) -> Response {
    let guard = AbortOnDrop(call);
    let mut event_id = 0u64;
    // The channel closes after the response, which ends the stream, as the transport
    // recommends.
    let stream = UnboundedReceiverStream::new(messages).map(move |message| {
        let _abort_the_call_when_the_client_goes_away = &guard;
        event_id += 1;
        sse::Event {
            name: Some("message"),
            id: Some(&event_id.to_string()),
            data: &message,
        }
        .encode()
    });
    sse::response(stream, sse::KEEP_ALIVE_INTERVAL)
}

/// Aborts the call when the client drops the stream (Computer itself carries on).
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
