//! A client of the stateless 2026-07-28 era: every request carries the `_meta` envelope and the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, as Python `mcp` 2.3.0 sends them.

use axum::body::Body;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use super::{MCP, Mock, Reply};

/// The modern protocol version.
pub const MODERN: &str = "2026-07-28";
/// The tasks extension id.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// A stateless client: no session, a fresh envelope on every request.
pub struct ModernClient {
    pub mock: Mock,
    pub token: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities` sent on every request.
    pub capabilities: Value,
    next_id: i64,
}

impl Mock {
    /// A modern-era client with a dev token and no capabilities.
    pub fn modern(&self, token: &str) -> ModernClient {
        ModernClient {
            mock: self.clone(),
            token: Some(token.to_owned()),
            capabilities: json!({}),
            next_id: 1,
        }
    }
}

impl ModernClient {
    /// The same client declaring `capabilities` on every request.
    pub fn with_capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// The same client declaring the tasks extension.
    pub fn with_tasks(self) -> Self {
        let mut capabilities = self.capabilities.clone();
        capabilities["extensions"][TASKS] = json!({});
        self.with_capabilities(capabilities)
    }

    /// The request `_meta` envelope.
    pub fn envelope(&self) -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": self.capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "tests", "version": "1"},
        })
    }

    /// A request body with a fresh id and the envelope merged into `params._meta`.
    pub fn body(&mut self, method: &str, mut params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        if !params.is_object() {
            params = json!({});
        }
        let mut meta = self.envelope();
        if let Some(extra) = params.get("_meta").and_then(Value::as_object) {
            for (k, v) in extra {
                meta[k] = v.clone();
            }
        }
        params["_meta"] = meta;
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    /// The headers a compliant client sends with `body`.
    pub fn headers_for(&self, body: &Value) -> Vec<(String, String)> {
        let mut headers = vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            (
                "accept".to_owned(),
                "application/json, text/event-stream".to_owned(),
            ),
            ("mcp-protocol-version".to_owned(), MODERN.to_owned()),
        ];
        if let Some(token) = &self.token {
            headers.push(("authorization".to_owned(), format!("Bearer {token}")));
        }
        let method = body["method"].as_str().unwrap_or_default();
        headers.push(("mcp-method".to_owned(), method.to_owned()));
        let params = &body["params"];
        let name = match method {
            "tools/call" | "prompts/get" => params["name"].as_str(),
            "resources/read" => params["uri"].as_str(),
            m if m.starts_with("tasks/") => params["taskId"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            headers.push(("mcp-name".to_owned(), name.to_owned()));
        }
        headers
    }

    /// POSTs `body` with `headers` exactly.
    pub async fn send_with(&self, headers: &[(String, String)], body: &Value) -> Reply {
        let mut request = Request::post(MCP);
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        self.mock
            .send(request.body(Body::from(body.to_string())).expect("request"))
            .await
    }

    /// POSTs `body` with the compliant headers, changed by `edit`.
    pub async fn send_edited(
        &self,
        body: &Value,
        edit: impl FnOnce(&mut Vec<(String, String)>),
    ) -> Reply {
        let mut headers = self.headers_for(body);
        edit(&mut headers);
        self.send_with(&headers, body).await
    }

    /// Sends a compliant request.
    pub async fn rpc(&mut self, method: &str, params: Value) -> Reply {
        let body = self.body(method, params);
        let headers = self.headers_for(&body);
        self.send_with(&headers, &body).await
    }

    /// Calls a tool and returns the result object (asserting a JSON 200).
    pub async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self
            .rpc("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        reply.body["result"].clone()
    }
}

/// Sets (or adds) header `name` in a header list.
pub fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    headers.retain(|(n, _)| n != name);
    headers.push((name.to_owned(), value.to_owned()));
}

/// Removes header `name` from a header list.
pub fn drop_header(headers: &mut Vec<(String, String)>, name: &str) {
    headers.retain(|(n, _)| n != name);
}

impl ModernClient {
    /// `call_perplexity_computer` with `message` (and `thread_id`), returning the raw result.
    pub async fn start_task(&mut self, message: &str, thread_id: Option<&str>) -> Value {
        let mut arguments = json!({"message": message});
        if let Some(thread) = thread_id {
            arguments["thread_id"] = json!(thread);
        }
        self.call("call_perplexity_computer", arguments).await
    }

    /// `tasks/get`, returning the whole reply.
    pub async fn get_task(&mut self, task_id: &str) -> Reply {
        self.rpc("tasks/get", json!({"taskId": task_id})).await
    }

    /// `tasks/get`, returning the result (asserting success).
    pub async fn task(&mut self, task_id: &str) -> Value {
        let reply = self.get_task(task_id).await;
        assert!(reply.body.get("result").is_some(), "tasks/get: {reply:?}");
        reply.body["result"].clone()
    }

    /// `tasks/update` with `inputResponses`.
    pub async fn update_task(&mut self, task_id: &str, responses: Value) -> Reply {
        self.rpc(
            "tasks/update",
            json!({"taskId": task_id, "inputResponses": responses}),
        )
        .await
    }
}

/// The `taskId` of a `CreateTaskResult`.
pub fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a taskId: {created}"))
        .to_owned()
}

/// The one key of `inputRequests` starting with `prefix`.
pub fn input_key(task: &Value, prefix: &str) -> String {
    task["inputRequests"]
        .as_object()
        .unwrap_or_else(|| panic!("inputRequests: {task}"))
        .keys()
        .find(|k| k.starts_with(prefix))
        .unwrap_or_else(|| panic!("a `{prefix}` key: {task}"))
        .clone()
}

impl Mock {
    /// An initialized handshake session that declared `capabilities` (e.g. elicitation).
    pub async fn session_with(
        &self,
        token: &str,
        version: &str,
        capabilities: Value,
    ) -> super::Client {
        let mut client = super::Client {
            mock: self.clone(),
            token: Some(token.to_owned()),
            session: None,
            version: version.to_owned(),
            next_id: 1,
        };
        let init = client
            .rpc(
                "initialize",
                json!({"protocolVersion": version, "capabilities": capabilities,
                       "clientInfo": {"name": "tests", "version": "1"}}),
            )
            .await;
        assert_eq!(init.status, StatusCode::OK, "initialize: {init:?}");
        client.session = init
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        client
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }
}

/// Calls `call_perplexity_computer` with `message` and answers each `elicitation/create` on the
/// stream with `respond(params)` (after opening its `url` first, when `open` is set, as a user
/// who finishes on the page); returns the elicitation params seen and the final result.
pub async fn call_answering(
    client: &super::Client,
    message: &str,
    open: bool,
    respond: impl Fn(&Value) -> Value,
) -> (Vec<Value>, Value) {
    let session = client.session.clone().expect("session");
    let body = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
                      "params": {"name": "call_perplexity_computer", "arguments": {"message": message}}});
    let request = Request::post(MCP)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer alice-dev-token")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", &client.version)
        .body(Body::from(body.to_string()))
        .expect("request");
    let response = client
        .mock
        .router
        .clone()
        .oneshot(request)
        .await
        .expect("infallible");
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/event-stream")
    );
    let mut body = response.into_body();
    let mut buffer = String::new();
    let mut seen = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.expect("frame");
        let Some(data) = frame.data_ref() else {
            continue;
        };
        buffer.push_str(&String::from_utf8_lossy(data));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let Some(json) = event
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .filter(|d| !d.is_empty())
            else {
                continue;
            };
            let message: Value = serde_json::from_str(json).expect("json");
            if message["method"] == "elicitation/create" {
                seen.push(message["params"].clone());
                if open {
                    let url = message["params"]["url"].as_str().unwrap_or("");
                    assert_eq!(client.mock.get(url).await.status, 200);
                }
                let reply = client
                    .post(json!({"jsonrpc": "2.0", "id": message["id"],
                                 "result": respond(&message["params"])}))
                    .await;
                assert_eq!(reply.status, 202);
            } else if message["id"] == 77 {
                return (seen, message["result"].clone());
            }
        }
    }
    panic!("the stream ended without a result; elicitations: {seen:?}");
}
