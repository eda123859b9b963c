//! Carrying out the approval decisions a continuation brought, before the turn goes on: an
//! approved call runs with this request's server (its `server_url`, `authorization` and
//! `headers`, "not from the request that proposed the call") and becomes an `mcp_call` with
//! the request's `approval_request_id`; a denied one does not run, and the model knows why.

use serde_json::{Map, Value};

use super::engine::{Engine, Flow};
use super::honesty::Failure;
use crate::agent::error::ApiError;
use crate::agent::tools::Server;
use crate::agent::wire::items::OutputItem;
use crate::agent::wire::response::RunError;

impl Engine {
    /// Runs the approved calls in order; `Flow::Refused` when one needs a server this request
    /// does not send again.
    pub(super) async fn carry_out_decisions(&mut self, servers: &[Server]) -> Flow {
        for decided in std::mem::take(&mut self.setup.decisions) {
            if !decided.approve {
                // The model answers without the tool, and knows why if a reason was given.
                self.last_output = match &decided.reason {
                    Some(reason) => format!("the call was denied: {reason}"),
                    None => "the call was denied".into(),
                };
                self.last_tool = decided.pending.name.clone();
                self.denied = Some(
                    decided
                        .reason
                        .clone()
                        .unwrap_or_else(|| "no reason given".into()),
                );
                continue;
            }
            let Some(server) = servers
                .iter()
                .find(|s| s.label == decided.pending.server_label)
            else {
                // Checked when the run starts, so it arrives the way the request's mode says.
                let message = format!(
                    "the approved call needs the MCP server \"{}\", which this request's tools do \
                     not include: send the same tools again with the approval response",
                    decided.pending.server_label
                );
                self.run.state().sync_error = Some(ApiError::invalid_request(message.clone()));
                return Flow::Refused(RunError::new("invalid_request", message, "invalid_request"));
            };
            // Arguments that are not JSON (a history item's, as the client sent it) call the
            // tool with none.
            let arguments: Value = serde_json::from_str(&decided.pending.arguments)
                .unwrap_or_else(|_| Value::Object(Map::new()));
            let (output, error) = server
                .call(&decided.pending.name, &arguments, None, None)
                .await;
            self.record_output(&decided.pending.name, output.as_deref());
            self.fresh_output |= output.is_some();
            if let Some(error) = &error {
                self.failures.push(Failure::Call {
                    server: server.label.clone(),
                    tool: decided.pending.name.clone(),
                    error: error.clone(),
                    connector: server.connector_id.is_some(),
                });
            }
            let mut call = server.call_item(&decided.pending.name, &arguments, output, error);
            call.approval_request_id = Some(decided.pending.id.clone());
            self.add_item(OutputItem::McpCall(call));
        }
        Flow::Next
    }
}
