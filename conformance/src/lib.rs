//! Drives any Perplexity Computer MCP client through scripted scenarios and judges it, rule by
//! rule, against the follow-up rules of the Computer MCP document.
//!
//! The pieces, one module per concern:
//! - [`runner`]: per scenario, a fresh in-process mock, the user channel, and the target process;
//! - [`rules`]: the rule registry (one file per family) and the checks over the journal;
//! - [`report`]: pretty, JSON and JUnit output, and the expected-failures baseline;
//! - [`reference_client`]: the client that follows every rule and can break any one on purpose.
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
pub mod reference_client;
pub mod report;
pub mod rules;
pub mod runner;
pub mod suite;
pub mod transcript;

pub use error::Error;
