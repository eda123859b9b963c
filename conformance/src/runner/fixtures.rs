//! Task scenarios run on fixtures whose `pollIntervalMs` is short in real time.
//!
//! The mock announces `pollIntervalMs` as the fixture sets it (5000 ms by default), and a client
//! waits that long in its own, real time: the driven clock cannot shorten it. So the runner
//! loads each task scenario with `settings.poll_intervals_ms` set to its entry in
//! [`TASK_POLL_INTERVALS_MS`], written next to the run as an override of the embedded fixture,
//! and judges polling against the interval the mock actually announced in its latest answer.
//! The intervals differ from scenario to scenario, and `task-cancel`'s changes on its first
//! `tasks/get`, so a client that waits a fixed time instead of reading `pollIntervalMs` fails
//! somewhere.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::suite::{Flow, ScenarioSpec};

/// The shortest `pollIntervalMs` a task scenario announces: long enough to tell an early poll
/// from network jitter on a busy machine (a poll sent at once lands under half of it), short
/// enough to keep the suite fast.
pub const TASK_POLL_INTERVAL_MS: u64 = 200;

/// The `pollIntervalMs` each task scenario announces: at the task's creation, then at each
/// `tasks/get` in turn, the last repeating. `task-cancel` asks for 600 ms from its first poll
/// on, so a client hard-coding 100 ms polls under half the interval there.
pub const TASK_POLL_INTERVALS_MS: &[(&str, &[u64])] = &[
    // Close to the shortest: the suite's wall time is mostly these waits.
    ("task-question", &[TASK_POLL_INTERVAL_MS]),
    ("task-approval", &[220]),
    ("task-sign-in", &[240]),
    ("task-follow-up", &[TASK_POLL_INTERVAL_MS]),
    ("task-cancel", &[TASK_POLL_INTERVAL_MS, 600]),
    ("task-failure", &[210]),
    ("task-credits", &[230]),
    // Duty scenarios (variants of the fixtures above and of plain ones).
    ("task-approval-deny", &[250]),
    ("task-credits-before-send", &[TASK_POLL_INTERVAL_MS, 300]),
    ("task-reconnect", &[260]),
];

/// The embedded fixtures of the task scenarios, by name.
const TASK_FIXTURES: &[(&str, &str)] = &[
    (
        "task-question",
        include_str!("../../../fixtures/scenarios/task-question.json"),
    ),
    (
        "task-approval",
        include_str!("../../../fixtures/scenarios/task-approval.json"),
    ),
    (
        "task-sign-in",
        include_str!("../../../fixtures/scenarios/task-sign-in.json"),
    ),
    (
        "task-follow-up",
        include_str!("../../../fixtures/scenarios/task-follow-up.json"),
    ),
    (
        "task-cancel",
        include_str!("../../../fixtures/scenarios/task-cancel.json"),
    ),
    (
        "task-failure",
        include_str!("../../../fixtures/scenarios/task-failure.json"),
    ),
    (
        "task-credits",
        include_str!("../../../fixtures/scenarios/task-credits.json"),
    ),
];

/// A directory of fixture overrides, removed when dropped.
#[derive(Debug)]
pub(super) struct Overrides {
    dir: PathBuf,
}

impl Overrides {
    /// Writes the override for `scenario` under a fresh directory named after `tag`, or returns
    /// `None` when the scenario needs none.
    pub(super) fn write(scenario: &str, tag: &str) -> Result<Option<Self>, Error> {
        let Some((_, text)) = TASK_FIXTURES.iter().find(|(name, _)| *name == scenario) else {
            return Ok(None);
        };
        let mut fixture: Value = serde_json::from_str(text).map_err(|e| Error::File {
            path: PathBuf::from(format!("fixtures/scenarios/{scenario}.json")),
            source: std::io::Error::other(e),
        })?;
        let intervals = TASK_POLL_INTERVALS_MS
            .iter()
            .find(|(name, _)| *name == scenario)
            .map_or(&[TASK_POLL_INTERVAL_MS][..], |(_, intervals)| intervals);
        fixture["settings"]["poll_intervals_ms"] = intervals.into();
        let dir =
            std::env::temp_dir().join(format!("conformance-fixtures-{}-{tag}", std::process::id()));
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::File { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let file = dir.join(format!("{scenario}.json"));
        std::fs::write(&file, fixture.to_string()).map_err(io(&file))?;
        Ok(Some(Self { dir }))
    }

    /// The directory to pass to the mock's `fixtures`.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Overrides {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The fixture a scenario plays when it is a variant of a built-in one (another `fixture`, a
/// `patch`, and a task scenario's poll intervals), renamed to the scenario, as JSON for
/// the mock's `scenario_json`; `None` when it plays a built-in fixture as it is.
pub(super) fn variant(spec: &ScenarioSpec) -> Result<Option<String>, Error> {
    if spec.fixture.is_empty() && spec.patch.is_none() {
        return Ok(None);
    }
    let invalid = |what: String| Error::File {
        path: PathBuf::from(format!("fixtures/scenarios/{}.json", spec.fixture())),
        source: std::io::Error::other(what),
    };
    let text = mock_server::fixtures::embedded_scenario(spec.fixture())
        .ok_or_else(|| invalid(format!("no built-in scenario `{}`", spec.fixture())))?;
    let mut fixture: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    fixture["name"] = spec.name.into();
    if let Some(change) = spec.patch {
        change(&mut fixture);
    }
    if spec.flow == Flow::Tasks {
        let intervals = TASK_POLL_INTERVALS_MS
            .iter()
            .find(|(name, _)| *name == spec.name)
            .map_or(&[TASK_POLL_INTERVAL_MS][..], |(_, intervals)| intervals);
        // The suite's intervals replace the fixture's own single one.
        if let Some(settings) = fixture["settings"].as_object_mut() {
            settings.remove("poll_interval_ms");
        }
        fixture["settings"]["poll_intervals_ms"] = intervals.into();
    }
    Ok(Some(fixture.to_string()))
}

/// The world a scenario runs in when it changes the built-in one, as JSON for `world_json`.
pub(super) fn world(spec: &ScenarioSpec) -> Result<Option<String>, Error> {
    let Some(change) = spec.world else {
        return Ok(None);
    };
    let mut world: Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).map_err(|e| Error::File {
            path: PathBuf::from("fixtures/world.json"),
            source: std::io::Error::other(e),
        })?;
    change(&mut world);
    Ok(Some(world.to_string()))
}
