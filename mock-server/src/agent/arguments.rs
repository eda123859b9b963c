//! Arguments the scripted model builds for a tool it calls without scripted ones: a value that
//! fits the tool's JSON Schema (an MCP tool's `input_schema`, a function's `parameters`).
//!
//! Every required property gets a value of its type: the first of an `enum`, a `const`, the
//! schema's `default` or first `example`, the user's message for a plain string (shortened to
//! `maxLength`), a well-formed value for a string `format` (`date`, `date-time`, `email`,
//! `uri`, `uuid`), the `minimum` (else 1) for numbers, `false`, one item for an array, and an
//! object built the same way. When a schema requires nothing, its first property is filled in
//! too: a model seldom calls a tool that takes arguments with none.

use serde_json::{Map, Number, Value};

/// How deep nested objects and arrays are filled before the rest is left out.
const MAX_DEPTH: usize = 8;

/// Arguments for a tool whose arguments' schema is `schema`; `text` is the user's message.
pub(crate) fn example_arguments(schema: &Value, text: &str) -> Value {
    match object(schema, text, 0) {
        Value::Object(map) => Value::Object(map),
        _ => Value::Object(Map::new()),
    }
}

fn object(schema: &Value, text: &str, depth: usize) -> Value {
    let properties = schema.get("properties").and_then(Value::as_object);
    // A schema without `required` requires nothing.
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let chosen: Vec<&str> = if required.is_empty() {
        properties
            .and_then(|p| p.keys().next())
            .map(String::as_str)
            .into_iter()
            .collect()
    } else {
        required
    };
    let mut args = Map::new();
    for name in chosen {
        let value = match properties.and_then(|p| p.get(name)) {
            Some(property) => value(property, text, depth + 1),
            None => Value::String(text.to_owned()),
        };
        args.insert(name.to_owned(), value);
    }
    Value::Object(args)
}

fn value(schema: &Value, text: &str, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(fixed) = schema.get("const") {
        return fixed.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    if let Some(example) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return example.clone();
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(variant) = schema
            .get(combinator)
            .and_then(Value::as_array)
            .and_then(|v| {
                v.iter()
                    .find(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            })
        {
            return value(variant, text, depth);
        }
    }
    match type_of(schema) {
        Some("string") => string(schema, text),
        Some("integer") => number(schema, true),
        Some("number") => number(schema, false),
        Some("boolean") => Value::Bool(false),
        Some("null") => Value::Null,
        Some("array") => {
            let none_allowed = schema.get("maxItems").and_then(Value::as_u64) == Some(0);
            if none_allowed {
                return Value::Array(Vec::new());
            }
            let item = schema.get("items").unwrap_or(&Value::Null);
            let count = schema
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .clamp(1, 3);
            Value::Array((0..count).map(|_| value(item, text, depth + 1)).collect())
        }
        Some("object") => object(schema, text, depth),
        _ if schema.get("properties").is_some() => object(schema, text, depth),
        _ => Value::String(text.to_owned()),
    }
}

/// The schema's type; of a list of types, the first that is not `null`.
fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|k| *k != "null"),
        _ => None,
    }
}

fn string(schema: &Value, text: &str) -> Value {
    let formatted = match schema.get("format").and_then(Value::as_str) {
        Some("date") => Some("2026-10-09"),
        Some("date-time") => Some("2026-10-09T12:00:00Z"),
        Some("time") => Some("12:00:00"),
        Some("email") => Some("user@example.com"),
        Some("uri" | "url") => Some("https://example.com/"),
        Some("uuid") => Some("00000000-0000-4000-8000-000000000000"),
        _ => None,
    };
    if let Some(formatted) = formatted {
        return Value::String(formatted.to_owned());
    }
    let text = if text.is_empty() { "example" } else { text };
    let mut shown: String = match schema.get("maxLength").and_then(Value::as_u64) {
        Some(max) => text
            .chars()
            .take(usize::try_from(max).unwrap_or(usize::MAX))
            .collect(),
        None => text.to_owned(),
    };
    let min = schema
        .get("minLength")
        .and_then(Value::as_u64)
        .and_then(|m| usize::try_from(m).ok())
        .unwrap_or(0);
    while shown.chars().count() < min {
        shown.push('x');
    }
    Value::String(shown)
}

fn number(schema: &Value, integer: bool) -> Value {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let mut n = match (bound("minimum"), bound("exclusiveMinimum")) {
        (Some(min), _) => min,
        (None, Some(min)) => min + 1.0,
        (None, None) => 1.0,
    };
    if let Some(max) = bound("maximum") {
        n = n.min(max);
    }
    if integer {
        n = n.ceil();
    }
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        #[allow(clippy::cast_possible_truncation)]
        let whole = n as i64;
        Value::from(whole)
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn required_properties_get_values_of_their_types() {
        let schema = json!({"type": "object", "required": ["a", "b", "flag", "tags", "city"],
            "properties": {"a": {"type": "number"}, "b": {"type": "integer", "minimum": 3},
                           "flag": {"type": "boolean"}, "tags": {"type": "array", "items": {"type": "string"}},
                           "city": {"type": "string"}, "unit": {"type": "string"}}});
        assert_eq!(
            example_arguments(&schema, "Paris"),
            json!({"a": 1, "b": 3, "flag": false, "tags": ["Paris"], "city": "Paris"})
        );
    }

    #[test]
    fn enums_consts_formats_and_nested_objects_fit_the_schema() {
        let schema = json!({"type": "object", "required": ["unit", "kind", "day", "where"],
        "properties": {
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "kind": {"const": "forecast"},
            "day": {"type": "string", "format": "date"},
            "where": {"type": "object", "required": ["lat"], "properties": {"lat": {"type": "number", "minimum": -90}}}
        }});
        assert_eq!(
            example_arguments(&schema, "x"),
            json!({"unit": "celsius", "kind": "forecast", "day": "2026-10-09", "where": {"lat": -90}})
        );
    }

    #[test]
    fn a_schema_requiring_nothing_still_gets_its_first_property() {
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}});
        assert_eq!(
            example_arguments(&schema, "Paris"),
            json!({"city": "Paris"})
        );
        assert_eq!(example_arguments(&json!({}), "x"), json!({}));
        assert_eq!(
            example_arguments(&json!({"type": "object", "properties": {}}), "x"),
            json!({})
        );
    }

    #[test]
    fn string_lengths_and_nullable_types_are_respected() {
        let schema = json!({"type": "object", "required": ["code", "note"],
            "properties": {"code": {"type": "string", "maxLength": 3},
                           "note": {"type": ["null", "string"], "minLength": 4}}});
        assert_eq!(
            example_arguments(&schema, "hello"),
            json!({"code": "hel", "note": "hello"})
        );
        let short = example_arguments(&schema, "hi");
        assert_eq!(short["note"], "hixx");
    }
}
