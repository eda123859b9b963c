//! What a rule is: a stable id, a level, the passage it comes from, the scenarios that exercise
//! it, and a pure check over a transcript.

use crate::check::{DocRef, Level, Outcome};
use crate::suite::{self, EVERY_COMPUTER, SCENARIOS};
use crate::transcript::Transcript;

/// One client rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable id, e.g. `computer.thread.reuse`.
    pub id: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// MUST or SHOULD.
    pub level: Level,
    /// The passage it comes from.
    pub doc: DocRef,
    /// Scenarios that exercise it: names, `*` (every scenario of the suite), or a group:
    /// [`HANDSHAKE`](crate::suite::HANDSHAKE), [`TASKS`](crate::suite::TASKS) or [`ELICITATION`](crate::suite::ELICITATION).
    pub scenarios: &'static [&'static str],
    /// The check.
    pub check: fn(&Transcript) -> Outcome,
}

impl Rule {
    /// Whether `scenario` exercises this rule.
    pub fn applies_to(&self, scenario: &str) -> bool {
        let spec = suite::find(scenario);
        self.scenarios.iter().any(|s| {
            // `*` is every scenario of the computer suite: its MCP wire rules say nothing of
            // an Agent API client.
            (*s == EVERY_COMPUTER && spec.is_none_or(|spec| spec.suite == "computer"))
                || *s == scenario
                || spec.is_some_and(|spec| spec.in_group(s))
        })
    }

    /// The suite's scenarios that exercise this rule, in suite order.
    pub fn scenario_names(&self) -> Vec<&'static str> {
        SCENARIOS
            .iter()
            .map(|s| s.name)
            .filter(|s| self.applies_to(s))
            .collect()
    }
}
