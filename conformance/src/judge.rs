//! The checks as a library: judge a scenario's rules over what a mock recorded, from your own
//! test, and fail it with a message that quotes each broken rule and shows the exchanges that
//! broke it (wiremock-rs's verification messages are the model).
//!
//! Drive your client against a mock playing one of the suite's scenarios, then judge:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use conformance::reference_client::{self, ClientOptions};
//! use conformance::runner::Stage;
//! use conformance::suite;
//!
//! // Arrange: the `follow-up` scenario's mock and its scripted user, on one port.
//! let spec = suite::find("follow-up").expect("a scenario of the suite");
//! let stage = Stage::start(spec, 1000.0).await?;
//!
//! // Act: drive your client at `stage.mcp_url()`; the crate's reference client stands in here.
//! let client = ClientOptions {
//!     url: stage.mcp_url(),
//!     break_rule: None,
//!     user_url: stage.user_url(),
//!     token: Some(suite::BEARER_TOKEN.to_owned()),
//!     protocol_version: suite::PROTOCOL_VERSION.to_owned(),
//!     delay: std::time::Duration::ZERO,
//!     fixed_poll: None,
//! };
//! reference_client::run(client).await?;
//!
//! // Assert: every rule the scenario exercises held (SHOULD rules too).
//! stage.judgement()?.assert_holds();
//! # Ok(()) }
//! ```
//!
//! A mock you started yourself works too ([`judge`] reads its journal); rules that judge the
//! client against the person (a `waiting` thread continued only with a new message, a stop the
//! user asked for, an approval the user gave) read the user channel's log, which only a
//! [`Stage`](crate::runner::Stage) keeps: pass it with [`judge_transcript`].
//!
//! A broken rule fails the test with every failing check, the rule's id, level, document,
//! section and quote, and the offending exchanges, then every request the mock received:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A mock playing `follow-up` that no client ever called.
//! let mock = mock_server::MockServer::builder().scenario("follow-up").start().await?;
//! let judgement = conformance::judge("follow-up", mock.journal())?;
//! assert!(!judgement.passed());
//! let message = judgement.to_string();
//! assert!(message.contains("- computer.thread.reuse (MUST) FAILURE"), "{message}");
//! assert!(message.contains("Perplexity Computer MCP Server, section Conversation Threading"), "{message}");
//! assert!(message.contains("Received requests: none"), "{message}");
//! # Ok(()) }
//! ```

use std::fmt;

use mock_server::Journal;

use crate::check::{Check, Status};
use crate::error::Error;
use crate::rules;
use crate::suite;
use crate::transcript::{Transcript, describe_exchange};

/// How many received requests a failure message lists before it says how many it left out.
const REQUESTS_SHOWN: usize = 60;

/// Judges every rule scenario `scenario` exercises over the exchanges `journal` recorded (with
/// no user-channel log).
pub fn judge(scenario: &str, journal: &Journal) -> Result<Judgement, Error> {
    judge_transcript(Transcript::journal_only(scenario, journal.exchanges()))
}

/// Judges every rule the transcript's scenario exercises over the transcript (a journal and a
/// user-channel log).
pub fn judge_transcript(transcript: Transcript) -> Result<Judgement, Error> {
    if suite::find(&transcript.scenario).is_none() {
        return Err(Error::UnknownScenario {
            name: transcript.scenario,
        });
    }
    let checks = rules::judge(&transcript);
    let requests = transcript
        .exchanges
        .iter()
        .map(|e| describe_exchange(&transcript, e.seq))
        .collect();
    Ok(Judgement {
        scenario: transcript.scenario,
        checks,
        requests,
    })
}

/// The checks of one scenario's rules over one recording.
#[derive(Debug, Clone)]
#[must_use = "a judgement fails nothing until one of its assert_* methods is called"]
pub struct Judgement {
    scenario: String,
    checks: Vec<Check>,
    /// Every exchange, described in a line, for the failure message.
    requests: Vec<String>,
}

impl Judgement {
    /// The scenario judged.
    pub fn scenario(&self) -> &str {
        &self.scenario
    }

    /// Every check, in registry order.
    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    /// The check of one rule (`None` when the scenario does not exercise it).
    pub fn check(&self, rule: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.rule == rule)
    }

    /// Whether no check failed (warnings of SHOULD rules allowed, as the runner's exit status).
    pub fn passed(&self) -> bool {
        !self.checks.iter().any(|c| c.status == Status::Failure)
    }

    /// Panics unless every check succeeded: no MUST rule broken or unobserved, no SHOULD rule
    /// warned. Skipped checks (a rule the recording cannot show, such as what the client showed
    /// its user when no user-channel log was recorded) do not fail it.
    #[track_caller]
    pub fn assert_holds(&self) {
        if self
            .checks
            .iter()
            .any(|c| !matches!(c.status, Status::Success | Status::Skipped))
        {
            panic!("{self}");
        }
    }

    /// Panics if any check failed; SHOULD rules may warn (the runner without `--strict`).
    #[track_caller]
    pub fn assert_no_failures(&self) {
        if !self.passed() {
            panic!("{self}");
        }
    }

    /// Panics unless `rule` was judged in this scenario and held.
    #[track_caller]
    pub fn assert_rule_holds(&self, rule: &str) {
        match self.check(rule) {
            Some(c) if c.status == Status::Success => {}
            Some(_) => panic!("{}", self.message(|c| c.rule == rule)),
            None => panic!(
                "rule `{rule}` is not judged in scenario `{}`; `conformance list` shows the scenarios of each rule",
                self.scenario
            ),
        }
    }

    /// The failure message for the checks `shown` picks among those that did not succeed.
    fn message(&self, shown: impl Fn(&Check) -> bool) -> String {
        use std::fmt::Write as _;
        let bad: Vec<&Check> = self
            .checks
            .iter()
            .filter(|c| c.status != Status::Success && shown(c))
            .collect();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} of {} conformance checks did not pass in scenario `{}`:",
            bad.len(),
            self.checks.len(),
            self.scenario
        );
        for c in &bad {
            let _ = writeln!(out, "\n- {} ({}) {}", c.rule, c.level.word(), c.status);
            let _ = writeln!(out, "    {}", c.details);
            let _ = writeln!(
                out,
                "    {}, section {}:\n      \"{}\"",
                c.doc.document, c.doc.section, c.doc.quote
            );
            if !c.evidence.is_empty() {
                let _ = writeln!(out, "    Offending exchanges:");
                for e in &c.evidence {
                    let _ = writeln!(out, "      {}", e.exchange);
                }
            }
        }
        if self.requests.is_empty() {
            let _ = writeln!(out, "\nReceived requests: none");
        } else {
            let _ = writeln!(out, "\nReceived requests ({}):", self.requests.len());
            for r in self.requests.iter().take(REQUESTS_SHOWN) {
                let _ = writeln!(out, "  {r}");
            }
            if self.requests.len() > REQUESTS_SHOWN {
                let _ = writeln!(
                    out,
                    "  ... and {} more",
                    self.requests.len() - REQUESTS_SHOWN
                );
            }
        }
        out
    }
}

impl fmt::Display for Judgement {
    /// Every check that did not succeed, with its rule quoted and its evidence, then every
    /// received request.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(|_| true))
    }
}
