//! The vocabulary the runner and the reports share: what a rule concluded ([`Outcome`]), the
//! verdict it becomes ([`Status`], by the rule's [`Level`]), the [`Check`] record, and the
//! results of a run ([`ScenarioResult`], [`RunResult`]).
//!
//! The runner produces these and the reports only read them (nextest's `reporter/events.rs`
//! plays the same part there), so neither depends on the other.

use serde::{Deserialize, Serialize};

use crate::transcript::{Transcript, describe_exchange};

/// MUST rules fail; SHOULD rules warn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    /// A violation is a FAILURE.
    Must,
    /// A violation is a WARNING.
    Should,
}

impl Level {
    /// `MUST` or `SHOULD`, as the reports write it.
    pub fn word(self) -> &'static str {
        match self {
            Self::Must => "MUST",
            Self::Should => "SHOULD",
        }
    }
}

impl<'de> Deserialize<'de> for Level {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "MUST" => Ok(Level::Must),
            "SHOULD" => Ok(Level::Should),
            other => Err(serde::de::Error::custom(format!("unknown level {other}"))),
        }
    }
}

/// Where a rule comes from.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct DocRef {
    /// The document.
    pub document: &'static str,
    /// Its section.
    pub section: &'static str,
    /// The passage, quoted word for word.
    pub quote: &'static str,
}

/// What a check concluded.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The rule held; the text says what was observed.
    Pass(String),
    /// The rule was broken, at these journal sequence numbers.
    Violated {
        /// What went wrong, in a sentence.
        message: String,
        /// Journal sequence numbers of the offending exchanges.
        evidence: Vec<usize>,
    },
    /// The observation the rule needs never happened (a failure, never a silent pass).
    Unobserved(String),
    /// The rule's trigger never came about because of an earlier mistake another rule reports
    /// (a file the client lost with its thread cannot be downloaded again): not judged, never
    /// a pass. The text names that rule.
    NotReached(String),
}

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Status {
    /// The rule held.
    Success,
    /// A MUST rule was broken, or its observation never happened.
    Failure,
    /// A SHOULD rule was broken.
    Warning,
    /// Not checked.
    Skipped,
    /// Information only.
    Info,
}

impl Status {
    /// `SUCCESS`, `FAILURE`, `WARNING`, `SKIPPED` or `INFO`, as the reports write it.
    pub fn word(self) -> &'static str {
        match self {
            Self::Success => "SUCCESS",
            Self::Failure => "FAILURE",
            Self::Warning => "WARNING",
            Self::Skipped => "SKIPPED",
            Self::Info => "INFO",
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.word())
    }
}

/// The outcome as a check status for a rule of `level`.
pub fn status_of(level: Level, outcome: &Outcome) -> Status {
    match (outcome, level) {
        (Outcome::Pass(_), _) => Status::Success,
        // Even a SHOULD rule fails when what it needed to see never happened.
        (Outcome::Unobserved(_), _) => Status::Failure,
        (Outcome::NotReached(_), _) => Status::Skipped,
        (_, Level::Must) => Status::Failure,
        (_, Level::Should) => Status::Warning,
    }
}

/// The document passage a check comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Doc {
    /// The document.
    pub document: String,
    /// Its section.
    pub section: String,
    /// The passage, quoted.
    pub quote: String,
}

impl From<DocRef> for Doc {
    fn from(doc: DocRef) -> Self {
        Self {
            document: doc.document.to_owned(),
            section: doc.section.to_owned(),
            quote: doc.quote.to_owned(),
        }
    }
}

/// An exchange a check points at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// Journal sequence number.
    pub seq: usize,
    /// What it was.
    pub exchange: String,
}

/// One check: a rule judged in one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// `scenario:rule`.
    pub id: String,
    /// The rule id.
    pub rule: String,
    /// MUST or SHOULD.
    pub level: Level,
    /// The verdict.
    pub status: Status,
    /// The scenario.
    pub scenario: String,
    /// Where the rule comes from.
    pub doc: Doc,
    /// What was observed, in a sentence.
    pub details: String,
    /// The offending exchanges.
    pub evidence: Vec<Evidence>,
}

/// How many offending exchanges a check lists; the details say how many there were.
pub const EVIDENCE_SHOWN: usize = 3;

/// What a failing check tells the client's author beyond what the rule saw: the duty (the
/// rule's summary) and, when the suite recognised why the client failed, the cause in the
/// client's terms and its fix.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Advice {
    /// What the client was expected to do (the rule's summary).
    pub expected: String,
    /// Why the client failed, when a diagnosis recognised it.
    pub cause: Option<Cause>,
}

/// A recognised reason for failures: a client in the wrong protocol era, one that sent no
/// token, one that sent a dev token where it had to sign in, ...
#[derive(Debug, Clone, PartialEq)]
pub struct Cause {
    /// What the client did, in its own terms (the era it negotiated, the token it sent).
    pub text: String,
    /// What to change, in a sentence.
    pub fix: String,
    /// The exchanges that show it.
    pub evidence: Vec<usize>,
}

impl Advice {
    /// Advice that names the duty only.
    pub fn expecting(expected: &str) -> Self {
        Self {
            expected: expected.to_owned(),
            cause: None,
        }
    }

    /// The one line a failure is: what happened, its cause, what was expected, the fix.
    fn line(&self, what: &str, evidence: usize) -> String {
        let mut line = what.trim_end_matches('.').to_owned();
        if evidence > EVIDENCE_SHOWN {
            line.push_str(&format!(
                " ({evidence} exchanges, the first {EVIDENCE_SHOWN} below)"
            ));
        }
        if let Some(cause) = &self.cause {
            line.push_str(&format!(": {}", cause.text.trim_end_matches('.')));
        }
        if !self.expected.is_empty() {
            line.push_str(&format!(
                ". Expected: {}",
                self.expected.trim_end_matches('.')
            ));
        }
        if let Some(cause) = &self.cause {
            line.push_str(&format!(". Fix: {}", cause.fix.trim_end_matches('.')));
        }
        line.push('.');
        line
    }
}

impl Check {
    /// The check of rule `rule` (of `level`, from `doc`) in `t`'s scenario, from its outcome;
    /// a failure's details are one line (what happened, its cause, what was expected, the fix)
    /// and its evidence, described from the transcript, at most [`EVIDENCE_SHOWN`] exchanges.
    pub fn judged(
        rule: &str,
        level: Level,
        doc: DocRef,
        advice: &Advice,
        outcome: Outcome,
        t: &Transcript,
    ) -> Self {
        let status = status_of(level, &outcome);
        let cause_evidence = || {
            advice
                .cause
                .as_ref()
                .map(|c| c.evidence.clone())
                .unwrap_or_default()
        };
        let (details, seqs) = match outcome {
            Outcome::Pass(d) => (d, Vec::new()),
            Outcome::Unobserved(d) => {
                let seqs = cause_evidence();
                (advice.line(&format!("not observed: {d}"), seqs.len()), seqs)
            }
            Outcome::NotReached(d) => (format!("not judged: {d}"), Vec::new()),
            Outcome::Violated {
                message,
                mut evidence,
            } => {
                for seq in cause_evidence() {
                    if !evidence.contains(&seq) {
                        evidence.push(seq);
                    }
                }
                (advice.line(&message, evidence.len()), evidence)
            }
        };
        let evidence = seqs
            .into_iter()
            .take(EVIDENCE_SHOWN)
            .map(|seq| Evidence {
                seq,
                exchange: describe_exchange(t, seq),
            })
            .collect();
        Self {
            id: format!("{}:{rule}", t.scenario),
            rule: rule.to_owned(),
            level,
            status,
            scenario: t.scenario.clone(),
            doc: doc.into(),
            details,
            evidence,
        }
    }
}

/// How the target process ended.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TargetOutcome {
    /// Exit code, when it exited on its own.
    pub exit_code: Option<i32>,
    /// Whether it was killed at the timeout.
    pub timed_out: bool,
    /// Why it could not be started, if it could not.
    pub spawn_error: Option<String>,
    /// Bytes it wrote to stdout.
    pub stdout_bytes: usize,
    /// Bytes it wrote to stderr.
    pub stderr_bytes: usize,
    /// The first lines of its stderr, when it wrote more than the tail shows (empty otherwise).
    #[serde(default)]
    pub stderr_head: String,
    /// The end of its stderr (all of it when short).
    pub stderr_tail: String,
}

impl TargetOutcome {
    /// Whether the command never ran as a client: `sh` could not start, or it answered that the
    /// command was not found (127) or not executable (126).
    pub fn could_not_run(&self) -> bool {
        self.spawn_error.is_some() || matches!(self.exit_code, Some(126 | 127))
    }

    /// Why it did not run, in the shell's words when it said any.
    pub fn why_not_run(&self) -> String {
        if let Some(e) = &self.spawn_error {
            return e.clone();
        }
        // `sh -c 'cmd "$0"' URL` names itself after $0: "URL: 1: cmd: not found".
        let last = self.stderr_tail.lines().last().unwrap_or_default().trim();
        let said = match last.splitn(3, ": ").collect::<Vec<_>>()[..] {
            [_, line, rest] if line.chars().all(|c| c.is_ascii_digit()) => rest,
            _ => last,
        };
        match (self.exit_code, said.is_empty()) {
            (Some(127), true) => "the command was not found (exit status 127)".to_owned(),
            (Some(126), true) => "the command is not executable (exit status 126)".to_owned(),
            (Some(code), false) => format!("exit status {code}: {said}"),
            _ => "it did not run".to_owned(),
        }
    }
}

/// One scenario's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// Scenario name.
    pub name: String,
    /// Real time it took, in milliseconds.
    pub duration_ms: u64,
    /// How the target ended.
    pub target: TargetOutcome,
    /// The checks.
    pub checks: Vec<Check>,
}

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    /// The target command.
    pub target: String,
    /// The suite.
    pub suite: String,
    /// Real time the run took, in milliseconds.
    pub duration_ms: u64,
    /// Per scenario, in suite order.
    pub scenarios: Vec<ScenarioResult>,
    /// What the client claimed, what that left out, and the duties it leaves unjudged.
    #[serde(default)]
    pub claims: Claims,
}

/// What the client claimed (`--client-supports`) and what the claims left out.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Claims {
    /// The features claimed; `None` when the client said nothing (every scenario runs).
    pub supports: Option<Vec<String>>,
    /// Scenarios selected but not run, because they need a feature not claimed.
    pub left_out: Vec<LeftOut>,
    /// Duties of the run's suites that a scenario the claims let run judges.
    pub duties_judged: usize,
    /// Duties of the run's suites that the suite judges at all.
    pub duties_judgeable: usize,
    /// The judgeable duties that only left-out scenarios judge (`--strict-coverage` fails on
    /// them).
    pub unjudged: Vec<UnjudgedDuty>,
}

/// A scenario left out, and the features it needs that the client does not claim.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LeftOut {
    /// The scenario.
    pub scenario: String,
    /// The features it needs, not claimed.
    pub needs: Vec<String>,
}

/// A documented duty no scenario the client claims judges.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct UnjudgedDuty {
    /// The duty's id (`C41`).
    pub id: String,
    /// Its document.
    pub document: String,
    /// Its section.
    pub section: String,
    /// The features its scenarios need, not claimed.
    pub needs: Vec<String>,
}

/// Counts of check statuses.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    /// Scenarios run.
    pub scenarios: usize,
    /// Checks made.
    pub checks: usize,
    /// SUCCESS checks.
    pub success: usize,
    /// FAILURE checks.
    pub failure: usize,
    /// WARNING checks.
    pub warning: usize,
    /// SKIPPED checks.
    pub skipped: usize,
    /// INFO checks.
    pub info: usize,
}

impl RunResult {
    /// Every check, in order.
    pub fn checks(&self) -> impl Iterator<Item = &Check> {
        self.scenarios.iter().flat_map(|s| s.checks.iter())
    }

    /// Status counts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            scenarios: self.scenarios.len(),
            ..Summary::default()
        };
        for c in self.checks() {
            s.checks += 1;
            match c.status {
                Status::Success => s.success += 1,
                Status::Failure => s.failure += 1,
                Status::Warning => s.warning += 1,
                Status::Skipped => s.skipped += 1,
                Status::Info => s.info += 1,
            }
        }
        s
    }
}

/// What a run reports while it goes.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// A scenario's stage is starting (its mock, then its target).
    Started {
        /// The scenario.
        scenario: &'a str,
        /// How many scenarios the run has.
        total: usize,
    },
    /// A scenario finished and was judged.
    Finished {
        /// How many have finished, this one included.
        done: usize,
        /// How many scenarios the run has.
        total: usize,
        /// Its result.
        result: &'a ScenarioResult,
    },
}
