//! Progress while a run goes, on stderr, in pretty mode: on a terminal a live line per running
//! scenario with its elapsed time (through indicatif) above the finished ones; elsewhere (a CI
//! log) a plain line when a scenario starts and one when it ends, so a hanging scenario shows.

use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::check::{Progress, Status};

/// Shows a run's [`Progress`] on stderr.
pub struct ProgressReporter {
    live: Option<MultiProgress>,
    running: Mutex<BTreeMap<String, ProgressBar>>,
}

impl ProgressReporter {
    /// Live lines when stderr is a terminal, plain lines otherwise.
    pub fn for_stderr() -> Self {
        let live = std::io::stderr()
            .is_terminal()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Self {
            live,
            running: Mutex::new(BTreeMap::new()),
        }
    }

    /// Shows one event.
    pub fn show(&self, event: Progress<'_>) {
        match event {
            Progress::Started { scenario, total } => self.started(scenario, total),
            Progress::Finished {
                done,
                total,
                result,
            } => {
                let failed = result.checks.iter().any(|c| c.status != Status::Success);
                let bar: String = (0..20)
                    .map(|i| if i * total < done * 20 { '#' } else { '.' })
                    .collect();
                let line = format!(
                    "[{bar}] {done}/{total} {} {} ({} ms)",
                    result.name,
                    if failed { "FAIL" } else { "ok" },
                    result.duration_ms
                );
                let bar = self.lock().remove(&result.name);
                match (&self.live, bar) {
                    (Some(live), Some(bar)) => {
                        bar.finish_and_clear();
                        live.remove(&bar);
                        let _ = live.println(line);
                    }
                    _ => eprintln!("{line}"),
                }
            }
        }
    }

    fn started(&self, scenario: &str, total: usize) {
        let Some(live) = &self.live else {
            eprintln!("running {scenario} ({total} scenarios in the run)");
            return;
        };
        let style = ProgressStyle::with_template("{spinner} {prefix} running for {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bar = live.add(ProgressBar::new_spinner().with_style(style));
        bar.set_prefix(scenario.to_owned());
        bar.enable_steady_tick(Duration::from_millis(200));
        self.lock().insert(scenario.to_owned(), bar);
    }

    fn lock(&self) -> parking_lot::MutexGuard<'_, BTreeMap<String, ProgressBar>> {
        // Each use is one insert or remove, so the map is consistent after a panic (the lock never poisons).
        self.running.lock()
    }
}
