//! A deterministic view of the journal, for snapshot tests of what a client sent and what the
//! mock answered: two runs of the same client give byte-identical output, on any machine.
//!
//! Each exchange becomes `{"request": {...}, "response": {...}}`:
//! - the request's method, path, decoded query (`query`), the headers below, and its body (JSON
//!   as sent; a form as an object under `form`);
//! - the response's status, the headers below, and its body: JSON, `events` (the JSON-RPC
//!   messages of an SSE stream, decoded), or an HTML page as `"<html: its title>"`;
//! - sequence numbers, lengths and both clocks' timestamps are left out.
//!
//! Only headers that carry protocol meaning are kept (request: `accept`, `authorization`,
//! `content-type`, `last-event-id`, `mcp-method`, `mcp-name`, `mcp-protocol-version`,
//! `mcp-session-id`; response: `content-type`, `location`, `mcp-session-id`,
//! `www-authenticate`); the rest (`host` with its port, `date`, `user-agent`, lengths, an SDK's
//! platform headers) vary between runs or machines. [`Normalizer::keep_header`] adds one.
//!
//! Then every value that differs between runs becomes a placeholder numbered per kind in order
//! of first appearance, the same value the same placeholder everywhere: `<id-N>` (JSON-RPC ids),
//! `<token-N>` (credentials, already fingerprints in the journal), `<thread-N>`, `<task-N>`,
//! `<session-N>`, `<random-N>` (a client's OAuth `state`, `code_challenge`, `nonce`),
//! `<uuid-N>` (UUIDs and 32-hex ids), `<hex-N>` (other runs of 16 or more hex digits),
//! `<base64-N>` (long base64 values), `<time-N>` (timestamps) and `<port-N>` (loopback ports),
//! in keys as in values. Object keys are sorted, and JSON carried as text (a tool result's text
//! block) is normalised as JSON.
//!
//! A client that polls does so as often as its speed allows, so a run of consecutive exchanges
//! that are identical but for their ids and times (or of identical consecutive pairs, such as a
//! poll and a look at the user's channel) is shown once, marked `"repeats"`.

mod placeholders;

use serde_json::{Map, Value, json};

use super::exchange::Exchange;
use crate::http::encoding::percent_decode;

/// Request headers kept by default.
const REQUEST_HEADERS: &[&str] = &[
    "accept",
    "authorization",
    "content-type",
    "last-event-id",
    "mcp-method",
    "mcp-name",
    "mcp-protocol-version",
    "mcp-session-id",
];

/// Response headers kept by default.
const RESPONSE_HEADERS: &[&str] = &[
    "content-type",
    "location",
    "mcp-session-id",
    "www-authenticate",
];

/// What `repeats` says on an exchange that came again.
const REPEATED_ONE: &str = "this item, again one or more times";
/// What `repeats` says on the first of a pair that came again.
const REPEATED_PAIR: &str = "this item and the next, again one or more times";

/// How the journal is normalised; [`normalize`] uses the defaults.
///
/// ```
/// use mock_server::journal::{Normalizer, normalize};
///
/// let journal = vec![mock_server::Exchange::new(0, "GET", "/_mock/clock", 200, mock_server::Clock::fixed_epoch())];
/// let same = Normalizer::new().keep_header("x-trace").normalize(&journal);
/// assert_eq!(same, normalize(&journal));
/// assert_eq!(same[0]["request"]["path"], "/_mock/clock");
/// ```
#[derive(Debug, Clone)]
pub struct Normalizer {
    extra_headers: Vec<String>,
    collapse: bool,
}

impl Default for Normalizer {
    fn default() -> Self {
        Self::new()
    }
}

impl Normalizer {
    /// The default normaliser: protocol headers only, repeated polls collapsed.
    pub fn new() -> Self {
        Self {
            extra_headers: Vec::new(),
            collapse: true,
        }
    }

    /// Also keeps this header (any case) on requests and responses, as recorded.
    pub fn keep_header(mut self, name: &str) -> Self {
        self.extra_headers.push(name.to_ascii_lowercase());
        self
    }

    /// Shows every exchange, even consecutive identical ones (their number then depends on the
    /// client's speed).
    pub fn keep_repeats(mut self) -> Self {
        self.collapse = false;
        self
    }

    /// The journal normalised: a JSON array with one object per exchange (see the module docs).
    pub fn normalize(&self, exchanges: &[Exchange]) -> Value {
        self.normalize_items(exchanges.iter().map(|e| self.view(e)).collect())
    }

    /// Any items (exchange [views](Self::view) and other JSON objects, such as a log of what a
    /// client showed its user) normalised together as one document: repeats collapsed, then the
    /// placeholders numbered across all of them.
    pub fn normalize_items(&self, items: Vec<Value>) -> Value {
        let items = if self.collapse {
            collapse(items)
        } else {
            items
        };
        placeholders::stabilize(&Value::Array(items))
    }

    /// One exchange in the normalised shape, before placeholders (which
    /// [`normalize_items`](Self::normalize_items) puts in across a whole document).
    pub fn view(&self, exchange: &Exchange) -> Value {
        let mut request = Map::new();
        request.insert("method".into(), json!(exchange.method));
        request.insert("path".into(), json!(exchange.path));
        if let Some(query) = &exchange.query {
            request.insert("query".into(), params(query));
        }
        let headers = self.headers(&exchange.request_headers, REQUEST_HEADERS);
        if !headers.is_empty() {
            request.insert("headers".into(), Value::Object(headers));
        }
        let form = exchange
            .request_headers
            .get("content-type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
        match (&exchange.request_body, form) {
            (Value::Null, _) => {}
            (Value::String(text), true) => {
                request.insert("form".into(), params(text));
            }
            (body, _) => {
                request.insert("body".into(), body.clone());
            }
        }
        if exchange.request_body_truncated {
            request.insert("body_truncated".into(), json!(true));
        }
        let mut response = Map::new();
        response.insert("status".into(), json!(exchange.status));
        let headers = self.headers(&exchange.response_headers, RESPONSE_HEADERS);
        if !headers.is_empty() {
            response.insert("headers".into(), Value::Object(headers));
        }
        if !exchange.sse_events.is_empty() || exchange.sse_events_dropped > 0 {
            let events: Vec<Value> = exchange.sse_events.iter().map(|e| e.data.clone()).collect();
            response.insert("events".into(), Value::Array(events));
            if exchange.sse_events_dropped > 0 {
                response.insert("events_truncated".into(), json!(true));
            }
        } else if !exchange.response_body.is_null() {
            response.insert("body".into(), body(&exchange.response_body));
        }
        if exchange.response_body_truncated {
            response.insert("body_truncated".into(), json!(true));
        }
        json!({"request": request, "response": response})
    }

    fn headers(&self, recorded: &Map<String, Value>, kept: &[&str]) -> Map<String, Value> {
        recorded
            .iter()
            .filter(|(name, _)| {
                kept.contains(&name.as_str()) || self.extra_headers.iter().any(|h| h == *name)
            })
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    }
}

/// The journal normalised with the defaults: what `GET /_mock/journal?normalize=true` serves,
/// and a value to hand to `insta::assert_json_snapshot!`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mock = mock_server::MockServer::start().await?;
/// reqwest::Client::new()
///     .post(mock.mcp_url())
///     .bearer_auth("alice-dev-token")
///     .header("accept", "application/json, text/event-stream")
///     .json(&serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
///         "protocolVersion": "2025-11-25", "capabilities": {},
///         "clientInfo": {"name": "my-client", "version": "1"}}}))
///     .send()
///     .await?;
/// let normalized = mock_server::journal::normalize(&mock.journal().exchanges());
/// assert_eq!(normalized[0]["request"]["headers"]["authorization"], "Bearer <token-1>");
/// assert_eq!(normalized[0]["response"]["headers"]["mcp-session-id"], "<session-1>");
/// insta::assert_json_snapshot!(normalized[0]["request"]["body"], @r#"
/// {
///   "id": "<id-1>",
///   "jsonrpc": "2.0",
///   "method": "initialize",
///   "params": {
///     "capabilities": {},
///     "clientInfo": {
///       "name": "my-client",
///       "version": "1"
///     },
///     "protocolVersion": "2025-11-25"
///   }
/// }
/// "#);
/// # Ok(()) }
/// ```
pub fn normalize(exchanges: &[Exchange]) -> Value {
    Normalizer::new().normalize(exchanges)
}

/// A query string or form body as an object (percent-decoded; a repeated name keeps every value
/// as an array).
fn params(text: &str) -> Value {
    let mut out = Map::new();
    for pair in text.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let (name, value) = (percent_decode(name), Value::String(percent_decode(value)));
        match out.get_mut(&name) {
            Some(Value::Array(values)) => values.push(value),
            Some(first) => *first = Value::Array(vec![first.take(), value]),
            None => {
                out.insert(name, value);
            }
        }
    }
    Value::Object(out)
}

/// A response body: JSON as it is, an HTML page by its title (the markup says nothing about the
/// protocol and carries the random ids of its forms), other text as it is.
fn body(value: &Value) -> Value {
    let Value::String(text) = value else {
        return value.clone();
    };
    let lower = text.trim_start().to_ascii_lowercase();
    if !(lower.starts_with("<!doctype html") || lower.starts_with("<html")) {
        return value.clone();
    }
    let title = text
        .split_once("<title>")
        .and_then(|(_, rest)| rest.split_once("</title>"))
        .map_or("", |(title, _)| title.trim());
    Value::String(format!("<html: {title}>"))
}

/// Whether two items are the same but for their JSON-RPC ids and times.
fn same(a: &[&Value], b: &[&Value]) -> bool {
    let pair: Vec<Value> = a.iter().chain(b).map(|v| (*v).clone()).collect();
    let stabilized = placeholders::stabilize(&Value::Array(pair));
    let Value::Array(items) = stabilized else {
        return false;
    };
    let (left, right) = items.split_at(a.len());
    left.iter()
        .zip(right)
        .all(|(l, r)| placeholders::masked(l) == placeholders::masked(r))
}

/// Consecutive repeats (of one item, or of a pair) kept once, marked `repeats`.
fn collapse(items: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::with_capacity(items.len());
    let mut i = 0;
    while i < items.len() {
        let mut next = i + 1;
        while next < items.len() && same(&[&items[i]], &[&items[next]]) {
            next += 1;
        }
        if next > i + 1 {
            out.push(marked(&items[i], REPEATED_ONE));
            i = next;
            continue;
        }
        let mut next = i + 2;
        while next + 1 < items.len()
            && i + 1 < items.len()
            && same(
                &[&items[i], &items[i + 1]],
                &[&items[next], &items[next + 1]],
            )
        {
            next += 2;
        }
        if next > i + 2 {
            out.push(marked(&items[i], REPEATED_PAIR));
            out.push(items[i + 1].clone());
            i = next;
            continue;
        }
        out.push(items[i].clone());
        i += 1;
    }
    out
}

fn marked(item: &Value, repeats: &str) -> Value {
    let mut item = item.clone();
    if let Some(map) = item.as_object_mut() {
        map.insert("repeats".into(), json!(repeats));
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_and_a_form_decode_into_objects() {
        assert_eq!(
            params("a=1&b=x%20y&a=2&c"),
            json!({"a": ["1", "2"], "b": "x y", "c": ""})
        );
    }

    #[test]
    fn an_html_page_is_shown_by_its_title() {
        let page = json!(
            "<!doctype html><html><head><title>Sign in</title></head><body>form</body></html>"
        );
        assert_eq!(body(&page), json!("<html: Sign in>"));
        assert_eq!(body(&json!("plain")), json!("plain"));
    }

    #[test]
    fn repeats_of_one_item_and_of_a_pair_collapse() {
        let poll = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get"});
        let look = json!({"user": "interrupt"});
        let items = vec![
            json!({"first": true}),
            poll(1),
            poll(2),
            poll(3),
            poll(4),
            look.clone(),
            poll(5),
            look.clone(),
            poll(6),
            look.clone(),
            json!({"last": true}),
        ];
        let out = collapse(items);
        assert_eq!(
            out,
            vec![
                json!({"first": true}),
                json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "repeats": REPEATED_ONE}),
                json!({"user": "interrupt", "repeats": REPEATED_PAIR}),
                json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/get"}),
                json!({"user": "interrupt"}),
                json!({"last": true}),
            ]
        );
    }
}
