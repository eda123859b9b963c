//! Managed connectors: the tool catalogs of `connector_github`, `connector_slack`,
//! `connector_googledrive`, `connector_datadog`, `connector_linear` and `connector_notion`,
//! and the catalog search behind `tool_search_output`.
//!
//! The catalogs use the tool names the connector documents show (`slack_search_public`,
//! `slack_send_message`, `get_file_contents`, ...) and, around them, the tools each service's
//! own MCP server offers, so a scenario can call anything a real run would. Custom connectors
//! are real MCP servers and are listed with [`super::mcp_client`]; whether a connector is
//! connected or lapsed is account state the caller passes in.

use serde_json::{Value, json};

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

/// The full tool catalog of a managed connector (`None` for any other id).
pub(crate) fn managed_catalog(connector_id: &str) -> Option<Vec<RemoteTool>> {
    Some(match connector_id {
        "connector_github" => github(),
        "connector_slack" => slack(),
        "connector_googledrive" => google_drive(),
        "connector_datadog" => datadog(),
        "connector_linear" => linear(),
        "connector_notion" => notion(),
        _ => return None,
    })
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

/// A catalog entry: properties of an object schema, the required ones, and the read-only hint.
fn tool(
    name: &str,
    description: &str,
    properties: Value,
    required: &[&str],
    read_only: bool,
) -> RemoteTool {
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    RemoteTool {
        name: name.to_owned(),
        description: Some(description.to_owned()),
        input_schema: schema,
        read_only: Some(read_only),
    }
}

fn string(description: &str) -> Value {
    json!({"type": "string", "description": description})
}

fn integer(description: &str) -> Value {
    json!({"type": "integer", "description": description})
}

fn github() -> Vec<RemoteTool> {
    let owner = string("Repository owner (user or organization).");
    let repo = string("Repository name.");
    let page = integer("Page number, from 1.");
    let per_page = integer("Results per page (max 100).");
    vec![
        tool(
            "get_file_contents",
            "Get the contents of a file, or list a directory when path points to a folder. \
             Pass ref to read a branch, tag or commit; without it the default branch is read.",
            json!({"owner": owner, "repo": repo, "path": string("Path to the file or directory."),
                   "ref": string("Branch, tag or commit SHA (default branch when omitted).")}),
            &["owner", "repo", "path"],
            true,
        ),
        tool(
            "search_repositories",
            "Search GitHub repositories by name, description, topic or owner.",
            json!({"query": string("GitHub repository search syntax, e.g. `org:perplexityai sdk`."),
                   "page": page, "perPage": per_page}),
            &["query"],
            true,
        ),
        tool(
            "search_code",
            "Search code across the repositories the account can read.",
            json!({"query": string("GitHub code search syntax, e.g. `repo:o/r path:src fn main`."),
                   "page": page, "perPage": per_page}),
            &["query"],
            true,
        ),
        tool(
            "list_commits",
            "List commits of a branch, newest first.",
            json!({"owner": owner, "repo": repo, "sha": string("Branch or commit SHA to start from."),
                   "path": string("Only commits touching this path."), "page": page, "perPage": per_page}),
            &["owner", "repo"],
            true,
        ),
        tool(
            "get_commit",
            "Get one commit with its message, author and changed files.",
            json!({"owner": owner, "repo": repo, "sha": string("Commit SHA, branch or tag.")}),
            &["owner", "repo", "sha"],
            true,
        ),
        tool(
            "list_branches",
            "List the branches of a repository.",
            json!({"owner": owner, "repo": repo, "page": page, "perPage": per_page}),
            &["owner", "repo"],
            true,
        ),
        tool(
            "list_issues",
            "List issues of a repository, filtered by state and labels.",
            json!({"owner": owner, "repo": repo,
                   "state": {"type": "string", "enum": ["open", "closed", "all"]},
                   "labels": {"type": "array", "items": {"type": "string"}},
                   "page": page, "perPage": per_page}),
            &["owner", "repo"],
            true,
        ),
        tool(
            "get_issue",
            "Get one issue with its body, labels, assignees and state.",
            json!({"owner": owner, "repo": repo, "issue_number": integer("Issue number.")}),
            &["owner", "repo", "issue_number"],
            true,
        ),
        tool(
            "search_issues",
            "Search issues and pull requests across repositories.",
            json!({"query": string("GitHub issue search syntax, e.g. `repo:o/r is:open label:bug`."),
                   "page": page, "perPage": per_page}),
            &["query"],
            true,
        ),
        tool(
            "create_issue",
            "Open a new issue in a repository.",
            json!({"owner": owner, "repo": repo, "title": string("Issue title."),
                   "body": string("Issue body, in Markdown."),
                   "labels": {"type": "array", "items": {"type": "string"}},
                   "assignees": {"type": "array", "items": {"type": "string"}}}),
            &["owner", "repo", "title"],
            false,
        ),
        tool(
            "add_issue_comment",
            "Add a comment to an issue or pull request.",
            json!({"owner": owner, "repo": repo, "issue_number": integer("Issue or pull request number."),
                   "body": string("Comment text, in Markdown.")}),
            &["owner", "repo", "issue_number", "body"],
            false,
        ),
        tool(
            "list_pull_requests",
            "List pull requests of a repository.",
            json!({"owner": owner, "repo": repo,
                   "state": {"type": "string", "enum": ["open", "closed", "all"]},
                   "base": string("Only pull requests into this branch."), "page": page, "perPage": per_page}),
            &["owner", "repo"],
            true,
        ),
        tool(
            "get_pull_request",
            "Get one pull request with its description, branches, state and review status.",
            json!({"owner": owner, "repo": repo, "pullNumber": integer("Pull request number.")}),
            &["owner", "repo", "pullNumber"],
            true,
        ),
        tool(
            "get_pull_request_files",
            "List the files a pull request changes, with their patches.",
            json!({"owner": owner, "repo": repo, "pullNumber": integer("Pull request number.")}),
            &["owner", "repo", "pullNumber"],
            true,
        ),
        tool(
            "create_pull_request",
            "Open a pull request from a head branch into a base branch.",
            json!({"owner": owner, "repo": repo, "title": string("Pull request title."),
                   "head": string("Branch with the changes."), "base": string("Branch to merge into."),
                   "body": string("Description, in Markdown."), "draft": {"type": "boolean"}}),
            &["owner", "repo", "title", "head", "base"],
            false,
        ),
        tool(
            "create_or_update_file",
            "Create or update one file in a branch, as a commit.",
            json!({"owner": owner, "repo": repo, "path": string("Path of the file."),
                   "content": string("New file content."), "message": string("Commit message."),
                   "branch": string("Branch to commit to."),
                   "sha": string("Blob SHA of the file being replaced (required to update).")}),
            &["owner", "repo", "path", "content", "message", "branch"],
            false,
        ),
    ]
}

fn slack() -> Vec<RemoteTool> {
    let channel_id = string("Channel ID, e.g. C0123456789.");
    let limit = integer("Maximum number of results (default 20, max 100).");
    let cursor = string("Pagination cursor from a previous call.");
    vec![
        tool(
            "slack_search_public",
            "Searches for messages, files in public Slack channels. Supports Slack search \
             modifiers such as in:#channel, from:@user, before: and after: dates.",
            json!({"query": string("Search query, with optional Slack search modifiers."),
                   "content_types": string("Comma-separated: messages, files (default messages)."),
                   "sort": {"type": "string", "enum": ["score", "timestamp"]},
                   "limit": limit, "cursor": cursor}),
            &["query"],
            true,
        ),
        tool(
            "slack_search_public_and_private",
            "Searches for messages and files in public and private channels, direct messages \
             and group DMs the connected user can read.",
            json!({"query": string("Search query, with optional Slack search modifiers."),
                   "content_types": string("Comma-separated: messages, files (default messages)."),
                   "sort": {"type": "string", "enum": ["score", "timestamp"]},
                   "limit": limit, "cursor": cursor}),
            &["query"],
            true,
        ),
        tool(
            "slack_search_channels",
            "Searches channels by name or topic.",
            json!({"query": string("Words in the channel name, topic or purpose."), "limit": limit}),
            &["query"],
            true,
        ),
        tool(
            "slack_search_users",
            "Searches workspace members by name, display name, title or email.",
            json!({"query": string("Name, title or email to look for."), "limit": limit}),
            &["query"],
            true,
        ),
        tool(
            "slack_read_channel",
            "Reads the recent messages of a channel, newest first.",
            json!({"channel_id": channel_id, "oldest": string("Only messages after this timestamp."),
                   "latest": string("Only messages before this timestamp."), "limit": limit, "cursor": cursor}),
            &["channel_id"],
            true,
        ),
        tool(
            "slack_read_thread",
            "Reads a message and every reply in its thread.",
            json!({"channel_id": channel_id, "message_ts": string("Timestamp of the thread's parent message."),
                   "limit": limit, "cursor": cursor}),
            &["channel_id", "message_ts"],
            true,
        ),
        tool(
            "slack_read_user_profile",
            "Reads a member's profile: name, title, time zone and status.",
            json!({"user_id": string("User ID, e.g. U0123456789.")}),
            &["user_id"],
            true,
        ),
        tool(
            "slack_send_message",
            "Sends a message to a Slack channel or user, optionally as a reply in a thread.",
            json!({"channel_id": string("Channel or user ID to send to."),
                   "message": string("Message text, in Slack mrkdwn."),
                   "thread_ts": string("Reply in this thread instead of the channel.")}),
            &["channel_id", "message"],
            false,
        ),
        tool(
            "slack_schedule_message",
            "Schedules a message to be sent to a channel at a later time.",
            json!({"channel_id": channel_id, "message": string("Message text, in Slack mrkdwn."),
                   "post_at": integer("Unix time at which to send the message.")}),
            &["channel_id", "message", "post_at"],
            false,
        ),
        tool(
            "slack_create_canvas",
            "Creates a Slack canvas with Markdown content.",
            json!({"title": string("Canvas title."), "content": string("Canvas content, in Markdown."),
                   "channel_id": string("Share the canvas in this channel.")}),
            &["title", "content"],
            false,
        ),
    ]
}

fn google_drive() -> Vec<RemoteTool> {
    let file_id = string("Drive file ID.");
    vec![
        tool(
            "search_files",
            "Searches Drive files by name and full text, optionally by type and folder.",
            json!({"query": string("Words to find in file names or contents."),
                   "mime_type": string("Only files of this MIME type, e.g. application/vnd.google-apps.document."),
                   "folder_id": string("Only files in this folder."),
                   "page_size": integer("Maximum number of results (default 10, max 100)."),
                   "page_token": string("Pagination token from a previous call.")}),
            &["query"],
            true,
        ),
        tool(
            "list_recent_files",
            "Lists the files the connected user opened or changed most recently.",
            json!({"page_size": integer("Maximum number of results (default 10)."),
                   "page_token": string("Pagination token from a previous call.")}),
            &[],
            true,
        ),
        tool(
            "list_folder",
            "Lists the files and folders inside a folder.",
            json!({"folder_id": string("Folder ID (`root` for My Drive)."),
                   "page_token": string("Pagination token from a previous call.")}),
            &["folder_id"],
            true,
        ),
        tool(
            "get_file_metadata",
            "Gets a file's name, type, owners, sharing, size and modification time.",
            json!({"file_id": file_id}),
            &["file_id"],
            true,
        ),
        tool(
            "read_file_content",
            "Reads a file's content as text; Google Docs, Sheets and Slides are exported \
             (Docs as Markdown, Sheets as CSV).",
            json!({"file_id": file_id}),
            &["file_id"],
            true,
        ),
        tool(
            "create_document",
            "Creates a Google Doc from Markdown content.",
            json!({"title": string("Document title."), "content": string("Content, in Markdown."),
                   "folder_id": string("Folder to create it in (default My Drive).")}),
            &["title"],
            false,
        ),
        tool(
            "add_comment",
            "Adds a comment to a file.",
            json!({"file_id": file_id, "content": string("Comment text.")}),
            &["file_id", "content"],
            false,
        ),
    ]
}

fn datadog() -> Vec<RemoteTool> {
    let from = string("Start of the time range, e.g. `now-1h` or an ISO 8601 time.");
    let to = string("End of the time range (default `now`).");
    let query = |what: &str| string(&format!("Datadog {what} query."));
    vec![
        tool(
            "search_datadog_logs",
            "Searches logs with Datadog log query syntax over a time range.",
            json!({"query": query("log search"), "from": from, "to": to,
                   "limit": integer("Maximum number of log events (default 50).")}),
            &["query"],
            true,
        ),
        tool(
            "get_datadog_metric",
            "Queries a metric time series, e.g. `avg:system.cpu.user{service:web}`.",
            json!({"query": query("metric"), "from": from, "to": to}),
            &["query", "from"],
            true,
        ),
        tool(
            "search_datadog_metrics",
            "Finds metric names by prefix or tag.",
            json!({"query": string("Part of a metric name, or a tag such as service:web.")}),
            &["query"],
            true,
        ),
        tool(
            "search_datadog_monitors",
            "Searches monitors by name, tag or status (Alert, Warn, No Data, OK).",
            json!({"query": query("monitor search")}),
            &[],
            true,
        ),
        tool(
            "search_datadog_incidents",
            "Searches incidents by state, severity or text.",
            json!({"query": query("incident search"), "from": from, "to": to}),
            &[],
            true,
        ),
        tool(
            "get_datadog_incident",
            "Gets one incident with its timeline, severity, commander and impact.",
            json!({"incident_id": string("Incident ID or public ID, e.g. 1234.")}),
            &["incident_id"],
            true,
        ),
        tool(
            "search_datadog_dashboards",
            "Searches dashboards by title.",
            json!({"query": string("Words in the dashboard title.")}),
            &[],
            true,
        ),
        tool(
            "search_datadog_services",
            "Searches the service catalog: owners, on-call, dependencies and SLOs.",
            json!({"query": string("Service name or team.")}),
            &[],
            true,
        ),
        tool(
            "search_datadog_spans",
            "Searches APM spans with span query syntax over a time range.",
            json!({"query": query("span search"), "from": from, "to": to,
                   "limit": integer("Maximum number of spans (default 50).")}),
            &["query"],
            true,
        ),
        tool(
            "get_datadog_trace",
            "Gets every span of one trace.",
            json!({"trace_id": string("Trace ID.")}),
            &["trace_id"],
            true,
        ),
        tool(
            "mute_datadog_monitor",
            "Mutes a monitor until a given time.",
            json!({"monitor_id": integer("Monitor ID."), "end": integer("Unix time the mute ends."),
                   "scope": string("Only mute this scope, e.g. host:web-1.")}),
            &["monitor_id"],
            false,
        ),
    ]
}

fn linear() -> Vec<RemoteTool> {
    let id = |what: &str| string(&format!("{what} ID or identifier."));
    let limit = integer("Maximum number of results (default 50, max 250).");
    vec![
        tool(
            "list_issues",
            "Lists issues, filtered by team, assignee, state, label, project or text.",
            json!({"query": string("Words in the title or description."), "team": id("Team"),
                   "assignee": string("User ID, name or `me`."), "state": string("Workflow state name."),
                   "label": string("Label name."), "project": id("Project"), "limit": limit}),
            &[],
            true,
        ),
        tool(
            "get_issue",
            "Gets one issue with its description, state, assignee, labels and links.",
            json!({"id": id("Issue (e.g. ENG-123)")}),
            &["id"],
            true,
        ),
        tool(
            "list_comments",
            "Lists the comments of an issue.",
            json!({"issueId": id("Issue")}),
            &["issueId"],
            true,
        ),
        tool(
            "list_projects",
            "Lists projects, filtered by team, state or text.",
            json!({"query": string("Words in the project name."), "team": id("Team"), "limit": limit}),
            &[],
            true,
        ),
        tool(
            "get_project",
            "Gets one project with its lead, status, target date and milestones.",
            json!({"query": string("Project ID or name.")}),
            &["query"],
            true,
        ),
        tool(
            "list_cycles",
            "Lists a team's cycles: current, next and previous.",
            json!({"teamId": id("Team"), "type": {"type": "string", "enum": ["current", "previous", "next"]}}),
            &["teamId"],
            true,
        ),
        tool(
            "list_teams",
            "Lists the teams of the workspace.",
            json!({"query": string("Words in the team name."), "limit": limit}),
            &[],
            true,
        ),
        tool(
            "list_users",
            "Lists workspace members.",
            json!({"query": string("Name or email."), "limit": limit}),
            &[],
            true,
        ),
        tool(
            "list_issue_statuses",
            "Lists a team's workflow states.",
            json!({"team": id("Team")}),
            &["team"],
            true,
        ),
        tool(
            "create_issue",
            "Creates an issue in a team.",
            json!({"title": string("Issue title."), "team": id("Team"),
                   "description": string("Description, in Markdown."), "assignee": string("User ID, name or `me`."),
                   "priority": integer("0 none, 1 urgent, 2 high, 3 medium, 4 low."),
                   "labels": {"type": "array", "items": {"type": "string"}}, "project": id("Project")}),
            &["title", "team"],
            false,
        ),
        tool(
            "update_issue",
            "Updates an issue's title, description, state, assignee, priority or labels.",
            json!({"id": id("Issue"), "title": string("New title."), "description": string("New description."),
                   "state": string("Workflow state name."), "assignee": string("User ID, name or `me`."),
                   "priority": integer("0 none, 1 urgent, 2 high, 3 medium, 4 low.")}),
            &["id"],
            false,
        ),
        tool(
            "create_comment",
            "Adds a comment to an issue.",
            json!({"issueId": id("Issue"), "body": string("Comment text, in Markdown.")}),
            &["issueId", "body"],
            false,
        ),
    ]
}

fn notion() -> Vec<RemoteTool> {
    let page_id = string("Page ID or URL.");
    vec![
        tool(
            "notion-search",
            "Searches pages and databases in the workspace (and connected sources) by title \
             and content.",
            json!({"query": string("What to look for."),
                   "query_type": {"type": "string", "enum": ["internal", "user"]},
                   "page_size": integer("Maximum number of results (default 10).")}),
            &["query"],
            true,
        ),
        tool(
            "notion-fetch",
            "Fetches a page or database by ID or URL, as Notion-flavored Markdown.",
            json!({"id": string("Page or database ID or URL.")}),
            &["id"],
            true,
        ),
        tool(
            "notion-get-comments",
            "Lists the comments on a page.",
            json!({"page_id": page_id}),
            &["page_id"],
            true,
        ),
        tool(
            "notion-get-users",
            "Lists workspace members, or finds one by name or email.",
            json!({"query": string("Name or email.")}),
            &[],
            true,
        ),
        tool(
            "notion-create-pages",
            "Creates one or more pages, under a page or as rows of a database.",
            json!({"parent": {"type": "object", "description": "`{page_id}` or `{database_id}`."},
                   "pages": {"type": "array", "items": {"type": "object", "properties": {
                       "properties": {"type": "object"}, "content": {"type": "string"}}}}}),
            &["pages"],
            false,
        ),
        tool(
            "notion-update-page",
            "Updates a page's properties or replaces, inserts or appends content.",
            json!({"page_id": page_id,
                   "command": {"type": "string", "enum": ["update_properties", "replace_content", "insert_content_after"]},
                   "properties": {"type": "object"}, "new_str": string("Content, in Notion-flavored Markdown.")}),
            &["page_id", "command"],
            false,
        ),
        tool(
            "notion-create-comment",
            "Adds a comment to a page.",
            json!({"page_id": page_id, "text": string("Comment text.")}),
            &["page_id", "text"],
            false,
        ),
    ]
}

#[cfg(test)]
mod tests;
