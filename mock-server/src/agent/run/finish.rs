//! How a run ends: `completed` (also when its turn paused on a function call or approvals),
//! `incomplete`, `failed` or `cancelled`, each with the fields the live API was recorded
//! writing, and the terminal stream event that carries the whole response.

use std::time::Duration;

use serde_json::{Value, json};

use super::engine::Engine;
use super::response::shown_model;
use super::usage::{self, Consumed};
use crate::agent::store::Pause;
use crate::fixtures::EndStatus;

/// How long a cancelled run takes to stop after the cancel was acknowledged.
const CANCEL_LATENCY: Duration = Duration::from_secs(1);

impl Engine {
    /// Ends the turn `completed` (or `incomplete`, when its script says the output cap cut
    /// it), remembering where it paused.
    pub(super) fn end_turn(&mut self, pause: Option<Pause>) {
        let script = self.script();
        let end = self.turn().map(|t| t.end.status).unwrap_or_default();
        let incomplete = pause.is_none() && end == EndStatus::Incomplete;
        let usage = self.usage();
        let model = shown_model(&self.setup.validated, true, script.served_model.as_deref());
        let now = self.clock.now().timestamp();
        {
            let mut state = self.run.state();
            state.pause = pause;
            let response = &mut state.response;
            response["model"] = json!(model);
            response["usage"] = usage;
            if incomplete {
                response["status"] = json!("incomplete");
                response["incomplete_details"] = json!({"reason": "max_output_tokens"});
            } else {
                response["status"] = json!("completed");
                response["completed_at"] = json!(now);
            }
        }
        let kind = if incomplete {
            "response.incomplete"
        } else {
            "response.completed"
        };
        self.run
            .emit(kind, json!({"response": self.run.snapshot()}));
    }

    /// Ends the run `failed`; its `usage` counts what the model read and wrote, or is `null`
    /// when no model ran.
    pub(super) fn end_failed(&mut self, error: Value, model_ran: bool) {
        let usage = if model_ran { self.usage() } else { Value::Null };
        {
            let mut state = self.run.state();
            let response = &mut state.response;
            response["status"] = json!("failed");
            response["error"] = error.clone();
            // `completed_at` marks completion only: the recorded incomplete and cancelled
            // responses keep it null, and so does a failed one.
            response["usage"] = usage;
        }
        self.run.emit(
            "response.failed",
            json!({"error": error, "response": self.run.snapshot()}),
        );
    }

    /// Ends the run `cancelled`, shortly after the cancel was acknowledged, with the recorded
    /// error object and its partial output kept.
    pub(super) async fn end_cancelled(&mut self) {
        // From the cancel's own time, not from whenever this task got to run: a look that
        // moved the clock on meanwhile must find the run stopped.
        let requested = self.run.state().cancel_requested_at;
        let stopped = crate::clock::after(
            requested.unwrap_or_else(|| self.clock.now()),
            crate::clock::to_chrono(CANCEL_LATENCY),
        );
        self.sleep_until(stopped).await;
        {
            let mut state = self.run.state();
            let response = &mut state.response;
            response["status"] = json!("cancelled");
            response["error"] =
                json!({"code": "cancelled", "message": "cancelled", "type": "cancelled"});
            response["incomplete_details"] = json!({"reason": "cancelled"});
            response["usage"] = Value::Null;
        }
        self.run.emit(
            "response.cancelled",
            json!({"response": self.run.snapshot()}),
        );
    }

    /// The run's `usage`, from what it read and wrote so far.
    fn usage(&self) -> Value {
        let served = shown_model(
            &self.setup.validated,
            true,
            self.script().served_model.as_deref(),
        );
        let state = self.run.state();
        let output = state
            .response
            .get("output")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        usage::usage(&Consumed {
            validated: &self.setup.validated,
            served_model: &served,
            tool_chars: self.tool_chars,
            output,
            billing: &self.billing,
        })
    }
}
