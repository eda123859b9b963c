//! Reading a POSTed body, once: a JSON-RPC request (as a typed [`ClientRequest`]), a
//! notification, or a response to a request the server sent; or the refusal that says why it is
//! none of them.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::elicitation::ElicitResult;
use super::error::ErrorData;
use super::jsonrpc::{JSONRPC, RequestId};
use super::params::Params;
use super::request::{ClientNotification, ClientRequest, JsonRpcRequest};

/// A message a client POSTed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Incoming {
    /// A request, answered with a response.
    Request(JsonRpcRequest),
    /// A notification, answered with 202.
    Notification(ClientNotification),
    /// A response to a request the server sent (an `elicitation/create`: the only request it
    /// makes), answered with 202.
    Response {
        /// The id of the server's request.
        id: RequestId,
        /// The elicitation result it carries (`None`: an error response, or a result without an
        /// action this server knows).
        result: Option<ElicitResult>,
    },
}

impl Incoming {
    /// Parses a POSTed body, or says why it is not a JSON-RPC message.
    pub(crate) fn parse(body: &[u8]) -> Result<Self, ErrorData> {
        let not_json = |e: serde_json::Error| {
            ErrorData::parse_error(format!("Parse error: the body is not valid JSON ({e})"))
        };
        if body.trim_ascii_start().first() == Some(&b'{') {
            // The usual case: the members read straight into their fields, with no map in
            // between, and the method borrowed from the body. A member given twice is a data
            // error here; the general path below reads it as any JSON parser does (the last
            // one counts).
            match serde_json::from_slice::<Envelope<'_>>(body) {
                Ok(envelope) => return envelope.classify(),
                Err(e) if e.is_data() => {}
                Err(e) => return Err(not_json(e)),
            }
        }
        let value: Value = serde_json::from_slice(body).map_err(not_json)?;
        Self::classify(value)
    }

    /// Classifies a parsed body, or says why it is not a JSON-RPC message.
    pub(crate) fn classify(body: Value) -> Result<Self, ErrorData> {
        match body {
            Value::Object(mut object) => Envelope {
                jsonrpc: object.remove("jsonrpc").as_ref().map(Version::of),
                id: object.remove("id"),
                method: object.remove("method").map(Method::of),
                params: object.remove("params").map(ParamsMember::of),
                result: object.remove("result"),
                error: object.remove("error"),
            }
            .classify(),
            Value::Array(_) => Err(invalid_request(
                None,
                "JSON-RPC batches are not supported (removed in MCP 2025-06-18); send one \
                 message per POST",
            )),
            _ => Err(invalid_request(None, "the body must be a JSON-RPC object")),
        }
    }
}

fn invalid_request(id: Option<RequestId>, why: &str) -> ErrorData {
    ErrorData::invalid_request(format!("Invalid Request: {why}")).with_id(id)
}

/// The members of a JSON-RPC message object that decide what it is; each is `Some` when the
/// member is present, `null` included (an `"id": null` is a bad id, not a missing one).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Version>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<Method<'a>>,
    #[serde(default, deserialize_with = "members")]
    params: Option<ParamsMember>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    member: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(member).map(Some)
}

/// `params` read straight into its members; a value that is neither an object nor `null` is a
/// data error here, and the general path answers it.
fn members<'de, D: serde::Deserializer<'de>>(member: D) -> Result<Option<ParamsMember>, D::Error> {
    Params::deserialize(member).map(|params| Some(ParamsMember::Members(params)))
}

/// The `params` member: the members of an object (or of `null`), or a value of another type.
enum ParamsMember {
    Members(Params),
    NotAnObject,
}

impl ParamsMember {
    fn of(value: Value) -> Self {
        match value {
            Value::Object(map) => Self::Members(Params::from(map)),
            Value::Null => Self::Members(Params::default()),
            _ => Self::NotAnObject,
        }
    }
}

/// The `method` member: a name (borrowed from the body when it needs no unescaping), or a value
/// of another type, read past.
enum Method<'a> {
    Name(Cow<'a, str>),
    NotAString,
}

impl Method<'_> {
    fn of(value: Value) -> Self {
        match value {
            Value::String(name) => Self::Name(Cow::Owned(name)),
            _ => Self::NotAString,
        }
    }
}

/// Reads any JSON value: what `keep` makes of a string, or `other` for any other value (read
/// past). The members `jsonrpc` and `method` must be strings, and any other value is a wrong
/// one, not a malformed body.
fn string_or<'de, D, T>(
    deserializer: D,
    keep: impl FnOnce(Cow<'de, str>) -> T,
    other: T,
) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
{
    struct Reader<F, T> {
        keep: F,
        other: T,
    }
    impl<'de, T, F: FnOnce(Cow<'de, str>) -> T> Visitor<'de> for Reader<F, T> {
        type Value = T;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<T, E> {
            Ok((self.keep)(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> Result<T, E> {
            Ok((self.keep)(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E>(self, v: String) -> Result<T, E> {
            Ok((self.keep)(Cow::Owned(v)))
        }
        fn visit_bool<E>(self, _: bool) -> Result<T, E> {
            Ok(self.other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<T, E> {
            Ok(self.other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<T, E> {
            Ok(self.other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<T, E> {
            Ok(self.other)
        }
        fn visit_unit<E>(self) -> Result<T, E> {
            Ok(self.other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(self.other)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(self.other)
        }
    }
    deserializer.deserialize_any(Reader { keep, other })
}

impl<'de: 'a, 'a> Deserialize<'de> for Method<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        string_or(deserializer, Method::Name, Method::NotAString)
    }
}

/// The `jsonrpc` member, read without keeping it: whether it is exactly `"2.0"`. Any other JSON
/// value is read past (and is a bad version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    is_2_0: bool,
}

impl Version {
    fn of(value: &Value) -> Self {
        Self {
            is_2_0: value.as_str() == Some(JSONRPC),
        }
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let keep = |v: Cow<'_, str>| Version {
            is_2_0: v == JSONRPC,
        };
        string_or(deserializer, keep, Version { is_2_0: false })
    }
}

impl Envelope<'_> {
    fn classify(self) -> Result<Incoming, ErrorData> {
        let id = self.id.clone().and_then(RequestId::from_value);
        if !self.jsonrpc.is_some_and(|version| version.is_2_0) {
            // A readable id is echoed; one that is not a string or an integer is answered
            // with `null`, as JSON-RPC 2.0 says for an id that could not be read.
            return Err(invalid_request(id, "`jsonrpc` must be \"2.0\""));
        }
        if self.id.is_some() && id.is_none() {
            return Err(invalid_request(None, "`id` must be a string or an integer"));
        }
        match (self.method, id) {
            (Some(Method::Name(method)), Some(id)) => {
                let params = match self.params {
                    None => Params::default(),
                    Some(ParamsMember::Members(params)) => params,
                    Some(ParamsMember::NotAnObject) => {
                        return Err(invalid_request(Some(id), "`params` must be an object"));
                    }
                };
                let request = ClientRequest::read(&method, params);
                Ok(Incoming::Request(JsonRpcRequest { id, request }))
            }
            (Some(Method::Name(method)), None) => {
                Ok(Incoming::Notification(ClientNotification::read(method)))
            }
            (Some(Method::NotAString), id) => Err(invalid_request(id, "`method` must be a string")),
            (None, Some(id)) if self.result.is_some() || self.error.is_some() => {
                Ok(Incoming::Response {
                    id,
                    result: self.result.as_ref().and_then(ElicitResult::read),
                })
            }
            (None, id) => Err(invalid_request(id, "a request needs `method` (and `id`)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::computer::model::jsonrpc::ErrorCode;
    use crate::computer::model::request::CallToolRequestParams;

    /// Through the wire: objects take the envelope's fast path, anything else the JSON tree.
    fn classify(body: Value) -> Result<Incoming, ErrorData> {
        let parsed = Incoming::parse(body.to_string().as_bytes());
        let tree = Incoming::classify(body);
        match (&parsed, &tree) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => {
                assert_eq!((a.code, &a.message, a.id()), (b.code, &b.message, b.id()))
            }
            _ => panic!("the two paths disagree: {parsed:?} and {tree:?}"),
        }
        parsed
    }

    #[test]
    fn a_member_given_twice_counts_once_the_last_time_and_a_null_id_is_a_bad_id() {
        let twice = br#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#;
        let Ok(Incoming::Request(request)) = Incoming::parse(twice) else {
            panic!("a request");
        };
        assert_eq!(request.id, RequestId::Number(2.into()));
        let null_id = Incoming::parse(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!(
            null_id.err().map(|e| e.code),
            Some(ErrorCode::INVALID_REQUEST)
        );
        for broken in [&b"{\"jsonrpc\":"[..], b"{]", b"[1,", b" "] {
            let error = Incoming::parse(broken).expect_err("not JSON");
            assert_eq!(error.code, ErrorCode::PARSE_ERROR);
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Ok(Incoming::Request(JsonRpcRequest {
                request: ClientRequest::Ping(_),
                ..
            }))
        ));
        assert_eq!(
            classify(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).ok(),
            Some(Incoming::Notification(ClientNotification::Initialized))
        );
        assert!(matches!(
            classify(json!({"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}})),
            Ok(Incoming::Response {
                result: Some(_),
                ..
            })
        ));
    }

    #[test]
    fn a_call_reads_into_its_typed_params_on_both_paths() {
        let body = json!({"jsonrpc":"2.0","id":3,"method":"tools/call",
            "params":{"name":"models_list","arguments":{"a":1},"_meta":{"progressToken":"p"}}});
        let Ok(Incoming::Request(JsonRpcRequest {
            request: ClientRequest::CallTool(call),
            ..
        })) = classify(body)
        else {
            panic!("a tools/call");
        };
        let CallToolRequestParams {
            name,
            arguments,
            meta,
            ..
        } = call;
        assert_eq!(name.as_deref(), Some("models_list"));
        assert_eq!(arguments, json!({"a": 1}));
        assert!(meta.progress_token.is_some());
        let escaped = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#;
        assert!(matches!(
            Incoming::parse(escaped),
            Ok(Incoming::Request(JsonRpcRequest {
                request: ClientRequest::ListTools(_),
                ..
            }))
        ));
    }

    /// JSON-RPC 2.0, Response object: "If there was an error in detecting the id in the
    /// Request object (e.g. Parse error/Invalid Request), it MUST be Null."
    #[test]
    fn an_id_that_cannot_be_read_is_answered_with_null() {
        for body in [
            json!({"jsonrpc":"1.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":[1],"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1.5,"method":"ping"}),
        ] {
            let error = classify(body.clone()).expect_err("invalid");
            assert_eq!(error.id(), &Value::Null, "{body}");
        }
        let readable = classify(json!({"jsonrpc":"1.0","id":"a","method":"ping"}));
        assert_eq!(readable.err().map(|e| e.id().clone()), Some(json!("a")));
    }

    #[test]
    fn malformed_envelopes_are_invalid_requests() {
        for body in [
            json!([{"jsonrpc":"2.0","id":1,"method":"ping"}]),
            json!("ping"),
            json!({"jsonrpc":"1.0","id":1,"method":"ping"}),
            // A version that is not the string "2.0", of every JSON type.
            json!({"jsonrpc":2.0,"id":1,"method":"ping"}),
            json!({"jsonrpc":2,"id":1,"method":"ping"}),
            json!({"jsonrpc":-2,"id":1,"method":"ping"}),
            json!({"jsonrpc":true,"id":1,"method":"ping"}),
            json!({"jsonrpc":null,"id":1,"method":"ping"}),
            json!({"jsonrpc":["2.0"],"id":1,"method":"ping"}),
            json!({"jsonrpc":{"version":"2.0"},"id":1,"method":"ping"}),
            json!({"id":1,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":{"x":1},"method":"ping"}),
            json!({"jsonrpc":"2.0","id":1,"method":7}),
            json!({"jsonrpc":"2.0","id":1,"method":["ping"]}),
            json!({"jsonrpc":"2.0","id":1,"method":{"name":"ping"}}),
            json!({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}),
            json!({"jsonrpc":"2.0","id":1}),
        ] {
            let error = classify(body.clone()).expect_err("invalid");
            assert_eq!(error.code, ErrorCode::INVALID_REQUEST, "{body}");
        }
    }
}
