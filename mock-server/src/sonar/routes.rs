//! The Sonar routes' HTTP handlers: each authenticates, hands the body to the service and
//! renders what it answers (JSON, an SSE stream, or the error envelope). A path asked with a
//! method it does not take answers 405 in the envelope, naming the methods it does.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use super::auth::SonarAccount;
use super::paths;
use super::service::{self, ChatReply};
use super::state::SonarState;
use super::stream;
use super::wire::error::SonarError;
use super::wire::jobs::ListQuery;
use crate::http::auth::Authenticated;

/// `POST /chat/completions` (≡ `/v1/chat/completions` ≡ `/v1/sonar`).
pub(crate) async fn chat(
    State(app): State<SonarState>,
    Authenticated { account, .. }: SonarAccount,
    body: Bytes,
) -> Response {
    match service::chat(&app, &account, &body).await {
        Ok(ChatReply::Whole(completion)) => Json(completion).into_response(),
        Ok(ChatReply::Stream { start, frames }) => {
            stream::respond(app.clock().clone(), start, frames)
        }
        Err(error) => error.into_response(),
    }
}

/// `POST /async/chat/completions` (≡ `/v1/async/sonar`).
pub(crate) async fn create_job(
    State(app): State<SonarState>,
    Authenticated { account, .. }: SonarAccount,
    body: Bytes,
) -> Response {
    answer(service::create_job(&app, &account, &body))
}

/// `GET /async/chat/completions`: the account's jobs, newest first.
pub(crate) async fn list_jobs(
    State(app): State<SonarState>,
    query: Result<Query<ListQuery>, QueryRejection>,
    Authenticated { account, .. }: SonarAccount,
) -> Response {
    let query = match query {
        Ok(Query(query)) => query,
        Err(e) => {
            return SonarError::invalid_request(format!(
                "invalid query ({e}): use ?limit=20 and the previous page's ?next_token=..."
            ))
            .into_response();
        }
    };
    answer(service::jobs(&app, &account, query).await)
}

/// `GET /async/chat/completions/{id}`.
pub(crate) async fn get_job(
    State(app): State<SonarState>,
    id: Result<Path<String>, PathRejection>,
    Authenticated { account, .. }: SonarAccount,
) -> Response {
    let Ok(Path(id)) = id else {
        return SonarError::not_found(
            "no async chat completion has that id: an id in the path is not valid UTF-8 once \
             percent-decoded",
        )
        .param("api_request")
        .into_response();
    };
    answer(service::job(&app, &account, &id).await)
}

/// `POST /search`.
pub(crate) async fn search(
    State(app): State<SonarState>,
    Authenticated { account, .. }: SonarAccount,
    body: Bytes,
) -> Response {
    answer(service::search(&app, &account, &body))
}

/// `POST /v1/embeddings`.
pub(crate) async fn embeddings(
    State(app): State<SonarState>,
    Authenticated { account, .. }: SonarAccount,
    body: Bytes,
) -> Response {
    answer(service::embeddings(&app, &account, &body))
}

/// `POST /v1/contextualizedembeddings`.
pub(crate) async fn contextualized(
    State(app): State<SonarState>,
    Authenticated { account, .. }: SonarAccount,
    body: Bytes,
) -> Response {
    answer(service::contextualized(&app, &account, &body))
}

/// A JSON answer, or the refusal.
fn answer<T: serde::Serialize>(result: Result<T, SonarError>) -> Response {
    match result {
        Ok(value) => Json(value).into_response(),
        Err(error) => error.into_response(),
    }
}

/// A Sonar path asked with a method it does not take: 405 in the envelope, with `Allow`.
pub(crate) async fn wrong_method(method: http::Method, uri: http::Uri) -> Response {
    let path = uri.path();
    let allowed = paths::allowed_methods(path);
    SonarError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "invalid_request",
        format!("{method} is not allowed on {path}: use {allowed}"),
    )
    .header("allow", allowed)
    .into_response()
}
