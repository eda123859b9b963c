//! Which tool the default model calls: the one whose name and description share the most words
//! with the user's message, across every server and connector the request brings. A tool that
//! changes something (send, create, update, delete, ...) is picked only when the message asks for
//! that; on a tie the tool listed first wins, as a model reads the catalog in order.

use crate::agent::mcp_client::RemoteTool;
use crate::agent::tools::Server;

/// Verbs that make a tool change something rather than read it.
const WRITES: [&str; 10] = [
    "send", "create", "update", "delete", "remove", "add", "post", "schedule", "mute", "write",
];

/// Words too common to say what a message is about.
const COMMON: [&str; 14] = [
    "the", "and", "for", "with", "what", "about", "from", "that", "this", "have", "are", "you",
    "can", "please",
];

/// `(server label, tool name)` of the tool that fits `message` best; `None` when no server lists a
/// tool (the caller then reports the server it could not use).
pub(crate) fn fitting_tool(servers: &[Server], message: &str) -> Option<(String, String)> {
    let wanted = words(message);
    let mut best: Option<(i64, &Server, &RemoteTool)> = None;
    for server in servers.iter().filter(|s| !s.sandbox_mode) {
        for tool in &server.tools {
            let score = score(tool, &wanted);
            if best.as_ref().is_none_or(|(top, _, _)| score > *top) {
                best = Some((score, server, tool));
            }
        }
    }
    best.map(|(_, server, tool)| (server.label.clone(), tool.name.clone()))
}

/// Shared words count for a tool; one that writes loses unless the message asks for it.
fn score(tool: &RemoteTool, wanted: &[String]) -> i64 {
    let mut about = words(&tool.name);
    about.extend(words(tool.description.as_deref().unwrap_or_default()));
    let shared = wanted
        .iter()
        .filter(|w| about.iter().any(|a| same_word(a, w)))
        .count();
    let writes = words(&tool.name)
        .iter()
        .any(|w| WRITES.contains(&w.as_str()))
        || tool.read_only == Some(false);
    let asked = wanted
        .iter()
        .any(|w| WRITES.iter().any(|v| same_word(v, w)));
    let shared = i64::try_from(shared).unwrap_or(i64::MAX);
    if writes && !asked {
        shared - 100
    } else {
        shared
    }
}

/// Lowercase words of three letters or more, without the common ones (`slack_search_public`
/// gives `slack`, `search`, `public`).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !COMMON.contains(&w.as_str()))
        .collect()
}

/// The same word, give or take an ending (`message` and `messages`, `search` and `searching`).
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.starts_with(short) && (short.len() >= 4 || short == long)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> RemoteTool {
        RemoteTool {
            name: name.into(),
            description: Some(description.into()),
            input_schema: serde_json::Value::Null,
            read_only: None,
        }
    }

    fn server(label: &str, tools: Vec<RemoteTool>) -> Server {
        Server {
            label: label.into(),
            connector_id: None,
            deferred: false,
            sandbox_mode: false,
            tools,
            state: crate::world::ConnectorState::Connected,
            remote: None,
            policy: crate::agent::wire::approval::ApprovalPolicy::default(),
            description: String::new(),
            failure: None,
        }
    }

    #[test]
    fn the_tool_whose_words_fit_the_message_is_chosen() {
        let servers = [server(
            "slack",
            vec![
                tool("slack_send_message", "Sends a message to a channel"),
                tool(
                    "slack_search_public",
                    "Searches for messages in public channels",
                ),
                tool("slack_read_user_profile", "Reads a user's profile"),
            ],
        )];
        let chosen = fitting_tool(&servers, "Find recent messages about AI in Slack");
        assert_eq!(chosen, Some(("slack".into(), "slack_search_public".into())));
        let chosen = fitting_tool(&servers, "Send a message to #general saying hi");
        assert_eq!(chosen, Some(("slack".into(), "slack_send_message".into())));
    }

    #[test]
    fn across_servers_the_best_fit_wins_and_nothing_listed_is_none() {
        let servers = [
            server(
                "wiki",
                vec![tool("ask_question", "Ask a question about a repository")],
            ),
            server(
                "weather",
                vec![tool("get_forecast", "The weather forecast for a city")],
            ),
        ];
        assert_eq!(
            fitting_tool(&servers, "What is the weather forecast in Oslo?"),
            Some(("weather".into(), "get_forecast".into()))
        );
        assert_eq!(fitting_tool(&[server("empty", Vec::new())], "hi"), None);
    }
}
