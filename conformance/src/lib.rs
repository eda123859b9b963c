//! Drives any Perplexity Computer MCP client through scripted scenarios and judges it, rule by
//! rule, against the follow-up rules of the Computer MCP document.
//!
//! The pieces, one module per concern (imports point down this list):
//! - [`judge`]: the checks as a library, for a Rust client's own tests (start there);
//! - [`runner`]: per scenario, a fresh in-process mock, the user channel, and the target process;
//! - [`report`]: pretty, JSON, JUnit, Markdown and GitHub output, and the expected-failures
//!   baseline;
//! - [`rules`]: the rule registry (one file per family, ids in [`rules::ids`]);
//! - [`check`]: what the runner produces and the reports read (outcomes, checks, results);
//! - [`transcript`]: the observations the rules read, built from a journal;
//! - [`suite`]: the scenarios and the groups rules name;
//! - [`reference_client`]: the client that follows every rule and can break any one on purpose.
//!
//! Running the whole suite from Rust, as the `conformance` command does:
//!
//! ```no_run
//! # async fn demo() -> Result<(), conformance::Error> {
//! // Arrange: the whole computer suite against the reference client.
//! let options = conformance::runner::RunOptions::new("conformance reference-client");
//! // Act
//! let run = conformance::runner::run_suite(&options).await?;
//! // Assert: no check failed.
//! assert_eq!(run.summary().failure, 0);
//! # Ok(()) }
//! ```

pub mod check;
pub mod error;
pub mod judge;
pub mod reference_client;
pub mod report;
pub mod rules;
pub mod runner;
pub mod suite;
pub mod traceability;
pub mod transcript;

pub use error::Error;
pub use judge::{Judgement, judge, judge_transcript};
