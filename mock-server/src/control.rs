//! `/_mock/...`: the control API for tests (journal, clock, reset, scenarios, top-ups) and the
//! human pages behind every URL the mock hands out (sign-in, billing, forms, stop, downloads).
//!
//! "Opening" a URL is a GET of it, which the journal records; buttons on the pages POST back.

mod oauth;

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::computer::engine::DownloadError;
use crate::computer::thread::{Phase, RequestKind};
use crate::world::UploadError;

/// The `/_mock` routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/_mock", get(index))
        .route("/_mock/journal", get(crate::journal::serve))
        .route("/_mock/clock", get(clock))
        .route("/_mock/clock/advance", post(advance))
        .route("/_mock/reset", post(reset))
        .route("/_mock/scenarios", get(scenarios))
        .route("/_mock/accounts", get(accounts))
        .route("/_mock/accounts/{account}/top-up", post(top_up_api))
        .route("/_mock/oauth/revoke", post(oauth::revoke))
        .route(
            "/_mock/connect/{thread}/{request}",
            get(sign_in_page).post(sign_in_submit),
        )
        .route("/_mock/billing/{account}", get(billing_page))
        .route("/_mock/billing/{account}/top-up", post(billing_top_up))
        .route("/_mock/forms/{thread}/{request}", get(form_page))
        .route("/_mock/stop/{thread}", get(stop_page).post(stop_submit))
        .route("/_mock/files/{token}/{name}", get(download))
        .route("/_mock/projects/{uuid}", get(project_page))
        // Attachments go up to 200 MB, far past axum's 2 MB default; the handler streams the
        // file part and stops at the envelope's declared size instead.
        .route(
            "/_mock/uploads",
            post(upload).layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route("/_mock/uploads/{*key}", get(uploaded))
}

/// A human page in the mock's look.
pub(crate) fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;\
         line-height:1.5}}button{{font-size:1rem;padding:.5rem 1rem}}code{{background:#eee;\
         padding:0 .2rem}}</style></head><body><h1>{title}</h1>{body}\
         <p><small>Perplexity Computer mock — this page stands in for perplexity.ai.</small></p>\
         </body></html>"
    ))
}

/// Escapes text for HTML.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn not_found(what: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        page("Not found", &format!("<p>{}</p>", escape(what))),
    )
        .into_response()
}

async fn index(State(app): State<AppState>) -> Html<String> {
    let base = app.base_url();
    page(
        "Perplexity Computer mock",
        &format!(
            "<ul><li>MCP endpoint: <code>{base}/rest/computer/mcp</code></li>\
             <li>Journal: <a href=\"/_mock/journal\">/_mock/journal</a></li>\
             <li>Scenarios: <a href=\"/_mock/scenarios\">/_mock/scenarios</a></li>\
             <li>Clock: <a href=\"/_mock/clock\">/_mock/clock</a></li></ul>"
        ),
    )
}

fn clock_json(app: &AppState) -> Value {
    let clock = app.clock();
    let mode = match clock.mode() {
        crate::ClockMode::Scaled { factor } => json!({"scaled": factor}),
        crate::ClockMode::Manual => json!("manual"),
    };
    json!({"now": crate::clock::iso(clock.now()), "mode": mode})
}

async fn clock(State(app): State<AppState>) -> axum::Json<Value> {
    axum::Json(clock_json(&app))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    ms: u64,
}

async fn advance(State(app): State<AppState>, body: Bytes) -> Response {
    match serde_json::from_slice::<Advance>(&body) {
        Ok(Advance { ms }) => match app.clock().try_advance(Duration::from_millis(ms)) {
            Ok(_) => axum::Json(clock_json(&app)).into_response(),
            Err(refused) => (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"error": refused.to_string()})),
            )
                .into_response(),
        },
        Err(e) => (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({
                "error": format!("expected a body like {{\"ms\": 120000}}: {e}"),
            })),
        )
            .into_response(),
    }
}

async fn reset(State(app): State<AppState>) -> axum::Json<Value> {
    app.engine().reset();
    app.tasks().clear();
    app.elicitations().clear();
    app.world().reset();
    app.agent().clear();
    app.journal().clear();
    axum::Json(json!({"reset": true}))
}

async fn scenarios(State(app): State<AppState>) -> axum::Json<Value> {
    let catalog = app.catalog();
    let list: Vec<Value> = catalog
        .iter()
        .map(|s| {
            json!({
                "name": s.scenario.name,
                "description": s.scenario.description,
                "match": s.scenario.match_pattern,
                "turns": s.scenario.turns.len(),
                "source": s.source.display().to_string(),
            })
        })
        .collect();
    let agent: Vec<Value> = catalog
        .agent_iter()
        .map(|s| {
            json!({
                "name": s.name,
                "description": s.description,
                "match": s.pattern.as_ref().map(regex::Regex::as_str),
                "turns": s.script.turns.len(),
                "source": s.source.display().to_string(),
            })
        })
        .collect();
    axum::Json(json!({
        "fallback": catalog.fallback(),
        "scenarios": list,
        "agent_fallback": crate::fixtures::DEFAULT_AGENT_SCENARIO,
        "agent_scenarios": agent,
    }))
}

/// The world as it stands: each account's plan, balance, limits and connectors.
async fn accounts(State(app): State<AppState>) -> axum::Json<Value> {
    let world = app.world();
    let list: Vec<Value> = world
        .accounts()
        .iter()
        .map(|a| {
            let limits = world.plan(a.plan);
            json!({
                "id": a.id,
                "name": a.name,
                "email": a.email,
                "plan": a.plan,
                "plan_label": limits.label,
                "credits": world.credits(&a.id),
                "spending_limit": a.spending_limit,
                "attachment_max_bytes": limits.attachment_max_bytes,
                "attachments_per_day": limits.attachments_per_day,
                "attachments_per_week": limits.attachments_per_week,
                "blocked_models": a.organization_policy.blocked_models,
                "connectors": a.connectors,
                "projects": a.projects.iter().map(|p| json!({
                    "project_uuid": p.project_uuid, "name": p.name, "role": p.role,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    axum::Json(json!({ "accounts": list }))
}

async fn top_up_api(State(app): State<AppState>, Path(account): Path<String>) -> Response {
    match app.world().top_up(&account) {
        Some(credits) => axum::Json(json!({"account": account, "credits": credits})).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({"error": format!("no account `{account}`; built-in accounts are alice and bob")})),
        )
            .into_response(),
    }
}

/// What a sign-in page found.
enum SignIn {
    /// The display name of the connector, and whether the visit completed the sign-in.
    Found {
        display_name: String,
        completed: bool,
    },
    Missing,
}

fn visit_sign_in(app: &AppState, thread: &str, request: &str, submit: bool) -> SignIn {
    let now = app.clock().now();
    if let Some(connector) = request.strip_prefix("optional-") {
        // Optional reconnections never block the task: the page just confirms.
        return SignIn::Found {
            display_name: connector.to_owned(),
            completed: true,
        };
    }
    app.engine()
        .with_any_thread(thread, |t| {
            let found = t.entries.iter().rev().find_map(|e| match &e.phase {
                Phase::Input { requests, .. } => requests.iter().find(|r| r.id == request).cloned(),
                _ => None,
            });
            let Some(found) = found else {
                return SignIn::Missing;
            };
            let RequestKind::SignIn(spec) = &found.kind else {
                return SignIn::Missing;
            };
            let completed = if submit {
                t.resolve(
                    request,
                    crate::computer::thread::RequestState::CompletedOnPage,
                    now,
                );
                true
            } else {
                t.complete_on_page(request, now)
            };
            SignIn::Found {
                display_name: spec.display_name.clone(),
                completed,
            }
        })
        .unwrap_or(SignIn::Missing)
}

async fn sign_in_page(
    State(app): State<AppState>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    match visit_sign_in(&app, &thread, &request, false) {
        SignIn::Missing => not_found("This sign-in link is unknown or has expired."),
        SignIn::Found {
            display_name,
            completed: true,
        } => page(
            &format!("{} connected", escape(&display_name)),
            "<p>You're signed in. You can close this page; Computer continues the task.</p>",
        )
        .into_response(),
        SignIn::Found { display_name, .. } => page(
            &format!("Connect {}", escape(&display_name)),
            &format!(
                "<p>Perplexity Computer wants to use {name} for this task.</p>\
                 <form method=\"post\"><button type=\"submit\">Connect {name}</button></form>",
                name = escape(&display_name)
            ),
        )
        .into_response(),
    }
}

async fn sign_in_submit(
    State(app): State<AppState>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    match visit_sign_in(&app, &thread, &request, true) {
        SignIn::Missing => not_found("This sign-in link is unknown or has expired."),
        SignIn::Found { display_name, .. } => page(
            &format!("{} connected", escape(&display_name)),
            "<p>You're signed in. You can close this page.</p>",
        )
        .into_response(),
    }
}

async fn billing_page(State(app): State<AppState>, Path(account): Path<String>) -> Response {
    if app.world().account(&account).is_none() {
        return not_found("No such account.");
    }
    let credits = app.world().credits(&account);
    page(
        "Credits and billing",
        &format!(
            "<p>Account <code>{acct}</code> has <strong>{credits}</strong> credits.</p>\
             <form method=\"post\" action=\"/_mock/billing/{acct}/top-up\">\
             <button type=\"submit\">Add credits</button></form>",
            acct = escape(&account)
        ),
    )
    .into_response()
}

async fn billing_top_up(State(app): State<AppState>, Path(account): Path<String>) -> Response {
    match app.world().top_up(&account) {
        Some(credits) => page(
            "Credits added",
            &format!(
                "<p>Account <code>{}</code> now has <strong>{credits}</strong> credits. Send \
                 your message again.</p>",
                escape(&account)
            ),
        )
        .into_response(),
        None => not_found("No such account."),
    }
}

async fn form_page(
    State(app): State<AppState>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    let title = app.engine().with_any_thread(&thread, |t| {
        t.entries.iter().rev().find_map(|e| match &e.phase {
            Phase::Input {
                kind: crate::computer::thread::InputKind::Interaction { request_id, title },
                ..
            } if *request_id == request => Some(title.clone()),
            _ => None,
        })
    });
    match title.flatten() {
        Some(title) => page(
            &escape(&title),
            "<p>Complete this form here, then continue the conversation with the same \
             thread_id.</p>",
        )
        .into_response(),
        None => not_found("This form link is unknown or the form is no longer needed."),
    }
}

async fn stop_page(State(app): State<AppState>, Path(thread): Path<String>) -> Response {
    let status = app
        .engine()
        .with_any_thread(&thread, |t| t.latest().map(|e| e.task_status().as_str()));
    match status {
        Some(status) => page(
            "Computer task",
            &format!(
                "<p>Current status: <strong>{}</strong>. Opening this page does not stop the \
                 task.</p><form method=\"post\"><button type=\"submit\">Stop</button></form>",
                status.unwrap_or("idle")
            ),
        )
        .into_response(),
        None => not_found("No such thread."),
    }
}

async fn stop_submit(State(app): State<AppState>, Path(thread): Path<String>) -> Response {
    let now = app.clock().now();
    match app.engine().with_any_thread(&thread, |t| t.cancel(now)) {
        Some(true) => page("Stopped", "<p>Computer stopped this task.</p>").into_response(),
        Some(false) => {
            page("Nothing to stop", "<p>The task had already ended.</p>").into_response()
        }
        None => not_found("No such thread."),
    }
}

async fn download(
    State(app): State<AppState>,
    Path((token, _name)): Path<(String, String)>,
) -> Response {
    match app.engine().resolve_download(&token) {
        Ok(asset) => {
            let (media_type, _) = crate::computer::file_facts(&asset);
            let mut response = crate::computer::file_bytes(&asset).into_response();
            if let Some(value) = media_type.and_then(|m| HeaderValue::from_str(&m).ok()) {
                response.headers_mut().insert(header::CONTENT_TYPE, value);
            }
            response
        }
        Err(DownloadError::Expired) => (
            StatusCode::FORBIDDEN,
            "This download link has expired. Call create_asset_download for a fresh one.",
        )
            .into_response(),
        Err(DownloadError::Unknown) => (
            StatusCode::FORBIDDEN,
            "This download link is not valid. Call create_asset_download for a fresh one.",
        )
            .into_response(),
    }
}

async fn project_page(State(app): State<AppState>, Path(uuid): Path<String>) -> Response {
    let project = app
        .world()
        .accounts()
        .iter()
        .flat_map(|a| a.projects.iter())
        .find(|p| p.project_uuid == uuid)
        .cloned();
    match project {
        Some(p) => page(
            &escape(&p.name),
            &format!("<p>{}</p>", escape(&p.description)),
        )
        .into_response(),
        None => not_found("No such Project."),
    }
}

fn s3_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{}</Message></Error>",
        escape(message)
    );
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/xml"),
    );
    response
}

/// The S3-style presigned POST endpoint behind `upload_url`.
async fn upload(State(app): State<AppState>, mut form: axum::extract::Multipart) -> Response {
    let mut fields: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    let mut file: Option<Bytes> = None;
    loop {
        match form.next_field().await {
            Ok(Some(mut field)) => {
                let name = field.name().unwrap_or_default().to_owned();
                if name == "file" {
                    // S3 takes the file as the last part, after the fields that name its
                    // envelope, so the declared size is known before the first byte arrives.
                    let Some(declared) = fields
                        .get("key")
                        .and_then(|key| app.world().declared_upload_size(key))
                    else {
                        return s3_error(
                            StatusCode::FORBIDDEN,
                            "AccessDenied",
                            "Invalid according to Policy: the fields before the file part must \
                             include the key of an envelope from create_attachment_upload.",
                        );
                    };
                    let mut body = bytes::BytesMut::new();
                    loop {
                        match field.chunk().await {
                            Ok(Some(chunk)) => {
                                body.extend_from_slice(&chunk);
                                if u64::try_from(body.len()).unwrap_or(u64::MAX) > declared {
                                    return s3_error(
                                        StatusCode::BAD_REQUEST,
                                        "EntityTooLarge",
                                        &format!(
                                            "Your proposed upload exceeds the maximum allowed \
                                             size ({declared} bytes declared)."
                                        ),
                                    );
                                }
                            }
                            Ok(None) => break,
                            Err(e) => {
                                return s3_error(
                                    StatusCode::BAD_REQUEST,
                                    "MalformedPOSTRequest",
                                    &e.to_string(),
                                );
                            }
                        }
                    }
                    file = Some(body.freeze());
                    continue;
                }
                let data = match field.bytes().await {
                    Ok(data) => data,
                    Err(e) => {
                        return s3_error(
                            StatusCode::BAD_REQUEST,
                            "MalformedPOSTRequest",
                            &e.to_string(),
                        );
                    }
                };
                fields.insert(name, String::from_utf8_lossy(&data).into_owned());
            }
            Ok(None) => break,
            Err(e) => {
                return s3_error(
                    StatusCode::BAD_REQUEST,
                    "MalformedPOSTRequest",
                    &format!(
                        "The body of your POST request is not well-formed multipart/form-data: {e}"
                    ),
                );
            }
        }
    }
    let Some(file) = file else {
        return s3_error(
            StatusCode::BAD_REQUEST,
            "InvalidArgument",
            "POST requires exactly one file upload per request, in a part named `file`.",
        );
    };
    match app
        .world()
        .complete_upload(&fields, file, app.clock().now())
    {
        Ok(()) => {
            // S3 answers a presigned POST with the object's URL in `Location`; the journal
            // keeps it, so a reader can tell which envelope each upload completed.
            let mut response = StatusCode::NO_CONTENT.into_response();
            let location = fields
                .get("key")
                .map(|key| format!("{}/_mock/uploads/{key}", app.base_url()));
            if let Some(value) = location.and_then(|l| HeaderValue::from_str(&l).ok()) {
                response.headers_mut().insert(header::LOCATION, value);
            }
            response
        }
        Err(UploadError::UnknownKey) => s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Invalid according to Policy: the key does not match an upload envelope from create_attachment_upload.",
        ),
        Err(UploadError::FieldMismatch(field)) => s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            &format!(
                "Invalid according to Policy: field `{field}` is missing or differs from upload_fields."
            ),
        ),
        Err(UploadError::Expired) => s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Invalid according to Policy: Policy expired. Request a new envelope with create_attachment_upload.",
        ),
        Err(UploadError::TooLarge { declared }) => s3_error(
            StatusCode::BAD_REQUEST,
            "EntityTooLarge",
            &format!(
                "Your proposed upload exceeds the maximum allowed size ({declared} bytes declared)."
            ),
        ),
    }
}

async fn uploaded(State(app): State<AppState>, Path(key): Path<String>) -> Response {
    match app.world().uploaded_bytes(&key) {
        Some(bytes) => bytes.into_response(),
        None => s3_error(
            StatusCode::NOT_FOUND,
            "NoSuchKey",
            "The specified key does not exist.",
        ),
    }
}
