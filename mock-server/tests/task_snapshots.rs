//! The `task-*` and `elicitation-*` catalog scenarios, driven by a 2026-07-28 client that
//! declares the tasks extension (poll `tasks/get`, answer with `tasks/update`) or elicitation
//! (retry with `inputResponses` and `requestState`), with the whole exchange snapshotted under
//! `snapshots/` (task, thread and state ids redacted).

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::modern::{ModernClient, input_key, task_id};

/// A scripted modern client and everything it saw.
struct Script {
    mock: Mock,
    client: ModernClient,
    log: Vec<Value>,
}

/// A request's params without the per-request envelope (the same on every request).
fn without_envelope(body: &Value) -> Value {
    let mut params = body["params"].clone();
    if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.retain(|k, _| !k.starts_with("io.modelcontextprotocol/"));
        if meta.is_empty() {
            params.as_object_mut().map(|p| p.remove("_meta"));
        }
    }
    params
}

/// A result without the server info every modern result carries.
fn shown(result: &Value) -> Value {
    let mut result = result.clone();
    if let Some(meta) = result.get_mut("_meta").and_then(Value::as_object_mut) {
        meta.remove("io.modelcontextprotocol/serverInfo");
        if meta.is_empty() {
            result.as_object_mut().map(|r| r.remove("_meta"));
        }
    }
    if let Some(inner) = result.get_mut("result") {
        *inner = shown(inner);
    }
    result
}

impl Script {
    fn new() -> Self {
        let mock = Mock::new();
        let client = mock.modern("alice-dev-token").with_tasks();
        Self {
            mock,
            client,
            log: Vec::new(),
        }
    }

    /// A client that declares elicitation (both modes) instead of the tasks extension.
    fn eliciting() -> Self {
        let mock = Mock::new();
        let client = mock
            .modern("alice-dev-token")
            .with_capabilities(json!({"elicitation": {"form": {}, "url": {}}}));
        Self {
            mock,
            client,
            log: Vec::new(),
        }
    }

    async fn rpc(&mut self, method: &str, params: Value) -> Value {
        let body = self.client.body(method, params);
        let headers = self.client.headers_for(&body);
        let reply = self.client.send_with(&headers, &body).await;
        let answer = reply
            .body
            .get("result")
            .map(shown)
            .unwrap_or_else(|| reply.body.clone());
        self.log.push(json!({
            "method": method,
            "params": without_envelope(&body),
            "answer": answer,
        }));
        reply.body["result"].clone()
    }

    async fn start(&mut self, message: &str, thread: Option<&str>) -> (String, String) {
        let mut arguments = json!({"message": message});
        if let Some(thread) = thread {
            arguments["thread_id"] = json!(thread);
        }
        let created = self
            .rpc(
                "tools/call",
                json!({"name": "call_perplexity_computer", "arguments": arguments}),
            )
            .await;
        let thread = created["_meta"]["ai.perplexity/threadId"]
            .as_str()
            .expect("threadId")
            .to_owned();
        (task_id(&created), thread)
    }

    async fn poll(&mut self, task: &str) -> Value {
        self.rpc("tasks/get", json!({"taskId": task})).await
    }

    async fn update(&mut self, task: &str, responses: Value) {
        self.rpc(
            "tasks/update",
            json!({"taskId": task, "inputResponses": responses}),
        )
        .await;
    }

    fn advance(&mut self, by: Duration) {
        self.mock.advance(by);
        self.log
            .push(json!({"advance_clock_seconds": by.as_secs()}));
    }

    async fn open(&mut self, url: &str) {
        let reply = self.mock.get(url).await;
        self.log
            .push(json!({"open": url, "status": reply.status.as_u16()}));
    }

    fn snapshot(self, scenario: &str) {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "catalog scenario `{scenario}`, 2026-07-28 (tasks extension or elicitation): requests and answers"
        ));
        settings.add_filter(r"task-[0-9a-f]{32}", "[task-id]");
        settings.add_filter(
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[uuid]",
        );
        settings.add_filter(r"asset_[0-9a-f]{32}", "[asset]");
        settings.add_filter(r"\b[0-9a-f]{32}\b", "[token]");
        let log = Value::Array(self.log);
        settings.bind(|| {
            insta::assert_json_snapshot!(format!("modern-{scenario}"), log);
        });
    }
}

#[tokio::test(start_paused = true)]
async fn task_complete() {
    let mut s = Script::new();
    let (task, _) = s.start("#task-complete Summarize HN", None).await;
    s.poll(&task).await;
    s.advance(Duration::from_secs(60));
    s.poll(&task).await;
    s.advance(Duration::from_secs(120));
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "completed");
    s.snapshot("task-complete");
}

#[tokio::test(start_paused = true)]
async fn task_question() {
    let mut s = Script::new();
    let (task, _) = s.start("#task-question Build the sales report", None).await;
    s.advance(Duration::from_secs(30));
    let asked = s.poll(&task).await;
    let key = input_key(&asked, "answer:");
    s.update(
        &task,
        json!({key: {"action": "accept", "content": {"q1": "PDF"}}}),
    )
    .await;
    s.poll(&task).await;
    s.advance(Duration::from_secs(60));
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "completed");
    s.snapshot("task-question");
}

#[tokio::test(start_paused = true)]
async fn task_approval() {
    let mut s = Script::new();
    let (task, _) = s.start("#task-approval Email the report", None).await;
    s.advance(Duration::from_secs(120));
    let asked = s.poll(&task).await;
    let key = input_key(&asked, "confirm:");
    s.update(&task, json!({key: {"action": "cancel"}})).await;
    let again = s.poll(&task).await;
    let key = input_key(&again, "confirm:");
    s.update(&task, json!({key: {"action": "accept"}})).await;
    s.advance(Duration::from_secs(600));
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "completed");
    s.snapshot("task-approval");
}

#[tokio::test(start_paused = true)]
async fn task_sign_in() {
    let mut s = Script::new();
    let (task, _) = s.start("#task-sign-in Summarize my Slack", None).await;
    s.advance(Duration::from_secs(120));
    let asked = s.poll(&task).await;
    let key = input_key(&asked, "sign-in:");
    let url = asked["inputRequests"][&key]["params"]["url"]
        .as_str()
        .expect("url")
        .to_owned();
    s.update(&task, json!({key: {"action": "accept"}})).await;
    s.poll(&task).await;
    s.open(&url).await;
    s.poll(&task).await;
    s.advance(Duration::from_secs(600));
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "completed");
    s.snapshot("task-sign-in");
}

#[tokio::test(start_paused = true)]
async fn task_credits() {
    let mut s = Script::new();
    let (task, _) = s.start("#task-credits Crunch the data", None).await;
    s.advance(Duration::from_secs(120));
    let asked = s.poll(&task).await;
    let key = input_key(&asked, "credits:");
    s.update(&task, json!({key: {"action": "accept"}})).await;
    let reply = s.mock.post_form("/_mock/billing/alice/top-up").await;
    s.log
        .push(json!({"submit": "/_mock/billing/alice/top-up", "status": reply.status.as_u16()}));
    s.poll(&task).await;
    s.advance(Duration::from_secs(600));
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "completed");
    s.snapshot("task-credits");
}

#[tokio::test(start_paused = true)]
async fn task_cancel() {
    let mut s = Script::new();
    let (task, thread) = s.start("#task-cancel Build the catalog", None).await;
    s.rpc("tasks/cancel", json!({"taskId": task})).await;
    s.poll(&task).await;
    s.rpc(
        "tools/call",
        json!({"name": "cancel_task", "arguments": {"thread_id": thread}}),
    )
    .await;
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "cancelled");
    s.snapshot("task-cancel");
}

#[tokio::test(start_paused = true)]
async fn task_failure() {
    let mut s = Script::new();
    let (task, _) = s.start("#task-failure Run the analysis", None).await;
    s.advance(Duration::from_secs(60));
    let done = s.poll(&task).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);
    s.snapshot("task-failure");
}

#[tokio::test(start_paused = true)]
async fn task_follow_up() {
    let mut s = Script::new();
    let (first, thread) = s.start("#task-follow-up Summarize HN", None).await;
    s.advance(Duration::from_secs(60));
    s.poll(&first).await;
    let (second, _) = s.start("Turn that into a PDF report", Some(&thread)).await;
    s.advance(Duration::from_secs(60));
    let done = s.poll(&second).await;
    assert_eq!(done["status"], "completed");
    s.poll(&first).await;
    s.snapshot("task-follow-up");
}

/// A call, then its MRTR retry answering the one input request with `response`.
async fn call_and_answer(s: &mut Script, message: &str, response: Value) -> Value {
    let call = json!({"name": "call_perplexity_computer", "arguments": {"message": message}});
    let asked = s.rpc("tools/call", call.clone()).await;
    let key = asked["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .expect("an input request");
    let mut retry = call;
    retry["inputResponses"] = json!({key: response});
    retry["requestState"] = asked["requestState"].clone();
    s.rpc("tools/call", retry).await
}

#[tokio::test(start_paused = true)]
async fn elicitation_question() {
    let mut s = Script::eliciting();
    let done = call_and_answer(
        &mut s,
        "#elicitation-question Build the sales report",
        json!({"action": "accept", "content": {"q1": "PDF"}}),
    )
    .await;
    assert_eq!(done["resultType"], "complete");
    s.snapshot("elicitation-question");
}

#[tokio::test(start_paused = true)]
async fn elicitation_confirm() {
    let mut s = Script::eliciting();
    call_and_answer(
        &mut s,
        "#elicitation-confirm Email the report",
        json!({"action": "accept"}),
    )
    .await;
    call_and_answer(
        &mut s,
        "#elicitation-confirm Email the report",
        json!({"action": "decline"}),
    )
    .await;
    s.snapshot("elicitation-confirm");
}

#[tokio::test(start_paused = true)]
async fn elicitation_sign_in() {
    let mut s = Script::eliciting();
    let call = json!({"name": "call_perplexity_computer",
                      "arguments": {"message": "#elicitation-sign-in Summarize my Slack"}});
    let asked = s.rpc("tools/call", call.clone()).await;
    let (key, request) = asked["inputRequests"]
        .as_object()
        .and_then(|r| r.iter().next().map(|(k, v)| (k.clone(), v.clone())))
        .expect("an input request");
    let url = request["params"]["url"].as_str().expect("url").to_owned();
    s.open(&url).await;
    let mut retry = call;
    retry["inputResponses"] = json!({key: {"action": "accept"}});
    retry["requestState"] = asked["requestState"].clone();
    let done = s.rpc("tools/call", retry).await;
    assert_eq!(done["resultType"], "complete");
    s.snapshot("elicitation-sign-in");
}
