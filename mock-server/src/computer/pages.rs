//! The human pages behind the URLs Computer's tools hand out: a connector's sign-in, a form
//! only Perplexity can show, the stop page, and file downloads. "Opening" a URL is a GET of it,
//! which the journal records; buttons on the pages POST back.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;

use super::engine::DownloadError;
use super::files;
use super::service::Service;
use super::service::pages::{FileDownload, SignInVisit};
use crate::http::encoding::{escape, page, page_not_found, percent_encode};

/// Where the pages post their forms (their buttons change a thread's state, from the mock's
/// own pages only).
pub(crate) const FORM_PAGES: &[&str] = &["/_mock/connect/", "/_mock/forms/", "/_mock/stop/"];

/// Where the pages are.
pub(crate) const PAGES: &[&str] = &[
    "/_mock/connect/",
    "/_mock/forms/",
    "/_mock/stop/",
    "/_mock/files/",
    "/_mock/sites/",
];

/// The pages' routes.
pub(crate) fn routes<S: Clone + Send + Sync + 'static>(service: Service) -> Router<S> {
    Router::new()
        .route(
            "/_mock/connect/{thread}/{request}",
            get(sign_in_page).post(sign_in_submit),
        )
        .route(
            "/_mock/forms/{thread}/{request}",
            get(form_page).post(form_submit),
        )
        .route("/_mock/stop/{thread}", get(stop_page).post(stop_submit))
        .route("/_mock/files/{token}/{name}", get(download))
        .route("/_mock/sites/{asset}", get(site_root))
        .route("/_mock/sites/{asset}/", get(site))
        .with_state(service)
}

async fn sign_in_page(
    State(service): State<Service>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    match service.visit_sign_in(&thread, &request, false) {
        SignInVisit::Missing => page_not_found("This sign-in link is unknown or has expired."),
        SignInVisit::AlreadyDone { display_name } => already_signed_in(&display_name),
        SignInVisit::Found {
            display_name,
            completed: true,
        } => page(
            &format!("{} connected", escape(&display_name)),
            "<p>You're signed in. You can close this page.</p>",
        )
        .into_response(),
        SignInVisit::Found { display_name, .. } => page(
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

/// A used sign-in link: it says so instead of "unknown", as Perplexity's page does.
fn already_signed_in(display_name: &str) -> Response {
    page(
        &format!("{} already connected", escape(display_name)),
        "<p>This sign-in was already completed. You can close this page; Computer has what it \
         needs.</p>",
    )
    .into_response()
}

async fn sign_in_submit(
    State(service): State<Service>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    match service.visit_sign_in(&thread, &request, true) {
        SignInVisit::Missing => page_not_found("This sign-in link is unknown or has expired."),
        SignInVisit::AlreadyDone { display_name } => already_signed_in(&display_name),
        SignInVisit::Found { display_name, .. } => page(
            &format!("{} connected", escape(&display_name)),
            "<p>You're signed in. You can close this page.</p>",
        )
        .into_response(),
    }
}

async fn form_page(
    State(service): State<Service>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    match service.form(&thread, &request, false) {
        Some(form) if form.submitted => form_submitted(&form.title, true),
        Some(form) => page(
            &escape(&form.title),
            &format!(
                "<p>{instructions}</p>\
                 <form method=\"post\">\
                 <p><label for=\"details\">{title}</label><br>\
                 <textarea id=\"details\" name=\"details\" rows=\"4\" cols=\"40\" required>\
                 </textarea></p>\
                 <button type=\"submit\">Submit</button></form>\
                 <p><small>Nothing you enter is kept: submitting completes this step, as \
                 Perplexity's page does.</small></p>",
                instructions = escape(&form.instructions),
                title = escape(&form.title),
            ),
        )
        .into_response(),
        None => page_not_found("This form link is unknown or the form is no longer needed."),
    }
}

async fn form_submit(
    State(service): State<Service>,
    Path((thread, request)): Path<(String, String)>,
) -> Response {
    match service.form(&thread, &request, true) {
        Some(form) => form_submitted(&form.title, form.submitted),
        None => page_not_found("This form link is unknown or the form is no longer needed."),
    }
}

/// The page after a form was submitted (`before`: on an earlier visit).
fn form_submitted(title: &str, before: bool) -> Response {
    let when = if before { "was already" } else { "is" };
    page(
        &format!("{} submitted", escape(title)),
        &format!(
            "<p>This form {when} submitted. Continue the conversation with the same thread_id \
             so Computer goes on; a task goes on by itself.</p>"
        ),
    )
    .into_response()
}

async fn stop_page(State(service): State<Service>, Path(thread): Path<String>) -> Response {
    match service.stop_status(&thread) {
        Some(status) => page(
            "Computer task",
            &format!(
                "<p>Current status: <strong>{}</strong>. Opening this page does not stop the \
                 task.</p><form method=\"post\"><button type=\"submit\">Stop</button></form>",
                status.map_or("idle", |s| s.as_str())
            ),
        )
        .into_response(),
        None => page_not_found("No such thread."),
    }
}

async fn stop_submit(State(service): State<Service>, Path(thread): Path<String>) -> Response {
    match service.stop(&thread) {
        Some(true) => page("Stopped", "<p>Computer stopped this task.</p>").into_response(),
        Some(false) => {
            page("Nothing to stop", "<p>The task had already ended.</p>").into_response()
        }
        None => page_not_found("No such thread."),
    }
}

/// A file's bytes with its `Content-Type`.
fn serve_file(file: FileDownload) -> Response {
    let mut response = file.bytes.into_response();
    let content_type = file.media_type.map(|m| files::content_type(&m));
    if let Some(value) = content_type.and_then(|m| HeaderValue::from_str(&m).ok()) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// A published website's address without its final `/`: the site's relative links resolve
/// against the folder, so the mock sends the browser there.
async fn site_root(Path(asset): Path<String>) -> Redirect {
    Redirect::permanent(&format!("/_mock/sites/{}/", percent_encode(&asset)))
}

/// A website Computer published: public, no token, no expiry (a preview link from
/// `create_asset_download` is the one that lasts 24 hours).
async fn site(State(service): State<Service>, Path(asset): Path<String>) -> Response {
    match service.published_site(&asset) {
        Some(file) => serve_file(file),
        None => page_not_found("No website was published at this address."),
    }
}

async fn download(
    State(service): State<Service>,
    Path((token, _name)): Path<(String, String)>,
) -> Response {
    match service.download(&token) {
        Ok(file) => serve_file(file),
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
