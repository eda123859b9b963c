//! Stable placeholders for the values that differ between two runs of the same client: each
//! distinct value of a kind becomes `<kind-N>`, numbered per kind in order of first appearance,
//! so the same value is the same placeholder everywhere in a document and two runs that did the
//! same thing read the same.
//!
//! Two passes over the document, keys in sorted order: the first learns the values recognised by
//! where they stand and looked for inside other strings too (a `thread_id`, also inside a URL);
//! the second rewrites the document and numbers everything else as it comes (JSON-RPC ids, and
//! values recognised by their shape, such as a UUID or a timestamp).

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::{Map, Value};

/// What a placeholder stands for; the name is the placeholder's prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// A JSON-RPC `id` (by its JSON text).
    Id,
    /// A credential, already a fingerprint (`redacted:…`) in the journal.
    Token,
    /// A Computer thread id.
    Thread,
    /// An MCP task id.
    Task,
    /// An `Mcp-Session-Id`.
    Session,
    /// A random OAuth value the client picks (`state`, `code_challenge`, `nonce`).
    Random,
    /// A UUID, or 32 hex digits (a UUID without its hyphens).
    Uuid,
    /// Another run of 16 or more hex digits (an id, a hash, a signature).
    Hex,
    /// A long base64 value (a signed policy).
    Base64,
    /// A timestamp (RFC 3339, the compact `20261024T001118Z`, or a number under a `…_at` key).
    Time,
    /// A loopback port.
    Port,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Id => "id",
            Self::Token => "token",
            Self::Thread => "thread",
            Self::Task => "task",
            Self::Session => "session",
            Self::Random => "random",
            Self::Uuid => "uuid",
            Self::Hex => "hex",
            Self::Base64 => "base64",
            Self::Time => "time",
            Self::Port => "port",
        }
    }
}

/// Shorter values recognised by their place are not looked for inside other strings: a
/// hand-written id such as `t1` would otherwise rewrite unrelated text.
const MIN_EMBEDDED: usize = 8;

static FINGERPRINT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"redacted:[0-9a-f]{12}").ok());
static UUID: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}").ok()
});
/// Maximal runs of at least 16 lower-case hex digits (leftmost-first and greedy, so a match
/// starts and ends at the run's ends); only those with a digit and a letter are ids.
static HEX: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"[0-9a-f]{16,}").ok());
/// Runs of at least 40 base64 characters (a signed policy, a JWT part), with a digit and both
/// cases.
static BASE64: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/]{40,}={0,2}").ok());
static TIME: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?|[0-9]{8}T[0-9]{6}Z",
    )
    .ok()
});
static PORT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0)(:|%3A|%3a)([0-9]{1,5})").ok()
});

/// The values learnt so far and their placeholders.
#[derive(Default)]
struct Table {
    placeholders: HashMap<(Kind, String), String>,
    counts: HashMap<Kind, usize>,
    /// Values recognised by their place, long enough to look for inside other strings, longest
    /// first once learning is done.
    embedded: Vec<(String, String)>,
}

impl Table {
    /// The placeholder of `value`, learning it if new.
    fn learn(&mut self, kind: Kind, value: &str) -> String {
        if let Some(known) = self.placeholders.get(&(kind, value.to_owned())) {
            return known.clone();
        }
        let count = self.counts.entry(kind).or_default();
        *count += 1;
        let placeholder = format!("<{}-{count}>", kind.name());
        self.placeholders
            .insert((kind, value.to_owned()), placeholder.clone());
        placeholder
    }

    fn get(&self, kind: Kind, value: &str) -> Option<&String> {
        self.placeholders.get(&(kind, value.to_owned()))
    }

    /// Learns a value recognised by its place.
    fn learn_placed(&mut self, kind: Kind, value: &str) {
        let placeholder = self.learn(kind, value);
        if value.len() >= MIN_EMBEDDED && !self.embedded.iter().any(|(v, _)| v == value) {
            self.embedded.push((value.to_owned(), placeholder));
        }
    }

    /// `text` with every value recognised by its place replaced.
    fn replace_embedded(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (value, placeholder) in &self.embedded {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), placeholder);
            }
        }
        out
    }

    /// `text` with every learnt value and every value of a known shape replaced (new ones learnt).
    fn replace_shapes(&mut self, text: &str) -> String {
        let mut out = self.replace_embedded(text);
        for (regex, kind) in [
            (&*FINGERPRINT, Kind::Token),
            (&*UUID, Kind::Uuid),
            (&*TIME, Kind::Time),
        ] {
            if let Some(regex) = regex {
                out = regex
                    .replace_all(&out, |c: &Captures<'_>| self.learn(kind, &c[0]))
                    .into_owned();
            }
        }
        if let Some(hex) = &*HEX {
            out = hex
                .replace_all(&out, |c: &Captures<'_>| {
                    let run = &c[0];
                    if !mixed(run, |b| b.is_ascii_digit(), |b| b.is_ascii_lowercase()) {
                        return run.to_owned();
                    }
                    let kind = if run.len() == 32 {
                        Kind::Uuid
                    } else {
                        Kind::Hex
                    };
                    self.learn(kind, run)
                })
                .into_owned();
        }
        if let Some(base64) = &*BASE64 {
            out = base64
                .replace_all(&out, |c: &Captures<'_>| {
                    let run = &c[0];
                    let cases = mixed(run, |b| b.is_ascii_lowercase(), |b| b.is_ascii_uppercase());
                    if !cases || !run.bytes().any(|b| b.is_ascii_digit()) {
                        return run.to_owned();
                    }
                    self.learn(Kind::Base64, run)
                })
                .into_owned();
        }
        if let Some(port) = &*PORT {
            out = port
                .replace_all(&out, |c: &Captures<'_>| {
                    format!("{}{}{}", &c[1], &c[2], self.learn(Kind::Port, &c[3]))
                })
                .into_owned();
        }
        out
    }
}

/// Whether `text` has a byte of each of two sorts.
fn mixed(text: &str, one: impl Fn(u8) -> bool, other: impl Fn(u8) -> bool) -> bool {
    text.bytes().any(&one) && text.bytes().any(&other)
}

/// A string that holds a JSON object or array (a tool result's text block), parsed.
fn embedded_json(text: &str) -> Option<Value> {
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    serde_json::from_str::<Value>(text)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}

/// Where a value stands: the key it is under and whether it is in a decoded query or form.
#[derive(Clone, Copy)]
struct Place<'a> {
    key: Option<&'a str>,
    in_params: bool,
    in_headers: bool,
    /// The object holding it is a JSON-RPC message (it has `jsonrpc`).
    in_message: bool,
}

impl Place<'_> {
    const ROOT: Place<'static> = Place {
        key: None,
        in_params: false,
        in_headers: false,
        in_message: false,
    };

    /// The kind a string value has because of where it stands.
    fn string_kind(&self) -> Option<Kind> {
        match self.key? {
            "thread_id" | "threadId" | "ai.perplexity/threadId" => Some(Kind::Thread),
            "taskId" | "task_id" => Some(Kind::Task),
            "mcp-session-id" if self.in_headers => Some(Kind::Session),
            "state" | "code_challenge" | "nonce" if self.in_params => Some(Kind::Random),
            _ => None,
        }
    }

    /// Whether a scalar here is a JSON-RPC id.
    fn is_message_id(&self) -> bool {
        self.in_message && self.key == Some("id")
    }

    /// Whether a number here is a timestamp.
    fn is_time_number(&self) -> bool {
        self.key
            .is_some_and(|k| k.ends_with("_at") || k == "created" || k == "timestamp")
    }
}

/// `text` with every value of a known shape replaced by its kind alone (`<uuid>`), unnumbered.
fn shape_mask(text: &str) -> String {
    let mut out = text.to_owned();
    for (regex, kind) in [
        (&*FINGERPRINT, Kind::Token),
        (&*UUID, Kind::Uuid),
        (&*TIME, Kind::Time),
        (&*HEX, Kind::Hex),
        (&*BASE64, Kind::Base64),
    ] {
        if let Some(regex) = regex {
            out = regex
                .replace_all(&out, format!("<{}>", kind.name()).as_str())
                .into_owned();
        }
    }
    out
}

/// Keys of an object in a stable order, each with its value: sorted as they read once their
/// random parts are masked (a key such as `answer:<uuid>` must not move with its UUID), then as
/// they are.
fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by_cached_key(|(key, _)| (shape_mask(key), (*key).clone()));
    entries
}

fn child_place<'a>(map: &Map<String, Value>, key: &'a str, parent: Place<'a>) -> Place<'a> {
    Place {
        key: Some(key),
        in_params: parent.in_params || key == "query" || key == "form",
        in_headers: parent.in_headers || key == "headers",
        in_message: map.contains_key("jsonrpc"),
    }
}

/// First pass: the values recognised by their place.
fn learn_placed(value: &Value, place: Place<'_>, table: &mut Table) {
    match value {
        Value::Object(map) => {
            for (key, child) in sorted(map) {
                learn_placed(child, child_place(map, key, place), table);
            }
        }
        Value::Array(items) => {
            for item in items {
                learn_placed(item, Place { key: None, ..place }, table);
            }
        }
        Value::String(text) if !place.is_message_id() => {
            if let Some(kind) = place.string_kind() {
                table.learn_placed(kind, text);
            } else if let Some(inner) = embedded_json(text) {
                learn_placed(&inner, Place::ROOT, table);
            }
        }
        // Ids and numeric times never appear inside other strings: the second pass numbers
        // them as they come.
        _ => {}
    }
}

/// Second pass: the document rebuilt, keys sorted, values replaced (and values of a known shape
/// learnt as they come).
fn rewrite(value: &Value, place: Place<'_>, table: &mut Table) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, child) in sorted(map) {
                // The key first: a UUID in it is numbered before the ones in its value.
                let shown = table.replace_shapes(key);
                let rewritten = rewrite(child, child_place(map, key, place), table);
                out.insert(shown, rewritten);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| rewrite(item, Place { key: None, ..place }, table))
                .collect(),
        ),
        Value::String(text) if place.is_message_id() => {
            let json = Value::String(text.clone()).to_string();
            Value::String(table.learn(Kind::Id, &json))
        }
        Value::String(text) => {
            if let Some(known) = place.string_kind().and_then(|kind| table.get(kind, text)) {
                return Value::String(known.clone());
            }
            if let Some(inner) = embedded_json(text) {
                // JSON carried as text is normalised as JSON (keys sorted), then written back.
                let rewritten = rewrite(&inner, Place::ROOT, table);
                return Value::String(rewritten.to_string());
            }
            Value::String(table.replace_shapes(text))
        }
        Value::Number(_) if place.is_message_id() => {
            Value::String(table.learn(Kind::Id, &value.to_string()))
        }
        Value::Number(_) if place.is_time_number() => {
            Value::String(table.learn(Kind::Time, &value.to_string()))
        }
        other => other.clone(),
    }
}

/// `document` with every value that differs between runs replaced by its placeholder, and every
/// object's keys in sorted order.
pub(super) fn stabilize(document: &Value) -> Value {
    let mut table = Table::default();
    learn_placed(document, Place::ROOT, &mut table);
    // Longest first, so a value that contains another is replaced whole.
    table
        .embedded
        .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    rewrite(document, Place::ROOT, &mut table)
}

/// Whether a placeholder text is one of the kinds that differ between two identical polls (the
/// JSON-RPC id and the time), which [`masked`] blanks out.
static POLL_VARYING: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"<(id|time)-[0-9]+>").ok());

/// A stabilized document's text with its ids and times blanked: two polls that differ only in
/// those compare equal.
pub(super) fn masked(stabilized: &Value) -> String {
    let text = stabilized.to_string();
    match &*POLL_VARYING {
        Some(regex) => regex.replace_all(&text, "<$1>").into_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_kind_of_value_gets_its_own_numbered_placeholder() {
        let document = json!([
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
             "params": {"arguments": {"thread_id": "0b6f7a7e-0000-4000-8000-00000000abcd"}}},
            {"headers": {"mcp-session-id": "5d1c0ffee5d1c0ffee5d1c0ffee5d1c0",
                         "authorization": "Bearer redacted:0123456789ab"}},
            {"query": {"state": "Zm9vYmFyYmF6cXV4", "code_challenge": "x".repeat(43)}},
            {"jsonrpc": "2.0", "id": 7, "result": {"taskId": "task-aaaaaaaabbbbbbbbccccccccdddddddd",
             "url": "http://127.0.0.1:43111/_mock/connect/0b6f7a7e-0000-4000-8000-00000000abcd/x",
             "created_at": 1761264678, "at": "2026-10-24T00:11:18.123Z",
             "other": "11111111-2222-4333-8444-555555555555", "sig": "a1".repeat(32)}},
        ]);
        let out = stabilize(&document);
        assert_eq!(
            out,
            json!([
                {"id": "<id-1>", "jsonrpc": "2.0", "method": "tools/call",
                 "params": {"arguments": {"thread_id": "<thread-1>"}}},
                {"headers": {"authorization": "Bearer <token-1>", "mcp-session-id": "<session-1>"}},
                {"query": {"code_challenge": "<random-1>", "state": "<random-2>"}},
                {"id": "<id-1>", "jsonrpc": "2.0", "result": {
                    "at": "<time-1>", "created_at": "<time-2>",
                    "other": "<uuid-1>", "sig": "<hex-1>", "taskId": "<task-1>",
                    "url": "http://127.0.0.1:<port-1>/_mock/connect/<thread-1>/x"}},
            ])
        );
    }

    #[test]
    fn the_same_document_with_other_random_values_stabilizes_the_same() {
        let run = |thread: &str, port: u16, token: &str| {
            json!({"jsonrpc": "2.0", "id": "a-1", "result": {
                "thread_id": thread, "auth": format!("Bearer {token}"),
                "auth_url": format!("http://localhost:{port}/x?t={thread}")}})
        };
        let first = stabilize(&run(
            "aaaaaaaa-0000-4000-8000-000000000001",
            4000,
            "redacted:aaaaaaaaaaaa",
        ));
        let second = stabilize(&run(
            "bbbbbbbb-0000-4000-8000-000000000002",
            5123,
            "redacted:bbbbbbbbbbbb",
        ));
        assert_eq!(first, second);
        assert_eq!(
            first["result"]["auth_url"],
            "http://localhost:<port-1>/x?t=<thread-1>"
        );
    }

    #[test]
    fn short_placed_values_and_ordinary_text_are_left_alone() {
        let out = stabilize(
            &json!({"thread_id": "t1", "text": "t1 is a thread; state: working",
                                    "state": "working"}),
        );
        assert_eq!(
            out,
            json!({"state": "working", "text": "t1 is a thread; state: working", "thread_id": "<thread-1>"})
        );
    }

    #[test]
    fn a_random_key_is_replaced_and_keeps_its_place() {
        let run = |a: &str, b: &str| {
            stabilize(&json!({"inputRequests": {
                format!("answer:{a}"): {"q": 1}, "zeta": {"r": b}, "alpha": 0}}))
        };
        let first = run(
            "8f75afba-79b3-4157-8bed-679ee667bba0",
            "265bce12-1aff-4476-bc60-03365ec6bf19",
        );
        let second = run(
            "265bce12-1aff-4476-bc60-03365ec6bf19",
            "8f75afba-79b3-4157-8bed-679ee667bba0",
        );
        assert_eq!(first.to_string(), second.to_string());
        assert_eq!(
            first.to_string(),
            r#"{"inputRequests":{"alpha":0,"answer:<uuid-1>":{"q":1},"zeta":{"r":"<uuid-2>"}}}"#
        );
    }

    #[test]
    fn json_carried_as_text_is_normalised_as_json() {
        let text = r#"{"thread_id":"aaaaaaaa-0000-4000-8000-000000000001","created_at":1792801844,"call":"call_b8439ae0af6a48ba873df876"}"#;
        let out = stabilize(&json!({"content": [{"type": "text", "text": text}],
            "policy": "eyJleHBpcmF0aW9uIjoiMjAyNi0xMC0yNFQwMDoyMzowMy41MTdaIiwiY29uZGl0aW9ucyI6W3siYnVja2V0Ijoi"}));
        assert_eq!(
            out["content"][0]["text"],
            r#"{"call":"call_<hex-1>","created_at":"<time-1>","thread_id":"<thread-1>"}"#
        );
        assert_eq!(out["policy"], "<base64-1>");
    }

    #[test]
    fn masking_blanks_ids_and_times_only() {
        let a = stabilize(&json!([{"jsonrpc": "2.0", "id": 1, "at": "2026-10-24T00:00:00Z"}]));
        let b = stabilize(&json!([{"jsonrpc": "2.0", "id": 2, "at": "2026-10-24T00:00:05Z"}]));
        assert_eq!(masked(&a), masked(&b));
        let c = stabilize(
            &json!([{"thread_id": "aaaaaaaa-0000-4000-8000-000000000001"},
                                  {"thread_id": "bbbbbbbb-0000-4000-8000-000000000002"}]),
        );
        assert_ne!(masked(&c[0]), masked(&c[1]));
    }
}
