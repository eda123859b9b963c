//! A request's `params` object as the members it came with: a short list read without a map.
//!
//! Every `tools/call` carries a handful of members (`name`, `arguments`, sometimes `_meta`), and
//! a JSON object read into a `serde_json::Map` costs an index table, a hash of every key on the
//! way in and on every lookup, and a string per key. Here the members stay in arrival order in
//! one list, the names MCP defines are not copied, and a lookup compares a few short strings.
//! The values are ordinary JSON trees.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, Visitor};
use serde_json::{Map, Value};

/// Member names the mock reads from some method's params: kept without a copy.
const KNOWN: &[&str] = &[
    "name",
    "arguments",
    "_meta",
    "task",
    "taskId",
    "requestState",
    "inputResponses",
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "cursor",
    "uri",
];

/// A request's params: the members of its `params` object (none when it sent `null` or no
/// `params`). A member given twice reads as any JSON parser reads it: the last one counts.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params(Vec<(Cow<'static, str>, Value)>);

impl Params {
    /// The value of member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        // From the end, so that a repeated member's last value counts.
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Takes member `key` out (every copy of it), returning its last value.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        let mut taken = None;
        self.0.retain_mut(|(k, v)| {
            if k == key {
                taken = Some(std::mem::take(v));
                false
            } else {
                true
            }
        });
        taken
    }

    fn into_map(self) -> Map<String, Value> {
        // `Map::insert` keeps a repeated key at its first place with its last value.
        self.0
            .into_iter()
            .map(|(key, value)| (key.into_owned(), value))
            .collect()
    }
}

impl From<Map<String, Value>> for Params {
    fn from(map: Map<String, Value>) -> Self {
        Self(
            map.into_iter()
                .map(|(key, value)| (Cow::Owned(key), value))
                .collect(),
        )
    }
}

/// Two params are equal when they read the same (repeated members counted once).
impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.clone().into_map() == other.clone().into_map()
    }
}

/// Reads a JSON object or `null` (no members); anything else is an error of the data, which
/// [`super::jsonrpc::Incoming::parse`] answers as an invalid request.
impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ParamsVisitor;
        impl<'de> Visitor<'de> for ParamsVisitor {
            type Value = Params;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object or null")
            }
            fn visit_unit<E>(self) -> Result<Params, E> {
                Ok(Params::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Params, A::Error> {
                let mut members = Vec::new();
                while let Some(Key(key)) = map.next_key()? {
                    members.push((key, map.next_value()?));
                }
                Ok(Params(members))
            }
        }
        deserializer.deserialize_any(ParamsVisitor)
    }
}

/// A member name: one of [`KNOWN`] without a copy, any other copied.
struct Key(Cow<'static, str>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E>(self, name: &str) -> Result<Key, E> {
                Ok(Key(match KNOWN.iter().find(|known| **known == name) {
                    Some(known) => Cow::Borrowed(known),
                    None => Cow::Owned(name.to_owned()),
                }))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(text: &str) -> Params {
        serde_json::from_str(text).expect("params")
    }

    fn object(params: Params) -> Value {
        Value::Object(params.into_map())
    }

    #[test]
    fn members_read_as_a_json_parser_reads_them() {
        let params = read(r#"{"name":"models_list","arguments":{"a":[1]},"x\"y":true}"#);
        assert_eq!(params.get("name"), Some(&json!("models_list")));
        assert_eq!(params.get("arguments"), Some(&json!({"a": [1]})));
        assert_eq!(params.get("x\"y"), Some(&json!(true)));
        assert_eq!(params.get("absent"), None);
        assert_eq!(
            object(params),
            json!({"name": "models_list", "arguments": {"a": [1]}, "x\"y": true})
        );
    }

    #[test]
    fn a_repeated_member_counts_by_its_last_value_everywhere() {
        let mut params = read(r#"{"name":"a","other":1,"name":"b"}"#);
        assert_eq!(params.get("name"), Some(&json!("b")));
        let expected = json!({"name": "b", "other": 1});
        assert_eq!(object(params.clone()), expected);
        assert_eq!(
            params,
            Params::from(expected.as_object().cloned().expect("an object"))
        );
        assert_eq!(params.take("name"), Some(json!("b")));
        assert_eq!(params.get("name"), None);
    }

    #[test]
    fn null_has_no_members_and_other_values_are_refused() {
        assert_eq!(object(read("null")), json!({}));
        for refused in ["[]", "1", "\"x\"", "true"] {
            let error = serde_json::from_str::<Params>(refused).expect_err("not an object");
            assert!(error.is_data(), "{refused}: {error}");
        }
    }
}
