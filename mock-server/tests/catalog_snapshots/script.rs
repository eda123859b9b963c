//! The scripted client every catalog snapshot test drives: it calls tools as a well-behaved
//! client would, checks each result against the tool's `outputSchema`, and snapshots the whole
//! exchange with ids numbered in order of appearance.

use std::collections::HashMap;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use crate::common::{self, Client, Mock, text_json};

/// A scripted client conversation and everything it saw.
pub(super) struct Script {
    pub(super) mock: Mock,
    pub(super) client: Client,
    pub(super) log: Vec<Value>,
    /// Each tool's `outputSchema`, from `tools/list`.
    output_schemas: HashMap<String, Value>,
}

impl Script {
    pub(super) async fn new() -> Self {
        let mock = Mock::new();
        let mut client = mock.session("alice-dev-token").await;
        let list = client.rpc("tools/list", json!({})).await;
        let output_schemas = list.body["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|tool| {
                let schema = tool.get("outputSchema")?.clone();
                Some((tool["name"].as_str()?.to_owned(), schema))
            })
            .collect();
        Self {
            mock,
            client,
            log: Vec::new(),
            output_schemas,
        }
    }

    /// Calls a tool, records it, and returns the task JSON (first text block).
    pub(super) async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.client.call(tool, arguments.clone()).await;
        self.check_output_schema(tool, &result);
        self.log.push(json!({
            "tool": tool,
            "arguments": arguments,
            "result": shown(&result),
        }));
        text_json(&result)
    }

    /// What SDK clients enforce: a tool that declares an `outputSchema` returns conforming
    /// `structuredContent` on every result that is not an error.
    fn check_output_schema(&self, tool: &str, result: &Value) {
        let Some(schema) = self.output_schemas.get(tool) else {
            return;
        };
        if result["isError"] == true {
            return;
        }
        let structured = result
            .get("structuredContent")
            .unwrap_or_else(|| panic!("{tool} declares an outputSchema but sent none: {result}"));
        let validator = jsonschema::validator_for(schema).expect("outputSchema compiles");
        let problems: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            problems.is_empty(),
            "{tool} result does not match its outputSchema: {problems:?}\n{structured}"
        );
    }

    /// Opens a URL the mock handed out, as a browser would (GET), records the status, and
    /// says whether the page has a button to press.
    pub(super) async fn open(&mut self, url: &str) -> bool {
        let reply = self.mock.get(url).await;
        self.log
            .push(json!({"open": url, "status": reply.status.as_u16()}));
        reply
            .body
            .as_str()
            .is_some_and(|page| page.contains("<form"))
    }

    /// Opens a sign-in page and, when it asks for it, presses its button.
    pub(super) async fn sign_in(&mut self, url: &str) {
        if self.open(url).await {
            self.submit(url).await;
        }
    }

    /// Presses the button on a page the mock served (POST), and records the status.
    pub(super) async fn submit(&mut self, url: &str) {
        let reply = self.mock.post_json(url, json!({})).await;
        self.log
            .push(json!({"submit": url, "status": reply.status.as_u16()}));
    }

    /// Lets virtual time pass.
    pub(super) fn advance(&mut self, by: Duration) {
        self.mock.advance(by);
        self.log
            .push(json!({"advance_clock_seconds": by.as_secs()}));
    }

    pub(super) fn snapshot(self, scenario: &str) {
        let log = number_ids(&Value::Array(self.log));
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "catalog scenario `{scenario}`: the client's calls and what the mock answered"
        ));
        // A safety net: any id the numbering missed is still redacted.
        settings.add_filter(
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[uuid]",
        );
        settings.add_filter(r"asset_[0-9a-f]{32}", "[asset]");
        settings.add_filter(r"\b[0-9a-f]{32}\b", "[token]");
        // An upload policy is base64 of JSON holding the envelope's random key.
        settings.add_filter(
            r#""policy": "[A-Za-z0-9+/=]+""#,
            r#""policy": "[base64 policy]""#,
        );
        settings.bind(|| {
            insta::assert_json_snapshot!(format!("catalog-{scenario}"), log);
        });
    }
}

/// A `CallToolResult` as shown in a snapshot.
fn shown(result: &Value) -> Value {
    let mut result = result.clone();
    let structured = result.get("structuredContent").cloned();
    if let Some(blocks) = result.get_mut("content").and_then(Value::as_array_mut) {
        for block in blocks {
            let Some(text) = block.get("text").and_then(Value::as_str) else {
                continue;
            };
            let Ok(parsed) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            block["text"] = if Some(&parsed) == structured.as_ref() {
                json!("(same JSON as structuredContent)")
            } else {
                parsed
            };
        }
    }
    result
}

/// Replaces every UUID, asset id and 32-hex token with a numbered placeholder, the same id
/// always getting the same number, so a snapshot still shows which ids are equal.
fn number_ids(value: &Value) -> Value {
    let pattern = Regex::new(
        r"asset_[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b",
    )
    .expect("id pattern");
    let text = serde_json::to_string(value).expect("serializable");
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut counts: HashMap<&'static str, usize> = HashMap::new();
    let numbered = pattern.replace_all(&text, |caps: &regex::Captures<'_>| {
        let id = caps[0].to_owned();
        seen.entry(id.clone())
            .or_insert_with(|| {
                let kind = if id.starts_with("asset_") {
                    "asset"
                } else if id.contains('-') {
                    "uuid"
                } else {
                    "token"
                };
                let n = counts.entry(kind).or_default();
                *n += 1;
                format!("[{kind}-{n}]")
            })
            .clone()
    });
    serde_json::from_str(&numbered).expect("still JSON")
}

pub(super) fn thread(result: &Value) -> String {
    common::thread_id(result)
}

pub(super) fn field(value: &Value, pointer: &str) -> String {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("{pointer} in {value}"))
        .to_owned()
}
