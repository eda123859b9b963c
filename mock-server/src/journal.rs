//! The journal: every HTTP exchange the mock served, in order.
//!
//! An exchange is recorded as soon as its request has arrived (with `status` 0), so a test can
//! wait for a call that is still in progress; it gets its status and headers when the response
//! head is ready, and a streamed (SSE) body adds its events as they are sent, so a test or the
//! conformance suite can see what a client received and when, in virtual and real time.
//!
//! The journal is bounded: by default it keeps the newest 10,000 exchanges within 256 MiB and
//! the first 64 KiB of each body (see [`JournalConfig`]); the oldest go first, and how many went
//! is counted ([`JournalStats::dropped`], `GET /_mock/journal`, and [`JournalGap`] for a wait
//! that needed one). It stores bytes as they came and parses them only when read, into the
//! [`Exchange`] view, with every credential replaced by its [`fingerprint`].

mod arrival;
mod capture;
mod endpoint;
mod exchange;
mod file;
mod normalize;
mod outgoing;
mod query;
mod recorder;
pub(crate) mod redact;
mod store;
mod stored;
mod view;

pub use exchange::{Exchange, SseRecord};
pub use normalize::{Normalizer, normalize};
pub use query::{JournalQuery, StatusFilter};
pub use redact::fingerprint;
pub use store::{Journal, JournalConfig, JournalGap, JournalStats, WaitError};

pub(crate) use endpoint::{JOURNAL_PATH, serve};
pub(crate) use outgoing::Outgoing;
pub(crate) use recorder::{Recorded, Recorder, RecordingRules};
pub(crate) use redact::Secrets;
pub(crate) use stored::FaultNote;
