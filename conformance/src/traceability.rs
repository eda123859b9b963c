//! The traceability table: every duty the product documents give a client, quoted with its
//! document and section, and the rules that judge it, or the reason it cannot be observed.
//!
//! `conformance list --traceability` prints it and `conformance list --format json` carries it
//! (`duties`). The tests below fail when a duty names a rule the registry does not have, when a
//! duty is neither judged nor excluded with a reason, or when a quote runs over 25 words.

mod agent;
mod computer;
mod duty;
mod sonar;

pub use duty::{Coverage, Duty};

use serde_json::{Value, json};

use crate::profile::{ClientProfile, Feature};
use crate::rules;
use crate::suite::{SCENARIOS, ScenarioSpec};

/// Every duty, Computer first, in document order.
pub fn duties() -> Vec<Duty> {
    computer::DUTIES
        .iter()
        .chain(agent::DUTIES)
        .chain(agent::TRANSPORT_DUTIES)
        .chain(sonar::DUTIES)
        .copied()
        .collect()
}

/// How many duties the suite judges, of how many.
pub fn judged() -> (usize, usize) {
    let all = duties();
    let judged = all.iter().filter(|d| !d.rules().is_empty()).count();
    (judged, all.len())
}

/// The duties of `suite`'s documents (`computer`: the Computer document's; `agent`: the Agent
/// API documents').
pub fn duties_of(suite: &str) -> Vec<Duty> {
    duties()
        .into_iter()
        .filter(|d| d.suite() == suite)
        .collect()
}

/// A duty the suite judges, but in no scenario a client's claims let run, and the features
/// those scenarios need.
#[derive(Debug, Clone)]
pub struct Unjudged {
    /// The duty.
    pub duty: Duty,
    /// Features the scenarios that judge it need and the client does not claim.
    pub needs: Vec<Feature>,
}

/// Which of `suites`' judgeable duties (judged by some rule) the scenarios `profile` claims
/// judge: (how many are judged, how many are judgeable, the others with what they need).
pub fn claimed_coverage(suites: &[&str], profile: &ClientProfile) -> (usize, usize, Vec<Unjudged>) {
    let registry = rules::registry();
    let in_scope: Vec<&ScenarioSpec> = SCENARIOS
        .iter()
        .filter(|s| suites.contains(&s.suite))
        .collect();
    let mut judged = 0;
    let mut judgeable = 0;
    let mut unjudged = Vec::new();
    for duty in suites.iter().flat_map(|s| duties_of(s)) {
        let rules: Vec<_> = registry
            .iter()
            .filter(|r| duty.rules().contains(&r.id))
            .collect();
        if rules.is_empty() {
            continue;
        }
        judgeable += 1;
        let scenarios: Vec<&ScenarioSpec> = in_scope
            .iter()
            .copied()
            .filter(|s| rules.iter().any(|r| r.applies_to(s.name)))
            .collect();
        if scenarios.iter().any(|s| profile.missing_for(s).is_empty()) {
            judged += 1;
            continue;
        }
        let mut needs: Vec<Feature> = scenarios
            .iter()
            .flat_map(|s| profile.missing_for(s))
            .collect();
        needs.sort();
        needs.dedup();
        unjudged.push(Unjudged { duty, needs });
    }
    (judged, judgeable, unjudged)
}

/// The table as JSON, for `list --format json` (`duties`).
pub fn duties_json() -> Value {
    Value::Array(
        duties()
            .iter()
            .map(|d| {
                let (status, reason) = match d.coverage {
                    Coverage::Rules(_) => ("judged", None),
                    Coverage::Excluded(why) => ("excluded", Some(why)),
                    Coverage::Gap(why) => ("not-judged", Some(why)),
                };
                json!({
                    "id": d.id,
                    "document": d.document,
                    "section": d.section,
                    "quote": d.quote,
                    "status": status,
                    "rules": d.rules(),
                    "reason": reason,
                })
            })
            .collect(),
    )
}

/// The table as text, for `list --traceability`.
pub fn traceability_text() -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let (judged, total) = judged();
    let _ = writeln!(
        out,
        "Client duties of the documents: {judged} of {total} judged.\n"
    );
    let mut document = "";
    for d in duties() {
        if d.document != document {
            document = d.document;
            let _ = writeln!(out, "{document}");
        }
        let _ = writeln!(out, "  {} § {}", d.id, d.section);
        let _ = writeln!(out, "      \"{}\"", d.quote);
        match d.coverage {
            Coverage::Rules(ids) => {
                let _ = writeln!(out, "      judged by: {}", ids.join(", "));
            }
            Coverage::Excluded(why) => {
                let _ = writeln!(out, "      not observable: {why}");
            }
            Coverage::Gap(why) => {
                let _ = writeln!(out, "      NOT JUDGED YET: {why}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::rules::ids;

    /// Raised as duties get judged; never lowered without saying why.
    const JUDGED_AT_LEAST: usize = 88;

    #[test]
    fn every_duty_names_registered_rules_or_a_reason() {
        let registered: BTreeSet<&str> = rules::registry().iter().map(|r| r.id).collect();
        for d in duties() {
            match d.coverage {
                Coverage::Rules(names) => {
                    assert!(!names.is_empty(), "{} is judged by no rule", d.id);
                    for name in names {
                        assert!(
                            registered.contains(name),
                            "{} names `{name}`, which is not a rule of the registry",
                            d.id
                        );
                    }
                }
                Coverage::Excluded(why) | Coverage::Gap(why) => {
                    assert!(why.split_whitespace().count() >= 5, "{}: say why", d.id);
                }
            }
        }
    }

    #[test]
    fn the_documents_give_63_computer_and_19_agent_api_duties() {
        let all = duties();
        let computer = all.iter().filter(|d| d.id.starts_with('C')).count();
        let agent = all
            .iter()
            .filter(|d| d.id.starts_with('A') && d.document.starts_with("Agent API"))
            .count();
        assert_eq!((computer, agent), (63, 19));
        // An Agent API client's transport duties (HTTP Semantics, the SDK's retries).
        assert_eq!(agent::TRANSPORT_DUTIES.len(), 4);
        let sonar = all.iter().filter(|d| d.id.starts_with('S')).count();
        assert_eq!(sonar, 5);
        let ids: BTreeSet<&str> = all.iter().map(|d| d.id).collect();
        assert_eq!(ids.len(), all.len(), "duty ids repeat");
    }

    #[test]
    fn quotes_are_short_and_cite_public_titles() {
        for d in duties() {
            // Table cell separators and elisions are not words of the document.
            let words = d
                .quote
                .split_whitespace()
                .filter(|w| *w != "|" && *w != "[...]")
                .count();
            assert!(words <= 25, "{}: the quote has {words} words", d.id);
            assert!(!d.quote.trim().is_empty() && !d.section.trim().is_empty());
            assert!(
                !d.document.contains(".txt") && !d.document.contains(".md"),
                "{}: cite the document by its title, not {}",
                d.id,
                d.document
            );
        }
    }

    #[test]
    fn the_suite_judges_at_least_the_stated_number_of_duties() {
        let (judged, _) = judged();
        assert!(judged >= JUDGED_AT_LEAST, "only {judged} duties judged");
    }

    #[test]
    fn every_rule_of_the_registry_traces_to_a_duty_or_a_protocol_rule() {
        // Rules from the MCP specifications judge the wire, not a product document's duty.
        let wire = [
            ids::MCP_LIFECYCLE_INITIALIZED,
            ids::MCP_TRANSPORT_PROTOCOL_VERSION_HEADER,
            ids::MCP_TRANSPORT_SESSION_ID,
            ids::MCP_TRANSPORT_SESSION_NOT_FOUND_REINITIALIZE,
            ids::MCP_TRANSPORT_RESUME_DROPPED_STREAM,
            ids::TASKS_MCP_NAME,
            ids::ELICITATION_MRTR_REQUEST_STATE,
            ids::AGENT_BACKGROUND_POLL,
            ids::AGENT_CANCEL_CONFIRM,
            ids::AGENT_STREAM_RESUME,
            ids::AGENT_STREAM_UNFINISHED_RESUME,
            // The MCP authorization specification's duties (the sign-in scenarios).
            ids::OAUTH_PKCE_S256,
            ids::OAUTH_RESOURCE_PARAMETER,
            ids::OAUTH_TOKEN_AUDIENCE,
            ids::OAUTH_REFRESH_NEWEST,
            ids::OAUTH_NO_TOKEN_IN_QUERY,
            ids::OAUTH_BEARER_EVERY_REQUEST,
        ];
        let traced: BTreeSet<&str> = duties().iter().flat_map(|d| d.rules()).copied().collect();
        for rule in rules::registry() {
            assert!(
                traced.contains(rule.id) || wire.contains(&rule.id),
                "{} judges no duty of the table",
                rule.id
            );
        }
    }

    #[test]
    fn a_tools_only_client_leaves_the_tasks_elicitation_and_upload_duties_unjudged() {
        let everything = claimed_coverage(&["computer", "agent"], &ClientProfile::everything());
        assert_eq!(everything.0, everything.1);
        assert!(everything.2.is_empty());
        let (judged, judgeable, unjudged) =
            claimed_coverage(&["computer"], &ClientProfile::claiming([]));
        assert_eq!(judged + unjudged.len(), judgeable);
        assert!(judged > 0 && !unjudged.is_empty());
        let needs: BTreeSet<Feature> = unjudged.iter().flat_map(|u| u.needs.clone()).collect();
        // The sign-in rules judge the MCP specification's Authorization section, which is not a
        // product document's duty: leaving out `oauth` leaves no duty of the table unjudged.
        assert_eq!(
            needs,
            [Feature::Tasks, Feature::Elicitation, Feature::Uploads].into()
        );
        // The thread rules run in the tools flow: a tools-only client is judged on them.
        assert!(!unjudged.iter().any(|u| u.duty.id == "C01"));
        assert!(unjudged.iter().all(|u| u.duty.suite() == "computer"));
        // Every computer feature claimed: nothing of the Computer document is left unjudged.
        let computer = ClientProfile::claiming([
            Feature::Tasks,
            Feature::Elicitation,
            Feature::OAuth,
            Feature::Uploads,
        ]);
        assert!(claimed_coverage(&["computer"], &computer).2.is_empty());
    }

    #[test]
    fn the_json_and_text_forms_list_every_duty() {
        let json = duties_json();
        assert_eq!(json.as_array().map(Vec::len), Some(duties().len()));
        let text = traceability_text();
        for d in duties() {
            assert!(text.contains(d.id), "{} missing from the text", d.id);
        }
    }
}
