//! The dashboard (`/_mock`, `/`) and its read models and buttons: `/_mock/overview`,
//! `/_mock/threads`, `/_mock/tasks`, `/_mock/responses`, the thread actions, the account reset,
//! the Agent API cancel, and the journal as a page for a browser.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::{Value, json};

use crate::common::{self, Mock, thread_id};

async fn get_html(mock: &Mock, path: &str) -> common::Reply {
    mock.send(
        Request::get(path)
            .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            .body(Body::empty())
            .expect("request"),
    )
    .await
}

fn header<'a>(reply: &'a common::Reply, name: &str) -> &'a str {
    reply
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

/// The one thread the dashboard lists.
async fn only_thread(mock: &Mock) -> Value {
    let reply = mock.get("/_mock/threads").await;
    assert_eq!(reply.status, StatusCode::OK);
    let threads = reply.body["threads"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(threads.len(), 1, "{}", reply.body);
    threads[0].clone()
}

#[tokio::test(start_paused = true)]
async fn the_root_opens_the_dashboard_which_loads_its_script_and_style() {
    let mock = Mock::new();
    let root = mock.get("/").await;
    assert_eq!(root.status, StatusCode::SEE_OTHER);
    assert_eq!(header(&root, "location"), "/_mock");

    for path in ["/_mock", "/_mock/"] {
        let page = mock.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert!(header(&page, "content-type").starts_with("text/html"));
        let html = page.body.as_str().unwrap_or_default();
        assert!(
            html.contains("<script src=\"/_mock/dashboard.js\""),
            "{html}"
        );
        assert!(html.contains("href=\"/_mock/dashboard.css\""), "{html}");
    }
    let script = mock.get("/_mock/dashboard.js").await;
    assert!(header(&script, "content-type").starts_with("text/javascript"));
    assert!(
        script
            .body
            .as_str()
            .unwrap_or_default()
            .contains("/_mock/overview")
    );
    let style = mock.get("/_mock/dashboard.css").await;
    assert!(header(&style, "content-type").starts_with("text/css"));
}

#[tokio::test(start_paused = true)]
async fn the_journal_is_a_page_for_a_browser_and_json_lines_for_a_tool() {
    let mock = Mock::new();
    mock.get("/_mock/scenarios").await;

    let page = get_html(&mock, "/_mock/journal?path=/_mock/scenarios").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(header(&page, "content-type").starts_with("text/html"));
    assert!(
        page.body
            .as_str()
            .unwrap_or_default()
            .contains("id=\"journal-list\"")
    );

    let lines = mock.journal_lines().await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["path"], "/_mock/scenarios");
}

#[tokio::test(start_paused = true)]
async fn the_dashboards_polling_stays_out_of_the_journal_and_its_buttons_do_not() {
    let mock = Mock::new();
    for path in [
        "/_mock/overview",
        "/_mock/dashboard.js",
        "/_mock/dashboard.css",
    ] {
        assert_eq!(mock.get(path).await.status, StatusCode::OK, "{path}");
    }
    assert!(mock.journal_lines().await.is_empty());

    mock.post_json("/_mock/accounts/alice/top-up", json!({}))
        .await;
    let lines = mock.journal_lines().await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["path"], "/_mock/accounts/alice/top-up");
}

#[tokio::test(start_paused = true)]
async fn a_waiting_question_is_listed_with_its_choices_and_the_answer_button_continues_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client.start("#ask-user-question Build the report").await;
    let id = thread_id(&asked);

    let thread = only_thread(&mock).await;
    assert_eq!(thread["thread_id"], id);
    assert_eq!(thread["owner"], "alice");
    assert_eq!(thread["scenario"], "ask-user-question");
    assert_eq!(thread["task_status"], "input_required");
    assert_eq!(thread["event"], "ask_user_question");
    let waiting = &thread["waiting_on"][0];
    assert_eq!(waiting["kind"], "question");
    assert_eq!(
        waiting["request_id"], asked["interactive"]["followup_uuid"],
        "{thread}"
    );
    assert_eq!(
        waiting["questions"][0],
        json!({"id": "q1", "question": "Which format should I use?",
               "options": ["PDF", "DOCX"], "allow_multiple": false})
    );

    let answered = mock
        .post_json(
            &format!("/_mock/threads/{id}/actions"),
            json!({"action": "answer", "request_id": waiting["request_id"],
                   "answers": {"q1": "PDF"}}),
        )
        .await;
    assert_eq!(answered.status, StatusCode::OK, "{}", answered.body);
    assert_eq!(answered.body["thread_id"], id);

    mock.advance(Duration::from_secs(60));
    let transcript = client.read(&id).await;
    let text = transcript.to_string();
    assert!(text.contains("Which format should I use?: PDF"), "{text}");
    assert_eq!(only_thread(&mock).await["task_status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn an_answer_that_matches_no_question_is_refused_with_the_tools_sentence() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let id = thread_id(&client.start("#ask-user-question Build the report").await);

    let wrong = mock
        .post_json(
            &format!("/_mock/threads/{id}/actions"),
            json!({"action": "answer", "answers": {}}),
        )
        .await;
    assert_eq!(wrong.status, StatusCode::CONFLICT, "{}", wrong.body);
    assert!(
        wrong.body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("answers"),
        "{}",
        wrong.body
    );
    assert_eq!(only_thread(&mock).await["task_status"], "input_required");
}

#[tokio::test(start_paused = true)]
async fn a_malformed_action_or_an_unknown_thread_is_refused_in_the_control_shape() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let id = thread_id(&client.start("#ask-user-question Build the report").await);

    let malformed = mock
        .post_json(
            &format!("/_mock/threads/{id}/actions"),
            json!({"action": "dance"}),
        )
        .await;
    assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
    assert!(
        malformed.body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("\"action\": \"answer\""),
        "{}",
        malformed.body
    );

    let unknown = mock
        .post_json(
            "/_mock/threads/no-such-thread/actions",
            json!({"action": "stop"}),
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(
        unknown.body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("no-such-thread")
    );
    assert_eq!(only_thread(&mock).await["task_status"], "input_required");
}

#[tokio::test(start_paused = true)]
async fn approve_and_deny_decide_a_confirmation_as_its_owner() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let id = thread_id(&client.start("#confirm-action Email the report").await);
    let thread = only_thread(&mock).await;
    assert_eq!(thread["waiting_on"][0]["kind"], "confirm", "{thread}");
    assert!(
        !thread["waiting_on"][0]["action"]
            .as_str()
            .unwrap_or_default()
            .is_empty()
    );

    let denied = mock
        .post_json(
            &format!("/_mock/threads/{id}/actions"),
            json!({"action": "deny", "reason": "Not today"}),
        )
        .await;
    assert_eq!(denied.status, StatusCode::OK, "{}", denied.body);
    let text = client.read(&id).await.to_string();
    assert!(text.contains("Denied: Not today"), "{text}");
    assert!(
        only_thread(&mock).await["waiting_on"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
}

#[tokio::test(start_paused = true)]
async fn the_sign_in_button_connects_and_notify_connected_finishes_the_sign_in() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let id = thread_id(
        &client
            .start("#auth-required Post the summary to Slack")
            .await,
    );
    let thread = only_thread(&mock).await;
    let waiting = &thread["waiting_on"][0];
    assert_eq!(waiting["kind"], "sign_in", "{thread}");
    let request = waiting["request_id"].clone();

    let signed = mock
        .post_json(
            &format!("/_mock/threads/{id}/actions"),
            json!({"action": "sign_in", "request_id": request}),
        )
        .await;
    assert_eq!(signed.status, StatusCode::OK, "{}", signed.body);
    // "Open the OAuth URL, then call notify_connected": the page connects the account, and
    // the request waits for the client's notify_connected.
    assert_eq!(only_thread(&mock).await["waiting_on"][0]["kind"], "sign_in");
    client
        .call_json(
            "notify_connected",
            json!({"thread_id": id, "message": "Slack connected"}),
        )
        .await;
    assert!(
        only_thread(&mock).await["waiting_on"]
            .as_array()
            .is_some_and(|w| w.iter().all(|w| w["kind"] != "sign_in"))
    );
}

#[tokio::test(start_paused = true)]
async fn the_stop_button_stops_a_working_thread_once() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let id = thread_id(&client.start("#timeout-then-complete Research this").await);
    assert_eq!(only_thread(&mock).await["task_status"], "working");

    let url = format!("/_mock/threads/{id}/actions");
    let stopped = mock.post_json(&url, json!({"action": "stop"})).await;
    assert_eq!(stopped.status, StatusCode::OK, "{}", stopped.body);
    assert_eq!(only_thread(&mock).await["task_status"], "cancelled");

    let again = mock.post_json(&url, json!({"action": "stop"})).await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    assert!(
        again.body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("already ended")
    );
}

#[tokio::test(start_paused = true)]
async fn the_credits_trap_shows_on_the_account_and_reset_clears_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let refused = client
        .start("#insufficient-credits-before-send Build the report")
        .await;
    assert_eq!(refused["event"], "insufficient_credits", "{refused}");

    let alice = |overview: &Value| {
        overview["accounts"]
            .as_array()
            .and_then(|a| a.iter().find(|a| a["id"] == "alice").cloned())
            .unwrap_or_default()
    };
    let before = alice(&mock.get("/_mock/overview").await.body);
    assert_eq!(before["credits"], 0, "{before}");
    assert_eq!(before["refused_before_send"], "insufficient_credits");

    let reset = mock
        .post_json("/_mock/accounts/alice/reset", json!({}))
        .await;
    assert_eq!(reset.status, StatusCode::OK, "{}", reset.body);
    let after = alice(&mock.get("/_mock/overview").await.body);
    assert!(after["credits"].as_i64().unwrap_or(0) > 0, "{after}");
    assert_eq!(after["refused_before_send"], Value::Null);
    assert_eq!(after["spent_since_top_up"], 0);

    let unknown = mock
        .post_json("/_mock/accounts/carol/reset", json!({}))
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(
        unknown.body["error"]
            .as_str()
            .unwrap_or_default()
            .contains("alice, bob")
    );
}

#[tokio::test(start_paused = true)]
async fn the_overview_has_the_clock_accounts_threads_tasks_responses_and_journal_size() {
    let mock = Mock::new();
    let overview = mock.get("/_mock/overview").await.body;
    for field in [
        "base_url",
        "mcp_url",
        "clock",
        "accounts",
        "threads",
        "tasks",
        "responses",
        "journal",
    ] {
        assert!(overview.get(field).is_some(), "{field} in {overview}");
    }
    assert_eq!(
        overview["mcp_url"],
        format!("{}{}", common::BASE, common::MCP)
    );
    assert_eq!(overview["threads"], json!([]));
    assert_eq!(overview["tasks"], json!([]));
    assert_eq!(overview["responses"], json!([]));
}

#[tokio::test(start_paused = true)]
async fn an_mcp_task_is_listed_with_the_status_its_last_poll_saw() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token").with_tasks();
    let created = client
        .start_task("#task-question Build the report", None)
        .await;
    let task_id = created["task"]["taskId"]
        .as_str()
        .or_else(|| created["taskId"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(!task_id.is_empty(), "{created}");
    let listed = mock.get("/_mock/tasks").await.body;
    assert_eq!(listed["tasks"][0]["task_id"], task_id, "{listed}");
    assert_eq!(listed["tasks"][0]["account"], "alice");
    // Creating the task reads its state once.
    assert_eq!(listed["tasks"][0]["last_polled_status"], "working");

    mock.advance(Duration::from_secs(60));
    client.get_task(&task_id).await;
    let listed = mock.get("/_mock/tasks").await.body;
    assert_eq!(
        listed["tasks"][0]["last_polled_status"], "input_required",
        "{listed}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_agent_response_is_listed_and_the_cancel_button_refuses_a_finished_one() {
    let mock = Mock::new();
    let created = mock
        .send(
            Request::post("/v1/agent")
                .header("authorization", "Bearer alice-dev-token")
                .header("content-type", "application/json")
                .body(Body::from(
                    json!({"model": "openai/gpt-5.6-terra", "input": "Hello"}).to_string(),
                ))
                .expect("request"),
        )
        .await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.body);
    let id = created.body["id"].as_str().unwrap_or_default().to_owned();

    let listed = mock.get("/_mock/responses").await.body;
    let response = &listed["responses"][0];
    assert_eq!(response["id"], id, "{listed}");
    assert_eq!(response["account"], "alice");
    assert_eq!(response["status"], "completed");
    assert_eq!(response["terminal"], true);
    assert!(response["output"].as_array().is_some_and(|o| !o.is_empty()));

    let cancel = mock
        .post_json(&format!("/_mock/responses/{id}/cancel"), json!({}))
        .await;
    assert_eq!(cancel.status, StatusCode::CONFLICT);
    let unknown = mock
        .post_json("/_mock/responses/resp_nope/cancel", json!({}))
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}
