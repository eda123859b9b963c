//! Asking the user through the client: the `elicitation/create` request (a form or a URL),
//! what the client answers (`ElicitResult`, and `inputResponses` keyed like the requests), the
//! 2026-07-28 `input_required` result that carries requests in a tool call (MRTR), and the
//! check that an accepted form fits what was asked.

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::lifecycle::{ResultType, SERVER_META, ServerMeta};
use super::results::AwaitingKind;

/// The method of every request this server makes of a client.
pub const ELICIT: &str = "elicitation/create";

/// How the user answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ElicitMode {
    /// A form the client shows.
    Form,
    /// A page the user opens and finishes on.
    Url,
}

/// `elicitation/create` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitParams {
    /// Form or URL (absent in 2025-06-18, which knows only forms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitMode>,
    /// What to tell the user.
    pub message: String,
    /// The form (form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    /// The page (URL mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Names a URL request (2025-11-25 handshake sessions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
}

impl ElicitParams {
    /// A form asking `message` with `schema`.
    pub fn form(message: impl Into<String>, schema: Value) -> Self {
        Self {
            mode: Some(ElicitMode::Form),
            message: message.into(),
            requested_schema: Some(schema),
            url: None,
            elicitation_id: None,
        }
    }

    /// A page at `url` the user finishes on.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            mode: Some(ElicitMode::Url),
            message: message.into(),
            requested_schema: None,
            url: Some(url.into()),
            elicitation_id: None,
        }
    }

    /// Whether it is a page the user opens (URL mode).
    pub fn is_url(&self) -> bool {
        self.mode == Some(ElicitMode::Url)
    }

    /// Whether it is a form with at least one field (a form without fields is an approval).
    pub fn has_fields(&self) -> bool {
        self.requested_schema
            .as_ref()
            .and_then(|schema| schema.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|properties| !properties.is_empty())
    }

    /// The request for a question, a confirmation or a sign-in (pages have no message of
    /// their own: each flow words it).
    pub(crate) fn asking(kind: &AwaitingKind) -> Option<Self> {
        match kind {
            AwaitingKind::Questions {
                schema, message, ..
            } => Some(Self::form(message.clone(), schema.clone())),
            // An approval is a form without fields: accept approves, decline denies.
            AwaitingKind::Confirm { action } => Some(Self::form(
                action.clone(),
                json!({"type": "object", "properties": {}}),
            )),
            AwaitingKind::SignIn { display_name, url } => Some(Self::url(
                format!("Sign in to {display_name} so Computer can continue."),
                url.clone(),
            )),
            AwaitingKind::Form { .. }
            | AwaitingKind::TwoFactor { .. }
            | AwaitingKind::Credits { .. } => None,
        }
    }
}

/// One request inside a result: `{"method": "elicitation/create", "params": …}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct InputRequest {
    method: &'static str,
    params: ElicitParams,
}

impl InputRequest {
    /// The request asking with `params`.
    pub(crate) fn new(params: ElicitParams) -> Self {
        Self {
            method: ELICIT,
            params,
        }
    }
}

/// Requests keyed as the client answers them, in order (`inputRequests`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputRequests(pub(crate) Vec<(String, InputRequest)>);

impl Serialize for InputRequests {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, request) in &self.0 {
            map.serialize_entry(key, request)?;
        }
        map.end()
    }
}

/// A 2026-07-28 tool call's answer when the server needs input first: retry the same call with
/// `inputResponses` and this `requestState`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InputRequiredResult {
    result_type: ResultType,
    input_requests: InputRequests,
    request_state: String,
    #[serde(rename = "_meta")]
    meta: ServerMeta,
}

impl InputRequiredResult {
    /// Asks `requests`, to be answered with `request_state`.
    pub(crate) fn new(input_requests: InputRequests, request_state: impl Into<String>) -> Self {
        Self {
            result_type: ResultType::InputRequired,
            input_requests,
            request_state: request_state.into(),
            meta: SERVER_META,
        }
    }
}

/// What the user did with a request (`ElicitResult.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Answered (a form's `content`) or agreed to open the page.
    Accept,
    /// Said no.
    Decline,
    /// Dismissed it without choosing.
    Cancel,
}

impl ElicitAction {
    /// The action an `action` string names.
    pub fn parse(action: &str) -> Option<Self> {
        match action {
            "accept" => Some(Self::Accept),
            "decline" => Some(Self::Decline),
            "cancel" => Some(Self::Cancel),
            _ => None,
        }
    }

    /// The action of an `ElicitResult` object, if it names one.
    pub fn of(result: &Value) -> Option<Self> {
        result
            .get("action")
            .and_then(Value::as_str)
            .and_then(Self::parse)
    }

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// What a client answers an elicitation with (`ElicitResult`): the user's action and, for an
/// accepted form, what they filled in.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// An accepted form's fields (`None`: none sent, or not as an object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// The user accepted a form and filled in `content`.
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }

    /// The user acted as `action`, with nothing filled in (agreeing to open a page, declining,
    /// dismissing).
    pub fn bare(action: ElicitAction) -> Self {
        Self {
            action,
            content: None,
        }
    }

    /// The result a client sent, if it names an action this server knows.
    pub fn read(result: &Value) -> Option<Self> {
        Some(Self {
            action: ElicitAction::of(result)?,
            content: result.get("content").and_then(Value::as_object).cloned(),
        })
    }

    /// The result as JSON.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("action".to_owned(), self.action.as_str().into());
        if let Some(content) = &self.content {
            object.insert("content".to_owned(), Value::Object(content.clone()));
        }
        Value::Object(object)
    }
}

/// A client's answers to `inputRequests`, keyed like them, in order (`inputResponses`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InputResponses(pub Vec<(String, ElicitResult)>);

impl InputResponses {
    /// Whether it answers nothing.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The answers as the JSON object the params carry.
    pub fn to_value(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(key, result)| (key.clone(), result.to_value()))
                .collect(),
        )
    }
}

impl Serialize for InputResponses {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, result) in &self.0 {
            map.serialize_entry(key, result)?;
        }
        map.end()
    }
}

/// Why accepted form `content` does not fit `schema` (a flat elicitation form), if it does not:
/// the mock refuses such answers, and the conformance suite judges clients by the same test.
pub fn form_content_problem(schema: &Value, content: Option<&Value>) -> Option<String> {
    form_problem(schema, content.and_then(Value::as_object))
}

/// [`form_content_problem`] of content already read as an object (`None`: none, or not an
/// object).
pub(crate) fn form_problem(schema: &Value, content: Option<&Map<String, Value>>) -> Option<String> {
    let Some(content) = content else {
        return Some("an accepted form needs `content`, an object".into());
    };
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if let Some(extra) = content.keys().find(|k| !properties.contains_key(*k)) {
        return Some(format!("`{extra}` is not a field of this form"));
    }
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !content.contains_key(required) {
            return Some(format!("the required field `{required}` is missing"));
        }
    }
    for (key, value) in content {
        if let Some(problem) = property_problem(&properties[key], value) {
            return Some(format!("`{key}`: {problem}"));
        }
    }
    None
}

/// Choices a property allows (`enum`, or `oneOf`/`anyOf` of `const`), if it restricts them.
fn choices(property: &Value) -> Option<Vec<&Value>> {
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        return Some(values.iter().collect());
    }
    ["oneOf", "anyOf"].into_iter().find_map(|k| {
        property
            .get(k)
            .and_then(Value::as_array)
            .map(|options| options.iter().filter_map(|o| o.get("const")).collect())
    })
}

fn property_problem(property: &Value, value: &Value) -> Option<String> {
    let kind = property
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    let fits = match kind {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        _ => true,
    };
    if !fits {
        return Some(format!("{value} is not of type {kind}"));
    }
    let (allowed, values): (Option<Vec<&Value>>, Vec<&Value>) = match value {
        Value::Array(items) => (
            property.get("items").and_then(choices),
            items.iter().collect(),
        ),
        _ => (choices(property), vec![value]),
    };
    if let Some(allowed) = allowed
        && let Some(bad) = values.iter().find(|v| !allowed.contains(v))
    {
        return Some(format!("{bad} is not one of the offered choices"));
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_keep_their_order_and_their_fields() {
        let requests = InputRequests(vec![
            (
                "b".into(),
                InputRequest::new(ElicitParams::url("Open it.", "http://x")),
            ),
            (
                "a".into(),
                InputRequest::new(ElicitParams::form("Pick.", json!({}))),
            ),
        ]);
        assert_eq!(
            serde_json::to_string(&requests).ok().as_deref(),
            Some(
                r#"{"b":{"method":"elicitation/create","params":{"mode":"url","message":"Open it.","url":"http://x"}},"a":{"method":"elicitation/create","params":{"mode":"form","message":"Pick.","requestedSchema":{}}}}"#
            )
        );
    }

    #[test]
    fn a_result_reads_back_as_written_and_an_unknown_action_reads_as_none() {
        let mut content = Map::new();
        content.insert("q1".into(), json!("PDF"));
        let accepted = ElicitResult::accept(content);
        assert_eq!(
            serde_json::to_value(&accepted).ok(),
            Some(accepted.to_value())
        );
        assert_eq!(ElicitResult::read(&accepted.to_value()), Some(accepted));
        let declined = ElicitResult::read(&json!({"action": "decline", "content": "x"}));
        assert_eq!(declined, Some(ElicitResult::bare(ElicitAction::Decline)));
        assert_eq!(ElicitResult::read(&json!({"action": "maybe"})), None);
        let responses = InputResponses(vec![(
            "confirm:1".into(),
            ElicitResult::bare(ElicitAction::Cancel),
        )]);
        assert_eq!(
            serde_json::to_value(&responses).ok(),
            Some(responses.to_value())
        );
    }

    #[test]
    fn form_content_problem_checks_fields_types_choices_and_required() {
        let schema = json!({"type": "object", "properties": {
            "q1": {"type": "string", "enum": ["PDF", "DOCX"]},
            "n": {"type": "integer"},
            "tags": {"type": "array", "items": {"anyOf": [{"const": "a"}, {"const": "b"}]}}},
            "required": ["q1"]});
        assert_eq!(
            form_content_problem(&schema, Some(&json!({"q1": "PDF"}))),
            None
        );
        assert!(form_content_problem(&schema, Some(&json!({"q1": "Markdown"}))).is_some());
        assert!(form_content_problem(&schema, Some(&json!({}))).is_some());
        assert!(form_content_problem(&schema, Some(&json!({"q1": "PDF", "x": 1}))).is_some());
        assert!(form_content_problem(&schema, Some(&json!({"q1": "PDF", "n": "3"}))).is_some());
        assert!(
            form_content_problem(&schema, Some(&json!({"q1": "PDF", "tags": ["c"]}))).is_some()
        );
        assert_eq!(
            form_content_problem(&schema, Some(&json!({"q1": "PDF", "n": 3, "tags": ["a"]}))),
            None
        );
        assert!(form_content_problem(&schema, None).is_some());
        let approval = json!({"type": "object", "properties": {}});
        assert_eq!(form_content_problem(&approval, Some(&json!({}))), None);
    }
}
