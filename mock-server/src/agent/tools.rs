//! The request's MCP servers and connectors as the scripted model sees them: discovery at run
//! start (a real MCP client for `mcp` tools and custom connectors, the managed catalogs for
//! managed connectors), deferred search, approval policy, and calls with their in-band errors.

use serde_json::Value;

use super::connectors;
use super::mcp_client::{McpClient, RemoteServer, RemoteTool};
use super::store::Pending;
use super::validate::Validated;
use super::wire::approval::ApprovalPolicy;
use super::wire::ids::{call_token, new_id};
use super::wire::items::{
    ItemStatus, McpApprovalRequest, McpCall, McpListTools, Namespace, OutputItem, SearchArguments,
    ToolSearchOutput,
};
use super::wire::request::{ConnectorTool, Tool};
use crate::fixtures::AgentScript;
use crate::journal::redact;
use crate::world::{Account, ConnectorState};

/// What a managed connector's tool returns when its scenario scripts no output: a search that
/// found nothing.
const NOTHING_FOUND: &str = r#"{"results":[]}"#;

/// One MCP server or connector of the request, discovered.
pub(crate) struct Server {
    /// `server_label`.
    pub(crate) label: String,
    /// `connector_id` for connectors.
    pub(crate) connector_id: Option<String>,
    /// Discovery is deferred: the model searches the catalog before calling.
    pub(crate) deferred: bool,
    /// GitHub with the sandbox and no `allowed_tools`: the work runs through git/gh instead.
    pub(crate) sandbox_mode: bool,
    /// The tools the model may use (after `allowed_tools`).
    pub(crate) tools: Vec<RemoteTool>,
    /// Connection state (always connected for `mcp` tools).
    pub(crate) state: ConnectorState,
    /// Where calls go, for real MCP servers.
    pub(crate) remote: Option<RemoteServer>,
    /// When calls need approval.
    pub(crate) policy: ApprovalPolicy,
    /// The namespace description shown by `tool_search_output`.
    pub(crate) description: String,
    /// A connector whose discovery failed: the in-band error value (`CONNECTOR_UNAVAILABLE`,
    /// `AUTH_REQUIRED`, ...) its `mcp_list_tools` carries and its calls come back with.
    pub(crate) failure: Option<String>,
}

/// Discovers every server of the request. An `mcp` server that cannot be listed fails the
/// whole run with this message (`external_connector_error`: "Because discovery runs before the
/// model, the whole run fails"); a connector that cannot be listed does not ("your requests
/// keep working"): it is listed with no tools and an in-band error, which its calls return.
pub(crate) async fn discover(
    validated: &Validated,
    account: &Account,
    script: &AgentScript,
) -> Result<Vec<Server>, String> {
    let client = McpClient::new();
    let sandbox = validated
        .tools
        .iter()
        .any(|t| matches!(t, Tool::Sandbox {}))
        || validated
            .request
            .skills
            .as_ref()
            .is_some_and(|s| !s.is_empty());
    let mut servers = Vec::new();
    let mut forced_failure = script.discovery_failure.clone();
    for tool in &validated.tools {
        match tool {
            Tool::Mcp(mcp) => {
                if let Some(message) = forced_failure.take() {
                    return Err(discovery_error(&mcp.server_label, &message));
                }
                let remote = RemoteServer {
                    url: mcp.server_url.clone(),
                    authorization: mcp.authorization.clone(),
                    headers: mcp
                        .headers
                        .clone()
                        .unwrap_or_default()
                        .into_iter()
                        .collect(),
                };
                let listed = client.list_tools(&remote).await.map_err(|e| {
                    let detail = redact::quoting_url(&e.to_string(), &mcp.server_url);
                    discovery_error(&mcp.server_label, &detail)
                })?;
                servers.push(Server {
                    label: mcp.server_label.clone(),
                    connector_id: None,
                    deferred: mcp.defer_loading == Some(true),
                    sandbox_mode: false,
                    tools: allowed(listed, mcp.allowed_tools.as_deref()),
                    state: ConnectorState::Connected,
                    remote: Some(remote),
                    policy: mcp.approval.clone(),
                    description: format!(
                        "Tools of the MCP server at {}",
                        redact::url(&mcp.server_url)
                    ),
                    failure: None,
                });
            }
            Tool::Connector(connector) => {
                servers
                    .push(discover_connector(&client, connector, account, script, sandbox).await);
            }
            _ => {}
        }
    }
    Ok(servers)
}

/// One connector of the request: a managed catalog, or a custom connector's real server.
async fn discover_connector(
    client: &McpClient,
    connector: &ConnectorTool,
    account: &Account,
    script: &AgentScript,
    sandbox: bool,
) -> Server {
    let state = script
        .connectors
        .get(&connector.id)
        .copied()
        .unwrap_or_else(|| account.agent_api.connector_state(&connector.id));
    let custom = account
        .agent_api
        .custom_connectors
        .iter()
        .find(|c| c.id == connector.id);
    let sandbox_mode = connector.id == "connector_github"
        && sandbox
        && connector.allowed_tools.as_ref().is_none_or(Vec::is_empty);
    let mut failure = script.connector_errors.get(&connector.id).cloned();
    let (listed, remote) = match custom {
        Some(custom) => {
            let remote = RemoteServer {
                url: custom.url.clone(),
                authorization: custom.authorization.clone(),
                headers: Vec::new(),
            };
            let listed = if state == ConnectorState::NotConnected || failure.is_some() {
                Vec::new()
            } else {
                // Custom connectors take Streamable HTTP or legacy SSE.
                let client = client.clone().allowing_legacy_sse();
                match client.list_tools(&remote).await {
                    Ok(listed) => listed,
                    Err(e) => {
                        failure = Some(e.connector_error().to_owned());
                        Vec::new()
                    }
                }
            };
            (listed, Some(remote))
        }
        None if state == ConnectorState::NotConnected || failure.is_some() => (Vec::new(), None),
        None => match connectors::managed_catalog(&connector.id) {
            Ok(listed) => (listed, None),
            // The connector answered nothing usable: it is listed with the documented in-band
            // error, and its calls come back with it.
            Err(_) => {
                failure = Some("CONNECTOR_INTERNAL_ERROR".to_owned());
                (Vec::new(), None)
            }
        },
    };
    Server {
        label: connector.server_label.clone(),
        connector_id: Some(connector.id.clone()),
        deferred: true,
        sandbox_mode,
        tools: allowed(listed, connector.allowed_tools.as_deref()),
        state,
        remote,
        policy: connector.approval.clone(),
        description: connector
            .server_description
            .clone()
            .or_else(|| connectors::namespace_description(&connector.id).map(str::to_owned))
            .unwrap_or_else(|| format!("Tools of the {} connector", connector.server_label)),
        failure,
    }
}

fn discovery_error(label: &str, detail: &str) -> String {
    format!("Error retrieving tool list from MCP server: '{label}'. {detail}")
}

fn allowed(listed: Vec<RemoteTool>, allowed: Option<&[String]>) -> Vec<RemoteTool> {
    listed
        .into_iter()
        .filter(|t| allowed.is_none_or(|a| a.is_empty() || a.contains(&t.name)))
        .collect()
}

/// The server a step names (label or connector id), else the first `mcp` server, else the
/// first connector.
pub(crate) fn pick_server<'a>(servers: &'a [Server], name: Option<&str>) -> Option<&'a Server> {
    match name {
        Some(name) => servers
            .iter()
            .find(|s| s.label == name || s.connector_id.as_deref() == Some(name)),
        None => servers
            .iter()
            .find(|s| s.connector_id.is_none())
            .or_else(|| servers.first()),
    }
}

/// The deferred server a search targets.
pub(crate) fn pick_deferred<'a>(servers: &'a [Server], name: Option<&str>) -> Option<&'a Server> {
    pick_server(servers, name)
        .filter(|s| s.deferred && !s.sandbox_mode)
        .or_else(|| {
            if name.is_some() {
                None
            } else {
                servers.iter().find(|s| s.deferred && !s.sandbox_mode)
            }
        })
}

impl Server {
    /// The `mcp_list_tools` item (none in sandbox mode).
    pub(crate) fn list_tools_item(&self) -> Option<OutputItem> {
        if self.sandbox_mode {
            return None;
        }
        Some(OutputItem::McpListTools(McpListTools {
            id: new_id("mcpl"),
            connector_id: self.connector_id.clone(),
            server_label: self.label.clone(),
            tools: self.tools.iter().map(RemoteTool::listed).collect(),
            error: self.failure.clone(),
        }))
    }

    /// The tool a call uses: the named one if listed, else the one listed after `after` (the
    /// previous call of a parallel turn, wrapping round), else the first listed.
    pub(crate) fn choose_tool(
        &self,
        name: Option<&str>,
        after: Option<&str>,
    ) -> Option<&RemoteTool> {
        let next = || {
            let previous = self
                .tools
                .iter()
                .position(|t| Some(t.name.as_str()) == after)?;
            self.tools.get((previous + 1) % self.tools.len())
        };
        name.and_then(|n| self.tools.iter().find(|t| t.name == n))
            .or_else(next)
            .or_else(|| self.tools.first())
    }

    /// Whether calling `tool` needs an approval first.
    pub(crate) fn requires_approval(&self, tool: &RemoteTool) -> bool {
        self.policy.requires_approval(&tool.name, tool.read_only)
    }

    /// A `tool_search_output` for these search words; `include` forces a tool into the match
    /// (the one the model goes on to call).
    pub(crate) fn search_item(&self, queries: &[String], include: Option<&str>) -> OutputItem {
        let mut matched = connectors::search_catalog(&self.tools, &queries.join(" "));
        if let Some(name) = include
            && !matched.iter().any(|m| m.name == name)
            && let Some(tool) = self.tools.iter().find(|t| t.name == name)
        {
            matched.push(tool.clone());
        }
        let tools: Vec<Namespace> = if matched.is_empty() {
            Vec::new()
        } else {
            vec![connectors::search_namespace(
                &self.label,
                &self.description,
                &matched,
            )]
        };
        OutputItem::ToolSearchOutput(ToolSearchOutput {
            id: format!("tso_call_{}", call_token()),
            call_id: None,
            status: ItemStatus::Completed,
            execution: "server",
            arguments: SearchArguments {
                paths: vec![self.label.clone()],
                queries: queries.to_vec(),
            },
            tools,
        })
    }

    /// The `mcp_approval_request` item.
    pub(crate) fn approval_item(&self, pending: &Pending) -> OutputItem {
        OutputItem::McpApprovalRequest(McpApprovalRequest {
            id: pending.id.clone(),
            connector_id: self.connector_id.clone(),
            server_label: pending.server_label.clone(),
            name: pending.name.clone(),
            arguments: pending.arguments.clone(),
        })
    }

    /// Runs a call: the scripted error if any, `AUTH_REQUIRED` for a lapsed connector, a real
    /// `tools/call` for remote servers, the scripted output for managed connectors.
    pub(crate) async fn call(
        &self,
        name: &str,
        arguments: &Value,
        scripted_output: Option<String>,
        scripted_error: Option<String>,
    ) -> (Option<String>, Option<String>) {
        if let Some(error) = scripted_error.or_else(|| self.failure.clone()) {
            return (None, Some(error));
        }
        if self.state == ConnectorState::Lapsed {
            return (None, Some("AUTH_REQUIRED".into()));
        }
        if let Some(remote) = &self.remote {
            let mut client = McpClient::new();
            if self.connector_id.is_some() {
                // Custom connectors take Streamable HTTP or legacy SSE; `mcp` tools only the former.
                client = client.allowing_legacy_sse();
            }
            // A connector answers with the documented values; an `mcp` tool passes the
            // server's own words on to the model.
            let connector = self.connector_id.is_some();
            return match client.call_tool(remote, name, arguments).await {
                Ok(outcome) if outcome.is_error && connector => (None, Some("TOOL_ERROR".into())),
                Ok(outcome) if outcome.is_error => (None, Some(outcome.output)),
                Ok(outcome) => (Some(outcome.output), None),
                Err(e) if connector => (None, Some(e.connector_error().to_owned())),
                // The model sees the server's URL without the credentials in it.
                Err(e) => (None, Some(redact::quoting_url(&e.to_string(), &remote.url))),
            };
        }
        (
            Some(scripted_output.unwrap_or_else(|| NOTHING_FOUND.to_owned())),
            None,
        )
    }

    /// The `mcp_call` item.
    pub(crate) fn call_item(
        &self,
        name: &str,
        arguments: &Value,
        output: Option<String>,
        error: Option<String>,
    ) -> McpCall {
        McpCall {
            id: format!("call_{}", call_token()),
            connector_id: self.connector_id.clone(),
            server_label: self.label.clone(),
            name: name.to_owned(),
            arguments: arguments.to_string(),
            output,
            error,
            approval_request_id: None,
        }
    }
}
