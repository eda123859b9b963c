//! Answering what a request waits on: questions (`answer_question`), confirmations
//! (`confirm_action_approve` / `_deny`) and sign-ins (`notify_connected`), each then following
//! the request to its next checkpoint.

use serde_json::{Map, Value};

use super::{Service, Wait, refuse};
use crate::computer::engine::{Follow, ThreadError};
use crate::computer::model::arguments::{AnswerQuestion, ConfirmAction, NotifyConnected};
use crate::computer::model::content::Reply;
use crate::computer::model::results::{Ack, Checkpoint, Event, TaskStatus};
use crate::computer::thread::{Entry, Phase, RequestKind, RequestState, Role, Thread};
use crate::computer::view::{self, Links};
use crate::world::Account;

impl Service {
    /// `answer_question`: answers the question `args.followup_uuid` names (else the first one
    /// waiting) and follows the request to its next checkpoint.
    pub(crate) async fn answer(
        &self,
        account: &Account,
        args: AnswerQuestion,
        wait: Wait,
    ) -> Reply {
        let AnswerQuestion {
            thread_id,
            answers,
            attachment_urls: attachments,
            followup_uuid,
        } = args;
        if let Err(refused) = self.check_attachments(account, &attachments, Some(&thread_id)) {
            return refused;
        }
        let followup = followup_uuid.as_deref();
        let thread_id = thread_id.as_str();
        let now = self.engine.clock.now();
        let outcome = self
            .engine
            .with_thread(&account.id, thread_id, |thread, links| {
                let request = pick_request(thread, followup, Prompt::Question)?;
                let Some(entry) = thread.entries.last_mut() else {
                    return Err("Nothing is waiting on this thread.".to_owned());
                };
                let questions = entry
                    .open_requests()
                    .find(|r| r.id == request)
                    .and_then(|r| match &r.kind {
                        RequestKind::Question(q) => Some(q.clone()),
                        _ => None,
                    })
                    // A confirmation picked as the question has no questions to match.
                    .unwrap_or_default();
                let summary = match_answers(&questions, &answers, &attachments)?;
                entry.transcript.push((Role::User, summary));
                thread.resolve(&request, RequestState::Answered, now);
                Ok(still_waiting(thread, links))
            });
        self.finish_resolution(account, thread_id, outcome, wait)
            .await
    }

    /// `confirm_action_approve` (`approve`) or `confirm_action_deny`: decides the confirmation
    /// `args.followup_uuid` names (else the first one waiting) and follows the request on.
    pub(crate) async fn confirm(
        &self,
        account: &Account,
        args: ConfirmAction,
        approve: bool,
        wait: Wait,
    ) -> Reply {
        let ConfirmAction {
            thread_id,
            result: reason,
            attachment_urls: attachments,
            followup_uuid,
        } = args;
        if let Err(refused) = self.check_attachments(account, &attachments, Some(&thread_id)) {
            return refused;
        }
        let followup = followup_uuid.as_deref();
        let thread_id = thread_id.as_str();
        let now = self.engine.clock.now();
        let outcome = self
            .engine
            .with_thread(&account.id, thread_id, |thread, links| {
                let request = pick_request(thread, followup, Prompt::Confirm)?;
                let verb = if approve { "Approved" } else { "Denied" };
                let note = if attachments.is_empty() {
                    format!("{verb}: {reason}")
                } else {
                    format!(
                        "{verb}: {reason}\n\nAttachments: {}",
                        attachments.join(", ")
                    )
                };
                if let Some(entry) = thread.entries.last_mut() {
                    entry.transcript.push((Role::User, note));
                }
                let state = if approve {
                    RequestState::Answered
                } else {
                    RequestState::Denied
                };
                thread.resolve(&request, state, now);
                Ok(still_waiting(thread, links))
            });
        self.finish_resolution(account, thread_id, outcome, wait)
            .await
    }

    async fn finish_resolution(
        &self,
        account: &Account,
        thread_id: &str,
        outcome: Result<Result<Resolved, String>, ThreadError>,
        wait: Wait,
    ) -> Reply {
        match outcome {
            Err(e) => e.into_reply(),
            Ok(Err(problem)) => refuse(Some(thread_id), problem),
            Ok(Ok(Resolved::Waiting(waiting))) => Reply::Checkpoint(waiting),
            Ok(Ok(Resolved::Continues { activity_from })) => {
                self.follow(account, thread_id, Follow::Latest { activity_from }, wait)
                    .await
            }
        }
    }

    /// Follows a thread from `follow` to its next checkpoint, as a call that resolved a
    /// request does (an elicited sign-in finished on its page included).
    pub(crate) async fn follow(
        &self,
        account: &Account,
        thread_id: &str,
        follow: Follow,
        wait: Wait,
    ) -> Reply {
        match self
            .engine
            .wait(&account.id, thread_id, follow, wait.window, wait.progress)
            .await
        {
            Ok(checkpoint) => checkpoint.into(),
            Err(e) => e.into_reply(),
        }
    }

    /// `notify_connected`: records the sign-in the user finished (the one waiting, or the
    /// `connector` named), or sends `message` when nothing waits on a sign-in.
    pub(crate) async fn connected(
        &self,
        account: &Account,
        args: NotifyConnected,
        wait: Wait,
    ) -> Reply {
        let NotifyConnected {
            thread_id,
            message,
            connector,
            attachment_urls: attachments,
        } = args;
        if let Err(refused) = self.check_attachments(account, &attachments, Some(&thread_id)) {
            return refused;
        }
        let thread_id = thread_id.as_str();
        let connector = connector
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty());
        let now = self.engine.clock.now();
        let decision = self
            .engine
            .with_thread(&account.id, thread_id, |thread, _| {
                if !attachments.is_empty() {
                    return SignInDecision::SendMessage;
                }
                let Some(entry) = thread.latest() else {
                    return SignInDecision::SendMessage;
                };
                if !entry.is_active() || matches!(entry.phase, Phase::Sleeping { .. }) {
                    return SignInDecision::SendMessage;
                }
                let waiting: Vec<_> = entry
                    .open_requests()
                    .filter(|r| matches!(r.kind, RequestKind::SignIn(_)))
                    .cloned()
                    .collect();
                let target = match connector {
                    Some(name) => {
                        if let Some(request) =
                            waiting.iter().find(|r| view::sign_in_matches(r, name))
                        {
                            Some(request.id.clone())
                        } else if answered_sign_in(entry, Some(name)) {
                            return SignInDecision::AlreadyAnswered;
                        } else if !waiting.is_empty() {
                            let names: Vec<String> = waiting
                                .iter()
                                .filter_map(|r| match &r.kind {
                                    RequestKind::SignIn(s) => {
                                        Some(format!("`{}` ({})", s.connector, s.display_name))
                                    }
                                    _ => None,
                                })
                                .collect();
                            return SignInDecision::Refuse(format!(
                                "No sign-in to `{name}` is waiting on this thread. Waiting: {}.",
                                names.join(", ")
                            ));
                        } else {
                            None
                        }
                    }
                    None if waiting.len() == 1 => Some(waiting[0].id.clone()),
                    None if waiting.is_empty() && answered_sign_in(entry, None) => {
                        return SignInDecision::AlreadyAnswered;
                    }
                    None => None,
                };
                match target {
                    Some(request) => {
                        thread.resolve(&request, RequestState::Answered, now);
                        SignInDecision::Answered
                    }
                    None => SignInDecision::SendMessage,
                }
            });
        let decision = match decision {
            Ok(d) => d,
            Err(e) => return e.into_reply(),
        };
        match decision {
            SignInDecision::SendMessage => {
                self.send_follow_up(account, thread_id, &message, &attachments, None, wait)
                    .await
                    .reply
            }
            SignInDecision::Refuse(problem) => refuse(Some(thread_id), problem),
            SignInDecision::Answered => self.acknowledge_sign_in(account, thread_id, false),
            SignInDecision::AlreadyAnswered => self.acknowledge_sign_in(account, thread_id, true),
        }
    }

    /// The acknowledgement of a sign-in recorded (or `already` answered) without a message.
    fn acknowledge_sign_in(&self, account: &Account, thread_id: &str, already: bool) -> Reply {
        let ack = self
            .engine
            .with_thread(&account.id, thread_id, |thread, _| {
                let entry = thread.latest();
                let status = entry.map_or(TaskStatus::Working, Entry::task_status);
                let text = match (
                    already,
                    entry.filter(|e| matches!(e.phase, Phase::Input { .. })),
                ) {
                    (false, Some(entry)) => format!(
                        "Sign-in recorded. The task is still waiting on {}; use read_thread to \
                         see what it needs.",
                        view::describe_open(entry)
                    ),
                    (true, Some(entry)) => format!(
                        "That sign-in was already answered in Perplexity, so nothing new was \
                         sent. The task is still waiting on {}; use read_thread to see what it \
                         needs.",
                        view::describe_open(entry)
                    ),
                    (true, None) => "That sign-in was already answered in Perplexity, so \
                                     nothing new was sent. Computer is continuing this request; \
                                     use read_thread to follow progress."
                        .to_owned(),
                    (false, None) => "Sign-in sent. Computer is continuing this request; use \
                                      read_thread to follow progress."
                        .to_owned(),
                };
                Ack {
                    thread_id: thread.id.clone(),
                    event: Event::Complete,
                    task_status: status,
                    text,
                }
            });
        ack.map_or_else(ThreadError::into_reply, Reply::Ack)
    }
}

/// What an answer led to.
enum Resolved {
    /// Prompts are still open: the result to return at once.
    Waiting(Box<Checkpoint>),
    /// The request goes on; follow it from this point of the thread's activity.
    Continues { activity_from: usize },
}

/// After an answer: the result to return at once if prompts are still open.
fn still_waiting(thread: &Thread, links: &Links<'_>) -> Resolved {
    match thread.latest() {
        Some(entry) if matches!(entry.phase, Phase::Input { .. }) => {
            Resolved::Waiting(Box::new(view::checkpoint(thread, entry, links)))
        }
        _ => Resolved::Continues {
            activity_from: thread.activity.len(),
        },
    }
}

/// Which kind of prompt an answer is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prompt {
    Question,
    Confirm,
}

/// Finds the open request an answer is for: by `followup_uuid`, else the first of its kind.
fn pick_request(thread: &Thread, followup: Option<&str>, want: Prompt) -> Result<String, String> {
    let (tool, noun) = match want {
        Prompt::Question => ("answer_question", "question"),
        Prompt::Confirm => ("confirm_action_approve/deny", "confirmation"),
    };
    let is_kind = |kind: &RequestKind| match want {
        Prompt::Question => matches!(kind, RequestKind::Question(_)),
        Prompt::Confirm => matches!(kind, RequestKind::Confirm { .. }),
    };
    let all: Vec<_> = thread
        .entries
        .iter()
        .flat_map(|e| {
            let current = match &e.phase {
                Phase::Input { requests, .. } => requests.clone(),
                _ => Vec::new(),
            };
            current.into_iter().chain(e.past_requests.iter().cloned())
        })
        .collect();
    let open: Vec<_> = thread
        .latest()
        .map_or_else(Vec::new, |e| e.open_requests().cloned().collect::<Vec<_>>());
    match followup {
        Some(id) => {
            if let Some(request) = open.iter().find(|r| r.id == id) {
                if is_kind(&request.kind) {
                    return Ok(request.id.clone());
                }
                let other = match want {
                    Prompt::Question => {
                        "a confirmation: use confirm_action_approve or confirm_action_deny"
                    }
                    Prompt::Confirm => "a question: use answer_question",
                };
                return Err(format!("followup_uuid `{id}` belongs to {other}."));
            }
            if let Some(past) = all.iter().find(|r| r.id == id) {
                let what = if past.state == RequestState::Open {
                    "is no longer waiting (the request it belonged to ended)"
                } else {
                    "was already answered"
                };
                return Err(format!(
                    "The {noun} with followup_uuid `{id}` {what}. Call read_thread to see what \
                     the task needs now."
                ));
            }
            Err(format!(
                "No {noun} with followup_uuid `{id}` is waiting on this thread. Use the \
                 followup_uuid from the latest `interactive` object, or \
                 request.answer_submission_uuid from read_thread."
            ))
        }
        None => open
            .iter()
            .find(|r| is_kind(&r.kind))
            .map(|r| r.id.clone())
            .ok_or_else(|| {
                format!(
                    "No {noun} is waiting on this thread, so there is nothing for {tool} to \
                     answer. Call read_thread to see the task's state."
                )
            }),
    }
}

/// Matches `answers` to the questions (by id or by question text) and renders them.
fn match_answers(
    questions: &[crate::fixtures::QuestionSpec],
    answers: &Map<String, Value>,
    attachments: &[String],
) -> Result<String, String> {
    if answers.is_empty() {
        return Err(
            "Argument `answers` must map each question to your answer; it was empty.".into(),
        );
    }
    let mut lines = Vec::new();
    for (key, value) in answers {
        let question = questions
            .iter()
            .find(|q| q.id == *key || q.question.trim().eq_ignore_ascii_case(key.trim()));
        let question = match question {
            Some(q) => q,
            // A single question takes a single answer under any key.
            None if questions.len() == 1 && answers.len() == 1 => &questions[0],
            None => {
                let expected: Vec<String> = questions
                    .iter()
                    .map(|q| format!("`{}` ({})", q.id, q.question))
                    .collect();
                return Err(format!(
                    "Argument `answers` has key `{key}`, which matches no waiting question. \
                     Expected: {}.",
                    expected.join(", ")
                ));
            }
        };
        let text = match value {
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        };
        lines.push(format!("{}: {text}", question.question));
    }
    let missing: Vec<&str> = questions
        .iter()
        .filter(|q| {
            !lines
                .iter()
                .any(|l| l.starts_with(&format!("{}:", q.question)))
        })
        .map(|q| q.id.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "Argument `answers` is missing an answer for: {}.",
            missing.join(", ")
        ));
    }
    if !attachments.is_empty() {
        lines.push(format!("Attachments: {}", attachments.join(", ")));
    }
    Ok(lines.join("\n"))
}

/// Whether the request in progress had a sign-in (to `connector`, or any) that was already
/// answered, on the Perplexity page or by an earlier `notify_connected`.
fn answered_sign_in(entry: &Entry, connector: Option<&str>) -> bool {
    let current = match &entry.phase {
        Phase::Input { requests, .. } => requests.as_slice(),
        _ => &[],
    };
    current
        .iter()
        .chain(&entry.past_requests)
        .filter(|r| matches!(r.kind, RequestKind::SignIn(_)))
        .filter(|r| {
            matches!(
                r.state,
                RequestState::Answered | RequestState::CompletedOnPage
            )
        })
        .any(|r| connector.is_none_or(|name| view::sign_in_matches(r, name)))
}

/// What `notify_connected` does.
#[derive(Debug, PartialEq, Eq)]
enum SignInDecision {
    Answered,
    AlreadyAnswered,
    SendMessage,
    Refuse(String),
}
