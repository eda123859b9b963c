//! The model's tool calls: an MCP call (through a server or connector, with its deferred
//! search, its approval request, or its run and in-band error) and a function call (which
//! pauses the turn until a continuation brings the function's output).

use serde_json::{Map, Value};

use super::engine::{Engine, Flow};
use super::honesty::Failure;
use super::sandbox::Command;
use crate::agent::arguments::example_arguments;
use crate::agent::store::{Pause, Pending};
use crate::agent::tools::{self, Server};
use crate::agent::wire::ids::{call_token, new_id};
use crate::agent::wire::items::{FunctionCall, ItemStatus, OutputItem};
use crate::agent::wire::request::Tool;
use crate::fixtures::AgentStep;
use crate::world::ConnectorState;

impl Engine {
    /// An `mcp_call` step: the call runs (an `mcp_call` item), or, when it needs approval,
    /// becomes an `mcp_approval_request` sent with the rest of its model turn.
    pub(super) async fn mcp_call(&mut self, step: &AgentStep, servers: &[Server]) -> Flow {
        let AgentStep::McpCall {
            server,
            tool,
            arguments,
            output,
            error,
            parallel,
            ..
        } = step
        else {
            return Flow::Next;
        };
        let Some(target) = tools::pick_server(servers, server.as_deref()) else {
            return Flow::Next;
        };
        if target.sandbox_mode {
            // GitHub with the sandbox and no allowed_tools runs through git/gh.
            let name = tool.clone().unwrap_or_else(|| "gh".into());
            let code = format!("gh api {name}");
            // A call scripted without output prints nothing.
            let stdout = output.clone().unwrap_or_default();
            let command = Command {
                code: &code,
                language: "bash",
                stdout: &stdout,
                stderr: "",
                exit_code: 0,
                github: Some(true),
            };
            self.sandbox(&command, servers);
            return Flow::Next;
        }
        if let Some(failure) = target.failure.clone()
            && target.tools.is_empty()
        {
            // The connector could not be listed: the call the model makes comes back with the
            // connector's in-band error, and nothing runs.
            if let Some(name) = tool.as_deref() {
                let arguments = arguments
                    .clone()
                    .unwrap_or_else(|| Value::Object(Map::new()));
                let call = target.call_item(name, &arguments, None, Some(failure.clone()));
                self.add_item(OutputItem::McpCall(call));
            }
            self.failures.push(Failure::Call {
                server: target.label.clone(),
                tool: tool.clone().unwrap_or_else(|| "its tools".to_owned()),
                error: failure,
                connector: true,
            });
            return Flow::Next;
        }
        // A parallel call that names no tool takes the one listed after the previous call's.
        let after = self
            .last_called
            .as_ref()
            .filter(|(label, _)| *parallel && tool.is_none() && *label == target.label)
            .map(|(_, name)| name.as_str());
        let Some(listed) = target.choose_tool(tool.as_deref(), after) else {
            // Nothing listed (not connected, or filtered out): nothing to call.
            if target.state == ConnectorState::NotConnected {
                self.failures.push(Failure::NotConnected {
                    server: target.label.clone(),
                });
            }
            return Flow::Next;
        };
        let name = listed.name.clone();
        self.last_called = Some((target.label.clone(), name.clone()));
        // Scripted arguments belong to the scripted tool; when the server does not list it and
        // the model falls back to another tool, it builds arguments for that one.
        let scripted = arguments
            .clone()
            .filter(|_| tool.as_deref().is_none_or(|t| t == name));
        let arguments = scripted.unwrap_or_else(|| {
            example_arguments(
                &listed.input_schema,
                &self.setup.validated.input.user_text(),
            )
        });
        if target.deferred && !self.searched.contains(&target.label) {
            // Deferred tools are searched for first, which "spends extra model turns before
            // the first tool call": the call itself needs another step.
            self.searched.insert(target.label.clone());
            let words: Vec<String> = name.split('_').map(str::to_owned).collect();
            self.add_item(target.search_item(&words, Some(&name)));
            if !self.take_step() {
                let what = format!("call {name} on {}", target.label);
                let cap = self.cap();
                self.failures.push(Failure::OutOfSteps { what, cap });
                return Flow::Next;
            }
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
            self.proposed.push(pending);
            return Flow::Next;
        }
        let (out, err) = target
            .call(&name, &arguments, output.clone(), error.clone())
            .await;
        self.record_output(&name, out.as_deref());
        self.fresh_output |= out.is_some();
        if let Some(error) = &err {
            self.failures.push(Failure::Call {
                server: target.label.clone(),
                tool: name.clone(),
                error: error.clone(),
                connector: target.connector_id.is_some(),
            });
        }
        self.add_item(OutputItem::McpCall(
            target.call_item(&name, &arguments, out, err),
        ));
        Flow::Next
    }

    /// A `function_call` step: calls the named function (or the request's first), with the
    /// scripted arguments or arguments built from its `parameters` schema, and pauses the turn.
    pub(super) fn function_call(
        &mut self,
        name: Option<&str>,
        arguments: Option<&Value>,
        index: usize,
    ) -> Flow {
        let function = self.setup.validated.tools.iter().find_map(|t| match t {
            Tool::Function {
                name: n,
                parameters,
            } if name.is_none_or(|want| want == n) => Some((n.clone(), parameters.clone())),
            _ => None,
        });
        let Some((function, parameters)) = function else {
            return Flow::Next;
        };
        let arguments = arguments.cloned().unwrap_or_else(|| {
            // A function without `parameters` takes none.
            let none = Value::Object(Map::new());
            example_arguments(
                parameters.as_ref().unwrap_or(&none),
                &self.setup.validated.input.user_text(),
            )
        });
        self.add_item(OutputItem::FunctionCall(FunctionCall {
            id: new_id("fc"),
            call_id: format!("call_{}", call_token()),
            name: function,
            arguments: arguments.to_string(),
            status: ItemStatus::Completed,
        }));
        Flow::Paused(Pause {
            turn: self.setup.turn,
            next_step: index + 1,
            approvals: Vec::new(),
        })
    }
}
