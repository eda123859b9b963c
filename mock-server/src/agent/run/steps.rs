//! What each scripted step does: the events it streams and the output items it adds (or the
//! pause it causes), given the tools the request enabled and the servers it discovered.

use super::engine::{Engine, Flow};
use super::honesty::{Failure, honest_answer, reasons};
use super::sandbox::Command;
use super::usage::written_len;
use crate::agent::store::RunFile;
use crate::agent::structured;
use crate::agent::tools::{self, Server};
use crate::agent::wire::events::Event;
use crate::agent::wire::ids::{call_token, new_id};
use crate::agent::wire::items::{
    FetchUrlResults, FetchedPage, OutputItem, SearchResult, SearchResults, ShareFile,
};
use crate::agent::wire::request::Tool;
use crate::agent::wire::response::{ResponseError, RunError, ShownError, Status};
use crate::fixtures::{AgentStep, ResultSpec};

impl Engine {
    /// Plays one step of the turn; `index` is its place in the turn (a pause resumes after it).
    pub(super) async fn step(
        &mut self,
        step: &AgentStep,
        servers: &[Server],
        index: usize,
    ) -> Flow {
        match step {
            AgentStep::Reasoning { thought, .. } => {
                self.run.emit(Event::ReasoningStarted {
                    thought: thought.clone(),
                });
                self.run.emit(Event::ReasoningStopped {
                    thought: thought.clone(),
                });
            }
            AgentStep::WebSearch {
                queries, results, ..
            } => {
                if !self.has_tool(|t| matches!(t, Tool::WebSearch { .. }))
                    && !self.setup.validated.brings_preset_tools()
                {
                    return self
                        .not_offered("search the web", "the request offers no web_search tool");
                }
                let first_id = self.sources.len() + 1;
                self.sources
                    .extend(results.iter().map(|r| (r.url.clone(), r.title.clone())));
                let results = search_results(results, first_id);
                let text = self.setup.validated.input.user_text();
                let queries: Vec<String> = queries
                    .iter()
                    .map(|q| q.replace("{input}", &text))
                    .collect();
                self.run.emit(Event::SearchQueries {
                    queries: queries.clone(),
                });
                self.run.emit(Event::SearchResults {
                    results: results.clone(),
                });
                match written_len(&results) {
                    Ok(read) => self.tool_chars += read,
                    Err(e) => return Flow::Failed(RunError::unmeasured(&e)),
                }
                *self.billing.entry("search_web").or_default() += 1;
                self.add_item(OutputItem::SearchResults(SearchResults {
                    results,
                    queries,
                }));
            }
            AgentStep::FetchUrl { contents, .. } => {
                if !self.has_tool(|t| matches!(t, Tool::FetchUrl { .. }))
                    && !self.setup.validated.brings_preset_tools()
                {
                    return self.not_offered(
                        "read the pages I needed",
                        "the request offers no fetch_url tool",
                    );
                }
                let urls: Vec<String> = contents.iter().map(|c| c.url.clone()).collect();
                let contents: Vec<FetchedPage> = contents
                    .iter()
                    .map(|c| FetchedPage {
                        url: c.url.clone(),
                        title: c.title.clone(),
                        snippet: c.snippet.clone(),
                    })
                    .collect();
                self.run.emit(Event::FetchUrlQueries { urls });
                self.run.emit(Event::FetchUrlResults {
                    contents: contents.clone(),
                });
                match written_len(&contents) {
                    Ok(read) => self.tool_chars += read,
                    Err(e) => return Flow::Failed(RunError::unmeasured(&e)),
                }
                *self.billing.entry("fetch_url").or_default() += 1;
                self.add_item(OutputItem::FetchUrlResults(FetchUrlResults { contents }));
            }
            AgentStep::ToolSearch {
                server, queries, ..
            } => {
                let Some(target) = tools::pick_deferred(servers, server.as_deref()) else {
                    return Flow::Next;
                };
                self.searched.insert(target.label.clone());
                self.add_item(target.search_item(queries, None));
            }
            AgentStep::McpCall { .. } => return self.mcp_call(step, servers).await,
            AgentStep::FunctionCall {
                name, arguments, ..
            } => return self.function_call(name.as_deref(), arguments.as_ref(), index),
            AgentStep::Sandbox {
                code,
                language,
                stdout,
                stderr,
                exit_code,
                github,
                ..
            } => {
                if !self.sandbox_enabled() {
                    return self.not_offered("run code in the sandbox", SANDBOX_OFF);
                }
                let command = Command {
                    code,
                    language,
                    stdout,
                    stderr,
                    exit_code: *exit_code,
                    github: *github,
                };
                self.sandbox(&command, servers);
            }
            AgentStep::ShareFile {
                filename, content, ..
            } => {
                if !self.sandbox_enabled() {
                    return self.not_offered(&format!("share {filename}"), SANDBOX_OFF);
                }
                let file = RunFile {
                    id: new_id("file"),
                    filename: filename.clone(),
                    content: bytes::Bytes::from(content.clone()),
                    created_at: self.clock.now().timestamp(),
                };
                let item = OutputItem::ShareFile(ShareFile {
                    call_id: format!("call_{}", call_token()),
                    file_id: file.id.clone(),
                    filename: file.filename.clone(),
                    size_bytes: file.content.len(),
                    url: format!("/v1/responses/{}/files/{}/content", self.run.id, file.id),
                });
                self.run.state().files.push(file);
                self.add_item(item);
            }
            AgentStep::Status {
                status,
                error,
                duration,
            } => {
                {
                    let mut state = self.run.state();
                    state.response.status = Status::from_word(status);
                    if let Some(error) = error {
                        state.response.error = Some(ResponseError::Shown(ShownError {
                            message: error.message.clone(),
                            kind: error.kind.clone(),
                            code: error.code.clone(),
                        }));
                    }
                }
                let cancelled = self.wait(*duration).await;
                {
                    let mut state = self.run.state();
                    state.response.status = Status::InProgress;
                    state.response.error = None;
                }
                if cancelled {
                    return Flow::Cancelled;
                }
            }
            AgentStep::Message {
                text,
                denied_text,
                tool_output_text,
                failed_text,
                ..
            } => {
                let text = if self.failures.is_empty() {
                    match (&self.denied, denied_text, tool_output_text) {
                        (Some(reason), Some(denied), _) => denied.replace("{reason}", reason),
                        (None, _, Some(answer)) if self.fresh_output => answer.clone(),
                        _ => text.clone(),
                    }
                } else {
                    // The run could not get its data: the answer says so, never the data.
                    let failure = reasons(&self.failures).join("; ");
                    match failed_text {
                        Some(failed) => failed.replace("{failure}", &failure),
                        None => honest_answer(&self.failures),
                    }
                };
                let text = text
                    .replace("{input}", &self.setup.validated.input.user_text())
                    .replace("{tool_output}", &self.last_output)
                    .replace("{tool_name}", &self.last_tool);
                // With a response_format the model answers with a document fitting the schema.
                let schema = self.setup.validated.answer_schema.as_ref();
                let text = schema.map_or(text.clone(), |s| structured::answer(s, &text));
                let cut = self.cut_message == Some(index);
                self.message(&text, cut);
            }
        }
        Flow::Next
    }

    /// A step whose tool the request does not offer: nothing runs, and the answer will say
    /// what could not be done instead of reporting a result that never happened.
    pub(super) fn not_offered(&mut self, what: &str, why: &str) -> Flow {
        self.failures.push(Failure::NotOffered {
            what: what.to_owned(),
            why: why.to_owned(),
        });
        Flow::Next
    }
}

/// Why a sandbox step cannot run.
const SANDBOX_OFF: &str = "the request does not enable the sandbox tool (or a skill)";

/// A `search_results` item's results; their `id`s go on from the run's earlier searches, so a
/// citation `[n]` names one source.
fn search_results(results: &[ResultSpec], first_id: usize) -> Vec<SearchResult> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| SearchResult {
            id: first_id + i,
            title: r.title.clone(),
            url: r.url.clone(),
            snippet: r.snippet.clone(),
            source: "web",
            date: r.date.clone(),
        })
        .collect()
}
