//! What each scripted step does: the events it streams and the output items it adds (or the
//! pause it causes), given the tools the request enabled and the servers it discovered.

use serde_json::{Value, json};

use super::engine::{Engine, Flow};
use crate::agent::store::{Pause, Pending, RunFile};
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
                if !self.has_tool(|t| matches!(t, Tool::WebSearch { .. })) {
                    return Flow::Next;
                }
                let results = search_results(results);
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
                if !self.has_tool(|t| matches!(t, Tool::FetchUrl { .. })) {
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
            AgentStep::McpCall {
                server,
                tool,
                arguments,
                output,
                error,
                ..
            } => {
                let Some(target) = tools::pick_server(servers, server.as_deref()) else {
                    return Flow::Next;
                };
                if target.sandbox_mode {
                    // GitHub with the sandbox and no allowed_tools runs through git/gh.
                    let name = tool.clone().unwrap_or_else(|| "gh".into());
                    let code = format!("gh api {name}");
                    let stdout = output.clone().unwrap_or_default();
                    self.sandbox(&code, "bash", &stdout, "", 0);
                    return Flow::Next;
                }
                let Some(listed) = target.choose_tool(tool.as_deref()) else {
                    // Nothing listed (not connected, or filtered out): nothing to call.
                    return Flow::Next;
                };
                let name = listed.name.clone();
                // Scripted arguments belong to the scripted tool; when the server does not list
                // it and the model falls back to another tool, it builds arguments for that one.
                let scripted = arguments
                    .clone()
                    .filter(|_| tool.as_deref().is_none_or(|t| t == name));
                let arguments = scripted.unwrap_or_else(|| {
                    tools::example_arguments(
                        &listed.input_schema,
                        &user_text(&self.setup.validated.request.input),
                    )
                });
                if target.deferred && !self.searched.contains(&target.label) {
                    self.searched.insert(target.label.clone());
                    let words: Vec<String> = name.split('_').map(str::to_owned).collect();
                    self.add_item(target.search_item(&words, Some(&name)));
                }
                if target.requires_approval(listed) {
                    let pending = Pending {
                        id: new_id("mcpr"),
                        server_label: target.label.clone(),
                        name: name.clone(),
                        arguments: arguments.to_string(),
                        connector_id: target.connector_id.clone(),
                    };
                    self.add_item(target.approval_item(&pending));
                    return Flow::Paused(Pause {
                        turn: self.setup.turn,
                        next_step: index + 1,
                        approvals: vec![pending],
                    });
                }
                let (out, err) = target
                    .call(&name, &arguments, output.clone(), error.clone())
                    .await;
                self.record_output(out.as_deref());
                self.add_item(target.call_item(&name, &arguments, out, err));
            }
            AgentStep::FunctionCall {
                name, arguments, ..
            } => {
                let function = self.setup.validated.tools.iter().find_map(|t| match t {
                    Tool::Function { name: n, .. }
                        if name.as_ref().is_none_or(|want| want == n) =>
                    {
                        Some(n.clone())
                    }
                    _ => None,
                });
                let Some(function) = function else {
                    return Flow::Next;
                };
                let item = json!({
                    "type": "function_call",
                    "id": new_id("fc"),
                    "call_id": format!("call_{}", call_token()),
                    "name": function,
                    "arguments": arguments.clone().unwrap_or_else(|| json!({})).to_string(),
                    "status": "completed",
                });
                self.add_item(item);
                return Flow::Paused(Pause {
                    turn: self.setup.turn,
                    next_step: index + 1,
                    approvals: Vec::new(),
                });
            }
            AgentStep::Sandbox {
                code,
                language,
                stdout,
                stderr,
                exit_code,
                ..
            } => {
                if !self.sandbox_enabled() {
                    return Flow::Next;
                }
                self.sandbox(code, language, stdout, stderr, *exit_code);
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
                text, denied_text, ..
            } => {
                let text = match (&self.denied, denied_text) {
                    (Some(reason), Some(denied)) => denied.replace("{reason}", reason),
                    _ => text.clone(),
                };
                let text = text
                    .replace("{input}", &user_text(&self.setup.validated.request.input))
                    .replace("{tool_output}", &self.last_output);
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

    fn sandbox(&mut self, code: &str, language: &str, stdout: &str, stderr: &str, exit_code: i64) {
        *self.billing.entry("sandbox").or_default() += 1;
        self.record_output(Some(stdout));
        self.add_item(json!({
            "type": "sandbox_results",
            "call_id": format!("call_{}", call_token()),
            "code": code,
            "language": if language == "bash" { "bash" } else { "python" },
            "status": if exit_code == 0 { "completed" } else { "failed" },
            "results": [{
                "stdout": stdout,
                "stderr": stderr,
                "exit_code": exit_code,
                "duration_ms": 1200,
                "status": if exit_code == 0 { "completed" } else { "failed" },
            }],
        }));
    }

    /// A message item streamed word by word; a `cut` one (the output cap stopped it) ends
    /// with `status: incomplete`.
    fn message(&mut self, text: &str, cut: bool) {
        let id = new_id("msg");
        let mut item = json!({
            "type": "message",
            "id": id,
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        });
        let index = self.push_output(item.clone());
        self.run.emit(
            "response.output_item.added",
            json!({"item": item, "output_index": index}),
        );
        for delta in chunks(text) {
            self.run.emit(
                "response.output_text.delta",
                json!({"item_id": id, "output_index": index, "content_index": 0, "delta": delta}),
            );
        }
        self.run.emit(
            "response.output_text.done",
            json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
        );
        item["status"] = json!(if cut { "incomplete" } else { "completed" });
        item["content"] = json!([{"type": "output_text", "text": text, "annotations": []}]);
        if let Some(slot) = self
            .run
            .state()
            .response
            .get_mut("output")
            .and_then(Value::as_array_mut)
            .and_then(|o| o.get_mut(index))
        {
            *slot = item.clone();
        }
        self.run.emit(
            "response.output_item.done",
            json!({"item": item, "output_index": index}),
        );
    }
}

fn search_results(results: &[ResultSpec]) -> Value {
    Value::Array(
        results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut v = json!({
                    "id": i + 1,
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

/// Splits text into word-sized deltas that concatenate back to it.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        current.push(c);
        if c == ' ' {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::chunks;

    #[test]
    fn deltas_concatenate_back_to_the_text() {
        let text = "Hello  world, again ";
        assert_eq!(chunks(text).concat(), text);
        assert_eq!(chunks("Hello world"), ["Hello ", "world"]);
    }
}
