//! The dashboard at `/_mock` (and `/`): a page served by the binary itself (plain HTML, a little
//! JavaScript, no build step) that polls `GET /_mock/overview` and the journal once a second,
//! and its buttons, which act as the Perplexity page would: answer, approve or deny, finish a
//! sign-in, stop; top up or reset an account; cancel an Agent API response; advance the clock.
//!
//! The read models are plain control API endpoints too (`/_mock/threads`, `/_mock/tasks`,
//! `/_mock/responses`), so a script sees what the page shows.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::error::ControlError;
use super::read_models;
use super::state::ControlState;
use crate::computer::{ActionDone, ActionRefused, PageAction};

/// The page: one HTML file whose script draws every view.
const PAGE: &str = include_str!("dashboard/index.html");
/// Its script.
const SCRIPT: &str = include_str!("dashboard/dashboard.js");
/// Its style.
const STYLE: &str = include_str!("dashboard/dashboard.css");

/// What the page reads once a second (its overview) and at each load (its script and style):
/// the journal leaves these GETs out, as it leaves out its own reads.
pub(crate) const POLLED_READS: &[&str] = &[
    "/_mock/overview",
    "/_mock/dashboard.js",
    "/_mock/dashboard.css",
];

/// The dashboard's routes.
pub(super) fn routes() -> Router<ControlState> {
    Router::new()
        .route("/", get(home))
        .route("/_mock", get(page))
        .route("/_mock/", get(page))
        .route("/_mock/dashboard.js", get(script))
        .route("/_mock/dashboard.css", get(style))
        .route("/_mock/journal", get(journal))
        .route("/_mock/overview", get(overview))
        .route("/_mock/threads", get(threads))
        .route("/_mock/threads/{thread}/actions", post(thread_action))
        .route("/_mock/tasks", get(tasks))
        .route("/_mock/responses", get(responses))
        .route("/_mock/responses/{id}/cancel", post(cancel_response))
        .route("/_mock/accounts/{account}/reset", post(reset_account))
}

/// `/` opens the dashboard.
async fn home() -> Redirect {
    Redirect::to("/_mock")
}

async fn page() -> Html<&'static str> {
    Html(PAGE)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut response = body.into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

async fn style() -> Response {
    asset("text/css; charset=utf-8", STYLE)
}

/// Whether the client asked for a page: a browser's `Accept` names `text/html`; tools send
/// none, `*/*` or `application/x-ndjson`.
fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/html"))
}

/// `GET /_mock/journal`: the dashboard's journal view for a browser, JSON lines for a tool.
async fn journal(
    State(app): State<ControlState>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, ControlError> {
    if wants_html(&headers) {
        return Ok(Html(PAGE).into_response());
    }
    crate::journal::serve(app.journal().clone(), raw.as_deref())
        .map_err(|bad| ControlError::bad_request(bad.to_string()))
}

async fn overview(State(app): State<ControlState>) -> axum::Json<Value> {
    axum::Json(read_models::overview(&app))
}

async fn threads(State(app): State<ControlState>) -> axum::Json<Value> {
    axum::Json(read_models::threads(&app))
}

async fn tasks(State(app): State<ControlState>) -> axum::Json<Value> {
    axum::Json(read_models::tasks(&app))
}

async fn responses(State(app): State<ControlState>) -> axum::Json<Value> {
    axum::Json(read_models::responses(&app))
}

/// What a thread action's body looks like, for the error sentence.
const ACTION_SHAPES: &str = "{\"action\": \"answer\", \"answers\": {\"q1\": \"PDF\"}}, \
    {\"action\": \"approve\"} or {\"action\": \"deny\"} (optionally with \"request_id\" and \
    \"reason\"), {\"action\": \"sign_in\", \"request_id\": \"...\"}, or {\"action\": \"stop\"}";

/// `POST /_mock/threads/{thread}/actions`: a button on a thread, pressed as its owner.
async fn thread_action(
    State(app): State<ControlState>,
    Path(thread): Path<String>,
    body: Bytes,
) -> Result<axum::Json<ActionDone>, ControlError> {
    let action = serde_json::from_slice::<PageAction>(&body).map_err(|e| {
        ControlError::bad_request(format!("expected a body like {ACTION_SHAPES}: {e}"))
    })?;
    match app.computer().act(&thread, action).await {
        Ok(done) => Ok(axum::Json(done)),
        Err(ActionRefused::UnknownThread(id)) => Err(ControlError::not_found(format!(
            "no thread `{id}`; GET /_mock/threads lists them"
        ))),
        Err(ActionRefused::NotApplicable(why)) => Err(ControlError::conflict(why)),
    }
}

/// `POST /_mock/responses/{id}/cancel`: cancels an Agent API response, whoever owns it.
async fn cancel_response(
    State(app): State<ControlState>,
    Path(id): Path<String>,
) -> Result<axum::Json<Value>, ControlError> {
    let Some(run) = app.agent().any(&id) else {
        return Err(ControlError::not_found(format!(
            "no Agent API response `{id}`; GET /_mock/responses lists them"
        )));
    };
    if run.state().terminal {
        return Err(ControlError::conflict(format!(
            "response `{id}` already ended; only a running response can be cancelled"
        )));
    }
    run.request_cancel(app.clock().now());
    Ok(axum::Json(
        json!({"response_id": id, "status": "cancelling"}),
    ))
}

/// `POST /_mock/accounts/{account}/reset`: the account's balance, quota and spending as the
/// world file starts them.
async fn reset_account(
    State(app): State<ControlState>,
    Path(account): Path<String>,
) -> Result<axum::Json<Value>, ControlError> {
    let credits = app.world().reset_account(&account).ok_or_else(|| {
        ControlError::not_found(format!(
            "no account `{account}`; the world has {}",
            app.world()
                .accounts()
                .iter()
                .map(|a| a.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    Ok(axum::Json(json!({"account": account, "credits": credits})))
}
