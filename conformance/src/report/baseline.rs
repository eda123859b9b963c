//! The expected-failures baseline and the verdict it gives a run: the exit status.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use crate::check::{Check, RunResult, Status};
use crate::error::Error;

/// The expected-failures baseline: one entry per line, `scenario` (any failure in it) or
/// `scenario:rule-id`; `#` starts a comment.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    entries: Vec<String>,
}

impl Baseline {
    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::File {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text).map_err(|(line, message)| Error::Baseline {
            path: path.to_owned(),
            line,
            message,
        })
    }

    /// Parses baseline text; errors carry the 1-based line.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            let line = line.strip_prefix("- ").unwrap_or(line).trim();
            if line.is_empty() {
                continue;
            }
            if line.contains(char::is_whitespace) || line.matches(':').count() > 1 {
                return Err((
                    i + 1,
                    format!("`{line}` is not `scenario` or `scenario:rule-id`"),
                ));
            }
            entries.push(line.to_owned());
        }
        Ok(Self { entries })
    }

    /// Compares a run with the baseline.
    pub fn verdict(&self, run: &RunResult) -> Verdict {
        let failed: Vec<&Check> = run
            .checks()
            .filter(|c| c.status == Status::Failure)
            .collect();
        let covers = |entry: &str, c: &Check| entry == c.id || entry == c.scenario;
        let mut verdict = Verdict::default();
        for c in &failed {
            if self.entries.iter().any(|e| covers(e, c)) {
                verdict.expected_failures.push(c.id.clone());
            } else {
                verdict.unexpected_failures.push(c.id.clone());
            }
        }
        let ran: BTreeSet<&str> = run.scenarios.iter().map(|s| s.name.as_str()).collect();
        for e in &self.entries {
            let scenario = e.split(':').next().unwrap_or_default();
            if ran.contains(scenario) && !failed.iter().any(|c| covers(e, c)) {
                verdict.stale_entries.push(e.clone());
            }
        }
        verdict
    }
}

/// How a run compares with the baseline.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Verdict {
    /// Failures the baseline lists.
    pub expected_failures: Vec<String>,
    /// Failures it does not list.
    pub unexpected_failures: Vec<String>,
    /// Entries that did not fail (now passing): strict in both directions.
    pub stale_entries: Vec<String>,
}

impl Verdict {
    /// Exit status 0 only when nothing failed unexpectedly and no listed failure passes.
    pub fn passed(&self) -> bool {
        self.unexpected_failures.is_empty() && self.stale_entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_lines_are_scenarios_or_checks() {
        let b = Baseline::parse("# comment\nsleep\n- cancel:computer.cancel.confirm\n\n")
            .expect("parses");
        assert_eq!(b.entries, ["sleep", "cancel:computer.cancel.confirm"]);
        assert_eq!(
            Baseline::parse("a: b").map(|_| ()),
            Err((1, "`a: b` is not `scenario` or `scenario:rule-id`".into()))
        );
    }
}
