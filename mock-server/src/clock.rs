//! Virtual time.
//!
//! Every scripted delay, the call-wait window, `wake_at` and every timestamp the mock hands out
//! run on this clock, never on the wall clock, so tests can collapse minutes into milliseconds.
//!
//! The clock has three modes:
//! - **real**: one virtual second per real second;
//! - **scaled** (`--time-scale F`): F virtual seconds per real second;
//! - **manual** (`--manual-clock`): time only moves when [`Clock::advance`] is called
//!   (`POST /_mock/clock/advance`).
//!
//! [`Clock::advance`] works in every mode: it jumps virtual time forward and wakes every sleeper.
//! Real and scaled modes measure elapsed time with `tokio::time::Instant`, so a test running on a
//! paused tokio runtime (`#[tokio::test(start_paused = true)]`) drives the mock deterministically.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use tokio::sync::watch;
use tokio::time::Instant;

/// How virtual time relates to real time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClockMode {
    /// Virtual time runs `factor` times as fast as real time (1.0 is real time).
    Scaled {
        /// Virtual seconds per real second.
        factor: f64,
    },
    /// Virtual time moves only when advanced explicitly.
    Manual,
}

/// The mock's virtual clock; cheap to clone, all clones share one timeline.
#[derive(Clone)]
pub struct Clock {
    inner: Arc<Inner>,
}

struct Inner {
    mode: ClockMode,
    /// Virtual time at the moment the clock was created.
    epoch: DateTime<Utc>,
    started: Instant,
    /// Milliseconds added by explicit advances; watched by sleepers so they re-check.
    advanced_ms: watch::Sender<u64>,
}

impl Clock {
    /// A clock starting at `epoch` in the given mode.
    pub fn new(mode: ClockMode, epoch: DateTime<Utc>) -> Self {
        let (advanced_ms, _) = watch::channel(0);
        Self {
            inner: Arc::new(Inner {
                mode,
                epoch,
                started: Instant::now(),
                advanced_ms,
            }),
        }
    }

    /// A clock starting at a fixed, well-known instant, for reproducible snapshots.
    pub fn fixed_epoch() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 10, 24, 0, 11, 18)
            .single()
            .unwrap_or_else(Utc::now)
    }

    /// The clock's mode.
    pub fn mode(&self) -> ClockMode {
        self.inner.mode
    }

    /// The current virtual time.
    pub fn now(&self) -> DateTime<Utc> {
        let advanced = Duration::from_millis(*self.inner.advanced_ms.borrow());
        let elapsed = match self.inner.mode {
            ClockMode::Scaled { factor } => self.inner.started.elapsed().mul_f64(factor),
            ClockMode::Manual => Duration::ZERO,
        };
        self.inner.epoch + to_chrono(elapsed + advanced)
    }

    /// Moves virtual time forward by `by` and wakes every sleeper so it can re-check its deadline.
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.inner
            .advanced_ms
            .send_modify(|total| *total = total.saturating_add(ms));
    }

    /// Waits until virtual time reaches `deadline`.
    pub async fn sleep_until(&self, deadline: DateTime<Utc>) {
        let mut advanced = self.inner.advanced_ms.subscribe();
        loop {
            let now = self.now();
            if now >= deadline {
                return;
            }
            let remaining = (deadline - now).to_std().unwrap_or(Duration::ZERO);
            match self.inner.mode {
                ClockMode::Scaled { factor } => {
                    // Round up only when the division lost precision, so a sleeper never wakes a
                    // hair early and spins, yet an exact deadline is not pushed to the next timer
                    // tick (tokio rounds any remainder up to a whole millisecond).
                    let mut real = remaining.div_f64(factor);
                    if real.mul_f64(factor) < remaining {
                        real = real.saturating_add(Duration::from_micros(1));
                    }
                    tokio::select! {
                        () = tokio::time::sleep(real) => {}
                        changed = advanced.changed() => if changed.is_err() { return },
                    }
                }
                ClockMode::Manual => {
                    if advanced.changed().await.is_err() {
                        return;
                    }
                }
            }
        }
    }

    /// Waits for `by` of virtual time.
    pub async fn sleep(&self, by: Duration) {
        let deadline = self.now() + to_chrono(by);
        self.sleep_until(deadline).await;
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("mode", &self.inner.mode)
            .field("now", &self.now())
            .finish()
    }
}

/// Converts a std duration to a chrono one, saturating at chrono's range.
pub fn to_chrono(d: Duration) -> chrono::Duration {
    chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}

/// Formats a virtual timestamp the way the Computer API does (`2026-10-24T00:11:18.709Z`).
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn manual_clock_moves_only_when_advanced() {
        let clock = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        let start = clock.now();
        assert_eq!(clock.now(), start);
        clock.advance(Duration::from_secs(90));
        assert_eq!(clock.now() - start, chrono::Duration::seconds(90));
    }

    #[tokio::test]
    async fn manual_sleeper_wakes_when_advance_passes_its_deadline() {
        let clock = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        let deadline = clock.now() + chrono::Duration::seconds(120);
        let sleeper = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep_until(deadline).await }
        });
        clock.advance(Duration::from_secs(60));
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        clock.advance(Duration::from_secs(60));
        tokio::time::timeout(Duration::from_secs(5), sleeper)
            .await
            .expect("sleeper should wake once virtual time passes its deadline")
            .expect("sleeper task");
    }

    #[tokio::test(start_paused = true)]
    async fn scaled_clock_runs_faster_than_real_time() {
        let clock = Clock::new(ClockMode::Scaled { factor: 100.0 }, Clock::fixed_epoch());
        let start = clock.now();
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!((clock.now() - start).num_seconds(), 100);
    }

    #[tokio::test(start_paused = true)]
    async fn scaled_sleep_takes_the_scaled_real_duration() {
        let clock = Clock::new(ClockMode::Scaled { factor: 10.0 }, Clock::fixed_epoch());
        let real_start = Instant::now();
        clock.sleep(Duration::from_secs(120)).await;
        assert_eq!(real_start.elapsed().as_secs(), 12);
    }
}
