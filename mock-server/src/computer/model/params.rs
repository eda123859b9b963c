//! A request's `params` object as the members it came with: a short list read without a map.
//!
//! Every `tools/call` carries a handful of members (`name`, `arguments`, sometimes `_meta`), and
//! a JSON object read into a `serde_json::Map` costs an index table, a hash of every key on the
//! way in and on every lookup, and a string per key. Here the members stay in arrival order in
//! one list, the names MCP defines are not copied, and the method's typed params
//! ([`super::request::ClientRequest`]) take them in one pass. The values are ordinary JSON
//! trees.

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
    /// The members in arrival order, repeated ones included (a reader that keeps the last
    /// value of each reads them as a JSON parser does).
    pub(crate) fn into_members(self) -> impl Iterator<Item = (Cow<'static, str>, Value)> {
        self.0.into_iter()
    }

    /// The members as a JSON object.
    pub(crate) fn into_map(self) -> Map<String, Value> {
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

/// Reads a JSON object or `null` (no members); anything else is an error of the data, which
/// [`super::incoming::Incoming::parse`] answers as an invalid request.
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
        let names: Vec<String> = params
            .clone()
            .into_members()
            .map(|(name, _)| name.into_owned())
            .collect();
        assert_eq!(names, ["name", "arguments", "x\"y"]);
        assert_eq!(
            object(params),
            json!({"name": "models_list", "arguments": {"a": [1]}, "x\"y": true})
        );
    }

    #[test]
    fn a_repeated_member_keeps_every_copy_in_order_and_reads_as_its_last_value() {
        let params = read(r#"{"name":"a","other":1,"name":"b"}"#);
        let members: Vec<(String, Value)> = params
            .clone()
            .into_members()
            .map(|(name, value)| (name.into_owned(), value))
            .collect();
        assert_eq!(
            members,
            [
                ("name".to_owned(), json!("a")),
                ("other".to_owned(), json!(1)),
                ("name".to_owned(), json!("b"))
            ]
        );
        assert_eq!(object(params), json!({"name": "b", "other": 1}));
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
