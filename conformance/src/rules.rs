//! The rule registry and the observations every check reads.
//!
//! A rule has a stable id, a level (MUST fails, SHOULD warns), the document passage it comes
//! from (quoted), the scenarios that exercise it, and a check over the mock's journal and the user
//! channel's log. Checks run after the target has finished, on a [`Transcript`], so they are pure
//! functions of recorded data. A check that expected an observation and saw none reports
//! [`Outcome::Unobserved`], which counts as a failure, never as a pass.

mod account;
mod agent;
mod auth;
mod credits;
mod elicitation;
mod interactive;
mod tasks;
mod thread;
mod wire;

use crate::check::Check;
pub use crate::check::{DocRef, Level, Outcome};
use crate::suite::{self, EVERY_COMPUTER, SCENARIOS};
pub use crate::suite::{ELICITATION, HANDSHAKE, TASKS};
pub use crate::transcript::{Rpc, ToolCall, Transcript, UserRecord};
pub(crate) use crate::transcript::{path_of, terminal};

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
    /// [`HANDSHAKE`], [`TASKS`] or [`ELICITATION`].
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

/// Families of rules whose mock features have not landed yet: listed, never passed.
pub const UNAVAILABLE_FAMILIES: &[(&str, &str)] = &[];

/// Every rule, in a stable order.
pub fn registry() -> Vec<Rule> {
    let mut rules = Vec::new();
    rules.extend(wire::rules());
    rules.extend(thread::rules());
    rules.extend(interactive::rules());
    rules.extend(auth::rules());
    rules.extend(credits::rules());
    rules.extend(tasks::rules());
    rules.extend(elicitation::rules());
    rules.extend(account::rules());
    rules.extend(agent::rules());
    rules
}

/// Every applicable rule's check over a transcript.
pub fn judge(transcript: &Transcript) -> Vec<Check> {
    registry()
        .into_iter()
        .filter(|r| r.applies_to(&transcript.scenario))
        .map(|rule| {
            let outcome = (rule.check)(transcript);
            Check::judged(rule.id, rule.level, rule.doc, outcome, transcript)
        })
        .collect()
}

/// The rule with this id.
pub fn find(id: &str) -> Option<Rule> {
    registry().into_iter().find(|r| r.id == id)
}

/// The computer document, for [`DocRef::document`].
pub(crate) const COMPUTER_DOC: &str = "computer-mcp-server.txt";
/// The MCP specification (lifecycle and transport), for [`DocRef::document`].
pub(crate) const MCP_SPEC: &str = "MCP specification 2025-11-25";
/// The MCP specification of the stateless era (MRTR, elicitation), for [`DocRef::document`].
pub(crate) const MCP_SPEC_MODERN: &str = "MCP specification 2026-07-28 (mcp-wire.md)";
/// The Agent API `mcp` tool document (approvals, ZDR), for [`DocRef::document`].
pub(crate) const AGENT_MCP_DOC: &str = "agent-api-mcp-tool.txt";
/// The Agent API Connectors document, for [`DocRef::document`].
pub(crate) const AGENT_CONNECTORS_DOC: &str = "agent-api-connectors.txt";
/// Documented facts gathered in the Agent API wire reference, for [`DocRef::document`].
pub(crate) const AGENT_WIRE_DOC: &str =
    "agent-api-wire.md (a documented fact, not a product document)";
/// The tasks extension (SEP-2663), for [`DocRef::document`].
pub(crate) const TASKS_SPEC: &str = "MCP Tasks extension SEP-2663 (mcp-wire.md)";

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn rule_ids_are_unique_and_every_rule_names_a_scenario() {
        let rules = registry();
        let ids: BTreeSet<&str> = rules.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), rules.len());
        assert!(rules.iter().all(|r| !r.scenarios.is_empty()));
    }
}
