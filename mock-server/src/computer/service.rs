//! The one door to Computer's behaviour: typed commands (send, answer, approve or deny,
//! connected, cancel, read, list assets, create a download, ...) over the engine and the thread
//! state machine, each answering a typed [`Reply`].
//!
//! Every transport and flow (the handshake era, the stateless era, MCP Tasks, in-call
//! elicitation) and every tool goes through here; none re-enters a tool by name. How long a
//! command waits for a checkpoint is part of the command ([`Wait`]), never ambient state.

pub(crate) mod account;
pub(crate) mod answer;
pub(crate) mod pages;
pub(crate) mod queries;
pub(crate) mod reads;
pub(crate) mod send;

use std::sync::Arc;
use std::time::Duration;

use super::engine::{Engine, ProgressSink};
use super::model::content::Reply;

/// How long a command waits for a checkpoint, and where its progress lines go.
#[derive(Debug, Clone, Default)]
pub(crate) struct Wait {
    /// The call-wait window, in virtual time (zero: answer at once, the client polls).
    pub(crate) window: Duration,
    /// Receives a line per step, for a call that sent a progress token.
    pub(crate) progress: Option<ProgressSink>,
}

impl Wait {
    /// No waiting and no progress: answer with where things stand now.
    pub(crate) fn none() -> Self {
        Self::default()
    }
}

/// Computer's behaviour; cheap to clone.
#[derive(Clone)]
pub(crate) struct Service {
    /// The threads, on virtual time.
    pub(crate) engine: Arc<Engine>,
}

impl Service {
    /// The service over `engine`.
    pub(crate) fn new(engine: Arc<Engine>) -> Self {
        Self { engine }
    }

    /// Forgets every thread and download link (`POST /_mock/reset`).
    pub(crate) fn reset(&self) {
        self.engine.reset();
    }

    /// The configured call-wait window with `progress`: how a tool call waits.
    pub(crate) fn call_wait(&self, progress: Option<ProgressSink>) -> Wait {
        Wait {
            window: self.engine.call_wait,
            progress,
        }
    }
}

/// A tool error about `thread_id` (if any).
pub(crate) fn refuse(thread_id: Option<&str>, text: impl Into<String>) -> Reply {
    Reply::error(thread_id, text)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Map, json};

    use super::*;
    use crate::clock::{Clock, ClockMode};
    use crate::computer::engine::Follow;
    use crate::computer::model::arguments::{AnswerQuestion, CallComputer};
    use crate::computer::model::results::{AwaitingKind, Event, TaskStatus};
    use crate::computer::thread::Delivery;
    use crate::fixtures::Catalog;
    use crate::world::{Account, World};

    fn service() -> (Service, Clock, Arc<Account>) {
        let clock = Clock::new(ClockMode::Manual, Clock::fixed_epoch());
        let catalog = Arc::new(Catalog::load(&[], None).expect("the embedded catalog loads"));
        let world = Arc::new(World::builtin());
        let alice = world.account("alice").cloned().expect("alice is built in");
        let engine = Engine::new(
            clock.clone(),
            catalog,
            world,
            "http://mock.test".to_owned(),
            Duration::from_secs(120),
        );
        (Service::new(Arc::new(engine)), clock, alice)
    }

    fn message(text: &str) -> CallComputer {
        CallComputer {
            message: Some(text.to_owned()),
            ..CallComputer::default()
        }
    }

    #[tokio::test]
    async fn a_sent_message_says_where_it_went_and_a_zero_window_answers_at_once() {
        let (service, _, alice) = service();
        let sent = service
            .send(
                &alice,
                message("#ask-user-question Build the report"),
                Wait::none(),
            )
            .await;
        let (thread_id, delivered) = sent.delivered.expect("the message was sent");
        assert_eq!(delivered.delivery, Delivery::NewEntry);
        assert_eq!((delivered.entry, delivered.previous), (0, None));
        let checkpoint = sent.reply.checkpoint().expect("a task result");
        assert_eq!(checkpoint.event, Event::Timeout);
        assert_eq!(checkpoint.thread_id, thread_id);
    }

    #[tokio::test]
    async fn a_message_refused_before_sending_has_no_delivery() {
        let (service, _, alice) = service();
        let args = CallComputer {
            mode: Some("standard".into()),
            model: Some("claude-sonnet-4-5".into()),
            ..message("hello")
        };
        let sent = service.send(&alice, args, Wait::none()).await;
        assert!(sent.delivered.is_none());
        assert!(matches!(sent.reply, Reply::Error(_)), "{:?}", sent.reply);
    }

    #[tokio::test]
    async fn a_question_is_awaited_typed_then_answered_through_the_service() {
        let (service, clock, alice) = service();
        let sent = service
            .send(
                &alice,
                message("#ask-user-question Build the report"),
                Wait::none(),
            )
            .await;
        let (thread_id, _) = sent.delivered.expect("sent");
        clock.advance(Duration::from_secs(20));
        let awaiting = service.task_awaiting(&alice, &thread_id, 0, None);
        let [question] = awaiting.as_slice() else {
            panic!("one question waits: {awaiting:?}");
        };
        assert!(matches!(
            &question.kind,
            AwaitingKind::Questions {
                fits_a_form: true,
                ..
            }
        ));
        let args = AnswerQuestion {
            thread_id: thread_id.clone(),
            answers: Map::from_iter([("q1".to_owned(), json!("PDF"))]),
            attachment_urls: Vec::new(),
            followup_uuid: Some(question.request_id.clone()),
        };
        let answered = service.answer(&alice, args, Wait::none()).await;
        assert_eq!(answered.checkpoint().map(|c| c.event), Some(Event::Timeout));
        clock.advance(Duration::from_secs(30));
        let follow = Follow::Latest { activity_from: 0 };
        let done = service
            .follow(&alice, &thread_id, follow, Wait::none())
            .await;
        let done = done.checkpoint().expect("a task result");
        assert_eq!(done.task_status, TaskStatus::Completed);
        assert_eq!(done.files.len(), 1);
        assert!(
            done.text.contains("http://mock.test/_mock/files/"),
            "{}",
            done.text
        );
    }
}
