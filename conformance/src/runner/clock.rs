//! The scenario's clock: how the mock's virtual time runs for a scenario, and the one place
//! the runner itself moves it (the person coming back later).
//!
//! Verdicts must not depend on how fast a client is, so a run uses the mock's **driven** clock
//! ([`RunClock::Driven`]): a call the client is blocked on jumps to its next event or deadline,
//! each look (`read_thread`, `tasks/get`, `GET` of a background response) moves time on by
//! [`LOOK_STEP`], and the client's thinking time between requests does not count. Only the
//! rules about the client's own waiting (`pollIntervalMs`) are judged in real time, against
//! what the mock announced. A scaled clock stays available for hand-driven hosts
//! (`conformance serve`) and for `--time-scale`.

use std::time::Duration;

use mock_server::{Clock, MockServerBuilder};

use crate::suite::ScenarioSpec;

/// How far one look moves a scenario's driven clock: five minutes of Computer's time per poll,
/// so an hour's sleep takes twelve `read_thread` calls, while the longest task (fifteen
/// minutes) still runs when the client first looks and can be stopped.
pub const LOOK_STEP: Duration = Duration::from_secs(300);

/// How virtual time runs during a scenario.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RunClock {
    /// Driven by the client's progress (the runner's default; see the module documentation).
    Driven,
    /// This many virtual seconds per real second, capped by the scenario's `max_time_scale`:
    /// verdicts then depend on how fast the client is.
    Scaled(f64),
}

impl From<f64> for RunClock {
    /// A scaled clock, `factor` times real time.
    fn from(factor: f64) -> Self {
        Self::Scaled(factor)
    }
}

/// Moves a scenario's virtual clock on the runner's behalf.
#[derive(Clone)]
pub(crate) struct ClockDriver {
    clock: Clock,
}

impl ClockDriver {
    /// `builder` with the clock `spec` runs on.
    pub(crate) fn configure(
        builder: MockServerBuilder,
        spec: &ScenarioSpec,
        clock: RunClock,
    ) -> MockServerBuilder {
        match clock {
            RunClock::Driven => builder.driven_clock(LOOK_STEP),
            RunClock::Scaled(factor) => {
                // A background run must last long enough in real time to be cancelled.
                let factor = if spec.max_time_scale > 0.0 {
                    factor.min(spec.max_time_scale)
                } else {
                    factor
                };
                builder.time_scale(factor)
            }
        }
    }

    /// A driver for the mock's clock.
    pub(crate) fn new(clock: Clock) -> Self {
        Self { clock }
    }

    /// The person comes back after `pause`: time passes for Computer (and its links) too, and
    /// background work due by then is done before the person's next message arrives.
    pub(crate) async fn pause(&self, pause: Duration) {
        self.clock.pass(pause).await;
    }
}
