//! The output items the mock writes, field by field and in the order the live API was recorded
//! writing them (Python SDK 0.46.1 names the types).
//!
//! The mock reads these back only as values (a continuation looks at the output of the response
//! it continues); they become JSON once, when a response or a stream event is written.

use serde::{Serialize, Serializer};
use serde_json::Value;

/// One item of a response's `output`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum OutputItem {
    /// The model's answer.
    Message(Message),
    /// A web search and what it found.
    SearchResults(SearchResults),
    /// Pages the model read.
    FetchUrlResults(FetchUrlResults),
    /// A search of a deferred server's tool catalog.
    ToolSearchOutput(ToolSearchOutput),
    /// The tools a server listed at run start.
    McpListTools(McpListTools),
    /// A call waiting for the client's approval.
    McpApprovalRequest(McpApprovalRequest),
    /// A call to an MCP server or connector, with its output or in-band error.
    McpCall(McpCall),
    /// A call of one of the request's functions, which the client runs.
    FunctionCall(FunctionCall),
    /// Code run in the sandbox.
    SandboxResults(SandboxResults),
    /// A file the sandbox shared.
    ShareFile(ShareFile),
}

/// Where an item is: still being written, or done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ItemStatus {
    /// Being written.
    InProgress,
    /// Done.
    Completed,
    /// Cut by the output cap.
    Incomplete,
    /// A sandbox command that exited non-zero.
    Failed,
}

/// A `message` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Message {
    /// `msg_<uuid>`.
    pub(crate) id: String,
    /// Always `assistant`.
    pub(crate) role: &'static str,
    /// `in_progress` while streaming, then `completed` (or `incomplete`).
    pub(crate) status: ItemStatus,
    /// Empty while streaming, then the one `output_text` part.
    pub(crate) content: Vec<OutputContent>,
}

impl Message {
    /// A message as it first appears: no content yet.
    pub(crate) fn started(id: String) -> Self {
        Self {
            id,
            role: "assistant",
            status: ItemStatus::InProgress,
            content: Vec::new(),
        }
    }
}

/// A content part of a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum OutputContent {
    /// The answer's text and its citations.
    OutputText {
        /// The text.
        text: String,
        /// One `url_citation` per `[n]` marker naming a source.
        annotations: Vec<Annotation>,
    },
}

/// An annotation of a text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Annotation {
    /// A citation of a source the run found, spanning its `[n]` marker (character offsets).
    UrlCitation {
        /// The source's URL.
        url: String,
        /// Its title.
        title: String,
        /// Where the marker starts.
        start_index: usize,
        /// Where it ends (exclusive).
        end_index: usize,
    },
}

/// A `search_results` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SearchResults {
    /// What was found.
    pub(crate) results: Vec<SearchResult>,
    /// The queries sent.
    pub(crate) queries: Vec<String>,
}

/// One search result; `id`s number the results across the run, so `[n]` names one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SearchResult {
    /// From 1, across the run's searches.
    pub(crate) id: usize,
    /// Page title.
    pub(crate) title: String,
    /// Page URL.
    pub(crate) url: String,
    /// Snippet.
    pub(crate) snippet: String,
    /// Always `web`.
    pub(crate) source: &'static str,
    /// Publication date, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) date: Option<String>,
}

/// A `fetch_url_results` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FetchUrlResults {
    /// The pages read.
    pub(crate) contents: Vec<FetchedPage>,
}

/// One page read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FetchedPage {
    /// Its URL.
    pub(crate) url: String,
    /// Its title.
    pub(crate) title: String,
    /// What it says.
    pub(crate) snippet: String,
}

/// A `tool_search_output` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ToolSearchOutput {
    /// `tso_call_<token>`.
    pub(crate) id: String,
    /// Always null (the search runs on the server).
    pub(crate) call_id: Option<String>,
    /// Always `completed`.
    pub(crate) status: ItemStatus,
    /// Always `server`.
    pub(crate) execution: &'static str,
    /// The search, written as a JSON string.
    #[serde(serialize_with = "as_json_string")]
    pub(crate) arguments: SearchArguments,
    /// One namespace with the tools found, or none.
    pub(crate) tools: Vec<Namespace>,
}

/// What a tool search looked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SearchArguments {
    /// The server labels searched.
    pub(crate) paths: Vec<String>,
    /// The search words.
    pub(crate) queries: Vec<String>,
}

/// A `tool_search_output` namespace: a server's label, its description, the tools found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "namespace")]
pub(crate) struct Namespace {
    /// The server label.
    pub(crate) name: String,
    /// The namespace description.
    pub(crate) description: String,
    /// The tools found.
    pub(crate) tools: Vec<FunctionTool>,
}

/// A tool found by a search, as a function the model may call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename = "function")]
pub(crate) struct FunctionTool {
    /// Tool name.
    pub(crate) name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// JSON Schema of its arguments.
    pub(crate) parameters: Value,
}

/// An `mcp_list_tools` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct McpListTools {
    /// `mcpl_<uuid>`.
    pub(crate) id: String,
    /// The connector, for connectors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) connector_id: Option<String>,
    /// The server label.
    pub(crate) server_label: String,
    /// The tools the model may use.
    pub(crate) tools: Vec<ListedTool>,
    /// A connector's in-band discovery error (`CONNECTOR_UNAVAILABLE`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

/// One tool of an `mcp_list_tools` item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ListedTool {
    /// Tool name.
    pub(crate) name: String,
    /// What it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    /// JSON Schema of its arguments.
    pub(crate) input_schema: Value,
    /// The server's read-only hint, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) annotations: Option<ToolAnnotations>,
}

/// A listed tool's annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct ToolAnnotations {
    /// The server's `readOnlyHint`.
    pub(crate) read_only: bool,
}

/// An `mcp_approval_request` item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct McpApprovalRequest {
    /// `mcpr_<uuid>`, which the decision names.
    pub(crate) id: String,
    /// The connector, for connectors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) connector_id: Option<String>,
    /// The server label.
    pub(crate) server_label: String,
    /// The tool.
    pub(crate) name: String,
    /// The proposed arguments, a JSON string.
    pub(crate) arguments: String,
}

/// An `mcp_call` item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct McpCall {
    /// `call_<token>`.
    pub(crate) id: String,
    /// The connector, for connectors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) connector_id: Option<String>,
    /// The server label.
    pub(crate) server_label: String,
    /// The tool.
    pub(crate) name: String,
    /// The arguments, a JSON string.
    pub(crate) arguments: String,
    /// What the tool returned, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<String>,
    /// The in-band error, or null.
    pub(crate) error: Option<String>,
    /// The approval request it ran for, when it needed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) approval_request_id: Option<String>,
}

/// A `function_call` item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FunctionCall {
    /// `fc_<uuid>`.
    pub(crate) id: String,
    /// `call_<token>`, which the client's `function_call_output` names.
    pub(crate) call_id: String,
    /// The function.
    pub(crate) name: String,
    /// The arguments, a JSON string.
    pub(crate) arguments: String,
    /// Always `completed`.
    pub(crate) status: ItemStatus,
}

/// A `sandbox_results` item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SandboxResults {
    /// `call_<token>`.
    pub(crate) call_id: String,
    /// The program or shell line.
    pub(crate) code: String,
    /// Its language.
    pub(crate) language: Language,
    /// `completed`, or `failed` when it exited non-zero.
    pub(crate) status: ItemStatus,
    /// The one run of the command.
    pub(crate) results: Vec<SandboxRun>,
}

/// A sandbox language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Language {
    /// Python (the default).
    Python,
    /// A shell line.
    Bash,
}

/// What one sandbox command did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SandboxRun {
    /// What it printed.
    pub(crate) stdout: String,
    /// What it printed on stderr.
    pub(crate) stderr: String,
    /// Its exit code.
    pub(crate) exit_code: i64,
    /// How long it ran.
    pub(crate) duration_ms: u64,
    /// As the item's.
    pub(crate) status: ItemStatus,
}

/// A `share_file` item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ShareFile {
    /// `call_<token>`.
    pub(crate) call_id: String,
    /// `file_<uuid>`.
    pub(crate) file_id: String,
    /// File name.
    pub(crate) filename: String,
    /// Its size.
    pub(crate) size_bytes: usize,
    /// Where `GET` serves its bytes.
    pub(crate) url: String,
}

/// Writes a value as a JSON string holding its JSON (the way `arguments` fields are written).
fn as_json_string<T: Serialize, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let text = serde_json::to_string(value).map_err(serde::ser::Error::custom)?;
    serializer.serialize_str(&text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(item: &OutputItem) -> String {
        serde_json::to_string(item).expect("an output item renders")
    }

    #[test]
    fn a_message_renders_its_fields_in_the_recorded_order() {
        let mut message = Message::started("msg_1".into());
        assert_eq!(
            rendered(&OutputItem::Message(message.clone())),
            r#"{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}"#
        );
        message.status = ItemStatus::Completed;
        message.content = vec![OutputContent::OutputText {
            text: "See [1]".into(),
            annotations: vec![Annotation::UrlCitation {
                url: "https://a.example/".into(),
                title: "A".into(),
                start_index: 4,
                end_index: 7,
            }],
        }];
        assert_eq!(
            rendered(&OutputItem::Message(message)),
            r#"{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"See [1]","annotations":[{"type":"url_citation","url":"https://a.example/","title":"A","start_index":4,"end_index":7}]}]}"#
        );
    }

    #[test]
    fn a_tool_search_writes_its_arguments_as_a_json_string_and_tags_its_namespace() {
        let item = OutputItem::ToolSearchOutput(ToolSearchOutput {
            id: "tso_call_x".into(),
            call_id: None,
            status: ItemStatus::Completed,
            execution: "server",
            arguments: SearchArguments {
                paths: vec!["slack".into()],
                queries: vec!["search".into()],
            },
            tools: vec![Namespace {
                name: "slack".into(),
                description: "Slack".into(),
                tools: vec![FunctionTool {
                    name: "slack_search_public".into(),
                    description: None,
                    parameters: json!({"type": "object"}),
                }],
            }],
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"tool_search_output","id":"tso_call_x","call_id":null,"status":"completed","execution":"server","arguments":"{\"paths\":[\"slack\"],\"queries\":[\"search\"]}","tools":[{"type":"namespace","name":"slack","description":"Slack","tools":[{"type":"function","name":"slack_search_public","parameters":{"type":"object"}}]}]}"#
        );
    }

    #[test]
    fn an_mcp_call_always_writes_its_error_and_only_the_optional_fields_it_has() {
        let mut call = McpCall {
            id: "call_1".into(),
            connector_id: None,
            server_label: "deepwiki".into(),
            name: "ask".into(),
            arguments: "{}".into(),
            output: Some("ok".into()),
            error: None,
            approval_request_id: None,
        };
        assert_eq!(
            rendered(&OutputItem::McpCall(call.clone())),
            r#"{"type":"mcp_call","id":"call_1","server_label":"deepwiki","name":"ask","arguments":"{}","output":"ok","error":null}"#
        );
        call.connector_id = Some("connector_slack".into());
        call.output = None;
        call.error = Some("AUTH_REQUIRED".into());
        call.approval_request_id = Some("mcpr_1".into());
        assert_eq!(
            rendered(&OutputItem::McpCall(call)),
            r#"{"type":"mcp_call","id":"call_1","connector_id":"connector_slack","server_label":"deepwiki","name":"ask","arguments":"{}","error":"AUTH_REQUIRED","approval_request_id":"mcpr_1"}"#
        );
    }

    #[test]
    fn search_results_write_a_date_only_when_known() {
        let result = |date: Option<&str>| SearchResult {
            id: 1,
            title: "T".into(),
            url: "https://u/".into(),
            snippet: "s".into(),
            source: "web",
            date: date.map(str::to_owned),
        };
        let item = OutputItem::SearchResults(SearchResults {
            results: vec![result(None), result(Some("2026-10-01"))],
            queries: vec!["q".into()],
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"search_results","results":[{"id":1,"title":"T","url":"https://u/","snippet":"s","source":"web"},{"id":1,"title":"T","url":"https://u/","snippet":"s","source":"web","date":"2026-10-01"}],"queries":["q"]}"#
        );
    }

    #[test]
    fn sandbox_results_and_shared_files_render_as_recorded() {
        let item = OutputItem::SandboxResults(SandboxResults {
            call_id: "call_1".into(),
            code: "ls".into(),
            language: Language::Bash,
            status: ItemStatus::Failed,
            results: vec![SandboxRun {
                stdout: String::new(),
                stderr: "no".into(),
                exit_code: 4,
                duration_ms: 1200,
                status: ItemStatus::Failed,
            }],
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"sandbox_results","call_id":"call_1","code":"ls","language":"bash","status":"failed","results":[{"stdout":"","stderr":"no","exit_code":4,"duration_ms":1200,"status":"failed"}]}"#
        );
        let item = OutputItem::ShareFile(ShareFile {
            call_id: "call_2".into(),
            file_id: "file_1".into(),
            filename: "a.txt".into(),
            size_bytes: 3,
            url: "/v1/responses/resp_1/files/file_1/content".into(),
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"share_file","call_id":"call_2","file_id":"file_1","filename":"a.txt","size_bytes":3,"url":"/v1/responses/resp_1/files/file_1/content"}"#
        );
    }

    #[test]
    fn listed_tools_approval_requests_and_function_calls_render_as_recorded() {
        let item = OutputItem::McpListTools(McpListTools {
            id: "mcpl_1".into(),
            connector_id: Some("connector_slack".into()),
            server_label: "slack".into(),
            tools: vec![ListedTool {
                name: "t".into(),
                description: Some("d".into()),
                input_schema: json!({"type": "object"}),
                annotations: Some(ToolAnnotations { read_only: true }),
            }],
            error: Some("CONNECTOR_UNAVAILABLE".into()),
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"mcp_list_tools","id":"mcpl_1","connector_id":"connector_slack","server_label":"slack","tools":[{"name":"t","description":"d","input_schema":{"type":"object"},"annotations":{"read_only":true}}],"error":"CONNECTOR_UNAVAILABLE"}"#
        );
        let item = OutputItem::McpApprovalRequest(McpApprovalRequest {
            id: "mcpr_1".into(),
            connector_id: None,
            server_label: "s".into(),
            name: "t".into(),
            arguments: "{}".into(),
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"mcp_approval_request","id":"mcpr_1","server_label":"s","name":"t","arguments":"{}"}"#
        );
        let item = OutputItem::FunctionCall(FunctionCall {
            id: "fc_1".into(),
            call_id: "call_1".into(),
            name: "get_weather".into(),
            arguments: r#"{"city":"Paris"}"#.into(),
            status: ItemStatus::Completed,
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}"#
        );
        let item = OutputItem::FetchUrlResults(FetchUrlResults {
            contents: vec![FetchedPage {
                url: "https://u/".into(),
                title: "T".into(),
                snippet: "s".into(),
            }],
        });
        assert_eq!(
            rendered(&item),
            r#"{"type":"fetch_url_results","contents":[{"url":"https://u/","title":"T","snippet":"s"}]}"#
        );
    }
}
