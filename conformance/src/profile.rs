//! What a client claims to support (`--client-supports`, `--client-profile`): the optional
//! features a scenario may need, so a client that implements the tools flow alone is judged on
//! the scenarios it claims and told which it left out and why.
//!
//! Every client is judged on the handshake-era tools flow; the features are what some
//! scenarios need beyond it:
//!
//! | feature | the scenarios that need it |
//! |---|---|
//! | `tasks` | the MCP Tasks scenarios (2026-07-28, flow `tasks`) |
//! | `elicitation` | the in-call elicitation scenarios (2026-07-28, flow `elicitation`) |
//! | `oauth` | the sign-in scenarios (only the MCP URL, OAuth with the person) |
//! | `uploads` | the scenarios whose user attaches files |
//! | `agent` | the Agent API suite |
//!
//! A profile file holds the same names, separated by commas, spaces or lines; `#` starts a
//! comment; an empty file claims none.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::error::Error;
use crate::suite::{Flow, ScenarioSpec, SignIn};

/// An optional feature a client may claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Feature {
    /// MCP Tasks (`io.modelcontextprotocol/tasks`, 2026-07-28).
    Tasks,
    /// In-call elicitation (MRTR, 2026-07-28).
    Elicitation,
    /// Signing in with OAuth from only the MCP URL.
    OAuth,
    /// Attaching files (`create_attachment_upload` and the presigned POST).
    Uploads,
    /// The Agent API (`--suite agent`).
    Agent,
}

impl Feature {
    /// Every feature, in the order reports list them.
    pub const ALL: [Feature; 5] = [
        Feature::Tasks,
        Feature::Elicitation,
        Feature::OAuth,
        Feature::Uploads,
        Feature::Agent,
    ];

    /// The name `--client-supports` takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tasks => "tasks",
            Self::Elicitation => "elicitation",
            Self::OAuth => "oauth",
            Self::Uploads => "uploads",
            Self::Agent => "agent",
        }
    }

    /// The features `spec` needs beyond the tools flow.
    pub fn needed_by(spec: &ScenarioSpec) -> Vec<Feature> {
        let mut needs = Vec::new();
        if spec.suite == "agent" {
            needs.push(Self::Agent);
        }
        match spec.flow {
            Flow::Tasks => needs.push(Self::Tasks),
            Flow::Elicitation => needs.push(Self::Elicitation),
            Flow::Tools => {}
        }
        if spec.sign_in == SignIn::OAuth {
            needs.push(Self::OAuth);
        }
        if spec.turns.contains("\"attachments\"") {
            needs.push(Self::Uploads);
        }
        needs
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Feature {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                Error::usage(format!(
                    "unknown feature `{name}`; a client can claim {} (or none, or all)",
                    names(&Self::ALL)
                ))
            })
    }
}

/// Feature names joined with commas.
pub fn names(features: &[Feature]) -> String {
    features
        .iter()
        .map(|f| f.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a client claims: every feature (the default, when it says nothing), or a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientProfile {
    claimed: Option<BTreeSet<Feature>>,
}

impl Default for ClientProfile {
    fn default() -> Self {
        Self::everything()
    }
}

impl ClientProfile {
    /// A client that claims every feature: every scenario runs.
    pub fn everything() -> Self {
        Self { claimed: None }
    }

    /// A client that claims exactly `features`.
    pub fn claiming(features: impl IntoIterator<Item = Feature>) -> Self {
        Self {
            claimed: Some(features.into_iter().collect()),
        }
    }

    /// `--client-supports`: names separated by commas or spaces, or `none`, or `all`.
    pub fn parse(list: &str) -> Result<Self, Error> {
        let words: Vec<&str> = list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .collect();
        match words[..] {
            ["all"] => return Ok(Self::everything()),
            ["none"] | [] => return Ok(Self::claiming([])),
            _ => {}
        }
        let features = words
            .into_iter()
            .map(str::parse)
            .collect::<Result<BTreeSet<Feature>, Error>>()?;
        Ok(Self::claiming(features))
    }

    /// A profile file (`--client-profile`): the same names, `#` comments allowed.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Input {
            path: path.to_owned(),
            source,
        })?;
        let list: Vec<&str> = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or_default())
            .collect();
        Self::parse(&list.join(" ")).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
    }

    /// Whether the client said what it supports (`false`: every scenario runs).
    pub fn is_restricted(&self) -> bool {
        self.claimed.is_some()
    }

    /// The features claimed, in report order.
    pub fn features(&self) -> Vec<Feature> {
        Feature::ALL
            .into_iter()
            .filter(|f| self.claims(*f))
            .collect()
    }

    /// Whether the client claims `feature`.
    pub fn claims(&self, feature: Feature) -> bool {
        self.claimed.as_ref().is_none_or(|c| c.contains(&feature))
    }

    /// The features `spec` needs that the client does not claim (empty: it runs).
    pub fn missing_for(&self, spec: &ScenarioSpec) -> Vec<Feature> {
        Feature::needed_by(spec)
            .into_iter()
            .filter(|f| !self.claims(*f))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite;

    fn needs(name: &str) -> Vec<Feature> {
        Feature::needed_by(suite::find(name).expect("a scenario"))
    }

    #[test]
    fn each_scenario_needs_the_features_its_flow_sign_in_and_turns_use() {
        assert_eq!(needs("follow-up"), []);
        assert_eq!(needs("task-question"), [Feature::Tasks]);
        assert_eq!(needs("elicitation-sign-in"), [Feature::Elicitation]);
        assert_eq!(needs("sign-in-refresh"), [Feature::OAuth]);
        assert_eq!(needs("attachment-over-limit"), [Feature::Uploads]);
        assert_eq!(needs("agent-cancel"), [Feature::Agent]);
    }

    #[test]
    fn a_list_names_features_or_none_or_all_and_refuses_anything_else() {
        let profile = ClientProfile::parse("tasks, oauth").expect("parses");
        assert_eq!(profile.features(), [Feature::Tasks, Feature::OAuth]);
        assert!(profile.is_restricted());
        assert_eq!(
            ClientProfile::parse("none").map(|p| p.features()).ok(),
            Some(vec![])
        );
        assert!(!ClientProfile::parse("all").expect("all").is_restricted());
        let refused = ClientProfile::parse("tasks,task").expect_err("refused");
        assert_eq!(
            refused.to_string(),
            "unknown feature `task`; a client can claim tasks, elicitation, oauth, uploads, agent \
             (or none, or all)"
        );
    }

    #[test]
    fn a_scenario_is_left_out_for_exactly_the_features_not_claimed() {
        let tools_only = ClientProfile::claiming([]);
        let spec = suite::find("task-question").expect("a scenario");
        assert_eq!(tools_only.missing_for(spec), [Feature::Tasks]);
        assert_eq!(
            ClientProfile::claiming([Feature::Tasks]).missing_for(spec),
            []
        );
        assert_eq!(ClientProfile::everything().missing_for(spec), []);
    }
}
