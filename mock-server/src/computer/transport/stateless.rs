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

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::call;
use super::elicitation::{self, Elicitations};
use super::headers::{METHOD, NAME, PROTOCOL_VERSION, SESSION_ID};
use super::tasks::{self, Tasks};
use crate::computer::model::error::ErrorData;
use crate::computer::model::incoming::Incoming;
use crate::computer::model::jsonrpc::{RequestId, Response as Reply};
use crate::computer::model::lifecycle::{
    ClientCapabilities, DISCOVER, META_CAPABILITIES, META_VERSION, TASKS_EXTENSION,
};
use crate::computer::model::request::{ClientRequest, JsonRpcRequest};
use crate::computer::model::tools::{ListToolsResult, ToolName};
use crate::computer::model::version::{MODERN_VERSION, ProtocolVersion};
use crate::computer::service::Service;
use crate::computer::tools;
use crate::config::Eras;
use crate::world::Account;

/// Whether a POSTed message without a session belongs to the modern era.
pub(crate) fn claims(headers: &HeaderMap, message: &Incoming) -> bool {
    if headers.contains_key(&SESSION_ID) {
        return false;
    }
    let version_header = header_str(headers, &PROTOCOL_VERSION);
    let foreign_version =
        version_header.is_some_and(|v| ProtocolVersion::parse_handshake(v).is_none());
    match message {
        Incoming::Request(JsonRpcRequest { request, .. }) => {
            let modern_meta = request.meta().is_stateless();
            match request {
                // Only an initialize stamped with the stateless envelope is a modern request
                // (and gets "method not found"); rmcp offers 2026-07-28 inside a plain one.
                ClientRequest::Initialize(_) => {
                    modern_meta && version_header == Some(MODERN_VERSION)
                }
                ClientRequest::Discover(_) => true,
                _ => modern_meta || foreign_version,
            }
        }
        Incoming::Notification(_) | Incoming::Response { .. } => {
            version_header == Some(MODERN_VERSION)
        }
    }
}

/// On a handshake-only mock, the answer to a message a 2025-11-25 server does not know:
/// `server/discover` is an unknown method there (-32601), which an auto-negotiating client
/// takes as the sign to fall back to `initialize`.
pub(crate) fn unknown_to_handshake_servers(message: &Incoming) -> Option<ErrorData> {
    let Incoming::Request(JsonRpcRequest {
        id,
        request: request @ ClientRequest::Discover(_),
    }) = message
    else {
        return None;
    };
    Some(
        ErrorData::method_not_found(format!(
            "Method not found: {}. This server speaks the handshake era (2025-11-25 and \
             earlier): start with initialize.",
            request.method()
        ))
        .with_id(Some(id.clone())),
    )
}

/// On a modern-only mock, the answer to an `initialize` (stamped with the envelope or not):
/// 404 with -32601, as a 2026-07-28-only server answers a method it does not have.
pub(crate) fn unknown_to_modern_servers(message: &Incoming) -> Option<ErrorData> {
    let Incoming::Request(JsonRpcRequest {
        id,
        request: request @ ClientRequest::Initialize(_),
    }) = message
    else {
        return None;
    };
    Some(method_not_found(id, request))
}

/// The refusal of a GET or DELETE that is a modern-era request (which only knows POST), or
/// any GET or DELETE on a modern-only mock.
pub(crate) fn refuse_non_post(headers: &HeaderMap, eras: Eras) -> Option<ErrorData> {
    let modern_request = !headers.contains_key(&SESSION_ID)
        && header_str(headers, &PROTOCOL_VERSION) == Some(MODERN_VERSION);
    // Both eras: only a modern request is refused; modern only: every GET and DELETE.
    let refused = match eras {
        Eras::Handshake => false,
        Eras::Both => modern_request,
        Eras::Modern => true,
    };
    if !refused {
        return None;
    }
    Some(ErrorData::post_only(
        "Method Not Allowed: protocol 2026-07-28 is stateless and uses POST only (no GET \
         stream, no session to DELETE)",
    ))
}

/// What a modern request declared about its client, read from its `_meta`.
#[derive(Debug, Clone)]
pub(crate) struct Envelope {
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub(crate) capabilities: ClientCapabilities,
}

fn header_str<'h>(headers: &'h HeaderMap, name: &HeaderName) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Checks the envelope and the routing headers of a modern request, in the reference order.
fn validate(
    headers: &HeaderMap,
    id: &RequestId,
    request: &ClientRequest,
) -> Result<Envelope, ErrorData> {
    let refuse = |error: ErrorData| Err(error.with_id(Some(id.clone())));
    let Some(header_version) = header_str(headers, &PROTOCOL_VERSION) else {
        return refuse(ErrorData::header_mismatch(format!(
            "Header mismatch: a {MODERN_VERSION} request must carry the MCP-Protocol-Version \
             header (equal to _meta[\"{META_VERSION}\"])"
        )));
    };
    let envelope = request.meta().envelope.as_deref();
    let meta_version = envelope.and_then(|e| e.protocol_version.as_deref());
    let capabilities = envelope.and_then(|e| e.client_capabilities);
    let (Some(meta_version), Some(capabilities)) = (meta_version, capabilities) else {
        let mut missing = Vec::new();
        if meta_version.is_none() {
            missing.push(format!("\"{META_VERSION}\" (a string)"));
        }
        if capabilities.is_none() {
            missing.push(format!("\"{META_CAPABILITIES}\" (an object)"));
        }
        return refuse(
            ErrorData::invalid_params(format!(
                "Invalid params: every {MODERN_VERSION} request needs params._meta with {}; \
                 servers must not infer them from earlier requests",
                missing.join(" and ")
            ))
            .with_status(StatusCode::BAD_REQUEST),
        );
    };
    if header_version != meta_version {
        return refuse(ErrorData::header_mismatch(format!(
            "Header mismatch: MCP-Protocol-Version is `{header_version}` but \
             _meta[\"{META_VERSION}\"] is `{meta_version}`"
        )));
    }
    if meta_version != MODERN_VERSION {
        return refuse(
            ErrorData::unsupported_version(format!(
                "Unsupported protocol version `{meta_version}`: stateless requests must use \
                 {MODERN_VERSION}; the handshake versions start with initialize"
            ))
            .with_data(json!({"supported": ProtocolVersion::SUPPORTED, "requested": meta_version})),
        );
    }
    let method = request.method();
    match header_str(headers, &METHOD) {
        Some(value) if value == method => {}
        other => {
            return refuse(ErrorData::header_mismatch(format!(
                "Header mismatch: Mcp-Method is {} but the body's method is `{method}`",
                other.map_or("missing".to_owned(), |v| format!("`{v}`"))
            )));
        }
    }
    if let Some((field, body_name)) = request.routing_name() {
        let header_name = header_str(headers, &NAME);
        if header_name != Some(body_name) {
            return refuse(ErrorData::header_mismatch(format!(
                "Header mismatch: Mcp-Name is {} but params.{field} is `{body_name}`",
                header_name.map_or("missing".to_owned(), |v| format!("`{v}`"))
            )));
        }
    }
    Ok(Envelope { capabilities })
}

/// Answers a POSTed modern-era message.
pub(crate) async fn post(
    service: Service,
    tasks: &Tasks,
    elicitations: Arc<Elicitations>,
    account: Arc<Account>,
    headers: &HeaderMap,
    message: Incoming,
) -> Response {
    let Incoming::Request(JsonRpcRequest { id, request }) = message else {
        return StatusCode::ACCEPTED.into_response();
    };
    let capabilities = match validate(headers, &id, &request) {
        Ok(envelope) => envelope.capabilities,
        Err(error) => return error.into_response(),
    };
    match request {
        ClientRequest::Discover(_) => Reply::new(&id, DISCOVER).into_response(),
        ClientRequest::ListTools(_) => {
            Reply::new(&id, ListToolsResult::stateless(tools::catalog())).into_response()
        }
        ClientRequest::CallTool(params) => {
            let starts_a_task =
                params.name.as_deref() == Some(ToolName::CallPerplexityComputer.as_str());
            if capabilities.tasks && starts_a_task {
                return tasks::create(&service, tasks, &account, id, params).await;
            }
            if let Some(modes) = capabilities.elicitation {
                return elicitation::call(service, elicitations, account, modes, id, params).await;
            }
            call::plain(
                service,
                account,
                ProtocolVersion::STATELESS,
                id,
                params,
                None,
            )
            .await
        }
        request @ (ClientRequest::GetTask(_)
        | ClientRequest::UpdateTask(_)
        | ClientRequest::CancelTask(_))
            if !capabilities.tasks =>
        {
            ErrorData::missing_capability(format!(
                "Missing required client capability: {} needs the {TASKS_EXTENSION} extension \
                 declared in _meta[\"{META_CAPABILITIES}\"].extensions on this request",
                request.method()
            ))
            .with_data(json!({"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}))
            .with_id(Some(id))
            .into_response()
        }
        ClientRequest::GetTask(params) => tasks::get(&service, tasks, &account, id, params).await,
        ClientRequest::UpdateTask(params) => {
            tasks::update(&service, tasks, &account, id, params).await
        }
        ClientRequest::CancelTask(params) => tasks::cancel(&service, tasks, &account, id, &params),
        other => method_not_found(&id, &other).into_response(),
    }
}

/// -32601 (HTTP 404) for a method the stateless era does not have, with what to send instead.
fn method_not_found(id: &RequestId, request: &ClientRequest) -> ErrorData {
    let hint = match request.method() {
        "initialize" | "ping" => {
            " 2026-07-28 removed initialize and ping: requests are stateless (send \
             server/discover to learn what this server speaks)."
        }
        "tasks/result" | "tasks/list" => {
            " The tasks extension has no tasks/result or tasks/list: poll tasks/get with \
             the taskId you saved."
        }
        _ => {
            " This server offers server/discover, tools/list, tools/call and, with the \
             tasks extension, tasks/get, tasks/update and tasks/cancel."
        }
    };
    ErrorData::method_not_found(format!("Method not found: {}.{hint}", request.method()))
        .with_status(StatusCode::NOT_FOUND)
        .with_id(Some(id.clone()))
}
