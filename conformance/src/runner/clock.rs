//! The scenario's clock: how fast the mock's virtual time runs for a scenario, and the one place
//! the runner itself moves it (the person coming back later).
//!
//! Verdicts must not depend on how fast a client is, so this is where virtual time during a run
//! is decided; the stage owns one driver per scenario and hands it to the user channel.

use std::time::Duration;

use mock_server::{Clock, MockServerBuilder};

use crate::suite::ScenarioSpec;

/// Moves a scenario's virtual clock on the runner's behalf.
#[derive(Clone)]
pub(crate) struct ClockDriver {
    clock: Clock,
}

impl ClockDriver {
    /// `builder` with the clock `spec` runs on: `time_scale` times real time, capped by the
    /// scenario's own ceiling (a background run must last long enough to be cancelled).
    pub(crate) fn configure(
        builder: MockServerBuilder,
        spec: &ScenarioSpec,
        time_scale: f64,
    ) -> MockServerBuilder {
        let time_scale = if spec.max_time_scale > 0.0 {
            time_scale.min(spec.max_time_scale)
        } else {
            time_scale
        };
        builder.time_scale(time_scale)
    }

    /// A driver for the mock's clock.
    pub(crate) fn new(clock: Clock) -> Self {
        Self { clock }
    }

    /// The person comes back after `pause`: time passes for Computer (and its links) too.
    pub(crate) fn pause(&self, pause: Duration) {
        self.clock.advance(pause);
    }
}
