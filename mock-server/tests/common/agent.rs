//! Agent API helpers: authenticated requests and the redactions snapshots use.

use axum::body::Body;
use http::Request;
use serde_json::Value;

use super::{Mock, Reply};

/// The dev token of `alice` (paid, connectors connected).
pub const ALICE: &str = "alice-dev-token";
/// The dev token of `bob` (free, zero data retention).
pub const BOB: &str = "bob-dev-token";

impl Mock {
    /// `POST /v1/responses` as `token` with a JSON body.
    pub async fn agent_create(&self, token: &str, body: Value) -> Reply {
        self.agent_send("POST", "/v1/responses", token, Some(body.to_string()))
            .await
    }

    /// An Agent API request with a raw body.
    pub async fn agent_send(
        &self,
        method: &str,
        path: &str,
        token: &str,
        body: Option<String>,
    ) -> Reply {
        let mut request = Request::builder().method(method).uri(path);
        if !token.is_empty() {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let request = request
            .body(body.map_or_else(Body::empty, Body::from))
            .expect("request");
        self.send(request).await
    }

    /// `GET` of an Agent API path as `token`.
    pub async fn agent_get(&self, token: &str, path: &str) -> Reply {
        self.agent_send("GET", path, token, None).await
    }

    /// Polls a background response as alice until it leaves `queued`/`in_progress`. Each pause
    /// is virtual (the tokio clock is paused), so the run's scripted steps advance and no wall
    /// time passes.
    pub async fn agent_finished(&self, id: &str) -> Value {
        let path = format!("/v1/responses/{id}");
        for _ in 0..2000 {
            let reply = self.agent_get(ALICE, &path).await;
            let status = reply.body["status"].as_str().unwrap_or_default();
            if status != "queued" && status != "in_progress" {
                return reply.body;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("{id} did not finish");
    }

    /// `POST` without a body (cancel) as `token`.
    pub async fn agent_post(&self, token: &str, path: &str) -> Reply {
        self.agent_send("POST", path, token, None).await
    }
}

/// The `type`s of a response's output items.
pub fn item_types(response: &Value) -> Vec<String> {
    response["output"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["type"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The `type`s of stream events.
pub fn event_types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| e["type"].as_str().map(str::to_owned))
        .collect()
}

/// Replaces ids and timestamps with stable placeholders, so a snapshot shows shapes and text.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let shown = match (k.as_str(), v) {
                        (
                            "id"
                            | "response_id"
                            | "item_id"
                            | "call_id"
                            | "approval_request_id"
                            | "file_id",
                            Value::String(s),
                        ) => Value::String(placeholder(s)),
                        ("created_at" | "completed_at", Value::Number(_)) => {
                            Value::String("[timestamp]".into())
                        }
                        ("url", Value::String(s)) if s.contains("/files/") => {
                            Value::String("[file url]".into())
                        }
                        _ => redact(v),
                    };
                    (k.clone(), shown)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(redact).collect()),
        other => other.clone(),
    }
}

fn placeholder(id: &str) -> String {
    match id.split_once('_') {
        Some((prefix, _)) if !prefix.is_empty() => format!("{prefix}_[id]"),
        _ => "[id]".into(),
    }
}
