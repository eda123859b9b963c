//! How a run ends: `completed` (also when its turn paused on a function call or approvals),
//! `incomplete`, `failed` or `cancelled`, each with the fields the live API was recorded
//! writing, and the terminal stream event that carries the whole response.

use std::time::Duration;

use super::engine::Engine;
use super::response::shown_model;
use super::usage::{self, Consumed};
use crate::agent::store::Pause;
use crate::agent::wire::events::Event;
use crate::agent::wire::response::{
    IncompleteDetails, IncompleteReason, ResponseError, RunError, Status,
};
use crate::agent::wire::usage::Usage;
use crate::fixtures::EndStatus;

/// How long a cancelled run takes to stop after the cancel was acknowledged.
const CANCEL_LATENCY: Duration = Duration::from_secs(1);

impl Engine {
    /// Ends the turn `completed` (or `incomplete`, when its script says the output cap cut
    /// it), remembering where it paused.
    pub(super) fn end_turn(&mut self, pause: Option<Pause>) {
        let script = self.script();
        // A script without turns completes, as a turn that says nothing does.
        let end = self.turn().map(|t| t.end.status).unwrap_or_default();
        let incomplete = pause.is_none() && end == EndStatus::Incomplete;
        let usage = match self.usage() {
            Ok(usage) => usage,
            Err(error) => return self.end_failed(error, false),
        };
        let model = shown_model(&self.setup.validated, true, script.served_model.as_deref());
        let now = self.clock.now().timestamp();
        let snapshot = {
            let mut state = self.run.state();
            state.pause = pause;
            let response = &mut state.response;
            response.model = model;
            response.usage = Some(usage);
            if incomplete {
                response.status = Status::Incomplete;
                response.incomplete_details = Some(IncompleteDetails {
                    reason: IncompleteReason::MaxOutputTokens,
                });
            } else {
                response.status = Status::Completed;
                response.completed_at = Some(now);
            }
            Box::new(response.clone())
        };
        self.run.emit(if incomplete {
            Event::Incomplete(snapshot)
        } else {
            Event::Completed(snapshot)
        });
    }

    /// Ends the run `failed`; its `usage` counts what the model read and wrote, or is `null`
    /// when no model ran.
    pub(super) fn end_failed(&mut self, mut error: RunError, model_ran: bool) {
        let usage = if model_ran {
            match self.usage() {
                Ok(usage) => Some(usage),
                Err(unmeasured) => {
                    error = unmeasured;
                    None
                }
            }
        } else {
            None
        };
        let snapshot = {
            let mut state = self.run.state();
            let response = &mut state.response;
            response.status = Status::Failed;
            response.error = Some(ResponseError::Run(error.clone()));
            // `completed_at` marks completion only: the recorded incomplete and cancelled
            // responses keep it null, and so does a failed one.
            response.usage = usage;
            Box::new(response.clone())
        };
        self.run.emit(Event::Failed {
            error,
            response: snapshot,
        });
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
        let snapshot = {
            let mut state = self.run.state();
            let response = &mut state.response;
            response.status = Status::Cancelled;
            response.error = Some(ResponseError::Run(RunError::new(
                "cancelled",
                "cancelled",
                "cancelled",
            )));
            response.incomplete_details = Some(IncompleteDetails {
                reason: IncompleteReason::Cancelled,
            });
            response.usage = None;
            Box::new(response.clone())
        };
        self.run.emit(Event::Cancelled(snapshot));
    }

    /// The run's `usage`, from what it read and wrote so far; an error (for the run to fail
    /// with) when its output could not be measured.
    fn usage(&self) -> Result<Usage, RunError> {
        let served = shown_model(
            &self.setup.validated,
            true,
            self.script().served_model.as_deref(),
        );
        let state = self.run.state();
        usage::usage(&Consumed {
            validated: &self.setup.validated,
            served_model: &served,
            tool_chars: self.tool_chars,
            output: &state.response.output,
            billing: &self.billing,
        })
        .map_err(|e| RunError::unmeasured(&e))
    }
}
