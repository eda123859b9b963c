//! Scenarios: the fixture model, loading with schema validation, and routing a new thread.
//!
//! The embedded default catalog (`fixtures/scenarios/*.json`) is always loaded; `--fixtures`
//! paths add scenarios or override them by name. Every file is validated against
//! `fixtures/scenario.schema.json`; a refused file names its path, the JSON pointer of the first
//! problem and what was expected there, and the server does not start.

mod model;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use regex::Regex;
use serde_json::Value;

pub use model::{
    Checkpoint, FileSpec, HistoryTurn, InteractionSpec, Outcome, QuestionSpec, Refusal, Scenario,
    Segment, Settings, SignInSpec, SourceSpec, Step, StepEnd, Turn, parse_duration,
};

use crate::error::{FixtureError, FixtureErrorKind};

/// The JSON Schema every scenario file must satisfy.
pub const SCENARIO_SCHEMA: &str = include_str!("../../fixtures/scenario.schema.json");

/// The built-in scenarios, compiled into the binary so the mock runs with no flags.
const EMBEDDED: &[(&str, &str)] = &embedded_scenarios!["";
    "access-denied",
    "ask-user-question",
    "attachments",
    "auth-required",
    "cancel",
    "complete",
    "computer-error",
    "confirm-action",
    "elicitation-confirm",
    "elicitation-question",
    "elicitation-sign-in",
    "files",
    "follow-up",
    "insufficient-credits-before-send",
    "insufficient-credits-during-task",
    "interaction-required",
    "long-transcript",
    "multiple-sign-ins",
    "optional-auth",
    "pending-interactions",
    "project-settings",
    "quota-exhausted",
    "sleep",
    "task-approval",
    "task-cancel",
    "task-complete",
    "task-credits",
    "task-failure",
    "task-follow-up",
    "task-question",
    "task-sign-in",
    "thread-assets",
    "timeout-then-complete",
    "two-factor-required",
    "waiting",
];

/// `(name, text)` of each `fixtures/scenarios/<prefix><name>.json`, compiled in.
macro_rules! embedded_scenarios {
    ($prefix:literal; $($name:literal),* $(,)?) => {
        [$(($name, include_str!(concat!("../../fixtures/scenarios/", $prefix, $name, ".json")))),*]
    };
}
use embedded_scenarios;

/// The name used when nothing else selects a scenario.
pub const DEFAULT_SCENARIO: &str = "complete";

static SCHEMA_VALIDATOR: LazyLock<Option<jsonschema::Validator>> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(SCENARIO_SCHEMA).ok()?;
    jsonschema::draft202012::new(&schema).ok()
});

/// A loaded scenario and its compiled `match` pattern.
#[derive(Debug)]
pub struct LoadedScenario {
    /// The scenario.
    pub scenario: Scenario,
    /// Where it came from.
    pub source: PathBuf,
    pattern: Option<Regex>,
}

/// Every scenario the mock knows, in load order, and the fallback for unmatched conversations.
#[derive(Debug, Clone)]
pub struct Catalog {
    scenarios: Vec<Arc<LoadedScenario>>,
    fallback: String,
    /// Agent API scenarios, in load order (a later file with the same name replaces one).
    agent: Vec<Arc<crate::agent::script::LoadedAgentScenario>>,
}

impl Catalog {
    /// The embedded catalog plus the files under `paths` (files, or directories of `*.json`).
    pub fn load(paths: &[PathBuf], fallback: Option<&str>) -> Result<Self, FixtureError> {
        let mut by_name: BTreeMap<String, Arc<LoadedScenario>> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut insert = |loaded: LoadedScenario| {
            let name = loaded.scenario.name.clone();
            if by_name.insert(name.clone(), Arc::new(loaded)).is_none() {
                order.push(name);
            }
        };
        let mut agents = AgentScenarios::default();
        for (name, text) in EMBEDDED {
            insert(parse(Path::new(&format!("embedded:{name}.json")), text)?);
        }
        for (name, text) in EMBEDDED_AGENT {
            let path = PathBuf::from(format!("embedded:{name}.json"));
            let value: Value = serde_json::from_str(text)
                .map_err(|e| FixtureError::new(&path, FixtureErrorKind::Json(e)))?;
            agents.insert(crate::agent::script::parse_agent(&path, value)?);
        }
        for path in paths {
            for file in fixture_files(path)? {
                let text = std::fs::read_to_string(&file)
                    .map_err(|e| FixtureError::new(&file, FixtureErrorKind::Read(e)))?;
                // Agent API scenarios share the directory and the schema file; their
                // `agent` section tells them apart.
                if let Ok(value) = serde_json::from_str::<Value>(&text)
                    && crate::agent::script::is_agent_scenario(&value)
                {
                    agents.insert(crate::agent::script::parse_agent(&file, value)?);
                    continue;
                }
                insert(parse(&file, &text)?);
            }
        }
        let fallback = fallback.unwrap_or(DEFAULT_SCENARIO).to_owned();
        if !by_name.contains_key(&fallback) {
            return Err(FixtureError::new(
                "--scenario",
                FixtureErrorKind::Invalid {
                    pointer: String::new(),
                    message: format!(
                        "no scenario is named `{fallback}`; known: {}",
                        order.join(", ")
                    ),
                },
            ));
        }
        let scenarios = order
            .iter()
            .filter_map(|name| by_name.get(name).cloned())
            .collect();
        Ok(Self {
            scenarios,
            fallback,
            agent: agents.list,
        })
    }

    /// Every scenario, in load order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<LoadedScenario>> {
        self.scenarios.iter()
    }

    /// The scenario with this name.
    pub fn get(&self, name: &str) -> Option<Arc<LoadedScenario>> {
        self.scenarios
            .iter()
            .find(|s| s.scenario.name == name)
            .cloned()
    }

    /// The scenario a new conversation follows: `#name` in its first message, else the first
    /// scenario whose `match` fits, else the fallback (`--scenario`, default `complete`).
    pub fn route(&self, first_message: &str) -> Arc<LoadedScenario> {
        route_by_message(&self.scenarios, first_message, |s| {
            (s.scenario.name.as_str(), s.pattern.as_ref())
        })
        .or_else(|| self.get(&self.fallback))
        .unwrap_or_else(|| self.scenarios[0].clone())
    }

    /// The scenario used when nothing else matches.
    pub fn fallback(&self) -> &str {
        &self.fallback
    }
}

// --- Agent API scenarios (issue 6) ------------------------------------------------------------

/// The built-in Agent API scenarios (`fixtures/scenarios/agent-NAME.json`, named `NAME`).
const EMBEDDED_AGENT: &[(&str, &str)] = &embedded_scenarios!["agent-";
    "slack-summary",
    "deepwiki-question",
    "github-sandbox",
    "mcp-approval",
    "connector-auth-lapsed",
    "discovery-failure",
    "background-research",
    "function-weather",
    "connector-errors",
    "rate-limited",
    "server-error",
    "model-failure",
    "incomplete",
    "shared-file",
    "default",
];

/// The Agent API scenario used when nothing else matches.
pub const DEFAULT_AGENT_SCENARIO: &str = "agent-default";

#[derive(Default)]
struct AgentScenarios {
    list: Vec<Arc<crate::agent::script::LoadedAgentScenario>>,
}

impl AgentScenarios {
    fn insert(&mut self, loaded: crate::agent::script::LoadedAgentScenario) {
        let loaded = Arc::new(loaded);
        match self.list.iter_mut().find(|s| s.name == loaded.name) {
            Some(slot) => *slot = loaded,
            None => self.list.push(loaded),
        }
    }
}

impl Catalog {
    /// Every Agent API scenario, in load order.
    pub fn agent_iter(
        &self,
    ) -> impl Iterator<Item = &Arc<crate::agent::script::LoadedAgentScenario>> {
        self.agent.iter()
    }

    /// The Agent API scenario with this name.
    pub fn agent_get(&self, name: &str) -> Option<Arc<crate::agent::script::LoadedAgentScenario>> {
        self.agent.iter().find(|s| s.name == name).cloned()
    }

    /// The Agent API scenario a request follows: `#name` in its first user message, else the
    /// first whose `match` fits, else `agent-default`.
    pub fn agent_route(
        &self,
        first_message: &str,
    ) -> Arc<crate::agent::script::LoadedAgentScenario> {
        route_by_message(&self.agent, first_message, |s| {
            (s.name.as_str(), s.pattern.as_ref())
        })
        .or_else(|| self.agent_get(DEFAULT_AGENT_SCENARIO))
        .unwrap_or_else(|| self.agent[0].clone())
    }
}
// --- end Agent API scenarios -------------------------------------------------------------------

/// The routing both APIs share: the scenario named `#name` in the first message, else the first
/// (in load order) whose `match` fits it. `key` gives a scenario's name and compiled `match`.
fn route_by_message<T>(
    scenarios: &[Arc<T>],
    first_message: &str,
    key: impl Fn(&T) -> (&str, Option<&Regex>),
) -> Option<Arc<T>> {
    let named = |tag: &str| scenarios.iter().find(|s| key(s).0 == tag).cloned();
    hashtags(first_message).find_map(named).or_else(|| {
        scenarios
            .iter()
            .find(|s| key(s).1.is_some_and(|p| p.is_match(first_message)))
            .cloned()
    })
}

/// Words written as `#word` in a message.
fn hashtags(message: &str) -> impl Iterator<Item = &str> {
    message
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
        .filter_map(|word| word.strip_prefix('#'))
        .map(|tag| tag.trim_end_matches(['.', ':', '!', '?']))
}

fn fixture_files(path: &Path) -> Result<Vec<PathBuf>, FixtureError> {
    if !path.is_dir() {
        return Ok(vec![path.to_owned()]);
    }
    let entries =
        std::fs::read_dir(path).map_err(|e| FixtureError::new(path, FixtureErrorKind::Read(e)))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|ext| ext == "json")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with(".schema.json"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Parses and validates one scenario file.
pub fn parse(path: &Path, text: &str) -> Result<LoadedScenario, FixtureError> {
    let fail = |kind| FixtureError::new(path, kind);
    let value: Value = serde_json::from_str(text).map_err(|e| fail(FixtureErrorKind::Json(e)))?;
    if let Some(validator) = SCHEMA_VALIDATOR.as_ref()
        && let Some(error) = validator.iter_errors(&value).next()
    {
        let pointer = error.instance_path().as_str().to_owned();
        let mut message = error.to_string();
        // `oneOf` failures only say "<the whole value> is not valid under any of the schemas",
        // which can be a page of JSON; serde names the actual problem ("missing field `then`",
        // "unknown variant `x`, expected one of ..."), so show that instead.
        if let Err(serde_error) = serde_json::from_value::<Scenario>(value.clone()) {
            let one_of = matches!(
                error.kind(),
                jsonschema::error::ValidationErrorKind::OneOfNotValid { .. }
            );
            message = if one_of {
                serde_error.to_string()
            } else {
                format!("{message} ({serde_error})")
            };
        }
        return Err(fail(FixtureErrorKind::Schema { pointer, message }));
    }
    let scenario: Scenario = serde_json::from_value(value).map_err(|e| {
        fail(FixtureErrorKind::Schema {
            pointer: String::new(),
            message: e.to_string(),
        })
    })?;
    check_semantics(&scenario)
        .map_err(|(pointer, message)| fail(FixtureErrorKind::Invalid { pointer, message }))?;
    let pattern = match &scenario.match_pattern {
        Some(p) => Some(Regex::new(p).map_err(|e| {
            fail(FixtureErrorKind::Invalid {
                pointer: "/match".into(),
                message: format!("not a valid regular expression: {e}"),
            })
        })?),
        None => None,
    };
    Ok(LoadedScenario {
        scenario,
        source: path.to_owned(),
        pattern,
    })
}

/// Checks what the schema cannot express.
fn check_semantics(scenario: &Scenario) -> Result<(), (String, String)> {
    for (i, turn) in scenario.turns.iter().enumerate() {
        check_segment(&turn.segment, &format!("/turns/{i}"))?;
    }
    Ok(())
}

fn check_segment(segment: &Segment, at: &str) -> Result<(), (String, String)> {
    let outcome_at = format!("{at}/outcome");
    match &segment.outcome {
        Outcome::AskUserQuestion(checkpoint) | Outcome::ConfirmAction(checkpoint) => {
            let first_is_question = matches!(
                checkpoint.interactions.first(),
                Some(InteractionSpec::Question { .. })
            );
            let event_is_question = matches!(segment.outcome, Outcome::AskUserQuestion(_));
            if first_is_question != event_is_question {
                return Err((
                    format!("{outcome_at}/interactions/0"),
                    "the first interaction must match the event: `question` for \
                     ask_user_question, `confirm` for confirm_action"
                        .into(),
                ));
            }
            check_segment(&checkpoint.then, &format!("{outcome_at}/then"))?;
            if let Some(denied) = &checkpoint.denied {
                check_segment(denied, &format!("{outcome_at}/denied"))?;
            }
        }
        Outcome::AuthRequired { sign_ins, then, .. } => {
            let mut seen = std::collections::HashSet::new();
            for (i, s) in sign_ins.iter().enumerate() {
                if !seen.insert(&s.connector) {
                    return Err((
                        format!("{outcome_at}/sign_ins/{i}/connector"),
                        format!("connector `{}` is listed twice", s.connector),
                    ));
                }
            }
            check_segment(then, &format!("{outcome_at}/then"))?;
        }
        Outcome::Sleep { then, .. }
        | Outcome::InteractionRequired { then, .. }
        | Outcome::TwoFactorRequired { then, .. }
        | Outcome::InsufficientCredits { then, .. } => {
            check_segment(then, &format!("{outcome_at}/then"))?;
        }
        Outcome::Waiting { then, .. } => {
            if let Some(then) = then {
                check_segment(then, &format!("{outcome_at}/then"))?;
            }
        }
        Outcome::Complete { .. } | Outcome::Error { .. } => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_compiles() {
        assert!(
            SCHEMA_VALIDATOR.is_some(),
            "fixtures/scenario.schema.json must compile"
        );
    }

    #[test]
    fn the_embedded_catalog_loads() {
        let catalog = Catalog::load(&[], None).expect("embedded catalog is valid");
        assert!(catalog.get("timeout-then-complete").is_some());
    }

    #[test]
    fn routing_prefers_hashtag_then_match_then_fallback() {
        let catalog = Catalog::load(&[], Some("complete")).expect("catalog");
        assert_eq!(catalog.route("#sleep check later").scenario.name, "sleep");
        assert_eq!(catalog.route("please (#waiting).").scenario.name, "waiting");
        assert_eq!(catalog.route("hello there").scenario.name, "complete");
        assert_eq!(
            catalog.route("#no-such-scenario hi").scenario.name,
            "complete"
        );
    }

    #[test]
    fn a_bad_file_is_refused_with_its_pointer() {
        let text = r#"{"name":"x","description":"d","turns":[{"steps":[{"title":"t","duration":"soon"}],"outcome":{"event":"complete","text":"ok"}}]}"#;
        let error = parse(Path::new("bad.json"), text).expect_err("invalid duration");
        let shown = error.to_string();
        assert!(
            shown.starts_with("bad.json: at /turns/0/steps/0/duration"),
            "{shown}"
        );
    }

    #[test]
    fn an_unknown_event_names_the_choices() {
        let text = r#"{"name":"x","description":"d","turns":[{"outcome":{"event":"finished","text":"ok"}}]}"#;
        let shown = parse(Path::new("bad.json"), text)
            .expect_err("unknown event")
            .to_string();
        assert!(shown.contains("/turns/0/outcome"), "{shown}");
        assert!(shown.contains("unknown variant `finished`"), "{shown}");
    }

    #[test]
    fn a_mismatched_checkpoint_is_refused() {
        let text = r#"{"name":"x","description":"d","turns":[{"outcome":{"event":"ask_user_question","text":"?","interactions":[{"kind":"confirm","action":"send"}],"then":{"outcome":{"event":"complete","text":"ok"}}}}]}"#;
        let shown = parse(Path::new("bad.json"), text)
            .expect_err("mismatch")
            .to_string();
        assert!(shown.contains("/turns/0/outcome/interactions/0"), "{shown}");
    }
}
