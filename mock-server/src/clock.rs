//! Virtual time.
//!
//! Every scripted delay, the call-wait window, `wake_at` and every timestamp the mock hands out
//! run on this clock, never on the wall clock, so tests can collapse minutes into milliseconds.
//!
//! The clock has four modes:
//! - **real**: one virtual second per real second;
//! - **scaled** (`--time-scale F`): F virtual seconds per real second;
//! - **manual** (`--manual-clock`): time only moves when [`Clock::advance`] is called
//!   (`POST /_mock/clock/advance`);
//! - **driven** (`--clock driven`, what the conformance runner uses): time follows what the
//!   client does, never the wall clock. A request the client is blocked on
//!   ([`Clock::block_until`]: the call-wait window, a synchronous Agent API run) jumps straight
//!   to its next event or deadline; a look that does not block ([`Clock::look`]: `read_thread`,
//!   `tasks/get`, `GET` of a background response) moves time on by a fixed step; nothing moves
//!   while the client thinks. Background work ([`Pacer`]) only sleeps: it never moves time
//!   itself, and a look waits until the work due by then is done, so what a client sees depends
//!   on what it did, not on how fast it or the machine was.
//!
//! [`Clock::advance`] works in every mode: it jumps virtual time forward and wakes every sleeper.
//! Real and scaled modes measure elapsed time with `tokio::time::Instant`, so a test running on a
//! paused tokio runtime (`#[tokio::test(start_paused = true)]`) drives the mock deterministically.
//!
//! All arithmetic here is checked and never panics. Virtual time **saturates** at
//! [`latest`] (9999-12-31T23:59:59.999Z, the last instant RFC 3339 timestamps can write): a
//! scaled clock left running long enough stops there, and so does a library caller's
//! [`Clock::advance`]. [`Clock::try_advance`] (behind `POST /_mock/clock/advance`) refuses
//! instead: more than [`MAX_ADVANCE`] (100 years) at once, or past [`latest`]. Spans longer
//! than [`FOREVER`] (100,000 years) count as `FOREVER`, so adding one to any time the clock
//! shows stays inside chrono's range.

mod pacers;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use tokio::sync::watch;
use tokio::time::Instant;

use pacers::{Pace, Pacers};

/// The most one `POST /_mock/clock/advance` may move the clock: 100 years of 365.25 days.
pub(crate) const MAX_ADVANCE: Duration = Duration::from_secs(3_155_760_000);

/// The slowest `--time-scale`: a thousand real seconds per virtual second.
pub(crate) const MIN_TIME_SCALE: f64 = 0.001;

/// The fastest `--time-scale`: a million virtual seconds (11.6 days) per real second.
pub(crate) const MAX_TIME_SCALE: f64 = 1_000_000.0;

/// How far one look moves a driven clock by default: a minute of Computer's time per poll.
#[cfg(test)]
pub(crate) const DEFAULT_LOOK_STEP: Duration = Duration::from_secs(60);

/// The longest a look waits, in real time, for background work to catch up with a driven
/// clock (a step stuck on a remote MCP server must not hang the client's poll).
const SETTLE_LIMIT: Duration = Duration::from_secs(2);

/// The longest span the mock reasons about (100,000 years); anything longer means "never".
pub(crate) const FOREVER: TimeDelta = TimeDelta::days(36_525_000);

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
    /// Virtual time follows the client (see the module documentation): blocking waits jump,
    /// each look moves it on by `look_step`, the client's thinking time does not count.
    Driven {
        /// How far one look (`read_thread`, `tasks/get`, `GET` of a background response)
        /// moves virtual time.
        look_step: Duration,
    },
}

impl ClockMode {
    /// Refuses a time scale outside 0.001..=1000000 (NaN included).
    pub fn check(self) -> Result<(), ClockError> {
        match self {
            Self::Scaled { factor } if !(MIN_TIME_SCALE..=MAX_TIME_SCALE).contains(&factor) => {
                Err(ClockError::TimeScale { factor })
            }
            Self::Driven { look_step } if look_step.is_zero() || look_step > MAX_ADVANCE => {
                Err(ClockError::LookStep {
                    ms: look_step.as_millis(),
                })
            }
            _ => Ok(()),
        }
    }
}

/// Why the clock refused a setting or an advance.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ClockError {
    /// `--time-scale` outside the supported range.
    #[error(
        "the time scale must be a number from 0.001 to 1000000 (virtual seconds per real \
         second), not {factor}"
    )]
    TimeScale {
        /// The factor given.
        factor: f64,
    },
    /// A driven clock's look step of zero (polls would never see progress) or over 100 years.
    #[error(
        "the look step must be more than 0 and at most 100 years (how far one poll moves a \
         driven clock), not {ms} ms"
    )]
    LookStep {
        /// The step given, in milliseconds.
        ms: u128,
    },
    /// The start time is outside what the clock can show.
    #[error("the start time {epoch} is outside 1970-01-01T00:00:00Z..9999-12-31T23:59:59.999Z")]
    Epoch {
        /// The start time given, RFC 3339.
        epoch: String,
    },
    /// One advance of more than 100 years.
    #[error(
        "an advance of {ms} ms is more than the 100 years (3155760000000 ms) one advance may \
         move the clock; advance in smaller steps"
    )]
    AdvanceTooFar {
        /// The advance asked for, in milliseconds.
        ms: u128,
    },
    /// An advance that would pass 9999-12-31T23:59:59.999Z.
    #[error(
        "advancing {ms} ms would move the clock past 9999-12-31T23:59:59.999Z, the latest time \
         it can show (it is now {now}); POST /_mock/reset does not rewind it: start a new mock"
    )]
    PastTheEnd {
        /// The advance asked for, in milliseconds.
        ms: u128,
        /// Virtual time now, RFC 3339.
        now: String,
    },
}

/// The latest instant the clock shows: 9999-12-31T23:59:59.999Z.
pub(crate) fn latest() -> DateTime<Utc> {
    LATEST
}

/// [`latest`], worked out at compile time: every reading of the clock compares with it.
const LATEST: DateTime<Utc> = match DateTime::from_timestamp_millis(253_402_300_799_999) {
    Some(latest) => latest,
    None => DateTime::<Utc>::MAX_UTC,
};

/// `t + span`, saturating at chrono's last instant instead of panicking (an expiry that far
/// away never comes).
pub(crate) fn after(t: DateTime<Utc>, span: TimeDelta) -> DateTime<Utc> {
    t.checked_add_signed(span)
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
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
    /// Background work a look waits for (driven mode only).
    pacers: Pacers,
}

impl Clock {
    /// A clock starting at `epoch` in the given mode. An out-of-range factor or epoch does not
    /// panic (time saturates); [`ClockMode::check`] and the server's start-up refuse them.
    pub(crate) fn new(mode: ClockMode, epoch: DateTime<Utc>) -> Self {
        let (advanced_ms, _) = watch::channel(0);
        Self {
            inner: Arc::new(Inner {
                mode,
                epoch,
                started: Instant::now(),
                advanced_ms,
                pacers: Pacers::default(),
            }),
        }
    }

    /// Refuses a start time the clock cannot show (before 1970 or after [`latest`]).
    pub(crate) fn check_epoch(epoch: DateTime<Utc>) -> Result<(), ClockError> {
        if epoch < DateTime::UNIX_EPOCH || epoch > latest() {
            return Err(ClockError::Epoch {
                epoch: epoch.to_rfc3339(),
            });
        }
        Ok(())
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

    /// The current virtual time, never later than 9999-12-31T23:59:59.999Z.
    pub fn now(&self) -> DateTime<Utc> {
        let advanced = Duration::from_millis(*self.inner.advanced_ms.borrow());
        let elapsed = match self.inner.mode {
            ClockMode::Scaled { factor } => {
                scaled(self.inner.started.elapsed(), factor).unwrap_or(Duration::MAX)
            }
            ClockMode::Manual | ClockMode::Driven { .. } => Duration::ZERO,
        };
        elapsed
            .checked_add(advanced)
            .and_then(|offset| TimeDelta::from_std(offset).ok())
            .and_then(|offset| self.inner.epoch.checked_add_signed(offset))
            .map_or_else(latest, |now| now.min(latest()))
    }

    /// Moves virtual time forward by `by` and wakes every sleeper so it can re-check its
    /// deadline. Saturates at 9999-12-31T23:59:59.999Z; [`Clock::try_advance`] refuses instead.
    pub fn advance(&self, by: Duration) {
        let ms = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.inner
            .advanced_ms
            .send_modify(|total| *total = total.saturating_add(ms));
    }

    /// Moves virtual time forward by `by`, refusing more than 100 years at once or a move past
    /// 9999-12-31T23:59:59.999Z; returns the new virtual time.
    pub fn try_advance(&self, by: Duration) -> Result<DateTime<Utc>, ClockError> {
        let ms = by.as_millis();
        if by > MAX_ADVANCE {
            return Err(ClockError::AdvanceTooFar { ms });
        }
        let now = self.now();
        let past_the_end = TimeDelta::from_std(by)
            .ok()
            .and_then(|span| now.checked_add_signed(span))
            .is_none_or(|then| then > latest());
        if past_the_end {
            return Err(ClockError::PastTheEnd { ms, now: iso(now) });
        }
        self.advance(by);
        Ok(self.now())
    }

    /// The deadline `span` from now, saturating at [`latest`]: a wait for it ends at the end of
    /// time at the latest, instead of waiting for an instant the clock never shows.
    pub(crate) fn deadline_in(&self, span: Duration) -> DateTime<Utc> {
        after(self.now(), to_chrono(span)).min(latest())
    }

    /// Waits until virtual time reaches `deadline`; a deadline past [`latest`] counts as
    /// [`latest`], so at the end of time every wait returns at once.
    pub(crate) async fn sleep_until(&self, deadline: DateTime<Utc>) {
        /// The longest single real-time nap; the loop re-checks after it.
        const LONGEST_NAP: Duration = Duration::from_secs(24 * 3600);
        let deadline = deadline.min(latest());
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
                    let mut real = divided(remaining, factor).unwrap_or(LONGEST_NAP);
                    if scaled(real, factor).is_some_and(|back| back < remaining) {
                        real = real.saturating_add(Duration::from_micros(1));
                    }
                    tokio::select! {
                        () = tokio::time::sleep(real.min(LONGEST_NAP)) => {}
                        changed = advanced.changed() => if changed.is_err() { return },
                    }
                }
                ClockMode::Manual | ClockMode::Driven { .. } => {
                    if advanced.changed().await.is_err() {
                        return;
                    }
                }
            }
        }
    }

    /// Waits for `by` of virtual time.
    #[cfg(test)]
    pub(crate) async fn sleep(&self, by: Duration) {
        let deadline = after(self.now(), to_chrono(by));
        self.sleep_until(deadline).await;
    }

    /// Whether time is driven by the client ([`ClockMode::Driven`]).
    pub(crate) fn is_driven(&self) -> bool {
        matches!(self.inner.mode, ClockMode::Driven { .. })
    }

    /// Waits until `deadline` on behalf of a request the client is blocked on (the call-wait
    /// window, a scheduled step of a synchronous run). A driven clock jumps there at once,
    /// since nothing else can happen while the client waits, and lets background work catch
    /// up; other modes sleep as [`Clock::sleep_until`] does. A deadline past [`latest`] counts
    /// as [`latest`], as there.
    pub(crate) async fn block_until(&self, deadline: DateTime<Utc>) {
        if !self.is_driven() {
            return self.sleep_until(deadline).await;
        }
        let deadline = deadline.min(latest());
        let now = self.now();
        if deadline > now {
            self.advance((deadline - now).to_std().unwrap_or(Duration::MAX));
        }
        self.settle().await;
    }

    /// A look that does not block (`read_thread`, `tasks/get`, `GET` of a background
    /// response): a driven clock moves on by its look step and waits until background work
    /// due by then is done; other modes do nothing.
    pub(crate) async fn look(&self) {
        if let ClockMode::Driven { look_step } = self.inner.mode {
            self.pass(look_step).await;
        }
    }

    /// Moves virtual time on by `by` (saturating, as [`Clock::advance`]) and, on a driven
    /// clock, waits until the background work due by then is done: the runner's "the person
    /// comes back later".
    pub async fn pass(&self, by: Duration) {
        self.advance(by);
        if self.is_driven() {
            self.settle().await;
        }
    }

    /// Registers background work that sleeps on this clock (a background Agent API run); see
    /// [`Pacer`].
    pub(crate) fn pacer(&self) -> Pacer {
        Pacer {
            id: self.inner.pacers.register(),
            clock: self.clone(),
        }
    }

    /// Waits (at most [`SETTLE_LIMIT`] of real time) until no registered background work is
    /// busy or due.
    async fn settle(&self) {
        let limit = Instant::now() + SETTLE_LIMIT;
        loop {
            let changed = self.inner.pacers.changed().notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if !self.inner.pacers.busy(self.now()) {
                return;
            }
            tokio::select! {
                () = changed => {}
                () = tokio::time::sleep_until(limit) => return,
            }
        }
    }
}

/// Background work on the clock (a background Agent API run): it sleeps with
/// [`Pacer::sleep_until`] and counts as busy between sleeps, so a look on a driven clock
/// answers only once the work due by then is done. Dropping it ends the registration.
#[derive(Debug)]
pub(crate) struct Pacer {
    id: u64,
    clock: Clock,
}

impl Pacer {
    /// Waits until virtual time reaches `deadline`; a driven clock does not move for it.
    pub(crate) async fn sleep_until(&self, deadline: DateTime<Utc>) {
        /// Marks the work busy again however the sleep ends (woken, or dropped by a `select!`).
        struct Awake<'a>(&'a Pacer);
        impl Drop for Awake<'_> {
            fn drop(&mut self) {
                self.0.clock.inner.pacers.set(self.0.id, Pace::Busy);
            }
        }
        self.clock.inner.pacers.set(self.id, Pace::Asleep(deadline));
        let _awake = Awake(self);
        self.clock.sleep_until(deadline).await;
    }

    /// Waits for `by` of virtual time.
    #[cfg(test)]
    pub(crate) async fn sleep(&self, by: Duration) {
        self.sleep_until(after(self.clock.now(), to_chrono(by)))
            .await;
    }

    /// A handle that marks this work busy from outside, before something wakes it (a cancel),
    /// so a look that follows waits for it.
    pub(crate) fn waker(&self) -> PacerWaker {
        PacerWaker {
            id: self.id,
            clock: self.clock.clone(),
        }
    }
}

impl Drop for Pacer {
    fn drop(&mut self) {
        self.clock.inner.pacers.remove(self.id);
    }
}

/// Marks a [`Pacer`]'s work busy (see [`Pacer::waker`]); does nothing once the work ended.
#[derive(Debug, Clone)]
pub(crate) struct PacerWaker {
    id: u64,
    clock: Clock,
}

impl PacerWaker {
    /// The work is about to be woken: a look waits for it from now on.
    pub(crate) fn wake(&self) {
        self.clock.inner.pacers.set(self.id, Pace::Busy);
    }
}

/// `d * factor`, or `None` when that is negative, not a number or too long for a `Duration`.
fn scaled(d: Duration, factor: f64) -> Option<Duration> {
    if factor == 1.0 {
        return Some(d);
    }
    Duration::try_from_secs_f64(d.as_secs_f64() * factor).ok()
}

/// `d / factor`, or `None` when that is negative, not a number or too long for a `Duration`.
fn divided(d: Duration, factor: f64) -> Option<Duration> {
    if factor == 1.0 {
        return Some(d);
    }
    Duration::try_from_secs_f64(d.as_secs_f64() / factor).ok()
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("mode", &self.inner.mode)
            .field("now", &self.now())
            .finish()
    }
}

/// Converts a std duration to a chrono one, saturating at [`FOREVER`], so that adding it to any
/// time the clock shows cannot overflow.
pub(crate) fn to_chrono(d: Duration) -> TimeDelta {
    TimeDelta::from_std(d).map_or(FOREVER, |span| span.min(FOREVER))
}

/// Formats a virtual timestamp the way the Computer API does (`2026-10-24T00:11:18.709Z`).
pub(crate) fn iso(t: DateTime<Utc>) -> String {
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

    #[test]
    fn an_advance_of_u64_max_milliseconds_is_refused_and_leaves_the_clock_alone() {
        let clock = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        let before = clock.now();
        let refused = clock.try_advance(Duration::from_millis(u64::MAX));
        assert_eq!(
            refused,
            Err(ClockError::AdvanceTooFar {
                ms: u128::from(u64::MAX)
            })
        );
        assert_eq!(clock.now(), before);
    }

    #[test]
    fn an_advance_past_the_year_9999_is_refused_but_one_to_its_last_instant_is_not() {
        let clock = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        let to_the_end = (latest() - clock.now()).to_std().expect("positive");
        while clock.now() + TimeDelta::from_std(MAX_ADVANCE).expect("fits") < latest() {
            clock
                .try_advance(MAX_ADVANCE)
                .expect("a 100-year step fits");
        }
        let rest = (latest() - clock.now()).to_std().expect("positive");
        let refused = clock.try_advance(rest + Duration::from_millis(1));
        assert!(
            matches!(refused, Err(ClockError::PastTheEnd { .. })),
            "{refused:?}"
        );
        assert_eq!(clock.try_advance(rest), Ok(latest()));
        assert!(to_the_end > MAX_ADVANCE);
    }

    #[test]
    fn the_library_advance_saturates_at_the_latest_instant() {
        let clock = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        clock.advance(Duration::MAX);
        clock.advance(Duration::MAX);
        assert_eq!(clock.now(), latest());
        assert_eq!(iso(clock.now()), "9999-12-31T23:59:59.999Z");
    }

    #[tokio::test(start_paused = true)]
    async fn a_scaled_clock_left_running_saturates_instead_of_overflowing() {
        // The measurement: a 1e12 scale panicked after 8 s. The start-up check refuses
        // that factor; the clock itself still must not panic with it.
        let clock = Clock::new(ClockMode::Scaled { factor: 1e12 }, Clock::fixed_epoch());
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert_eq!(clock.now(), latest());
        let fastest = Clock::new(
            ClockMode::Scaled {
                factor: MAX_TIME_SCALE,
            },
            Clock::fixed_epoch(),
        );
        tokio::time::sleep(Duration::from_secs(400 * 24 * 3600)).await;
        assert_eq!(fastest.now(), latest());
    }

    #[test]
    fn time_scales_outside_the_range_are_refused_with_their_value() {
        for factor in [0.0, -1.0, 1e12, f64::NAN, f64::INFINITY, 0.000_1] {
            let error = ClockMode::Scaled { factor }.check().expect_err("refused");
            assert!(error.to_string().contains("0.001 to 1000000"), "{error}");
        }
        for factor in [MIN_TIME_SCALE, 1.0, 2000.0, MAX_TIME_SCALE] {
            assert_eq!(ClockMode::Scaled { factor }.check(), Ok(()));
        }
        assert_eq!(ClockMode::Manual.check(), Ok(()));
    }

    fn driven() -> Clock {
        Clock::new(
            ClockMode::Driven {
                look_step: DEFAULT_LOOK_STEP,
            },
            Clock::fixed_epoch(),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_driven_clock_stands_still_while_the_client_thinks() {
        let clock = driven();
        let start = clock.now();
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert_eq!(clock.now(), start);
    }

    #[tokio::test(start_paused = true)]
    async fn a_blocking_wait_on_a_driven_clock_jumps_to_its_deadline_at_once() {
        let clock = driven();
        let real_start = Instant::now();
        let deadline = clock.now() + TimeDelta::seconds(120);
        clock.block_until(deadline).await;
        assert_eq!(clock.now(), deadline);
        assert_eq!(real_start.elapsed(), Duration::ZERO);
        // A deadline already passed moves nothing.
        clock.block_until(deadline - TimeDelta::seconds(60)).await;
        assert_eq!(clock.now(), deadline);
    }

    #[tokio::test(start_paused = true)]
    async fn a_look_moves_a_driven_clock_by_its_step_and_other_clocks_not_at_all() {
        let clock = driven();
        let start = clock.now();
        clock.look().await;
        clock.look().await;
        assert_eq!(clock.now() - start, TimeDelta::seconds(120));
        let manual = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        manual.look().await;
        assert_eq!(manual.now(), Clock::fixed_epoch());
    }

    #[tokio::test]
    async fn a_look_answers_only_once_background_work_due_by_then_is_done() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let clock = driven();
        let steps = Arc::new(AtomicU32::new(0));
        let start = clock.now();
        let pacer = clock.pacer();
        let work = tokio::spawn({
            let steps = steps.clone();
            async move {
                for at in [30, 50, 90, 200] {
                    pacer.sleep_until(start + TimeDelta::seconds(at)).await;
                    // Work between sleeps takes real time; a look must wait for it.
                    tokio::task::yield_now().await;
                    steps.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        clock.look().await;
        assert_eq!(steps.load(Ordering::SeqCst), 2, "steps due by +60 s");
        clock.look().await;
        assert_eq!(steps.load(Ordering::SeqCst), 3, "steps due by +120 s");
        clock.pass(Duration::from_secs(100)).await;
        assert_eq!(steps.load(Ordering::SeqCst), 4);
        tokio::time::timeout(Duration::from_secs(5), work)
            .await
            .expect("the work ends after its last step")
            .expect("work ends");
        assert!(
            !clock.inner.pacers.busy(clock.now()),
            "ended work is forgotten"
        );
    }

    #[tokio::test]
    async fn a_woken_pacer_counts_as_busy_until_it_sleeps_again() {
        let clock = driven();
        let pacer = clock.pacer();
        let waker = pacer.waker();
        let far = clock.now() + TimeDelta::hours(1);
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        let work = tokio::spawn(async move {
            tokio::select! {
                () = pacer.sleep_until(far) => {}
                _ = cancelled => {}
            }
            pacer.sleep(Duration::from_secs(1)).await;
        });
        tokio::task::yield_now().await;
        assert!(!clock.inner.pacers.busy(clock.now()));
        waker.wake();
        assert!(clock.inner.pacers.busy(clock.now()));
        let _ = cancel.send(());
        // The look waits for the cancelled work to go back to sleep (a second past the look).
        clock.look().await;
        assert!(!clock.inner.pacers.busy(clock.now()));
        assert!(!work.is_finished());
        clock.pass(Duration::from_secs(1)).await;
        tokio::time::timeout(Duration::from_secs(5), work)
            .await
            .expect("the work's last sleep ends a second after the look")
            .expect("work ends");
    }

    #[test]
    fn a_driven_clock_refuses_a_zero_look_step() {
        let error = ClockMode::Driven {
            look_step: Duration::ZERO,
        }
        .check()
        .expect_err("refused");
        assert!(error.to_string().contains("more than 0"), "{error}");
        assert_eq!(
            ClockMode::Driven {
                look_step: DEFAULT_LOOK_STEP
            }
            .check(),
            Ok(())
        );
    }

    #[tokio::test(start_paused = true)]
    async fn at_the_end_of_time_every_wait_returns_at_once() {
        for mode in [ClockMode::Manual, driven().mode()] {
            let clock = Clock::new(mode, latest());
            assert_eq!(clock.deadline_in(Duration::from_secs(120)), latest());
            let past_the_end = after(latest(), FOREVER);
            let waits = async {
                clock.sleep_until(past_the_end).await;
                clock.block_until(past_the_end).await;
            };
            tokio::time::timeout(Duration::from_secs(1), waits)
                .await
                .expect("no wait outlasts the end of time");
            assert_eq!(clock.now(), latest());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn sleeping_for_longer_than_forever_neither_panics_nor_wakes() {
        let clock = Clock::new(ClockMode::Scaled { factor: 1.0 }, Clock::fixed_epoch());
        let sleeper = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep(Duration::MAX).await }
        });
        tokio::time::sleep(Duration::from_secs(3 * 24 * 3600)).await;
        assert!(!sleeper.is_finished());
        sleeper.abort();
        assert_eq!(to_chrono(Duration::MAX), FOREVER);
        assert_eq!(after(latest(), FOREVER) - latest(), FOREVER);
        assert_eq!(
            after(DateTime::<Utc>::MAX_UTC, FOREVER),
            DateTime::<Utc>::MAX_UTC
        );
    }
}
