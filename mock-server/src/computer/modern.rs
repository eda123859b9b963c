//! Streamable HTTP for the modern, stateless protocol era (2026-07-28).
//!
//! No `initialize` and no session: every request carries the `_meta` envelope
//! (`io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities`, `…/clientInfo`) and the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, which are checked against the
//! body on every request in the order of the conformance suite's reference server (header
//! present → `_meta` keys → header equals `_meta` → version supported → method and name
//! headers). Every result carries `resultType`; list results and `server/discover` also carry
//! `ttlMs` and `cacheScope`. Only POST exists: GET and DELETE get 405.
//!
//! A request belongs to this era when it carries no `Mcp-Session-Id` and shows a modern sign
//! (`server/discover`, an `io.modelcontextprotocol/` `_meta` key, or a protocol-version header
//! outside the handshake era); everything else stays with the handshake transport, so one URL
//! serves both eras and a conversation never mixes them.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::elicitation;
use super::jsonrpc::{self, INVALID_PARAMS, Incoming, METHOD_NOT_FOUND, RpcError};
use super::tasks;
use super::tools;
use super::transport::{self, HANDSHAKE_VERSIONS};
use crate::AppState;
use crate::world::Account;

/// The stateless protocol version this mock speaks.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The tasks extension's identifier, as clients declare it in `clientCapabilities.extensions`.
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A header value that disagrees with the body (or is missing).
pub(crate) const HEADER_MISMATCH: i64 = -32020;
/// The request needs a client capability the client did not declare.
pub(crate) const MISSING_CAPABILITY: i64 = -32021;
/// The request's protocol version is not one this server speaks.
pub(crate) const UNSUPPORTED_VERSION: i64 = -32022;

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
const SESSION_HEADER: &str = "mcp-session-id";

/// How long a client may reuse `server/discover` and `tools/list` (the catalog never changes
/// while the mock runs).
const LIST_TTL_MS: u64 = 3_600_000;
/// Answers depend on who asks (authentication), so shared caches must not keep them.
const CACHE_SCOPE: &str = "private";

/// Every version this server speaks, modern first: what `server/discover` and -32022 list.
pub(crate) fn supported_versions() -> Vec<&'static str> {
    std::iter::once(MODERN_VERSION)
        .chain(HANDSHAKE_VERSIONS)
        .collect()
}

/// Whether a POSTed message without a session belongs to the modern era.
pub(crate) fn is_modern(headers: &HeaderMap, message: &Incoming) -> bool {
    if headers.contains_key(SESSION_HEADER) {
        return false;
    }
    let version_header = header_str(headers, VERSION_HEADER);
    let foreign_version = version_header.is_some_and(|v| !HANDSHAKE_VERSIONS.contains(&v));
    match message {
        Incoming::Request { method, params, .. } => {
            let modern_meta = params
                .get("_meta")
                .and_then(Value::as_object)
                .is_some_and(|m| m.keys().any(|k| k.starts_with("io.modelcontextprotocol/")));
            if method == "initialize" {
                // Only an initialize stamped with the stateless envelope is a modern request
                // (and gets "method not found"); rmcp offers 2026-07-28 inside a plain one.
                return modern_meta && version_header == Some(MODERN_VERSION);
            }
            method == "server/discover" || modern_meta || foreign_version
        }
        Incoming::Notification { .. } | Incoming::Response => {
            version_header == Some(MODERN_VERSION)
        }
    }
}

/// Whether a GET or DELETE is a modern-era request (which only knows POST).
pub(crate) fn refuse_non_post(headers: &HeaderMap) -> Option<Response> {
    if headers.contains_key(SESSION_HEADER)
        || header_str(headers, VERSION_HEADER) != Some(MODERN_VERSION)
    {
        return None;
    }
    let error = RpcError::new(
        jsonrpc::SERVER_ERROR,
        "Method Not Allowed: protocol 2026-07-28 is stateless and uses POST only (no GET \
         stream, no session to DELETE)",
    );
    let mut response = (
        StatusCode::METHOD_NOT_ALLOWED,
        axum::Json(error.response(None)),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    Some(response)
}

/// What a modern request declared about its client, read from its `_meta`.
#[derive(Debug, Clone)]
pub(crate) struct Envelope {
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub(crate) capabilities: Value,
}

impl Envelope {
    /// Whether the client declared the tasks extension on this request.
    pub(crate) fn declares_tasks(&self) -> bool {
        self.capabilities
            .get("extensions")
            .and_then(|e| e.get(TASKS_EXTENSION))
            .is_some()
    }
}

fn header_str<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn error_response(status: StatusCode, id: Option<&Value>, error: &RpcError) -> Response {
    (status, axum::Json(error.response(id))).into_response()
}

fn bad_request(id: &Value, code: i64, message: String, data: Option<Value>) -> Response {
    let mut error = RpcError::new(code, message);
    error.data = data;
    error_response(StatusCode::BAD_REQUEST, Some(id), &error)
}

/// Checks the envelope and the routing headers of a modern request, in the reference order.
fn validate(
    headers: &HeaderMap,
    id: &Value,
    method: &str,
    params: &Value,
) -> Result<Envelope, Response> {
    let Some(header_version) = header_str(headers, VERSION_HEADER) else {
        return Err(bad_request(
            id,
            HEADER_MISMATCH,
            format!(
                "Header mismatch: a {MODERN_VERSION} request must carry the MCP-Protocol-Version \
                 header (equal to _meta[\"{META_VERSION}\"])"
            ),
            None,
        ));
    };
    let meta = params.get("_meta").and_then(Value::as_object);
    let meta_version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let capabilities = meta
        .and_then(|m| m.get(META_CAPABILITIES))
        .filter(|c| c.is_object());
    let (Some(meta_version), Some(capabilities)) = (meta_version, capabilities) else {
        let mut missing = Vec::new();
        if meta_version.is_none() {
            missing.push(format!("\"{META_VERSION}\" (a string)"));
        }
        if capabilities.is_none() {
            missing.push(format!("\"{META_CAPABILITIES}\" (an object)"));
        }
        return Err(bad_request(
            id,
            INVALID_PARAMS,
            format!(
                "Invalid params: every {MODERN_VERSION} request needs params._meta with {}; \
                 servers must not infer them from earlier requests",
                missing.join(" and ")
            ),
            None,
        ));
    };
    if header_version != meta_version {
        return Err(bad_request(
            id,
            HEADER_MISMATCH,
            format!(
                "Header mismatch: MCP-Protocol-Version is `{header_version}` but \
                 _meta[\"{META_VERSION}\"] is `{meta_version}`"
            ),
            None,
        ));
    }
    if meta_version != MODERN_VERSION {
        return Err(bad_request(
            id,
            UNSUPPORTED_VERSION,
            format!(
                "Unsupported protocol version `{meta_version}`: stateless requests must use \
                 {MODERN_VERSION}; the handshake versions start with initialize"
            ),
            Some(json!({"supported": supported_versions(), "requested": meta_version})),
        ));
    }
    match header_str(headers, METHOD_HEADER) {
        Some(value) if value == method => {}
        other => {
            return Err(bad_request(
                id,
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: Mcp-Method is {} but the body's method is `{method}`",
                    other.map_or("missing".to_owned(), |v| format!("`{v}`"))
                ),
                None,
            ));
        }
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        m if m.starts_with("tasks/") => Some("taskId"),
        _ => None,
    };
    if let Some(field) = name_field
        && let Some(body_name) = params.get(field).and_then(Value::as_str)
    {
        let header_name = header_str(headers, NAME_HEADER);
        if header_name != Some(body_name) {
            return Err(bad_request(
                id,
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: Mcp-Name is {} but params.{field} is `{body_name}`",
                    header_name.map_or("missing".to_owned(), |v| format!("`{v}`"))
                ),
                None,
            ));
        }
    }
    Ok(Envelope {
        capabilities: capabilities.clone(),
    })
}

/// The server description every modern result carries in `_meta`.
pub(crate) fn server_info() -> Value {
    json!({
        "name": "perplexity-computer-mock",
        "title": "Perplexity Computer (mock)",
        "version": env!("CARGO_PKG_VERSION"),
    })
}

/// Adds what every modern result carries: `resultType` (unless set) and the server info.
pub(crate) fn finish_result(result: &mut Value, result_type: &str) {
    if let Some(object) = result.as_object_mut() {
        object
            .entry("resultType")
            .or_insert_with(|| result_type.into());
        let meta = object.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(META_SERVER_INFO.into(), server_info());
        }
    }
}

fn success(id: &Value, mut result: Value) -> Response {
    finish_result(&mut result, "complete");
    axum::Json(jsonrpc::success(id, result)).into_response()
}

/// Answers a POSTed modern-era message.
pub(crate) async fn post(
    app: AppState,
    account: Account,
    headers: &HeaderMap,
    message: Incoming,
) -> Response {
    let Incoming::Request { id, method, params } = message else {
        return StatusCode::ACCEPTED.into_response();
    };
    let envelope = match validate(headers, &id, &method, &params) {
        Ok(envelope) => envelope,
        Err(response) => return response,
    };
    match method.as_str() {
        "server/discover" => success(&id, discover()),
        "tools/list" => success(
            &id,
            json!({"tools": tools::catalog(), "ttlMs": LIST_TTL_MS, "cacheScope": CACHE_SCOPE}),
        ),
        "tools/call" => {
            if envelope.declares_tasks()
                && params.get("name").and_then(Value::as_str) == Some("call_perplexity_computer")
            {
                return tasks::create(app, account, id, params).await;
            }
            if envelope.capabilities.get("elicitation").is_some() {
                return elicitation::call(app, account, &envelope, id, params).await;
            }
            transport::call_tool(app, account, MODERN_VERSION, id, params).await
        }
        "tasks/get" | "tasks/update" | "tasks/cancel" => {
            if !envelope.declares_tasks() {
                let mut error = RpcError::new(
                    MISSING_CAPABILITY,
                    format!(
                        "Missing required client capability: {method} needs the \
                         {TASKS_EXTENSION} extension declared in \
                         _meta[\"{META_CAPABILITIES}\"].extensions on this request"
                    ),
                );
                error.data =
                    Some(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}));
                return error_response(StatusCode::BAD_REQUEST, Some(&id), &error);
            }
            match method.as_str() {
                "tasks/get" => tasks::get(app, account, id, params).await,
                "tasks/update" => tasks::update(app, account, id, params).await,
                _ => tasks::cancel(app, account, id, params).await,
            }
        }
        other => {
            let hint = if other == "initialize" || other == "ping" {
                " 2026-07-28 removed initialize and ping: requests are stateless (send \
                 server/discover to learn what this server speaks)."
            } else if other == "tasks/result" || other == "tasks/list" {
                " The tasks extension has no tasks/result or tasks/list: poll tasks/get with \
                 the taskId you saved."
            } else {
                " This server offers server/discover, tools/list, tools/call and, with the tasks \
                 extension, tasks/get, tasks/update and tasks/cancel."
            };
            let error = RpcError::new(
                METHOD_NOT_FOUND,
                format!("Method not found: {other}.{hint}"),
            );
            error_response(StatusCode::NOT_FOUND, Some(&id), &error)
        }
    }
}

fn discover() -> Value {
    json!({
        "supportedVersions": supported_versions(),
        "capabilities": {
            "tools": {"listChanged": false},
            "extensions": {TASKS_EXTENSION: {}},
        },
        "instructions": transport::INSTRUCTIONS,
        "ttlMs": LIST_TTL_MS,
        "cacheScope": CACHE_SCOPE,
    })
}
