//! Where two answers differ in shape: a field added or missing, a type changed, or one of the
//! values that say what happened (`event`, `status`, `task_status`, `type`, `resultType`, an SSE
//! stream's kinds of events) different. Every other value (ids, times, texts, counts) differs
//! from run to run and is ignored.

use serde_json::{Map, Value};

/// Fields whose values are compared, not only their types.
const MEANINGFUL: &[&str] = &[
    "event",
    "status",
    "task_status",
    "thread_status",
    "type",
    "resultType",
    "object",
    "isError",
    "error_code",
];

/// One difference, at a JSON pointer-like path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Where (`response.body.result.structuredContent.sources`).
    pub at: String,
    /// What changed.
    pub what: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.what)
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// JSON carried as text (a tool result's text block) is compared as the JSON it carries.
fn carried(value: &Value) -> Option<Value> {
    let text = value.as_str()?;
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// The differences between what was recorded and what came now, under `at`.
pub fn compare(recorded: &Value, live: &Value, at: &str) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(recorded, live, at, &mut out);
    out
}

fn walk(recorded: &Value, live: &Value, at: &str, out: &mut Vec<Difference>) {
    if let (Some(a), Some(b)) = (carried(recorded), carried(live)) {
        return walk(&a, &b, at, out);
    }
    match (recorded, live) {
        (Value::Object(a), Value::Object(b)) => objects(a, b, at, out),
        (Value::Array(a), Value::Array(b)) => {
            // Lengths vary (steps, sources, polls); the elements' shapes must not.
            if let (Some(a), Some(b)) = (merged(a), merged(b)) {
                walk(&a, &b, &format!("{at}[]"), out);
            }
        }
        (a, b) if kind(a) != kind(b) => out.push(Difference {
            at: at.to_owned(),
            what: format!("type changed: {} recorded, {} now", kind(a), kind(b)),
        }),
        _ => {}
    }
}

fn objects(a: &Map<String, Value>, b: &Map<String, Value>, at: &str, out: &mut Vec<Difference>) {
    for (key, recorded) in a {
        let here = format!("{at}.{key}");
        match b.get(key) {
            None => out.push(Difference {
                at: here,
                what: "field missing (recorded, not there now)".into(),
            }),
            Some(live) => {
                if MEANINGFUL.contains(&key.as_str())
                    && !recorded.is_object()
                    && !recorded.is_array()
                    && recorded != live
                {
                    out.push(Difference {
                        at: here,
                        what: format!("value changed: {recorded} recorded, {live} now"),
                    });
                } else {
                    walk(recorded, live, &here, out);
                }
            }
        }
    }
    for key in b.keys().filter(|k| !a.contains_key(*k)) {
        out.push(Difference {
            at: format!("{at}.{key}"),
            what: "field added (there now, not recorded)".into(),
        });
    }
}

/// One value with the keys of all of an array's objects (the first element otherwise).
fn merged(items: &[Value]) -> Option<Value> {
    let first = items.first()?;
    if !items.iter().all(Value::is_object) {
        return Some(first.clone());
    }
    let mut all = Map::new();
    for item in items {
        if let Value::Object(map) = item {
            for (key, value) in map {
                all.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
    Some(Value::Object(all))
}

/// The kinds of a stream's events, in order, repeats once: what a stream is, beside its shapes.
pub(crate) fn event_kinds(events: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = events
        .iter()
        .map(|e| {
            e.get("method")
                .or_else(|| e.get("type"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| {
                    if e.get("result").is_some() {
                        "result".into()
                    } else {
                        kind(e).into()
                    }
                })
        })
        .collect();
    kinds.dedup();
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_times_and_texts_are_ignored_but_fields_types_and_events_are_not() {
        let recorded =
            json!({"thread_id": "<uuid-1>", "text": "a", "event": "timeout", "n": 1, "gone": true});
        let same =
            json!({"thread_id": "f00", "text": "b", "event": "timeout", "n": 2, "gone": false});
        assert!(compare(&recorded, &same, "body").is_empty());
        let changed = json!({"thread_id": 5, "text": "b", "event": "complete", "n": 2, "new": 1});
        let shown: Vec<String> = compare(&recorded, &changed, "body")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            [
                "body.thread_id: type changed: string recorded, number now",
                "body.event: value changed: \"timeout\" recorded, \"complete\" now",
                "body.gone: field missing (recorded, not there now)",
                "body.new: field added (there now, not recorded)",
            ]
        );
    }

    #[test]
    fn json_in_text_and_array_elements_are_compared_by_shape() {
        let recorded =
            json!({"content": [{"text": "{\"a\":1}"}], "steps": [{"id": 1}, {"id": 2, "x": 1}]});
        let live = json!({"content": [{"text": "{\"a\":\"1\"}"}], "steps": [{"id": 3, "x": 2}]});
        let shown: Vec<String> = compare(&recorded, &live, "r")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            ["r.content[].text.a: type changed: number recorded, string now"]
        );
    }
}
