//! A JSON value satisfying a `response_format` JSON Schema: every property filled (the
//! answer's text where a property reads like one, the topic where it reads like a title, the
//! citations where it reads like a list of sources), enums and consts taken as given, numbers
//! inside their bounds, arrays at their minimum length (at least one item), `$ref`s followed.
//! What a schema can say that this does not honour (a `pattern` no candidate matches, say) is
//! listed in the documentation.

use regex::Regex;
use serde_json::{Map, Number, Value};

/// How deep a schema may nest before the value is cut short (recursive schemas end there).
const MAX_DEPTH: usize = 12;

/// What the value is filled with.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fill<'a> {
    /// The answer's text.
    pub(crate) answer: &'a str,
    /// What the question is about.
    pub(crate) topic: &'a str,
    /// The sources' URLs.
    pub(crate) citations: &'a [String],
    /// Today, `2026-10-24`.
    pub(crate) today: &'a str,
    /// Now, RFC 3339.
    pub(crate) now: &'a str,
}

/// A value satisfying `schema`.
pub(crate) fn value(schema: &Value, fill: Fill<'_>) -> Value {
    at(schema, schema, fill, 0, None)
}

fn at(schema: &Value, root: &Value, fill: Fill<'_>, depth: usize, name: Option<&str>) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let Value::Object(map) = schema else {
        // `true` (anything) gets the answer; `false` can hold nothing.
        return match schema {
            Value::Bool(true) => Value::String(fill.answer.to_owned()),
            _ => Value::Null,
        };
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = resolve(root, reference)
    {
        return at(target, root, fill, depth + 1, name);
    }
    if let Some(constant) = map.get("const") {
        return constant.clone();
    }
    if let Some(first) = map
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(parts) = map.get("allOf").and_then(Value::as_array) {
        return all_of(parts, map, root, fill, depth, name);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = map.get(key).and_then(Value::as_array) {
            let chosen = options
                .iter()
                .find(|o| o.get("type").and_then(Value::as_str) != Some("null"))
                .or_else(|| options.first());
            if let Some(chosen) = chosen {
                return at(chosen, root, fill, depth + 1, name);
            }
        }
    }
    match kind(map) {
        "object" => object(map, root, fill, depth),
        "array" => array(map, root, fill, depth, name),
        "integer" => number(map, true),
        "number" => number(map, false),
        "boolean" => Value::Bool(true),
        "null" => Value::Null,
        _ => string(map, fill, name),
    }
}

/// The schema's type: its `type` (the first that is not `null`), else what its keywords say.
fn kind(map: &Map<String, Value>) -> &str {
    match map.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if map.contains_key("properties") => "object",
        _ if map.contains_key("items") || map.contains_key("prefixItems") => "array",
        _ => "string",
    }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(pointer)
}

fn all_of(
    parts: &[Value],
    outer: &Map<String, Value>,
    root: &Value,
    fill: Fill<'_>,
    depth: usize,
    name: Option<&str>,
) -> Value {
    let mut merged = Map::new();
    let mut last = Value::Null;
    let mut rest = outer.clone();
    rest.remove("allOf");
    for part in parts.iter().chain(std::iter::once(&Value::Object(rest))) {
        match at(part, root, fill, depth + 1, name) {
            Value::Object(fields) => merged.extend(fields),
            other => last = other,
        }
    }
    if merged.is_empty() {
        last
    } else {
        Value::Object(merged)
    }
}

fn object(map: &Map<String, Value>, root: &Value, fill: Fill<'_>, depth: usize) -> Value {
    let mut out = Map::new();
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (key, property) in properties {
            out.insert(key.clone(), at(property, root, fill, depth + 1, Some(key)));
        }
    }
    if let Some(Value::Array(required)) = map.get("required") {
        for key in required.iter().filter_map(Value::as_str) {
            if !out.contains_key(key) {
                out.insert(key.to_owned(), Value::String(fill.answer.to_owned()));
            }
        }
    }
    Value::Object(out)
}

fn array(
    map: &Map<String, Value>,
    root: &Value,
    fill: Fill<'_>,
    depth: usize,
    name: Option<&str>,
) -> Value {
    let min = map
        .get("minItems")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1) as usize;
    let max = map
        .get("maxItems")
        .and_then(Value::as_u64)
        .map_or(usize::MAX, |m| m as usize);
    let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
    let item_kind = items.as_object().map_or("string", kind);
    if is_sourcey(name) && item_kind == "string" && !fill.citations.is_empty() {
        let mut urls: Vec<Value> = fill
            .citations
            .iter()
            .take(max)
            .map(|u| Value::String(u.clone()))
            .collect();
        while urls.len() < min {
            let next = urls.len() % fill.citations.len();
            urls.push(Value::String(fill.citations[next].clone()));
        }
        return Value::Array(urls);
    }
    let prefix: Vec<Value> = map
        .get("prefixItems")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let count = min.max(prefix.len()).min(max);
    let singular = name.map(|n| n.trim_end_matches('s'));
    Value::Array(
        (0..count)
            .map(|i| {
                at(
                    prefix.get(i).unwrap_or(&items),
                    root,
                    fill,
                    depth + 1,
                    singular,
                )
            })
            .collect(),
    )
}

fn number(map: &Map<String, Value>, integer: bool) -> Value {
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    let mut low = get("minimum").or(get("exclusiveMinimum").map(|m| m + 1.0));
    let high = get("maximum").or(get("exclusiveMaximum").map(|m| m - 1.0));
    if low.is_none() && high.is_some_and(|h| h < 1.0) {
        low = high;
    }
    let mut x = low.unwrap_or(1.0);
    if let Some(step) = get("multipleOf").filter(|s| *s > 0.0) {
        x = (x / step).ceil() * step;
    }
    if let Some(high) = high {
        x = x.min(high);
    }
    if integer {
        Value::Number(Number::from(x.ceil() as i64))
    } else {
        Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn string(map: &Map<String, Value>, fill: Fill<'_>, name: Option<&str>) -> Value {
    let format = map.get("format").and_then(Value::as_str);
    let lower = name.unwrap_or_default().to_lowercase();
    let mut text = match format {
        Some("date") => fill.today.to_owned(),
        Some("date-time") => fill.now.to_owned(),
        Some("email") => "alice@example.com".to_owned(),
        Some("uri" | "url" | "iri") => fill
            .citations
            .first()
            .cloned()
            .unwrap_or_else(|| "https://example.com/".to_owned()),
        Some("uuid") => "5b1f7a5e-1c2d-4e3f-8a9b-0c1d2e3f4a5b".to_owned(),
        _ if is_sourcey(name) || lower.contains("url") || lower.contains("link") => fill
            .citations
            .first()
            .cloned()
            .unwrap_or_else(|| "https://example.com/".to_owned()),
        _ if ["title", "name", "topic", "headline", "subject"]
            .iter()
            .any(|w| lower.contains(w)) =>
        {
            fill.topic.to_owned()
        }
        _ => fill.answer.to_owned(),
    };
    if let Some(pattern) = map
        .get("pattern")
        .and_then(Value::as_str)
        .and_then(|p| Regex::new(p).ok())
        && !pattern.is_match(&text)
        && let Some(candidate) = [fill.topic, "example", "A1", "1", fill.today, "abc"]
            .into_iter()
            .find(|c| pattern.is_match(c))
    {
        text = candidate.to_owned();
    }
    if let Some(max) = map.get("maxLength").and_then(Value::as_u64) {
        text = text.chars().take(max as usize).collect();
    }
    if let Some(min) = map.get("minLength").and_then(Value::as_u64) {
        while (text.chars().count() as u64) < min {
            text.push('.');
        }
    }
    Value::String(text)
}

/// Whether a property's name reads like a list of sources.
fn is_sourcey(name: Option<&str>) -> bool {
    let lower = name.unwrap_or_default().to_lowercase();
    ["citation", "source", "reference", "url", "link"]
        .iter()
        .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fill() -> Fill<'static> {
        Fill {
            answer: "Here is the answer.",
            topic: "solar power",
            citations: &[],
            today: "2026-10-24",
            now: "2026-10-24T00:11:18Z",
        }
    }

    fn satisfies(schema: Value) -> Value {
        let value = value(&schema, fill());
        let validator = jsonschema::validator_for(&schema).expect("schema compiles");
        assert!(validator.is_valid(&value), "{value} against {schema}");
        value
    }

    #[test]
    fn objects_get_every_property_and_the_answer_where_it_belongs() {
        let value = satisfies(json!({"type": "object",
            "properties": {"title": {"type": "string"}, "answer": {"type": "string"},
                           "year": {"type": "integer", "minimum": 1990, "maximum": 2030},
                           "score": {"type": "number", "exclusiveMaximum": 1},
                           "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                           "kind": {"enum": ["report", "note"]},
                           "when": {"type": "string", "format": "date"}},
            "required": ["title", "answer", "year"], "additionalProperties": false}));
        assert_eq!(value["title"], "solar power");
        assert_eq!(value["answer"], "Here is the answer.");
        assert_eq!(value["year"], 1990);
        assert_eq!(value["kind"], "report");
        assert_eq!(value["tags"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn refs_nullable_types_and_combinators_are_followed() {
        satisfies(
            json!({"$defs": {"item": {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}, "required": ["n"]}},
            "type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
            "either": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
            "both": {"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"properties": {"b": {"const": 3}}}]},
            "short": {"type": "string", "maxLength": 4}, "long": {"type": "string", "minLength": 40},
            "code": {"type": "string", "pattern": "^[A-Z][0-9]$"}}}),
        );
    }
}
