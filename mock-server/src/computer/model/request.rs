//! What a client asks: every request this server answers, as one enum with typed params, read
//! once from the body (the server) or written once (a client); the notifications it sends; and
//! the `_meta` every request may carry.
//!
//! The server reads params leniently and leaves the judging to the method that answers them: a
//! member of the wrong type reads as missing (`None`) where that is how the method treats it,
//! and a member whose contents the method checks (a tool's arguments, `inputResponses`) stays
//! JSON. So one parse serves every method, and each refusal stays the method's own sentence.

use std::borrow::Cow;

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Number, Value};

use super::elicitation::InputResponses;
use super::jsonrpc::{JSONRPC, RequestId};
use super::lifecycle::{
    ClientCapabilities, Implementation, META_CAPABILITIES, META_CLIENT_INFO, META_NAMESPACE,
    META_VERSION,
};
use super::params::Params;
use super::tools::ToolName;

/// A request: its id and what it asks.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonRpcRequest {
    /// Its id, which the answer echoes.
    pub id: RequestId,
    /// The method and its params.
    pub request: ClientRequest,
}

impl JsonRpcRequest {
    /// Request `id` asking `request`.
    pub fn new(id: impl Into<RequestId>, request: ClientRequest) -> Self {
        Self {
            id: id.into(),
            request,
        }
    }
}

impl Serialize for JsonRpcRequest {
    /// `{"jsonrpc": "2.0", "id": …, "method": …, "params": …}`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("jsonrpc", JSONRPC)?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("method", self.request.method())?;
        match &self.request {
            ClientRequest::Initialize(params) => map.serialize_entry("params", params)?,
            ClientRequest::Ping(params)
            | ClientRequest::ListTools(params)
            | ClientRequest::Discover(params) => map.serialize_entry("params", params)?,
            ClientRequest::CallTool(params) => map.serialize_entry("params", params)?,
            ClientRequest::GetTask(params) | ClientRequest::CancelTask(params) => {
                map.serialize_entry("params", params)?;
            }
            ClientRequest::UpdateTask(params) => map.serialize_entry("params", params)?,
            ClientRequest::Custom(custom) => {
                map.serialize_entry("params", &CustomParams(custom))?
            }
        }
        map.end()
    }
}

/// A request's method with its params: the methods this server answers in either era, and any
/// other (which it refuses by name).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientRequest {
    /// `initialize`: opens a session (handshake era).
    Initialize(InitializeRequestParams),
    /// `ping` (handshake era).
    Ping(RequestParams),
    /// `tools/list`.
    ListTools(RequestParams),
    /// `tools/call`.
    CallTool(CallToolRequestParams),
    /// `server/discover` (2026-07-28).
    Discover(RequestParams),
    /// `tasks/get` (the tasks extension).
    GetTask(TaskRequestParams),
    /// `tasks/update` (the tasks extension).
    UpdateTask(UpdateTaskRequestParams),
    /// `tasks/cancel` (the tasks extension).
    CancelTask(TaskRequestParams),
    /// Any other method.
    Custom(CustomRequest),
}

impl ClientRequest {
    /// The method's name on the wire.
    pub fn method(&self) -> &str {
        match self {
            Self::Initialize(_) => "initialize",
            Self::Ping(_) => "ping",
            Self::ListTools(_) => "tools/list",
            Self::CallTool(_) => "tools/call",
            Self::Discover(_) => "server/discover",
            Self::GetTask(_) => "tasks/get",
            Self::UpdateTask(_) => "tasks/update",
            Self::CancelTask(_) => "tasks/cancel",
            Self::Custom(custom) => &custom.method,
        }
    }

    /// The request's `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        match self {
            Self::Initialize(params) => &params.meta,
            Self::Ping(params) | Self::ListTools(params) | Self::Discover(params) => &params.meta,
            Self::CallTool(params) => &params.meta,
            Self::GetTask(params) | Self::CancelTask(params) => &params.meta,
            Self::UpdateTask(params) => &params.meta,
            Self::Custom(custom) => &custom.meta,
        }
    }

    /// The request's `_meta`, to stamp (a client adds its progress token or the 2026-07-28
    /// envelope).
    pub fn meta_mut(&mut self) -> &mut RequestMeta {
        match self {
            Self::Initialize(params) => &mut params.meta,
            Self::Ping(params) | Self::ListTools(params) | Self::Discover(params) => {
                &mut params.meta
            }
            Self::CallTool(params) => &mut params.meta,
            Self::GetTask(params) | Self::CancelTask(params) => &mut params.meta,
            Self::UpdateTask(params) => &mut params.meta,
            Self::Custom(custom) => &mut custom.meta,
        }
    }

    /// What a 2026-07-28 request routes by (`Mcp-Name`): the params member that names the tool,
    /// prompt, resource or task, and its value, when the request gave it as a string.
    pub fn routing_name(&self) -> Option<(&'static str, &str)> {
        match self {
            Self::CallTool(params) => params.name.as_deref().map(|name| ("name", name)),
            Self::GetTask(params) | Self::CancelTask(params) => {
                params.task_id.as_deref().map(|id| ("taskId", id))
            }
            Self::UpdateTask(params) => params.task_id.as_deref().map(|id| ("taskId", id)),
            Self::Custom(custom) => {
                let field = match custom.method.as_str() {
                    "prompts/get" => "name",
                    "resources/read" => "uri",
                    m if m.starts_with("tasks/") => "taskId",
                    _ => return None,
                };
                let value = custom.params.get(field).and_then(Value::as_str)?;
                Some((field, value))
            }
            Self::Initialize(_) | Self::Ping(_) | Self::ListTools(_) | Self::Discover(_) => None,
        }
    }

    /// Reads `method`'s params from the members the request sent.
    pub(crate) fn read(method: &str, params: Params) -> Self {
        match method {
            "initialize" => Self::Initialize(InitializeRequestParams::read(params)),
            "ping" => Self::Ping(RequestParams::read(params)),
            "tools/list" => Self::ListTools(RequestParams::read(params)),
            "tools/call" => Self::CallTool(CallToolRequestParams::read(params)),
            "server/discover" => Self::Discover(RequestParams::read(params)),
            "tasks/get" => Self::GetTask(TaskRequestParams::read(params)),
            "tasks/update" => Self::UpdateTask(UpdateTaskRequestParams::read(params)),
            "tasks/cancel" => Self::CancelTask(TaskRequestParams::read(params)),
            other => Self::Custom(CustomRequest::read(other, params)),
        }
    }
}

/// A string member's value, or `None` for any other JSON value.
fn string(value: Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text),
        _ => None,
    }
}

/// `initialize` params: what the client offers and declares.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InitializeRequestParams {
    /// The protocol version it asks for (`None`: it sent none, or not as a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// What it can do.
    pub capabilities: ClientCapabilities,
    /// Who it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Implementation>,
    /// Its `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "RequestMeta::is_empty")]
    pub meta: RequestMeta,
}

impl InitializeRequestParams {
    /// A client `client_info` asking for `protocol_version`, declaring no capabilities.
    pub fn new(protocol_version: impl Into<String>, client_info: Implementation) -> Self {
        Self {
            protocol_version: Some(protocol_version.into()),
            capabilities: ClientCapabilities::default(),
            client_info: Some(client_info),
            meta: RequestMeta::default(),
        }
    }

    fn read(params: Params) -> Self {
        let mut read = Self::default();
        for (key, value) in params.into_members() {
            match &*key {
                "protocolVersion" => read.protocol_version = string(value),
                "capabilities" => read.capabilities = ClientCapabilities::read(&value),
                "clientInfo" => read.client_info = Implementation::read(value),
                "_meta" => read.meta = RequestMeta::read(value),
                _ => {}
            }
        }
        read
    }
}

/// The params of a request that carries nothing the server reads but `_meta` (`ping`,
/// `tools/list`, `server/discover`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RequestParams {
    /// Its `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "RequestMeta::is_empty")]
    pub meta: RequestMeta,
}

impl RequestParams {
    /// Params with `meta`.
    pub fn new(meta: RequestMeta) -> Self {
        Self { meta }
    }

    fn read(params: Params) -> Self {
        let mut read = Self::default();
        for (key, value) in params.into_members() {
            if key == "_meta" {
                read.meta = RequestMeta::read(value);
            }
        }
        read
    }
}

/// `tools/call` params: the tool, its arguments and, when the call retries an
/// `input_required` result (2026-07-28, MRTR), the answers and the state it echoes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolRequestParams {
    /// The tool's name (`None`: the request named none, or not as a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its arguments, any JSON the tool's input schema then judges (`{}` when absent).
    pub arguments: Value,
    /// Its `_meta` (a progress token, the 2026-07-28 envelope).
    #[serde(rename = "_meta", skip_serializing_if = "RequestMeta::is_empty")]
    pub meta: RequestMeta,
    /// The answers to an `input_required` result's requests, keyed like them (see
    /// [`InputResponses`]); the server refuses a value that is not an object. Boxed: most calls
    /// carry none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Box<Value>>,
    /// The `requestState` of the `input_required` result, echoed (a value that is not a string
    /// reads as an empty state, which names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl CallToolRequestParams {
    /// A call of `tool` with `arguments`.
    pub fn new(tool: ToolName, arguments: Value) -> Self {
        Self {
            name: Some(tool.as_str().to_owned()),
            arguments,
            meta: RequestMeta::default(),
            input_responses: None,
            request_state: None,
        }
    }

    /// The same call with `meta`.
    pub fn with_meta(mut self, meta: RequestMeta) -> Self {
        self.meta = meta;
        self
    }

    /// The same call retrying an `input_required` result: its `requestState`, echoed, and the
    /// answers to its requests.
    pub fn retry(mut self, request_state: impl Into<String>, responses: &InputResponses) -> Self {
        self.request_state = Some(request_state.into());
        self.input_responses = Some(Box::new(responses.to_value()));
        self
    }

    /// Whether it retries an `input_required` result (it sent either retry member, of any type).
    pub fn is_retry(&self) -> bool {
        self.request_state.is_some() || self.input_responses.is_some()
    }

    fn read(params: Params) -> Self {
        let mut read = Self {
            name: None,
            arguments: Value::Object(Map::new()),
            meta: RequestMeta::default(),
            input_responses: None,
            request_state: None,
        };
        for (key, value) in params.into_members() {
            match &*key {
                "name" => read.name = string(value),
                "arguments" => read.arguments = value,
                "_meta" => read.meta = RequestMeta::read(value),
                "inputResponses" => read.input_responses = Some(Box::new(value)),
                // A state that is not a string still makes the call a retry, and names none.
                "requestState" => {
                    read.request_state = Some(match value {
                        Value::String(state) => state,
                        _ => String::new(),
                    });
                }
                _ => {}
            }
        }
        read
    }
}

/// `tasks/get` and `tasks/cancel` params: the task.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRequestParams {
    /// The `taskId` a `tools/call` returned (`None`: missing, or not a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Its `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "RequestMeta::is_empty")]
    pub meta: RequestMeta,
}

impl TaskRequestParams {
    /// Params naming task `task_id`.
    pub fn new(task_id: impl Into<String>) -> Self {
        Self {
            task_id: Some(task_id.into()),
            meta: RequestMeta::default(),
        }
    }

    /// The same params with `meta`.
    pub fn with_meta(mut self, meta: RequestMeta) -> Self {
        self.meta = meta;
        self
    }

    fn read(params: Params) -> Self {
        let mut read = Self::default();
        for (key, value) in params.into_members() {
            match &*key {
                "taskId" => read.task_id = string(value),
                "_meta" => read.meta = RequestMeta::read(value),
                _ => {}
            }
        }
        read
    }
}

/// `tasks/update` params: the task and the answers to its `inputRequests`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UpdateTaskRequestParams {
    /// The task (`None`: missing, or not a string).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The answers, keyed like `tasks/get`'s `inputRequests` (see [`InputResponses`]); the
    /// server refuses a value that is not an object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Value>,
    /// Its `_meta`.
    #[serde(rename = "_meta", skip_serializing_if = "RequestMeta::is_empty")]
    pub meta: RequestMeta,
}

impl UpdateTaskRequestParams {
    /// Answers `responses` to task `task_id`.
    pub fn new(task_id: impl Into<String>, responses: &InputResponses) -> Self {
        Self {
            task_id: Some(task_id.into()),
            input_responses: Some(responses.to_value()),
            meta: RequestMeta::default(),
        }
    }

    /// The same params with `meta`.
    pub fn with_meta(mut self, meta: RequestMeta) -> Self {
        self.meta = meta;
        self
    }

    fn read(params: Params) -> Self {
        let mut read = Self::default();
        for (key, value) in params.into_members() {
            match &*key {
                "taskId" => read.task_id = string(value),
                "inputResponses" => read.input_responses = Some(value),
                "_meta" => read.meta = RequestMeta::read(value),
                _ => {}
            }
        }
        read
    }
}

/// A request of a method this server does not answer, kept as sent (it is refused by name).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CustomRequest {
    /// The method.
    pub method: String,
    /// Its params' members other than `_meta`.
    pub params: Map<String, Value>,
    /// Its `_meta`.
    pub meta: RequestMeta,
}

impl CustomRequest {
    /// A request of `method` with `params`.
    pub fn new(method: impl Into<String>, params: Map<String, Value>) -> Self {
        Self {
            method: method.into(),
            params,
            meta: RequestMeta::default(),
        }
    }

    fn read(method: &str, params: Params) -> Self {
        let mut members = params.into_map();
        let meta = members
            .shift_remove("_meta")
            .map_or_else(RequestMeta::default, RequestMeta::read);
        Self {
            method: method.to_owned(),
            params: members,
            meta,
        }
    }
}

/// A custom request's params: its members, then its `_meta`.
struct CustomParams<'a>(&'a CustomRequest);

impl Serialize for CustomParams<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in &self.0.params {
            map.serialize_entry(key, value)?;
        }
        if !self.0.meta.is_empty() {
            map.serialize_entry("_meta", &self.0.meta)?;
        }
        map.end()
    }
}

/// A progress token (`_meta.progressToken`): the request asks for progress notifications that
/// carry it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// A string token.
    String(String),
    /// A number token.
    Number(Number),
}

impl From<String> for ProgressToken {
    fn from(token: String) -> Self {
        Self::String(token)
    }
}

impl From<&str> for ProgressToken {
    fn from(token: &str) -> Self {
        Self::String(token.to_owned())
    }
}

/// A request's `_meta`: its progress token and, in 2026-07-28, the envelope every stateless
/// request carries.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct RequestMeta {
    /// `progressToken` (`None`: absent, or neither a string nor a number).
    pub progress_token: Option<ProgressToken>,
    /// The 2026-07-28 envelope (`None`: no key of its namespace). Boxed: the handshake era's
    /// requests, the calls that must be fast, carry none.
    pub envelope: Option<Box<StatelessEnvelope>>,
}

/// The envelope a 2026-07-28 request carries in `_meta` instead of a session:
/// `io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities` and `…/clientInfo`.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct StatelessEnvelope {
    /// The protocol version (`None`: absent, or not a string).
    pub protocol_version: Option<String>,
    /// The client's capabilities (`None`: absent, or not an object).
    pub client_capabilities: Option<ClientCapabilities>,
    /// Who the client is (`None`: absent, or not an `Implementation`).
    pub client_info: Option<Implementation>,
}

impl StatelessEnvelope {
    /// A client `client_info` on `protocol_version`, declaring `capabilities`.
    pub fn new(
        protocol_version: impl Into<String>,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: Some(protocol_version.into()),
            client_capabilities: Some(capabilities),
            client_info: Some(client_info),
        }
    }
}

impl RequestMeta {
    /// A `_meta` with only a progress token.
    pub fn progress(token: impl Into<ProgressToken>) -> Self {
        Self {
            progress_token: Some(token.into()),
            envelope: None,
        }
    }

    /// A `_meta` with only the 2026-07-28 envelope.
    pub fn stateless(envelope: StatelessEnvelope) -> Self {
        Self {
            progress_token: None,
            envelope: Some(Box::new(envelope)),
        }
    }

    /// The same `_meta` with a progress token.
    pub fn with_progress(mut self, token: impl Into<ProgressToken>) -> Self {
        self.progress_token = Some(token.into());
        self
    }

    /// Whether it carries nothing (and so is left out of the params).
    pub fn is_empty(&self) -> bool {
        self.progress_token.is_none() && self.envelope.is_none()
    }

    /// Whether it carries a key of the 2026-07-28 envelope's namespace (read or not): a sign
    /// that the request is a stateless one.
    pub fn is_stateless(&self) -> bool {
        self.envelope.is_some()
    }

    /// Reads a `_meta` member; anything but an object carries nothing.
    pub(crate) fn read(value: Value) -> Self {
        let mut meta = Self::default();
        let Value::Object(members) = value else {
            return meta;
        };
        for (key, value) in members {
            if key == "progressToken" {
                meta.progress_token = match value {
                    Value::String(token) => Some(ProgressToken::String(token)),
                    Value::Number(token) => Some(ProgressToken::Number(token)),
                    _ => None,
                };
                continue;
            }
            if !key.starts_with(META_NAMESPACE) {
                continue;
            }
            let envelope = meta.envelope.get_or_insert_default();
            match key.as_str() {
                META_VERSION => envelope.protocol_version = string(value),
                META_CAPABILITIES => {
                    envelope.client_capabilities =
                        value.is_object().then(|| ClientCapabilities::read(&value));
                }
                META_CLIENT_INFO => envelope.client_info = Implementation::read(value),
                _ => {}
            }
        }
        meta
    }
}

impl Serialize for RequestMeta {
    /// `progressToken`, then the envelope's keys that are set.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if let Some(token) = &self.progress_token {
            map.serialize_entry("progressToken", token)?;
        }
        if let Some(envelope) = &self.envelope {
            if let Some(version) = &envelope.protocol_version {
                map.serialize_entry(META_VERSION, version)?;
            }
            if let Some(capabilities) = &envelope.client_capabilities {
                map.serialize_entry(META_CAPABILITIES, capabilities)?;
            }
            if let Some(info) = &envelope.client_info {
                map.serialize_entry(META_CLIENT_INFO, info)?;
            }
        }
        map.end()
    }
}

/// A notification a client sends (answered with 202, nothing in the body).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientNotification {
    /// `notifications/initialized`: the handshake is done.
    Initialized,
    /// Any other notification, by its method.
    Other(String),
}

impl ClientNotification {
    /// The notification a method names.
    pub(crate) fn read(method: Cow<'_, str>) -> Self {
        match &*method {
            "notifications/initialized" => Self::Initialized,
            _ => Self::Other(method.into_owned()),
        }
    }

    /// Its method on the wire.
    pub fn method(&self) -> &str {
        match self {
            Self::Initialized => "notifications/initialized",
            Self::Other(method) => method,
        }
    }
}

impl Serialize for ClientNotification {
    /// `{"jsonrpc": "2.0", "method": …}`: the notifications this server reads carry no params.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("jsonrpc", JSONRPC)?;
        map.serialize_entry("method", self.method())?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::computer::model::lifecycle::{ElicitationModes, TASKS_EXTENSION};

    fn read(method: &str, params: Value) -> ClientRequest {
        let params: Params = serde_json::from_value(params).expect("an object");
        ClientRequest::read(method, params)
    }

    #[test]
    fn members_of_the_wrong_type_read_as_missing_and_the_last_copy_counts() {
        let ClientRequest::CallTool(call) = read("tools/call", json!({"name": 7})) else {
            panic!("a call");
        };
        assert_eq!((call.name, call.arguments), (None, json!({})));
        let twice: Params = serde_json::from_str(r#"{"taskId":"a","taskId":"b"}"#).expect("params");
        let ClientRequest::GetTask(get) = ClientRequest::read("tasks/get", twice) else {
            panic!("a poll");
        };
        assert_eq!(get.task_id.as_deref(), Some("b"));
        let ClientRequest::CallTool(retry) =
            read("tools/call", json!({"name": "x", "requestState": 1}))
        else {
            panic!("a call");
        };
        assert!(retry.is_retry());
        assert_eq!(retry.request_state.as_deref(), Some(""));
    }

    #[test]
    fn the_envelope_is_read_from_meta_and_any_namespaced_key_is_a_stateless_sign() {
        let meta = RequestMeta::read(json!({
            "progressToken": 3,
            META_VERSION: "2026-07-28",
            META_CAPABILITIES: {"extensions": {TASKS_EXTENSION: {}}},
        }));
        assert_eq!(meta.progress_token, Some(ProgressToken::Number(3.into())));
        let envelope = meta.envelope.as_deref().expect("an envelope");
        assert_eq!(envelope.protocol_version.as_deref(), Some("2026-07-28"));
        assert!(envelope.client_capabilities.is_some_and(|c| c.tasks));
        assert!(RequestMeta::read(json!({"io.modelcontextprotocol/other": 1})).is_stateless());
        let wrong = RequestMeta::read(json!({"progressToken": true, META_CAPABILITIES: []}));
        assert_eq!(wrong.progress_token, None);
        assert_eq!(
            wrong.envelope.as_deref(),
            Some(&StatelessEnvelope::default())
        );
        assert!(wrong.is_stateless());
        assert!(!RequestMeta::read(json!("not an object")).is_stateless());
        assert!(!RequestMeta::read(json!({"progressToken": "p"})).is_stateless());
    }

    #[test]
    fn a_request_written_by_a_client_reads_back_as_the_same_request() {
        let capabilities = ClientCapabilities {
            elicitation: Some(ElicitationModes {
                form: true,
                url: true,
            }),
            tasks: true,
        };
        let envelope =
            StatelessEnvelope::new("2026-07-28", capabilities, Implementation::new("c", "1"));
        let meta = RequestMeta::stateless(envelope).with_progress("p-1");
        let call = CallToolRequestParams::new(ToolName::ReadThread, json!({"thread_id": "t"}))
            .with_meta(meta);
        let request = JsonRpcRequest::new(7u64, ClientRequest::CallTool(call));
        let written = serde_json::to_value(&request).expect("serializes");
        assert_eq!(written["method"], "tools/call");
        assert_eq!(written["params"]["name"], "read_thread");
        assert_eq!(
            written["params"]["_meta"][META_CAPABILITIES],
            json!({"elicitation": {"form": {}, "url": {}}, "extensions": {TASKS_EXTENSION: {}}})
        );
        assert_eq!(
            read("tools/call", written["params"].clone()),
            request.request
        );
    }
}
