//! `mock-server verify`: the requests of a fixture's `recording`, sent again to an upstream in
//! order, each answer compared in shape with the recorded one ([`super::shape`]).
//!
//! A recorded request names what an earlier answer minted (a session, a thread, a task) by its
//! placeholder (`<session-1>`, `<uuid-2>`, `<task-1>`); the first answer that shows a placeholder
//! where the live answer has a value binds it, and later requests carry the live value.
//! JSON-RPC ids (`<id-N>`) become N, and `<token-N>` the token given to `verify`.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::error::RecordError;
use super::shape::{self, Difference};
use crate::journal::{Exchange, Normalizer, SseRecord};

/// How `verify` runs.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The upstream's base URL.
    pub upstream: String,
    /// The bearer token sent where the recording had one.
    pub token: Option<String>,
    /// Wait between requests as long as the recorded client did.
    pub wait: bool,
    /// How long to read an event stream that does not end.
    pub stream_timeout: Duration,
}

/// What one exchange showed.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Its place in the recording, from 1.
    pub number: usize,
    /// `POST /rest/computer/mcp tools/call call_perplexity_computer`.
    pub label: String,
    /// Where the answer now differs.
    pub differences: Vec<Difference>,
}

/// Every exchange, checked.
#[derive(Debug, Clone, Default)]
pub struct Verification {
    /// In recorded order.
    pub checked: Vec<Checked>,
}

impl Verification {
    /// Whether no answer differs.
    pub fn matches(&self) -> bool {
        self.checked.iter().all(|c| c.differences.is_empty())
    }
}

impl std::fmt::Display for Verification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for checked in &self.checked {
            if checked.differences.is_empty() {
                writeln!(f, "ok    {:>3} {}", checked.number, checked.label)?;
            } else {
                writeln!(f, "DIFF  {:>3} {}", checked.number, checked.label)?;
                for difference in &checked.differences {
                    writeln!(f, "        {difference}")?;
                }
            }
        }
        let differing = self
            .checked
            .iter()
            .filter(|c| !c.differences.is_empty())
            .count();
        write!(
            f,
            "{} exchanges replayed, {differing} differ in shape from the recording",
            self.checked.len()
        )
    }
}

/// Reads a fixture's `recording`.
pub fn recorded_exchanges(path: &Path) -> Result<Vec<Value>, RecordError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| RecordError::File(path.into(), e.to_string()))?;
    let fixture: Value =
        serde_json::from_str(&text).map_err(|e| RecordError::File(path.into(), e.to_string()))?;
    fixture
        .pointer("/recording/exchanges")
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| RecordError::NotRecorded(path.into()))
}

/// Replays `recorded` against the upstream and compares every answer.
pub async fn verify(
    recorded: &[Value],
    options: &VerifyOptions,
) -> Result<Verification, RecordError> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| RecordError::Upstream(e.to_string()))?;
    let upstream = options.upstream.trim_end_matches('/');
    let mut bindings: HashMap<String, Value> = HashMap::new();
    let mut report = Verification::default();
    for (i, item) in recorded.iter().enumerate() {
        if options.wait
            && let Some(wait) = item.get("wait_ms").and_then(Value::as_u64)
        {
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
        let request = item.get("request").cloned().unwrap_or(Value::Null);
        let expected = item.get("response").cloned().unwrap_or(Value::Null);
        let label = label(&request);
        let live = match send(&client, upstream, &request, &bindings, options, &expected).await {
            Ok(live) => live,
            Err(error) => {
                report.checked.push(Checked {
                    number: i + 1,
                    label,
                    differences: vec![Difference {
                        at: "response".into(),
                        what: error,
                    }],
                });
                continue;
            }
        };
        let Some(live_response) = Normalizer::new().view(&live).get("response").cloned() else {
            continue;
        };
        bind(&expected, &live_response, &mut bindings);
        // JSON-RPC ids were numbers before they became `<id-N>`.
        let expected = fill(&expected, &bindings, None);
        report.checked.push(Checked {
            number: i + 1,
            label,
            differences: differences(&expected, &live_response),
        });
    }
    Ok(report)
}

/// `METHOD path` and, for JSON-RPC, the method and tool.
fn label(request: &Value) -> String {
    let mut label = format!(
        "{} {}",
        request["method"].as_str().unwrap_or("?"),
        request["path"].as_str().unwrap_or("?")
    );
    if let Some(method) = request.pointer("/body/method").and_then(Value::as_str) {
        label.push(' ');
        label.push_str(method);
    }
    if let Some(tool) = request.pointer("/body/params/name").and_then(Value::as_str) {
        label.push(' ');
        label.push_str(tool);
    }
    label
}

/// Status, headers kept by the normaliser, the body's shape, the stream's kinds of events.
fn differences(expected: &Value, live: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    if expected["status"] != live["status"] {
        out.push(Difference {
            at: "response.status".into(),
            what: format!(
                "HTTP status changed: {} recorded, {} now",
                expected["status"], live["status"]
            ),
        });
    }
    match (expected.get("events"), live.get("events")) {
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            let (ka, kb) = (shape::event_kinds(a), shape::event_kinds(b));
            if ka != kb {
                out.push(Difference {
                    at: "response.events".into(),
                    what: format!("events changed: {ka:?} recorded, {kb:?} now"),
                });
            }
            if let (Some(a), Some(b)) = (a.last(), b.last()) {
                out.extend(shape::compare(a, b, "response.events[last]"));
            }
        }
        (Some(_), None) => out.push(Difference {
            at: "response.events".into(),
            what: "an event stream was recorded, a plain body came now".into(),
        }),
        (None, Some(_)) => out.push(Difference {
            at: "response.events".into(),
            what: "a plain body was recorded, an event stream came now".into(),
        }),
        _ => out.extend(shape::compare(
            expected.get("body").unwrap_or(&Value::Null),
            live.get("body").unwrap_or(&Value::Null),
            "response.body",
        )),
    }
    out
}

/// Whether a string is one whole placeholder (`<thread-1>`).
fn placeholder(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('<').and_then(|t| t.strip_suffix('>')) else {
        return false;
    };
    inner.rsplit_once('-').is_some_and(|(kind, n)| {
        kind.chars().all(|c| c.is_ascii_lowercase()) && n.parse::<u64>().is_ok()
    })
}

/// Binds every placeholder of the recorded answer to the live value at the same place.
fn bind(recorded: &Value, live: &Value, bindings: &mut HashMap<String, Value>) {
    match (recorded, live) {
        (Value::String(p), live) if placeholder(p) => {
            bindings.entry(p.clone()).or_insert_with(|| live.clone());
        }
        (Value::String(_), Value::String(_)) => {
            if let (Some(a), Some(b)) = (as_json(recorded), as_json(live)) {
                bind(&a, &b, bindings);
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                if let Some(other) = b.get(key) {
                    bind(value, other, bindings);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (x, y) in a.iter().zip(b) {
                bind(x, y, bindings);
            }
        }
        _ => {}
    }
}

fn as_json(value: &Value) -> Option<Value> {
    let text = value.as_str()?;
    text.trim_start()
        .starts_with('{')
        .then(|| serde_json::from_str(text).ok())
        .flatten()
}

/// The recorded value with placeholders replaced by what they are bound to.
fn fill(value: &Value, bindings: &HashMap<String, Value>, token: Option<&str>) -> Value {
    match value {
        Value::String(text) => fill_text(text, bindings, token),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| fill(v, bindings, token)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = match fill_text(k, bindings, token) {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (key, fill(v, bindings, token))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn fill_text(text: &str, bindings: &HashMap<String, Value>, token: Option<&str>) -> Value {
    if placeholder(text) {
        if let Some(bound) = bindings.get(text) {
            return bound.clone();
        }
        if let Some(n) = text.strip_prefix("<id-").and_then(|t| t.strip_suffix('>')) {
            return n.parse::<u64>().map_or_else(|_| json!(text), |n| json!(n));
        }
    }
    if let Some(json) = as_json(&Value::String(text.to_owned())) {
        return Value::String(fill(&json, bindings, token).to_string());
    }
    let mut out = text.to_owned();
    for (name, bound) in bindings {
        if let Value::String(bound) = bound
            && out.contains(name.as_str())
        {
            out = out.replace(name.as_str(), bound);
        }
    }
    if let Some(token) = token {
        while let Some(start) = out.find("<token-") {
            let Some(end) = out[start..].find('>') else {
                break;
            };
            out.replace_range(start..start + end + 1, token);
        }
    }
    Value::String(out)
}

/// A form or query object back as `a=1&b=2`.
fn encode(params: &Map<String, Value>) -> String {
    let mut pairs = Vec::new();
    for (name, value) in params {
        let values = match value {
            Value::Array(all) => all.clone(),
            one => vec![one.clone()],
        };
        for value in values {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            pairs.push(format!(
                "{}={}",
                crate::percent_encode(name),
                crate::percent_encode(&value)
            ));
        }
    }
    pairs.join("&")
}

/// Sends one recorded request (placeholders filled) and reads the answer as an [`Exchange`].
async fn send(
    client: &reqwest::Client,
    upstream: &str,
    request: &Value,
    bindings: &HashMap<String, Value>,
    options: &VerifyOptions,
    expected: &Value,
) -> Result<Exchange, String> {
    let request = fill(request, bindings, options.token.as_deref());
    let method = request["method"].as_str().unwrap_or("GET");
    let path = request["path"].as_str().unwrap_or("/");
    let mut url = format!("{upstream}{path}");
    if let Some(query) = request.get("query").and_then(Value::as_object) {
        url = format!("{url}?{}", encode(query));
    }
    let method = http::Method::from_bytes(method.as_bytes()).map_err(|e| e.to_string())?;
    let mut builder = client.request(method.clone(), &url);
    for (name, value) in request
        .get("headers")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let Some(value) = value.as_str() else {
            continue;
        };
        if name == "authorization" && value.contains("<token-") {
            continue; // no token given: send none
        }
        builder = builder.header(name.as_str(), value);
    }
    if let Some(form) = request.get("form").and_then(Value::as_object) {
        builder = builder.body(encode(form));
    } else if let Some(body) = request.get("body").filter(|b| !b.is_null()) {
        builder = match body {
            Value::String(text) => builder.body(text.clone()),
            other => builder.body(other.to_string()),
        };
    }
    let mut response = builder.send().await.map_err(|e| {
        format!(
            "the upstream did not answer: {}",
            super::error::describe(&e)
        )
    })?;
    let mut live = Exchange::new(
        0,
        method.as_str(),
        path,
        response.status().as_u16(),
        crate::Clock::fixed_epoch(),
    );
    live.response_headers = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                json!(String::from_utf8_lossy(v.as_bytes())),
            )
        })
        .collect();
    let stream = live
        .response_headers
        .get("content-type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let wanted = expected
        .get("events")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut body = Vec::new();
    loop {
        let chunk = if stream {
            match tokio::time::timeout(options.stream_timeout, response.chunk()).await {
                Ok(chunk) => chunk,
                Err(_) => break,
            }
        } else {
            response.chunk().await
        };
        match chunk {
            Ok(Some(bytes)) => body.extend_from_slice(&bytes),
            Ok(None) => break,
            Err(e) => return Err(format!("the answer broke off: {e}")),
        }
        if stream && wanted > 0 && events(&body).len() >= wanted {
            break;
        }
    }
    if stream {
        live.sse_events = events(&body)
            .into_iter()
            .map(|data| SseRecord {
                data,
                virtual_time: crate::Clock::fixed_epoch(),
            })
            .collect();
    } else if !body.is_empty() {
        live.response_body = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    }
    Ok(live)
}

/// The data of each complete event of a stream read so far.
fn events(body: &[u8]) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some((end, blank)) = crate::http::sse::event_end(rest) {
        if let Some(data) = crate::http::sse::parse_event(&rest[..end]).data {
            out.push(serde_json::from_str(&data).unwrap_or(Value::String(data)));
        }
        rest = &rest[end + blank..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_bind_to_live_values_and_fill_later_requests() {
        let mut bindings = HashMap::new();
        bind(
            &json!({"headers": {"mcp-session-id": "<session-1>"}, "body": {"id": "<id-1>", "result": {"content": [{"text": "{\"thread_id\":\"<uuid-1>\"}"}]}}}),
            &json!({"headers": {"mcp-session-id": "s-9"}, "body": {"id": 1, "result": {"content": [{"text": "{\"thread_id\":\"t-7\"}"}]}}}),
            &mut bindings,
        );
        let filled = fill(
            &json!({"headers": {"mcp-session-id": "<session-1>", "authorization": "Bearer <token-1>"},
                    "body": {"id": "<id-2>", "params": {"arguments": {"thread_id": "<uuid-1>"}}}}),
            &bindings,
            Some("tok"),
        );
        assert_eq!(
            filled,
            json!({"headers": {"mcp-session-id": "s-9", "authorization": "Bearer tok"},
                   "body": {"id": 2, "params": {"arguments": {"thread_id": "t-7"}}}})
        );
        assert!(placeholder("<thread-12>") && !placeholder("<html: x>") && !placeholder("a<id-1>"));
    }
}
