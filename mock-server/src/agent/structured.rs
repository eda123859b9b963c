//! Structured output (`response_format: {type: "json_schema", json_schema: {name, schema}}`):
//! the request's rules, the `text.format` the response echoes, and the scripted model's answer
//! turned into a JSON document that fits the schema (clients such as MCP Perplexity Pro parse
//! `output_text` as JSON when they ask for a schema).

use serde_json::{Map, Number, Value};

use super::error::ApiError;
use super::wire::response::{TextConfig, TextFormat};

/// How deep the answer follows nested schemas (deeper ones answer `null`; `$ref` is not followed).
const MAX_DEPTH: usize = 16;

/// Checks `response_format` and returns the `text` the response shows for it.
pub(crate) fn text_format(response_format: &Value) -> Result<TextConfig, ApiError> {
    let bad = |param: &str, message: String| {
        ApiError::new(http::StatusCode::BAD_REQUEST, "invalid_parameter", message).param(param)
    };
    let Some(map) = response_format.as_object() else {
        return Err(bad(
            "response_format",
            "response_format must be an object like {\"type\":\"json_schema\",\"json_schema\":{\"name\",\"schema\"}}".into(),
        ));
    };
    match map.get("type").and_then(Value::as_str) {
        Some("json_schema") => {}
        other => {
            return Err(bad(
                "response_format.type",
                format!(
                    "response_format.type must be \"json_schema\", not {}",
                    other.map_or_else(|| "missing".to_owned(), |t| format!("\"{t}\""))
                ),
            ));
        }
    }
    for key in map.keys() {
        if key != "type" && key != "json_schema" {
            return Err(ApiError::unknown_field(
                key,
                &format!("response_format.{key}"),
            ));
        }
    }
    let Some(spec) = map.get("json_schema").and_then(Value::as_object) else {
        return Err(bad(
            "response_format.json_schema",
            "response_format.json_schema is required: {\"name\": ..., \"schema\": {\"type\": \"object\", ...}}".into(),
        ));
    };
    for key in spec.keys() {
        if !["name", "schema", "description", "strict"].contains(&key.as_str()) {
            return Err(ApiError::unknown_field(
                key,
                &format!("response_format.json_schema.{key}"),
            ));
        }
    }
    if spec
        .get("name")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Err(bad(
            "response_format.json_schema.name",
            "response_format.json_schema.name is required (a non-empty string)".into(),
        ));
    }
    let root_is_object = spec
        .get("schema")
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        == Some("object");
    if !root_is_object {
        return Err(bad(
            "response_format.json_schema.schema",
            "response_format.json_schema.schema must be a JSON schema whose root is \
             {\"type\": \"object\", \"properties\": {...}}"
                .into(),
        ));
    }
    // The OpenAI-style echo: the format's fields flattened next to its type, as sent.
    Ok(TextConfig {
        format: TextFormat::JsonSchema(spec.clone()),
    })
}

/// The answer `text` as a JSON document fitting `schema`: every property is filled in, strings
/// carry the scripted text, other types their smallest valid value.
pub(crate) fn answer(schema: &Value, text: &str) -> String {
    instance(schema, text, 0).to_string()
}

fn instance(schema: &Value, text: &str, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema
            .get(key)
            .and_then(Value::as_array)
            .and_then(|v| v.first())
        {
            return instance(first, text, depth + 1);
        }
    }
    // `type` may be a list (`["string", "null"]`): the first non-null type is the answer's.
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" => {
            let mut object = Map::new();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    object.insert(name.clone(), instance(property, text, depth + 1));
                }
            }
            Value::Object(object)
        }
        "array" => {
            // Without `items`, any item fits: the empty schema answers with the text.
            let any = Value::Object(Map::new());
            let item = schema.get("items").unwrap_or(&any);
            let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1);
            Value::Array(
                (0..count.clamp(1, 8))
                    .map(|_| instance(item, text, depth + 1))
                    .collect(),
            )
        }
        "integer" => Value::from(schema.get("minimum").and_then(Value::as_i64).unwrap_or(0)),
        "number" => match schema.get("minimum").and_then(Value::as_f64) {
            Some(minimum) => Number::from_f64(minimum).map_or(Value::Null, Value::Number),
            None => Value::from(0),
        },
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        _ => Value::String(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_answer_fits_the_schema_with_the_text_in_its_strings() {
        let schema = json!({"type": "object", "properties": {
            "answer": {"type": "string"},
            "confidence": {"type": "number", "minimum": 0.5},
            "sources": {"type": "array", "items": {"type": "string"}},
            "kind": {"type": "string", "enum": ["short", "long"]},
            "note": {"type": ["string", "null"]},
            "meta": {"type": "object", "properties": {"final": {"type": "boolean"}}}
        }});
        let answer: Value = serde_json::from_str(&answer(&schema, "Hello world")).expect("json");
        assert_eq!(
            answer,
            json!({"answer": "Hello world", "confidence": 0.5, "sources": ["Hello world"],
                   "kind": "short", "note": "Hello world", "meta": {"final": false}})
        );
    }

    #[test]
    fn a_ref_is_not_followed_and_takes_the_text() {
        let schema = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        assert_eq!(answer(&schema, "x"), r#"{"child":"x"}"#);
    }

    #[test]
    fn the_format_echo_flattens_the_schema_and_refusals_name_the_field() {
        let format = text_format(&json!({"type": "json_schema", "json_schema": {
            "name": "answer", "schema": {"type": "object"}, "strict": true}}))
        .expect("valid");
        assert_eq!(
            serde_json::to_value(&format).expect("the format renders"),
            json!({"format": {"type": "json_schema", "name": "answer",
                              "schema": {"type": "object"}, "strict": true}})
        );
        for (bad, param, kind) in [
            (json!("json"), "response_format", "invalid_parameter"),
            (
                json!({"type": "text"}),
                "response_format.type",
                "invalid_parameter",
            ),
            (
                json!({"type": "json_schema"}),
                "response_format.json_schema",
                "invalid_parameter",
            ),
            (
                json!({"type": "json_schema", "json_schema": {"schema": {"type": "object"}}}),
                "response_format.json_schema.name",
                "invalid_parameter",
            ),
            (
                json!({"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "array"}}}),
                "response_format.json_schema.schema",
                "invalid_parameter",
            ),
            (
                json!({"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object"}, "x": 1}}),
                "response_format.json_schema.x",
                "invalid_request",
            ),
        ] {
            let error = text_format(&bad).expect_err("refused");
            assert_eq!(error.param.as_deref(), Some(param), "{bad}");
            assert_eq!(error.kind, kind, "{bad}");
            let field = param.rsplit('.').next().unwrap_or(param);
            assert!(error.message.contains(field), "{}", error.message);
        }
    }
}
