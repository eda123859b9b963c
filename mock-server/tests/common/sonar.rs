//! Sonar helpers: requests to the chat completions, async, search and embeddings routes, and
//! the redactions their snapshots use.

use serde_json::{Value, json};

use super::agent::ALICE;
use super::{Mock, Reply};

impl Mock {
    /// `POST path` as `token` with a JSON body.
    pub async fn sonar_post(&self, path: &str, token: &str, body: Value) -> Reply {
        self.agent_send("POST", path, token, Some(body.to_string()))
            .await
    }

    /// `POST /chat/completions` as alice.
    pub async fn chat(&self, body: Value) -> Reply {
        self.sonar_post("/chat/completions", ALICE, body).await
    }

    /// `POST /search` as alice.
    pub async fn search(&self, body: Value) -> Reply {
        self.sonar_post("/search", ALICE, body).await
    }
}

/// A chat completions body asking `question` of `model`.
pub fn ask(model: &str, question: &str) -> Value {
    json!({"model": model, "messages": [{"role": "user", "content": question}]})
}

/// `body` with `key` set to `value`.
pub fn with(mut body: Value, key: &str, value: Value) -> Value {
    body[key] = value;
    body
}

/// The text of a completion's message.
pub fn content(completion: &Value) -> String {
    completion["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Replaces ids and timestamps with placeholders, so a snapshot shows shapes and text.
pub fn redact(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let shown = match (k.as_str(), v) {
                        ("id", Value::String(_)) => Value::String("[id]".into()),
                        (
                            "created" | "created_at" | "started_at" | "completed_at" | "failed_at",
                            Value::Number(_),
                        ) => Value::String("[timestamp]".into()),
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
