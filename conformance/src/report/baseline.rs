//! The expected-failures baseline and the verdict it gives a run: the exit status.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use crate::check::{Check, Claims, RunResult, Status};
use crate::error::Error;
use crate::rules::{self, ids::TARGET_EXIT};
use crate::suite;

/// The expected-failures baseline: one entry per line, `scenario` (any failure in it) or
/// `scenario:rule-id`; `#` starts a comment, and a YAML list's `- ` is allowed. Every entry names
/// a scenario of the suite and a rule judged in it.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    entries: Vec<String>,
}

impl Baseline {
    /// Reads and validates a baseline file.
    pub fn load(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Input {
            path: path.to_owned(),
            source,
        })?;
        Self::parse(&text).map_err(|(line, message)| Error::Baseline {
            path: path.to_owned(),
            line,
            message,
        })
    }

    /// Parses and validates baseline text; errors carry the 1-based line.
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
            validate(line).map_err(|message| (i + 1, message))?;
            entries.push(line.to_owned());
        }
        Ok(Self { entries })
    }

    /// The entries, in file order.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Compares a run with the baseline; warnings pass (the runner without `--strict`).
    pub fn verdict(&self, run: &RunResult) -> Verdict {
        self.verdict_with(run, false)
    }

    /// Compares a run with the baseline; with `strict`, a warning fails like a failure (and a
    /// baseline entry may expect it).
    pub fn verdict_with(&self, run: &RunResult, strict: bool) -> Verdict {
        let fails =
            |c: &Check| c.status == Status::Failure || (strict && c.status == Status::Warning);
        let failed: Vec<&Check> = run.checks().filter(|c| fails(c)).collect();
        let covers = |entry: &str, c: &Check| entry == c.id || entry == c.scenario;
        let mut verdict = Verdict {
            strict,
            ..Verdict::default()
        };
        for c in &failed {
            match self.entries.iter().find(|e| covers(e, c)) {
                Some(entry) => {
                    verdict.expected_failures.push(c.id.clone());
                    verdict.covered_by.insert(c.id.clone(), entry.clone());
                }
                None => verdict.unexpected_failures.push(c.id.clone()),
            }
        }
        let ran: BTreeSet<&str> = run.scenarios.iter().map(|s| s.name.as_str()).collect();
        for e in &self.entries {
            let scenario = e.split(':').next().unwrap_or_default();
            if !ran.contains(scenario) {
                verdict.not_run.push(e.clone());
            } else if !failed.iter().any(|c| covers(e, c)) {
                verdict.stale_entries.push(e.clone());
            }
        }
        verdict
    }

    /// The baseline that accepts `verdict`'s run as it is: every check that failed (expected or
    /// not) as `scenario:rule-id`, plus this baseline's entries for scenarios that did not run
    /// (so a shard or a `--scenario` run does not drop them).
    pub fn accepting(&self, verdict: &Verdict) -> Self {
        let mut entries: Vec<String> = verdict
            .unexpected_failures
            .iter()
            .chain(&verdict.expected_failures)
            .cloned()
            .collect();
        entries.extend(verdict.not_run.iter().cloned());
        entries.sort();
        entries.dedup();
        Self { entries }
    }

    /// The baseline as a file [`Baseline::parse`] reads back.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# Expected failures, written by `conformance --write-expected-failures`.\n\
             # One `scenario:rule-id` per line; pass this file with --expected-failures.\n",
        );
        for e in &self.entries {
            out.push_str(e);
            out.push('\n');
        }
        out
    }
}

/// Refuses an entry that names no scenario of the suite, no rule, or a rule its scenario does
/// not judge (such an entry could only ever be reported stale, hiding the typo).
fn validate(entry: &str) -> Result<(), String> {
    let (scenario, rule) = match entry.split_once(':') {
        Some((scenario, rule)) => (scenario, Some(rule)),
        None => (entry, None),
    };
    if suite::find(scenario).is_none() {
        return Err(format!(
            "unknown scenario `{scenario}`; `conformance list` shows the available ones"
        ));
    }
    let Some(rule) = rule else { return Ok(()) };
    if rule == TARGET_EXIT {
        return Ok(());
    }
    match rules::find(rule) {
        None => Err(format!(
            "unknown rule `{rule}`; `conformance list` shows the available ones"
        )),
        Some(r) if !r.applies_to(scenario) => Err(format!(
            "rule `{rule}` is not judged in scenario `{scenario}`; it is judged in {}",
            r.scenario_names().join(", ")
        )),
        Some(_) => Ok(()),
    }
}

/// How a run compares with the baseline.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Verdict {
    /// Whether warnings counted as failures (`--strict`).
    pub strict: bool,
    /// Failures the baseline lists.
    pub expected_failures: Vec<String>,
    /// Failures it does not list.
    pub unexpected_failures: Vec<String>,
    /// Entries whose scenario ran and did not fail so (now passing): strict in both directions.
    pub stale_entries: Vec<String>,
    /// Entries whose scenario did not run (not selected, or in another shard): neither stale
    /// nor failing.
    pub not_run: Vec<String>,
    /// Whether duties the claims leave unjudged fail the run (`--strict-coverage`).
    pub strict_coverage: bool,
    /// With `--strict-coverage`: the duties (ids) no claimed scenario judges.
    pub unjudged_duties: Vec<String>,
    /// The entry that expected each expected failure, by check id.
    #[serde(skip)]
    covered_by: BTreeMap<String, String>,
}

impl Verdict {
    /// Exit status 0 only when nothing failed unexpectedly, no listed failure passes, and
    /// (with `--strict-coverage`) the claims leave no duty unjudged.
    pub fn passed(&self) -> bool {
        self.unexpected_failures.is_empty()
            && self.stale_entries.is_empty()
            && self.unjudged_duties.is_empty()
    }

    /// This verdict, failing too when `strict` (`--strict-coverage`) and `claims` leave
    /// documented duties unjudged.
    pub fn with_coverage(mut self, claims: &Claims, strict: bool) -> Self {
        self.strict_coverage = strict;
        if strict {
            self.unjudged_duties = claims.unjudged.iter().map(|d| d.id.clone()).collect();
        }
        self
    }

    /// Whether check `c` fails the run (a failure, or a warning under `--strict`) and no entry
    /// expects it.
    pub fn fails(&self, c: &Check) -> bool {
        self.unexpected_failures.contains(&c.id)
    }

    /// The baseline entry that expected check `check_id` to fail, if one did.
    pub fn expected_by(&self, check_id: &str) -> Option<&str> {
        self.covered_by.get(check_id).map(String::as_str)
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

    #[test]
    fn an_entry_naming_no_scenario_or_rule_of_the_suite_is_refused_by_name() {
        let refused = |text: &str| Baseline::parse(text).map(|_| ()).expect_err("refused");
        assert_eq!(
            refused("follow-up\nfolow-up:computer.thread.reuse\n"),
            (
                2,
                "unknown scenario `folow-up`; `conformance list` shows the available ones".into()
            )
        );
        assert_eq!(
            refused("follow-up:computer.thread.reuse.typo"),
            (
                1,
                "unknown rule `computer.thread.reuse.typo`; `conformance list` shows the available ones"
                    .into()
            )
        );
        let (line, message) = refused("# known\nsleep:computer.thread.reuse");
        assert_eq!(line, 2);
        assert!(
            message.starts_with("rule `computer.thread.reuse` is not judged in scenario `sleep`; it is judged in follow-up"),
            "{message}"
        );
        assert!(Baseline::parse("sleep:target.exit\n").is_ok());
    }
}
