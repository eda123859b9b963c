//! The dashboard's Sonar panel: `GET /_mock/sonar` lists the recent Sonar calls and every async
//! job as it stands, the page loads its script, its polling stays out of the journal, and
//! `POST /_mock/reset` empties it.

use std::time::Duration;

use mock_server::MockServer;
use serde_json::json;

use crate::common::Mock;
use crate::common::agent::{ALICE, BOB};
use crate::common::sonar::ask;

#[tokio::test(start_paused = true)]
async fn the_panel_lists_calls_newest_first_and_jobs_as_they_stand() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    mock.sonar_post("/search", BOB, json!({"query": "x"})).await;
    mock.sonar_post("/search", BOB, json!({"query": "#server-error x"}))
        .await;
    let job = mock
        .sonar_post(
            "/async/chat/completions",
            ALICE,
            json!({"request": ask("sonar-deep-research", "#deep-research glass")}),
        )
        .await;
    let panel = mock.get("/_mock/sonar").await;
    assert_eq!(panel.status, 200);
    let calls = panel.body["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["route"], "async");
    assert_eq!(calls[0]["scenario"], "deep-research");
    assert_eq!(calls[0]["id"], job.body["id"]);
    assert_eq!(calls[1]["status"], 500);
    assert_eq!(calls[1]["credits"], 0);
    assert_eq!(calls[2]["account"], "bob");
    assert_eq!(calls[2]["model"], "search");
    assert_eq!(calls[2]["credits"], 1);
    let jobs = panel.body["jobs"].as_array().expect("jobs");
    assert_eq!(jobs[0]["status"], "CREATED");
    assert_eq!(jobs[0]["account"], "alice");
    mock.advance(Duration::from_secs(20));
    let panel = mock.get("/_mock/sonar").await;
    assert_eq!(panel.body["jobs"][0]["status"], "IN_PROGRESS");

    mock.post_json("/_mock/reset", json!({})).await;
    let panel = mock.get("/_mock/sonar").await;
    assert_eq!(panel.body, json!({"calls": [], "jobs": []}));
}

#[tokio::test(start_paused = true)]
async fn the_page_loads_the_panel_script_whose_polling_stays_out_of_the_journal() {
    let mock = Mock::new();
    let page = mock.get("/_mock").await;
    let html = page.body.as_str().unwrap_or_default();
    assert!(html.contains("<script src=\"/_mock/sonar.js\""), "{html}");
    assert!(html.contains("id=\"sonar-calls-body\"") && html.contains("id=\"sonar-jobs-body\""));
    let script = mock.get("/_mock/sonar.js").await;
    assert!(
        script.headers["content-type"]
            .to_str()
            .is_ok_and(|t| t.starts_with("text/javascript"))
    );
    assert!(
        script
            .body
            .as_str()
            .is_some_and(|s| s.contains("/_mock/sonar"))
    );
    mock.get("/_mock/sonar").await;
    mock.chat(ask("sonar", "hi")).await;
    let paths: Vec<String> = mock
        .journal_lines()
        .await
        .iter()
        .filter_map(|line| line["path"].as_str().map(str::to_owned))
        .collect();
    // The page itself is an exchange; what it polls is not.
    assert_eq!(paths, ["/_mock", "/chat/completions"]);
}
