//! The rule registry and the observations every check reads.
//!
//! A rule has a stable id, a level (MUST fails, SHOULD warns), the document passage it comes
//! from (quoted), the scenarios that exercise it, and a check over the mock's journal and the user
//! channel's log. Checks run after the target has finished, on a [`Transcript`], so they are pure
//! functions of recorded data. A check that expected an observation and saw none reports
//! [`Outcome::Unobserved`], which counts as a failure, never as a pass.

mod account;
mod agent;
mod agent_approvals;
mod agent_connectors;
mod agent_faults;
mod agent_observe;
mod answers;
mod approval_policy;
mod auth;
mod credits;
mod diagnosis;
mod documents;
mod elicitation;
mod follow_through;
pub mod ids;
mod interactive;
mod limits;
mod oauth;
mod outcomes;
mod retries;
mod rule;
mod sonar;
mod tasks;
mod thread;
mod transport;
mod wire;

use crate::check::{Advice, Check};
pub use crate::check::{DocRef, Level, Outcome};
pub use crate::suite::{ELICITATION, HANDSHAKE, TASKS};
pub use crate::transcript::{Rpc, ToolCall, Transcript, UserRecord};
pub use diagnosis::timed_out_polling;
pub use rule::Rule;

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
    // Agent API duties (issue 10).
    rules.extend(agent_approvals::rules());
    rules.extend(agent_connectors::rules());
    // Outcomes only the user can act on (issue 10, duties).
    rules.extend(outcomes::rules());
    rules.extend(approval_policy::rules());
    rules.extend(oauth::rules());
    // Computer duties: following a request through, answers and choices (issue 10).
    rules.extend(follow_through::rules());
    rules.extend(answers::rules());
    rules.extend(limits::rules());
    // Sonar: chat completions (issue 25).
    rules.extend(sonar::rules());
    // Transport faults on the Agent API: retries and unfinished streams (issue 26).
    rules.extend(agent_faults::rules());
    // Transport faults on the MCP endpoint: forgotten sessions, dropped streams (issue 26).
    rules.extend(transport::rules());
    rules
}

/// Every applicable rule's check over a transcript; a failure the suite recognises the cause
/// of (a client in the wrong era, one that sent no token) says so, with the fix.
pub fn judge(transcript: &Transcript) -> Vec<Check> {
    let cause = diagnosis::cause(transcript);
    registry()
        .into_iter()
        .filter(|r| r.applies_to(&transcript.scenario))
        .map(|rule| {
            let outcome = (rule.check)(transcript);
            let failing = matches!(outcome, Outcome::Violated { .. } | Outcome::Unobserved(_));
            let advice = Advice {
                expected: rule.summary.to_owned(),
                cause: cause.clone().filter(|_| failing),
            };
            Check::judged(rule.id, rule.level, rule.doc, &advice, outcome, transcript)
        })
        .collect()
}

/// The rule with this id.
pub fn find(id: &str) -> Option<Rule> {
    registry().into_iter().find(|r| r.id == id)
}

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

    #[test]
    fn every_id_constant_is_a_registered_rule_in_registry_order() {
        let registered: Vec<&str> = registry().iter().map(|r| r.id).collect();
        assert_eq!(registered, ids::ALL);
    }
}
