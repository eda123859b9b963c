//! What each scripted step does: the events it streams and the output items it adds (or the
//! pause it causes), given the tools the request enabled and the servers it discovered.

use serde_json::{Value, json};

use super::engine::{Engine, Flow};
use super::honesty::{Failure, honest_answer};
use super::sandbox::Command;
use crate::agent::store::RunFile;
use crate::agent::structured;
use crate::agent::tools::{self, Server};
use crate::agent::wire::{Tool, call_token, new_id, user_text};
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
                self.run
                    .emit("response.reasoning.started", json!({"thought": thought}));
                self.run
                    .emit("response.reasoning.stopped", json!({"thought": thought}));
            }
            AgentStep::WebSearch {
                queries, results, ..
            } => {
                if !self.has_tool(|t| matches!(t, Tool::WebSearch { .. }))
                    && !self.setup.validated.brings_preset_tools()
                {
                    return Flow::Next;
                }
                let first_id = self.sources.len() + 1;
                self.sources
                    .extend(results.iter().map(|r| (r.url.clone(), r.title.clone())));
                let results = search_results(results, first_id);
                let text = user_text(&self.setup.validated.request.input);
                let queries: Vec<String> = queries
                    .iter()
                    .map(|q| q.replace("{input}", &text))
                    .collect();
                self.run.emit(
                    "response.reasoning.search_queries",
                    json!({"queries": queries}),
                );
                self.run.emit(
                    "response.reasoning.search_results",
                    json!({"results": results}),
                );
                self.tool_chars += results.to_string().len();
                *self.billing.entry("search_web").or_default() += 1;
                self.add_item(
                    json!({"type": "search_results", "results": results, "queries": queries}),
                );
            }
            AgentStep::FetchUrl { contents, .. } => {
                if !self.has_tool(|t| matches!(t, Tool::FetchUrl { .. }))
                    && !self.setup.validated.brings_preset_tools()
                {
                    return Flow::Next;
                }
                let urls: Vec<&str> = contents.iter().map(|c| c.url.as_str()).collect();
                let contents: Vec<Value> = contents
                    .iter()
                    .map(|c| json!({"url": c.url, "title": c.title, "snippet": c.snippet}))
                    .collect();
                self.run.emit(
                    "response.reasoning.fetch_url_queries",
                    json!({"urls": urls}),
                );
                self.run.emit(
                    "response.reasoning.fetch_url_results",
                    json!({"contents": contents}),
                );
                self.tool_chars += Value::Array(contents.clone()).to_string().len();
                *self.billing.entry("fetch_url").or_default() += 1;
                self.add_item(json!({"type": "fetch_url_results", "contents": contents}));
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
                    return Flow::Next;
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
                    return Flow::Next;
                }
                let file = RunFile {
                    id: new_id("file"),
                    filename: filename.clone(),
                    content: bytes::Bytes::from(content.clone()),
                    created_at: self.clock.now().timestamp(),
                };
                let item = json!({
                    "type": "share_file",
                    "call_id": format!("call_{}", call_token()),
                    "file_id": file.id,
                    "filename": file.filename,
                    "size_bytes": file.content.len(),
                    "url": format!("/v1/responses/{}/files/{}/content", self.run.id, file.id),
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
                    state.response["status"] = json!(status);
                    if let Some(error) = error {
                        let mut shown = json!({"message": error.message, "type": error.kind});
                        if let Some(code) = &error.code {
                            shown["code"] = json!(code);
                        }
                        state.response["error"] = shown;
                    }
                }
                let cancelled = self.wait(*duration).await;
                {
                    let mut state = self.run.state();
                    state.response["status"] = json!("in_progress");
                    state.response["error"] = Value::Null;
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
                    let failure = self
                        .failures
                        .iter()
                        .map(Failure::describe)
                        .collect::<Vec<_>>()
                        .join("; ");
                    match failed_text {
                        Some(failed) => failed.replace("{failure}", &failure),
                        None => honest_answer(&self.failures),
                    }
                };
                let text = text
                    .replace("{input}", &user_text(&self.setup.validated.request.input))
                    .replace("{tool_output}", &self.last_output)
                    .replace("{tool_name}", &self.last_tool);
                // With a response_format the model answers with a document fitting the schema.
                let schema = self
                    .setup
                    .validated
                    .request
                    .response_format
                    .as_ref()
                    .and_then(|f| f.pointer("/json_schema/schema"));
                let text = schema.map_or(text.clone(), |s| structured::answer(s, &text));
                let cut = self.cut_message == Some(index);
                self.message(&text, cut);
            }
        }
        Flow::Next
    }
}

/// A `search_results` item's results; their `id`s go on from the run's earlier searches, so a
/// citation `[n]` names one source.
fn search_results(results: &[ResultSpec], first_id: usize) -> Value {
    Value::Array(
        results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut v = json!({
                    "id": first_id + i,
                    "title": r.title,
                    "url": r.url,
                    "snippet": r.snippet,
                    "source": "web",
                });
                if let Some(date) = &r.date {
                    v["date"] = json!(date);
                }
                v
            })
            .collect(),
    )
}
