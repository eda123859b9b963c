//! HTTP handlers: create (sync, stream, background), retrieve (and resume a stream), cancel,
//! files, models. Every path is served under `/v1/agent`, `/v1/responses` and `/responses`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode};

use super::auth::AgentAccount;
use super::error::{ApiError, PathIds};
use super::render;
use super::service::lookups::Retrieve;
use super::state::AgentState;
use super::wire::lists::{CancelAck, FileEntry, List, ModelEntry};
use crate::http::auth::Authenticated;

/// `POST /v1/agent` (≡ `/v1/responses` ≡ `/responses`).
pub(crate) async fn create(
    State(app): State<AgentState>,
    Authenticated { account, .. }: AgentAccount,
    body: Bytes,
) -> Result<Response, ApiError> {
    let created = app.service().create(&account, &body).await?;
    Ok(render::created(created))
}

/// `GET …/{id}`: the response, or with `stream=true&starting_after=N` the stream after N.
pub(crate) async fn retrieve(
    State(app): State<AgentState>,
    PathIds(id): PathIds<String>,
    query: Result<Query<Retrieve>, axum::extract::rejection::QueryRejection>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| {
        ApiError::invalid_request(format!(
            "invalid query: {e}; use starting_after=<sequence number>&stream=true"
        ))
    })?;
    let retrieved = app.service().retrieve(&account, &id, &query).await?;
    Ok(render::retrieved(retrieved))
}

/// `POST …/{id}/cancel`.
pub(crate) async fn cancel(
    State(app): State<AgentState>,
    PathIds(id): PathIds<String>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Json<CancelAck>, ApiError> {
    app.service().cancel(&account, &id).map(Json)
}

/// `GET …/{id}/files`.
pub(crate) async fn files(
    State(app): State<AgentState>,
    PathIds(id): PathIds<String>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Json<List<FileEntry>>, ApiError> {
    app.service().files(&account, &id).map(Json)
}

/// `GET …/{id}/files/{file_id}/content`: the raw bytes.
pub(crate) async fn file_content(
    State(app): State<AgentState>,
    PathIds((id, file_id)): PathIds<(String, String)>,
    Authenticated { account, .. }: AgentAccount,
) -> Result<Response, ApiError> {
    let file = app.service().file(&account, &id, &file_id)?;
    Ok(render::file(file))
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
             GET .../{{id}}/files[/{{file_id}}/content] and GET /v1/models, and the Sonar \
             routes POST /chat/completions, /async/chat/completions[/{{id}}], POST /search, \
             POST /v1/embeddings and /v1/contextualizedembeddings"
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
