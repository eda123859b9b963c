//! A scenario's faults, applied where the surface knows which scenario a request follows (a
//! continuation's, one chosen by `match` or by default, not only one named `#name`), after
//! the checks the real API makes first (a bad body, a rate limit, credits) and before any
//! work is done: a status answers in the surface's envelope, as the live API words it, and
//! the surface's own records (the Sonar call log) show it.
//!
//! The surface takes the fault; the layer still finishes what it does to the answer (a reset,
//! latency, a stream cut or trickled) and names it in the journal: the surface's request runs
//! inside [`collecting`], which hands the fault over.

use std::cell::RefCell;
use std::future::Future;

use chrono::{DateTime, Utc};

use super::spec::{Kind, StatusFault};
use super::store::{Conversation, Faults, Hit};

tokio::task_local! {
    /// The fault a surface took for the request its task is answering.
    static TAKEN: RefCell<Option<Hit>>;
}

/// Runs `answer` (a surface answering one request) and returns, with its output, the fault
/// of the request's conversation that the surface took, if any.
pub(super) async fn collecting<F: Future>(answer: F) -> (F::Output, Option<Hit>) {
    TAKEN
        .scope(RefCell::new(None), async move {
            let output = answer.await;
            let taken = TAKEN
                .try_with(|taken| taken.borrow_mut().take())
                .ok()
                .flatten();
            (output, taken)
        })
        .await
}

impl Faults {
    /// What the fault of `conversation`'s scenario that touches this request (if any) asks of
    /// the surface: a status to answer with instead of doing the work. `None`: go on as
    /// usual (the layer then resets, holds or reshapes the answer, as the fault says). A
    /// reset before the head asks for a status too, which the layer replaces by the reset.
    pub(crate) fn in_conversation(
        &self,
        conversation: &Conversation<'_>,
        now: DateTime<Utc>,
    ) -> Option<StatusFault> {
        let hit = self.take_in(conversation, now)?;
        let answer = match &hit.kind {
            Kind::Status(status) => Some(status.clone()),
            Kind::ResetBeforeHeaders => {
                Some(StatusFault::new(http::StatusCode::INTERNAL_SERVER_ERROR))
            }
            _ => None,
        };
        // Outside a request (a unit test), there is nobody to hand it to.
        let _ = TAKEN.try_with(|taken| *taken.borrow_mut() = Some(hit));
        answer
    }
}
