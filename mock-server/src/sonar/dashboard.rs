//! The Sonar panel of the dashboard: `GET /_mock/sonar`, the recent Sonar calls (route,
//! account, model, scenario, status, credits) and every async job with its status now, and
//! `GET /_mock/sonar.js`, the script that draws them into the dashboard page once a second.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, header};
use serde::Serialize;

use super::state::SonarState;
use super::store::Call;
use super::wire::jobs::AsyncSummary;

/// The panel's script.
const SCRIPT: &str = include_str!("dashboard.js");

/// Where the panel's data is served.
pub(crate) const PANEL_PATH: &str = "/_mock/sonar";
/// Where its script is served.
pub(crate) const SCRIPT_PATH: &str = "/_mock/sonar.js";

/// What the page reads once a second (the panel) and at each load (its script): the journal
/// leaves these GETs out, as it leaves out the dashboard's own.
pub(crate) const POLLED_READS: &[&str] = &[PANEL_PATH, SCRIPT_PATH];

/// What the panel shows.
#[derive(Debug, Serialize)]
pub(crate) struct Panel {
    /// Recent calls, newest first.
    pub(crate) calls: Vec<Call>,
    /// Every async job, newest first.
    pub(crate) jobs: Vec<JobRow>,
}

/// One async job as the panel shows it.
#[derive(Debug, Serialize)]
pub(crate) struct JobRow {
    /// Whose it is.
    pub(crate) account: String,
    /// The scenario it follows.
    pub(crate) scenario: String,
    /// Where it stands now.
    #[serde(flatten)]
    pub(crate) job: AsyncSummary,
}

/// `GET /_mock/sonar`.
pub(crate) async fn panel(State(app): State<SonarState>) -> Json<Panel> {
    let now = app.clock().now();
    let jobs = app
        .store()
        .jobs(now)
        .into_iter()
        .map(|(account, scenario, job)| JobRow {
            account,
            scenario,
            job,
        })
        .collect();
    Json(Panel {
        calls: app.store().calls(),
        jobs,
    })
}

/// `GET /_mock/sonar.js`.
pub(crate) async fn script() -> Response {
    let mut response = SCRIPT.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/javascript; charset=utf-8"),
    );
    response
}
