//! `/_mock/...`: the control API for tests (journal, clock, reset, scenarios, top-ups) and the
//! human pages of the account world (billing, Projects, uploads). Computer's own pages
//! (sign-in, forms, stop, downloads) are the Computer surface's.
//!
//! "Opening" a URL is a GET of it, which the journal records; buttons on the pages POST back.
//! The dashboard (`/_mock`) and its read models are in `dashboard`.

mod dashboard;
mod read_models;

mod error;
mod oauth;
mod state;

use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::http::auth::Audience;
use crate::http::encoding::{escape, page, page_not_found};
use crate::world::UploadError;

pub(crate) use dashboard::POLLED_READS;
pub(crate) use error::ControlError;
pub(crate) use error::{ControlBodies, PageBodies};
pub(crate) use state::{ControlSetup, ControlState};

/// The S3-style upload endpoint behind `upload_url`.
pub(crate) const UPLOAD_PATH: &str = "/_mock/uploads";

/// Where the account world's pages post their forms (the billing page's button).
pub(crate) const FORM_PAGES: &[&str] = &["/_mock/billing/"];

/// Where the account world's human pages are.
pub(crate) const PAGES: &[&str] = &["/_mock/billing/", "/_mock/projects/"];

/// The `/_mock` routes.
pub(crate) fn routes() -> Router<ControlState> {
    Router::new()
        .merge(dashboard::routes())
        .route("/_mock/clock", get(clock))
        .route("/_mock/clock/advance", post(advance))
        .route("/_mock/reset", post(reset))
        .route("/_mock/scenarios", get(scenarios))
        .route("/_mock/accounts", get(accounts))
        .route("/_mock/accounts/{account}/top-up", post(top_up_api))
        .route("/_mock/oauth/revoke", post(oauth::revoke))
        .route("/_mock/billing/{account}", get(billing_page))
        .route("/_mock/billing/{account}/top-up", post(billing_top_up))
        .route("/_mock/projects/{uuid}", get(project_page))
        // Attachments go up to 200 MB, far past axum's 2 MB default; the handler streams the
        // file part and stops at the envelope's declared size instead.
        .route(
            UPLOAD_PATH,
            post(upload).layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .route("/_mock/uploads/{*key}", get(uploaded))
}

/// The one segment a `/_mock` route takes from its path, or `None` when it does not decode
/// (invalid UTF-8 after percent-decoding): no account, Project or upload has such a name, so
/// each handler answers its own "not found" in its surface's shape instead of axum's plain text.
struct PathSegment(Option<String>);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for PathSegment {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &S,
    ) -> Result<Self, Self::Rejection> {
        let segment = Path::<String>::from_request_parts(parts, state).await;
        Ok(Self(segment.ok().map(|Path(segment)| segment)))
    }
}

async fn clock(State(app): State<ControlState>) -> axum::Json<Value> {
    axum::Json(read_models::clock(&app))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Advance {
    ms: u64,
}

async fn advance(
    State(app): State<ControlState>,
    body: Bytes,
) -> Result<axum::Json<Value>, ControlError> {
    let Advance { ms } = serde_json::from_slice(&body).map_err(|e| {
        ControlError::bad_request(format!("expected a body like {{\"ms\": 120000}}: {e}"))
    })?;
    app.clock()
        .try_advance(Duration::from_millis(ms))
        .map_err(|refused| ControlError::bad_request(refused.to_string()))?;
    Ok(axum::Json(read_models::clock(&app)))
}

async fn reset(State(app): State<ControlState>) -> axum::Json<Value> {
    app.computer().reset();
    app.world().reset();
    app.agent().clear(app.clock().now());
    app.sonar().clear();
    // Those given at start-up come back as they were; those added since, and every
    // scenario's armed faults, go.
    app.faults().reset();
    app.journal().clear();
    axum::Json(json!({"reset": true}))
}

async fn scenarios(State(app): State<ControlState>) -> axum::Json<Value> {
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
                "match": s.pattern.as_ref().map(|p| p.as_str()),
                "turns": s.script.turns.len(),
                "source": s.source.display().to_string(),
            })
        })
        .collect();
    let sonar: Vec<Value> = catalog
        .sonar_iter()
        .map(|s| {
            json!({
                "name": s.name,
                "description": s.description,
                "match": s.pattern.as_ref().map(|p| p.as_str()),
                "source": s.source.display().to_string(),
            })
        })
        .collect();
    axum::Json(json!({
        "fallback": catalog.fallback(),
        "scenarios": list,
        "agent_fallback": crate::fixtures::DEFAULT_AGENT_SCENARIO,
        "agent_scenarios": agent,
        "sonar_fallback": crate::fixtures::DEFAULT_SONAR_SCENARIO,
        "sonar_scenarios": sonar,
    }))
}

/// The world as it stands: each account's plan, balance, quota, limits and connectors.
async fn accounts(State(app): State<ControlState>) -> axum::Json<Value> {
    axum::Json(read_models::accounts(&app))
}

async fn top_up_api(
    State(app): State<ControlState>,
    account: PathSegment,
) -> Result<axum::Json<Value>, ControlError> {
    let account = account.0.ok_or_else(|| {
        ControlError::bad_request(
            "the account in the path is not valid percent-encoded UTF-8; built-in accounts are \
             alice and bob",
        )
    })?;
    let credits = app.world().top_up(&account).ok_or_else(|| {
        ControlError::not_found(format!(
            "no account `{account}`; built-in accounts are alice and bob"
        ))
    })?;
    Ok(axum::Json(json!({"account": account, "credits": credits})))
}

async fn billing_page(State(app): State<ControlState>, account: PathSegment) -> Response {
    let Some(account) = account.0.filter(|a| app.world().account(a).is_some()) else {
        return page_not_found("No such account.");
    };
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

async fn billing_top_up(State(app): State<ControlState>, account: PathSegment) -> Response {
    let Some(account) = account.0 else {
        return page_not_found("No such account.");
    };
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
        None => page_not_found("No such account."),
    }
}

async fn project_page(State(app): State<ControlState>, uuid: PathSegment) -> Response {
    let Some(uuid) = uuid.0 else {
        return page_not_found("No such Project.");
    };
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
        None => page_not_found("No such Project."),
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
async fn upload(
    State(app): State<ControlState>,
    form: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    let Ok(mut form) = form else {
        // What S3 answers a POST to a bucket that is not a form upload.
        return s3_error(
            StatusCode::PRECONDITION_FAILED,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold: Bucket POST must be \
             of the enclosure-type multipart/form-data. Send the envelope's fields, then the \
             file, as multipart/form-data.",
        );
    };
    let mut fields: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    let mut file: Option<Bytes> = None;
    loop {
        match form.next_field().await {
            Ok(Some(mut field)) => {
                // A part without a name is the field `""`, which no envelope names.
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
        Err(UploadError::AlreadyUsed) => s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Invalid according to Policy: Policy Condition failed: this envelope was already used \
             for an upload, and each envelope takes one. Request a new envelope with \
             create_attachment_upload.",
        ),
        Err(UploadError::Expired) => s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Invalid according to Policy: Policy expired. Request a new envelope with create_attachment_upload.",
        ),
        Err(UploadError::OverCap { max }) => s3_error(
            StatusCode::BAD_REQUEST,
            "EntityTooLarge",
            &format!(
                "Your proposed upload exceeds the maximum allowed size: this mock keeps at most \
                 {max} bytes of uploads (--max-upload-bytes). Start it with a larger cap."
            ),
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

/// The stored bytes behind an `attachment_url`, for the account that uploaded them only: no
/// valid bearer token is S3's 403, another account's key the same 404 as a key never used.
async fn uploaded(
    State(app): State<ControlState>,
    headers: axum::http::HeaderMap,
    key: PathSegment,
) -> Response {
    let no_such_key = || {
        s3_error(
            StatusCode::NOT_FOUND,
            "NoSuchKey",
            "The specified key does not exist.",
        )
    };
    let Some(key) = key.0 else {
        return no_such_key();
    };
    let Ok(account) = app.authenticator().authenticate(&headers, Audience::Any) else {
        return s3_error(
            StatusCode::FORBIDDEN,
            "AccessDenied",
            "Access Denied: an uploaded file is served only to the account that uploaded it. \
             Send that account's token as `Authorization: Bearer <token>` (for example \
             `Authorization: Bearer alice-dev-token`).",
        );
    };
    match app
        .world()
        .uploaded_bytes(&account.id, &key, app.clock().now())
    {
        Some(bytes) => bytes.into_response(),
        None => no_such_key(),
    }
}
