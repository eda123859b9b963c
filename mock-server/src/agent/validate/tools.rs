//! The request's tools: each one typed (a known `type`, only the fields that type takes), then
//! the rules on each (a `web_search`'s filters, a function's name, a server's label and URL,
//! at most 16 servers), then the account's: a connector must be one the account can use, and
//! an approval policy must parse.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::agent::connectors;
use crate::agent::error::ApiError;
use crate::agent::wire::approval::ApprovalPolicy;
use crate::agent::wire::request::{Tool, tool_fields};
use crate::world::Account;

/// Built-in tool names a `function` tool may not take (official notes).
pub(crate) const RESERVED_FUNCTION_NAMES: &[&str] = &[
    "web_search",
    "search_web",
    "people_search",
    "search_people",
    "fetch_url",
    "finance_search",
    "sandbox",
];

/// At most this many MCP servers (`mcp` and `connector` tools) per request.
pub(crate) const MAX_MCP_SERVERS: usize = 16;

static SERVER_LABEL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new("^[a-zA-Z0-9_-]{1,64}$").ok());

/// The request's `tools`, typed, in request order (none when absent or null).
pub(super) fn read_tools(raw: &Map<String, Value>) -> Result<Vec<Tool>, ApiError> {
    let sent: &[Value] = match raw.get("tools") {
        None | Some(Value::Null) => &[],
        Some(Value::Array(tools)) => tools,
        Some(_) => {
            return Err(ApiError::invalid_request(
                "invalid request body: `tools` must be an array",
            )
            .param("tools"));
        }
    };
    let mut tools = Vec::with_capacity(sent.len());
    for (i, tool) in sent.iter().enumerate() {
        tools.push(typed_tool(i, tool)?);
        if matches!(tools.last(), Some(Tool::WebSearch { .. })) {
            check_web_search(i, tool)?;
        }
    }
    Ok(tools)
}

/// The tools as the response echoes them: as sent, without the credentials sent for servers.
pub(super) fn echoed(raw: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let Some(Value::Array(tools)) = raw.get("tools") else {
        return Vec::new();
    };
    tools
        .iter()
        .filter_map(|tool| {
            let mut tool = tool.as_object()?.clone();
            tool.remove("authorization");
            tool.remove("headers");
            Some(tool)
        })
        .collect()
}

/// Connector ids must be managed connectors or the account's custom connectors, and approval
/// policies must parse; both are request validation (400 in every mode). Each tool's policy is
/// parsed here, once.
pub(super) fn check_for_account(tools: &mut [Tool], account: &Account) -> Result<(), ApiError> {
    for (i, tool) in tools.iter_mut().enumerate() {
        let (sent, approval) = match tool {
            Tool::Mcp(mcp) => (&mcp.require_approval, &mut mcp.approval),
            Tool::Connector(connector) => {
                let known = connectors::is_managed(&connector.id)
                    || account
                        .agent_api
                        .custom_connectors
                        .iter()
                        .any(|c| c.id == connector.id);
                if !known {
                    return Err(ApiError::validation(format!(
                        "tools[{i}]: unknown connector \"{}\": use connector_github, connector_slack, \
                         connector_googledrive, connector_datadog, connector_linear, connector_notion \
                         or a custom connector of your Project",
                        connector.id
                    ))
                    .param(format!("tools[{i}].id")));
                }
                (&connector.require_approval, &mut connector.approval)
            }
            _ => continue,
        };
        *approval = ApprovalPolicy::from_request(sent.as_ref()).map_err(|message| {
            ApiError::validation(format!("tools[{i}].require_approval: {message}"))
                .param(format!("tools[{i}].require_approval"))
        })?;
    }
    Ok(())
}

fn typed_tool(i: usize, tool: &Value) -> Result<Tool, ApiError> {
    let at = format!("tools[{i}]");
    let Some(map) = tool.as_object() else {
        return Err(
            ApiError::validation(format!("{at}: a tool must be an object with a `type`")).param(at),
        );
    };
    let Some(kind) = map.get("type").and_then(Value::as_str) else {
        return Err(
            ApiError::validation(format!("{at}: `type` is required")).param(format!("{at}.type"))
        );
    };
    let Some(fields) = tool_fields(kind) else {
        return Err(ApiError::validation(format!(
            "{at}: unknown tool type \"{kind}\"; use web_search, image_search, fetch_url, \
             people_search, finance_search, sandbox, function, mcp or connector"
        ))
        .param(format!("{at}.type")));
    };
    for key in map.keys() {
        if !fields.contains(&key.as_str()) {
            return Err(ApiError::unknown_field(key, &format!("{at}.{key}")));
        }
    }
    Tool::deserialize(tool).map_err(|e| ApiError::validation(format!("{at}: {e}")).param(at))
}

/// The filters a `web_search` tool accepts.
const SEARCH_FILTERS: &[&str] = &[
    "search_domain_filter",
    "search_recency_filter",
    "search_after_date_filter",
    "search_before_date_filter",
    "last_updated_after_filter",
    "last_updated_before_filter",
];

/// At most this many entries in `filters.search_domain_filter` (official notes).
const MAX_SEARCH_DOMAINS: usize = 20;

static SEARCH_DATE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(0?[1-9]|1[0-2])/(0?[1-9]|[12][0-9]|3[01])/[0-9]{4}$").ok());

/// A `web_search` tool's options: its filters (recency wording as recorded live, dates
/// `MM/DD/YYYY`, at most 20 domains, no unknown filter), `search_context_size` and
/// `search_type`.
fn check_web_search(i: usize, tool: &Value) -> Result<(), ApiError> {
    let at = format!("tools[{i}]");
    for (field, allowed) in [
        ("search_context_size", &["low", "medium", "high"][..]),
        ("search_type", &["web", "fast"][..]),
    ] {
        if let Some(value) = tool.get(field)
            && !value.as_str().is_some_and(|v| allowed.contains(&v))
        {
            return Err(ApiError::validation(format!(
                "{at}: {field} must be one of: {}",
                allowed.join(" ")
            ))
            .param(format!("{at}.{field}")));
        }
    }
    let Some(filters) = tool.get("filters").filter(|f| !f.is_null()) else {
        return Ok(());
    };
    let Some(filters) = filters.as_object() else {
        return Err(ApiError::validation(format!(
            "{at}: filters must be an object of search filters"
        ))
        .param(format!("{at}.filters")));
    };
    for key in filters.keys() {
        if !SEARCH_FILTERS.contains(&key.as_str()) {
            return Err(ApiError::unknown_field(key, &format!("{at}.filters.{key}")));
        }
    }
    if let Some(recency) = filters
        .get("search_recency_filter")
        .filter(|v| !v.is_null())
        && !recency
            .as_str()
            .is_some_and(|r| ["hour", "day", "week", "month", "year"].contains(&r))
    {
        // The live API's wording, recorded.
        return Err(ApiError::validation(format!(
            "{at}: search recency filter must be one of: hour day week month year"
        ))
        .param(format!("{at}.filters.search_recency_filter")));
    }
    if let Some(domains) = filters.get("search_domain_filter").filter(|v| !v.is_null()) {
        let param = format!("{at}.filters.search_domain_filter");
        let list = domains
            .as_array()
            .filter(|l| l.iter().all(Value::is_string));
        let Some(list) = list else {
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_search_domain_filter",
                format!("{param} must be a list of domains (prefix one with - to exclude it)"),
            )
            .param(param));
        };
        if list.len() > MAX_SEARCH_DOMAINS {
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_search_domain_filter",
                format!(
                    "{param} accepts at most {MAX_SEARCH_DOMAINS} domains, got {}",
                    list.len()
                ),
            )
            .param(param));
        }
    }
    for field in &SEARCH_FILTERS[2..] {
        let Some(value) = filters.get(*field).filter(|v| !v.is_null()) else {
            continue;
        };
        let well_formed = value
            .as_str()
            .is_some_and(|d| SEARCH_DATE.as_ref().is_some_and(|re| re.is_match(d)));
        if !well_formed {
            let param = format!("{at}.filters.{field}");
            return Err(ApiError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_date_format",
                format!(
                    "{param} must be a date in MM/DD/YYYY format (e.g. 03/01/2025), not {value}"
                ),
            )
            .param(param));
        }
    }
    Ok(())
}

pub(super) fn check_tools(tools: &[Tool]) -> Result<(), ApiError> {
    let servers = tools
        .iter()
        .filter(|t| matches!(t, Tool::Mcp(_) | Tool::Connector(_)))
        .count();
    if servers > MAX_MCP_SERVERS {
        return Err(ApiError::validation(format!(
            "at most {MAX_MCP_SERVERS} MCP servers (mcp and connector tools) per request, got {servers}"
        ))
        .param("tools"));
    }
    let mut labels: HashMap<&str, usize> = HashMap::new();
    for (i, tool) in tools.iter().enumerate() {
        let at = format!("tools[{i}]");
        match tool {
            Tool::Function { name, .. } if RESERVED_FUNCTION_NAMES.contains(&name.as_str()) => {
                return Err(ApiError::validation(format!(
                    "{at}: function name \"{name}\" is reserved for a built-in tool; rename the function"
                ))
                .param(format!("{at}.name")));
            }
            Tool::WebSearch {
                max_results: Some(n),
            } if !(1..=50).contains(n) => {
                return Err(ApiError::validation(format!(
                    "{at}: max_results must be between 1 and 50"
                ))
                .param(format!("{at}.max_results")));
            }
            Tool::FetchUrl { max_urls: Some(n) } if !(1..=10).contains(n) => {
                return Err(ApiError::validation(format!(
                    "{at}: max_urls must be between 1 and 10"
                ))
                .param(format!("{at}.max_urls")));
            }
            Tool::Mcp(mcp) => {
                check_label(&mut labels, i, &mcp.server_label)?;
                if !(mcp.server_url.starts_with("http://")
                    || mcp.server_url.starts_with("https://"))
                {
                    return Err(ApiError::validation(format!(
                        "{at}: server_url must be an http(s) URL of a Streamable HTTP MCP server"
                    ))
                    .param(format!("{at}.server_url")));
                }
            }
            Tool::Connector(connector) => {
                check_label(&mut labels, i, &connector.server_label)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_label<'a>(
    labels: &mut HashMap<&'a str, usize>,
    i: usize,
    label: &'a str,
) -> Result<(), ApiError> {
    let at = format!("tools[{i}]");
    if !SERVER_LABEL.as_ref().is_some_and(|re| re.is_match(label)) {
        return Err(ApiError::validation(format!(
            "{at}: server_label \"{label}\" must match ^[a-zA-Z0-9_-]{{1,64}}$"
        ))
        .param(format!("{at}.server_label")));
    }
    if let Some(first) = labels.insert(label, i) {
        return Err(ApiError::validation(format!(
            "{at}: server_label \"{label}\" is already used by tools[{first}]; labels must be unique"
        ))
        .param(format!("{at}.server_label")));
    }
    Ok(())
}
