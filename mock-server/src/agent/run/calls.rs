//! The model's tool calls: an MCP call (through a server or connector, with its deferred
//! search, its approval request, or its run and in-band error) and a function call (which
//! pauses the turn until a continuation brings the function's output).

use serde_json::{Map, Value};

use super::choose;
use super::engine::{Engine, Flow};
use super::honesty::Failure;
use super::sandbox::{Command, gh_command};
use crate::agent::arguments::example_arguments;
use crate::agent::store::{Pause, Pending};
use crate::agent::tools::{self, Server};
use crate::agent::wire::ids::{call_token, new_id};
use crate::agent::wire::items::{FunctionCall, ItemStatus, OutputItem};
use crate::agent::wire::request::Tool;
use crate::fixtures::{AgentStep, DEFAULT_AGENT_SCENARIO};
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
        // The default model picks the tool that fits the user's message; a script names its
        // own (or takes the first listed).
        let fitted =
            (self.setup.scenario.0 == DEFAULT_AGENT_SCENARIO && server.is_none() && tool.is_none())
                .then(|| choose::fitting_tool(servers, &self.setup.validated.input.user_text()))
                .flatten();
        let (server, tool) = match &fitted {
            Some((label, name)) => (Some(label.clone()), Some(name.clone())),
            None => (server.clone(), tool.clone()),
        };
        let Some(target) = tools::pick_server(servers, server.as_deref()) else {
            let what = match (&tool, &server) {
                (Some(tool), Some(server)) => format!("call {tool} on {server}"),
                (Some(tool), None) => format!("call {tool}"),
                (None, Some(server)) => format!("use {server}"),
                (None, None) => "call the tool I needed".to_owned(),
            };
            let why = match &server {
                Some(_) => "the request's tools do not include that connector or MCP server",
                None => "the request offers no MCP server or connector",
            };
            return self.not_offered(&what, why);
        };
        if target.sandbox_mode {
            // GitHub with the sandbox and no allowed_tools runs through git/gh.
            let no_arguments = Value::Object(Map::new());
            let code = gh_command(
                tool.as_deref().unwrap_or_default(),
                arguments.as_ref().unwrap_or(&no_arguments),
            );
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
                return Flow::Next;
            }
            let what = format!(
                "call {} on {}",
                tool.as_deref().unwrap_or("a tool"),
                target.label
            );
            return self.not_offered(&what, "it lists no tool this request allows me to use");
        };
        let name = listed.name.clone();
        if let Some(wanted) = tool.as_deref()
            && wanted != name
            && target.remote.is_none()
        {
            // A managed connector's scripted call whose tool is not listed (`allowed_tools`
            // leaves it out): another tool would not give the scripted answer its data, so
            // the model calls nothing. (A real server's first tool stands in: it answers for
            // itself.)
            let what = format!("call {wanted} on {}", target.label);
            return self.not_offered(&what, "the request's allowed_tools do not include it");
        }
        // Scripted output belongs to the scripted tool.
        let output = output
            .clone()
            .filter(|_| tool.as_deref().is_none_or(|t| t == name));
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
        let (out, err) = target.call(&name, &arguments, output, error.clone()).await;
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
            let what = match name {
                Some(name) => format!("call the {name} function"),
                None => "call a function".to_owned(),
            };
            return self.not_offered(&what, "the request's tools do not include it");
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
