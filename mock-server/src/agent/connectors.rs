//! Managed connectors: the tool catalogs of `connector_github`, `connector_slack`,
//! `connector_googledrive`, `connector_datadog`, `connector_linear` and `connector_notion`,
//! and the catalog search behind `tool_search_output`.
//!
//! The catalogs (data, in `connectors/managed.json`) use the tool names the connector documents
//! show (`slack_search_public`, `slack_send_message`, `get_file_contents`, ...) and, around
//! them, the tools each service's own MCP server offers, so a scenario can call anything a real
//! run would. Custom connectors
//! are real MCP servers and are listed with [`super::mcp_client`]; whether a connector is
//! connected or lapsed is account state the caller passes in.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

use super::mcp_client::RemoteTool;
use super::wire::items::Namespace;

/// The managed connector ids, in the order the Connectors document lists them.
pub(crate) const MANAGED_CONNECTORS: [&str; 6] = [
    "connector_github",
    "connector_slack",
    "connector_googledrive",
    "connector_datadog",
    "connector_linear",
    "connector_notion",
];

/// How many tools one catalog search returns at most.
pub(crate) const MAX_SEARCH_RESULTS: usize = 5;

/// Whether `connector_id` is a managed connector.
pub(crate) fn is_managed(connector_id: &str) -> bool {
    MANAGED_CONNECTORS.contains(&connector_id)
}

/// The service behind a managed connector, as its card names it ("GitHub", "Slack", ...).
// Only the tests read it today; the mock names connectors by id.
#[cfg(test)]
fn service_name(connector_id: &str) -> Option<&'static str> {
    Some(match connector_id {
        "connector_github" => "GitHub",
        "connector_slack" => "Slack",
        "connector_googledrive" => "Google Drive",
        "connector_datadog" => "Datadog",
        "connector_linear" => "Linear",
        "connector_notion" => "Notion",
        _ => return None,
    })
}

/// A model-facing description of a managed connector's namespace, used when the request sets
/// no `server_description`.
pub(crate) fn namespace_description(connector_id: &str) -> Option<&'static str> {
    Some(match connector_id {
        "connector_github" => {
            "GitHub: repositories, files, commits, branches, issues and pull requests of the \
             connected account."
        }
        "connector_slack" => {
            "Slack: search and read messages, channels, threads and users of the connected \
             workspace, and send messages."
        }
        "connector_googledrive" => {
            "Google Drive: search, read and create files and folders in the connected Drive."
        }
        "connector_datadog" => {
            "Datadog: logs, metrics, monitors, incidents, dashboards, services and traces of the \
             connected organization."
        }
        "connector_linear" => {
            "Linear: issues, comments, projects, cycles, teams and users of the connected \
             workspace."
        }
        "connector_notion" => {
            "Notion: search, read, create and update pages, databases and comments in the \
             connected workspace."
        }
        _ => return None,
    })
}

/// The managed connectors' tool catalogs, as data: per connector id, each tool's name, its
/// read-only hint, its description and its input schema, in catalog order.
const CATALOGS: &str = include_str!("connectors/managed.json");

/// The catalogs, read once.
static MANAGED: LazyLock<Result<HashMap<String, Vec<CatalogTool>>, String>> =
    LazyLock::new(|| serde_json::from_str(CATALOGS).map_err(|e| e.to_string()));

/// One tool of a catalog, as `managed.json` writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogTool {
    name: String,
    read_only: bool,
    description: String,
    input_schema: Value,
}

/// Why a managed catalog cannot be listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CatalogError {
    /// The id is no managed connector.
    #[error("`{0}` is not a managed connector")]
    NotManaged(String),
    /// The embedded catalogs do not parse (a bug in the mock, said in the message).
    #[error("the managed connector catalogs cannot be read: {0}")]
    Unreadable(String),
}

/// The full tool catalog of a managed connector.
pub(crate) fn managed_catalog(connector_id: &str) -> Result<Vec<RemoteTool>, CatalogError> {
    let catalogs = MANAGED
        .as_ref()
        .map_err(|e| CatalogError::Unreadable(e.clone()))?;
    let tools = catalogs
        .get(connector_id)
        .filter(|_| is_managed(connector_id))
        .ok_or_else(|| CatalogError::NotManaged(connector_id.to_owned()))?;
    Ok(tools
        .iter()
        .map(|tool| RemoteTool {
            name: tool.name.clone(),
            description: Some(tool.description.clone()),
            input_schema: tool.input_schema.clone(),
            read_only: Some(tool.read_only),
        })
        .collect())
}

/// The tools a search of a deferred catalog finds: the closest matches only, at most
/// [`MAX_SEARCH_RESULTS`]; empty when nothing matches (the model may then search again).
///
/// The MCP tool document: a search "returns only the tools it matches", and the Connectors
/// document's search of Slack for `["search","messages"]` returns `slack_search_public` alone.
/// So each word of `query` scores a tool when it is a word of its name (3 points), appears in
/// its name (2) or in its description (1), plurals matching their singular; the search keeps
/// the tools with the best score, and among those the ones whose names carry the fewest
/// words the query did not ask for (`slack_search_public` over
/// `slack_search_public_and_private`). Ties keep catalog order.
pub(crate) fn search_catalog(tools: &[RemoteTool], query: &str) -> Vec<RemoteTool> {
    let terms: Vec<String> = words(query)
        .into_iter()
        .filter(|w| w.len() >= 2)
        .map(|w| singular(&w))
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    let scored: Vec<(Match, usize)> = tools
        .iter()
        .enumerate()
        .filter_map(|(index, tool)| score(tool, &terms).map(|m| (m, index)))
        .collect();
    let Some(best) = scored.iter().map(|(m, _)| *m).max() else {
        return Vec::new();
    };
    scored
        .into_iter()
        .filter(|(m, _)| *m == best)
        .take(MAX_SEARCH_RESULTS)
        .map(|(_, index)| tools[index].clone())
        .collect()
}

/// How well a tool matches a search: its points, then (higher is closer) the negated count of
/// its name's words the search did not ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Match {
    points: usize,
    closeness: i64,
}

fn score(tool: &RemoteTool, terms: &[String]) -> Option<Match> {
    let name = tool.name.to_ascii_lowercase();
    let name_words: Vec<String> = words(&name).iter().map(|w| singular(w)).collect();
    let description = tool
        .description
        .as_deref()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let points: usize = terms
        .iter()
        .map(|term| {
            if name_words.iter().any(|w| w == term) {
                3
            } else if name.contains(term.as_str()) {
                2
            } else if description.contains(term.as_str()) {
                1
            } else {
                0
            }
        })
        .sum();
    let unasked = name_words.iter().filter(|w| !terms.contains(w)).count();
    (points > 0).then(|| Match {
        points,
        closeness: -i64::try_from(unasked).unwrap_or(i64::MAX),
    })
}

/// One `tool_search_output` namespace entry: the server's label, its description, and the
/// tools a search found there.
pub(crate) fn search_namespace(
    server_label: &str,
    description: &str,
    found: &[RemoteTool],
) -> Namespace {
    Namespace {
        name: server_label.to_owned(),
        description: description.to_owned(),
        tools: found.iter().map(RemoteTool::function_tool).collect(),
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

fn singular(word: &str) -> String {
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_owned()
    } else {
        word.to_owned()
    }
}

#[cfg(test)]
mod tests;
