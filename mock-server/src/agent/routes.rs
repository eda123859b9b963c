//! HTTP handlers: create (sync, stream, background), retrieve (and resume a stream), cancel,
//! files, models. Every path is served under `/v1/agent`, `/v1/responses` and `/responses`.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Deserialize;

use super::auth::AgentAccount;
use super::error::{ApiError, PathIds};
use super::run;
use super::state::AgentState;
use super::store::{RATE_LIMIT, Run};
use super::stream;
use super::validate;
use super::wire::lists::{CancelAck, FileEntry, List, ModelEntry};
use crate::http::auth::Authenticated;
use crate::world::Account;

/// `x-ratelimit-*` headers as the live API sends them (limit, remaining, reset, used).
fn rate_limit_headers(response: &mut Response, used: usize, reset: i64) {
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", RATE_LIMIT.to_string()),
        (
            "x-ratelimit-remaining",
            RATE_LIMIT.saturating_sub(used).to_string(),
        ),
        ("x-ratelimit-reset", reset.to_string()),
        ("x-ratelimit-used", used.to_string()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
}

fn request_id(response: &mut Response, id: &str) {
    if let Ok(value) = HeaderValue::from_str(id.trim_start_matches("resp_")) {
        response.headers_mut().insert("x-request-id", value);
    }
}

/// `POST /v1/agent` (≡ `/v1/responses` ≡ `/responses`).
pub(crate) async fn create(
    State(app): State<AgentState>,
    Authenticated { account, .. }: AgentAccount,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (used, reset) = app.agent().count_request(&account.id, app.clock().now());
    let validated = validate::create_request(&body, &account)?;
    let setup = run::continuation(app.catalog(), app.agent(), &account, validated)?;
    let script = setup.scenario.1.clone();
    if let Some(fault) = &script.fault
        && app.agent().fault_applies(&setup.scenario.0, fault.times)
    {
        return Err(fault_error(fault, app.clock().now().timestamp()));
    }
    let stream = setup.validated.request.stream == Some(true);
    let background = setup.validated.request.background == Some(true);
    let run = run::start(app.clock(), app.agent(), setup);
    let mut response = if stream {
        stream::respond(run.clone(), 0)
    } else if background {
        Json(run.snapshot()).into_response()
    } else {
        run.wait_terminal().await;
        let sync_error = run.state().sync_error.clone();
        match sync_error {
            Some(error) => error.into_response(),
            None => Json(run.snapshot()).into_response(),
        }
    };
    request_id(&mut response, &run.id);
    rate_limit_headers(&mut response, used, reset);
    Ok(response)
}

fn fault_error(fault: &crate::fixtures::Fault, reset: i64) -> ApiError {
    let status = StatusCode::from_u16(fault.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let (kind, message) = match fault.status {
        429 => (
            "request_rate_limit_exceeded",
            "rate limit exceeded: slow down and retry after the delay in retry-after-ms",
        ),
        502 => (
            "bad_gateway",
            "bad gateway: the upstream model did not answer; retry",
        ),
        504 => (
            "gateway_timeout",
            "gateway timeout: the upstream model took too long; retry",
        ),
        400 => ("invalid_request", "invalid request"),
        401 | 403 => (
            "forbidden",
            "the API key is not allowed to use this endpoint",
        ),
        404 => ("not_found", "resource not found"),
        424 => (
            "external_connector_error",
            "an external connector could not be reached",
        ),
        _ => ("internal_error", "internal error: retry the request"),
    };
    let mut error = ApiError::new(
        status,
        fault.kind.as_deref().unwrap_or(kind),
        fault.message.clone().unwrap_or_else(|| message.to_owned()),
    );
    if let Some(ms) = fault.retry_after_ms {
        error = error.header("retry-after-ms", ms.to_string());
    }
    if let Some(retry) = fault.should_retry {
        error = error.header("x-should-retry", retry.to_string());
    }
    if fault.status == 429 {
        error = error
            .header("x-ratelimit-limit", "50")
            .header("x-ratelimit-remaining", "0")
            .header("x-ratelimit-reset", reset.to_string())
            .header("x-ratelimit-used", "50");
    }
    error
}

/// Query of `GET …/{id}`.
#[derive(Debug, Deserialize)]
pub(crate) struct RetrieveQuery {
    #[serde(default)]
    starting_after: Option<i64>,
    #[serde(default)]
    stream: Option<bool>,
    #[serde(default)]
    format: Option<String>,
}

fn owned(app: &AgentState, account: &Account, id: &str) -> Result<Arc<Run>, ApiError> {
    if !id.starts_with("resp_") {
        return Err(ApiError::invalid_request("invalid response id").param("id"));
    }
    app.agent()
        .get(&account.id, id)
        .filter(|run| run.stored)
        .ok_or_else(ApiError::not_found)
}

/// `GET …/{id}`: the snapshot, or with `stream=true&starting_after=N` the stream after N.
pub(crate) async fn retrieve(
    State(app): State<AgentState>,
    PathIds(id): PathIds<String>,
    query: Result<Query<RetrieveQuery>, axum::extract::rejection::QueryRejection>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| {
        ApiError::invalid_request(format!(
            "invalid query: {e}; use starting_after=<sequence number>&stream=true"
        ))
    })?;
    if let Some(format) = &query.format
        && format != "default"
        && format != "short"
    {
        return Err(ApiError::invalid_request(format!(
            "format must be default or short, not \"{format}\""
        ))
        .param("format"));
    }
    let run = owned(&app, &account, &id)?;
    if query.stream != Some(true) {
        // A look: a driven clock moves on by its look step, and the run catches up, first.
        app.clock().look().await;
        return Ok(Json(run.snapshot()).into_response());
    }
    let Some(after) = query.starting_after else {
        return Err(ApiError::invalid_request(
            "stream=true requires starting_after: pass the sequence_number of the last event you received (-1 for all)",
        )
        .param("starting_after"));
    };
    let len = run.state().events.len() as i64;
    if after < -1 || after >= len {
        return Err(ApiError::invalid_request(format!(
            "starting_after {after} is past the end of the stream: the last sequence_number is {}; \
             fall back to a plain GET",
            len - 1
        ))
        .param("starting_after"));
    }
    Ok(stream::respond(
        run,
        usize::try_from(after + 1).unwrap_or(0),
    ))
}

/// `POST …/{id}/cancel`.
pub(crate) async fn cancel(
    State(app): State<AgentState>,
    PathIds(id): PathIds<String>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Response, ApiError> {
    // The live API answers an unknown id like a terminal one (recorded 400); the docs say 404,
    // which an account's `documented_cancel_errors` switches to.
    let terminal_error =
        || ApiError::invalid_request("the run is already terminal and cannot be cancelled");
    let unknown = || {
        if account.agent_api.documented_cancel_errors {
            ApiError::not_found()
        } else {
            terminal_error()
        }
    };
    let run = app.agent().get(&account.id, &id).ok_or_else(unknown)?;
    if run.state().terminal {
        return Err(terminal_error());
    }
    run.request_cancel(app.clock().now());
    Ok(Json(CancelAck::cancelling(run.id.clone())).into_response())
}

/// `GET …/{id}/files`.
pub(crate) async fn files(
    State(app): State<AgentState>,
    PathIds(id): PathIds<String>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Response, ApiError> {
    let run = owned(&app, &account, &id)?;
    let data: Vec<FileEntry> = run
        .state()
        .files
        .iter()
        .map(|f| FileEntry {
            id: f.id.clone(),
            object: "file",
            filename: f.filename.clone(),
            bytes: f.content.len(),
            created_at: f.created_at,
        })
        .collect();
    Ok(Json(List::of(data)).into_response())
}

/// `GET …/{id}/files/{file_id}/content`: the raw bytes.
pub(crate) async fn file_content(
    State(app): State<AgentState>,
    PathIds((id, file_id)): PathIds<(String, String)>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Response, ApiError> {
    let run = owned(&app, &account, &id)?;
    let file = run
        .state()
        .files
        .iter()
        .find(|f| f.id == file_id)
        .cloned()
        .ok_or_else(ApiError::not_found)?;
    let mut response = file.content.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", file.filename))
    {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// `GET /v1/models` (no auth).
pub(crate) async fn models() -> Json<List<ModelEntry>> {
    Json(super::models::list())
}

/// True for paths a Perplexity API client may send to the mock's base URL: everything under
/// `/v1` and `/responses`, and the other API roots the SDKs know (`/search`, `/chat`,
/// `/async`). A miss there answers in the Agent API's envelope, which the SDKs parse.
pub(crate) fn is_api_path(path: &str) -> bool {
    ["/v1", "/responses", "/search", "/chat", "/async"]
        .iter()
        .any(|root| path == *root || path.starts_with(&format!("{root}/")))
}

/// The router's fallback: an API path the mock does not serve gets a 404 `not_found` in the
/// Agent API envelope (with an `x-request-id`), saying what is served; any other path keeps
/// the plain 404 the rest of the mock answers.
pub(crate) async fn unserved(uri: http::Uri) -> Response {
    let path = uri.path();
    if !is_api_path(path) {
        return StatusCode::NOT_FOUND.into_response();
    }
    let error = ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!(
            "resource not found: the mock does not serve {path}; it serves POST /v1/agent \
             (also /v1/responses and /responses), GET .../{{id}}, POST .../{{id}}/cancel, \
             GET .../{{id}}/files[/{{file_id}}/content] and GET /v1/models"
        ),
    );
    with_fresh_request_id(error.into_response())
}

/// An Agent API path asked with a method it does not take (e.g. `GET /v1/agent`): 405 in the
/// envelope, naming the methods that path takes, instead of axum's empty 405.
pub(crate) async fn wrong_method(method: http::Method, uri: http::Uri) -> Response {
    let path = uri.path();
    let allowed = allowed_methods(path);
    let response = ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "invalid_request",
        format!("{method} is not allowed on {path}: use {allowed}"),
    )
    .header("allow", allowed)
    .into_response();
    with_fresh_request_id(response)
}

/// The methods an Agent API path takes (for `Allow` and the 405 message).
fn allowed_methods(path: &str) -> &'static str {
    if path.starts_with("/_mock/") {
        return "DELETE";
    }
    let prefix = super::paths::PREFIXES
        .iter()
        .find(|p| path == **p || path.starts_with(&format!("{p}/")));
    match prefix {
        Some(p) if path == *p => "POST",
        Some(_) if path.ends_with("/cancel") => "POST",
        _ => "GET",
    }
}

/// Gives an Agent API answer made outside its router (the fallback, a refused body) the
/// `x-request-id` every answer carries.
pub(crate) fn with_fresh_request_id(mut response: Response) -> Response {
    if let Ok(value) = HeaderValue::from_str(&uuid::Uuid::new_v4().to_string()) {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}

/// Adds `x-request-id` to every Agent API answer that has none yet.
pub(crate) async fn add_request_id(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut response = next.run(request).await;
    if !response.headers().contains_key("x-request-id")
        && let Ok(value) = HeaderValue::from_str(&uuid::Uuid::new_v4().to_string())
    {
        response.headers_mut().insert("x-request-id", value);
    }
    response
}
