//! What the dashboard (`/_mock`) shows of Computer and what its buttons do: every thread with
//! where it stands and what it waits on, and the moves the Perplexity page would make on it
//! (answer a question, approve or deny, finish a sign-in, stop). Like the human pages, the
//! buttons act as the thread's owner.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::model::arguments::{AnswerQuestion, ConfirmAction};
use super::model::content::Reply;
use super::model::results::{Event, TaskStatus};
use super::service::pages::SignInVisit;
use super::service::{Service, Wait};
use super::thread::{Asset, InputKind, Phase, RequestKind, Role, Thread};
use super::view::{self, Links};
use crate::clock::iso;

/// One thread as the dashboard lists it (`GET /_mock/threads`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ThreadRow {
    /// The thread id.
    pub(crate) thread_id: String,
    /// The account that started it.
    pub(crate) owner: String,
    /// The scenario it follows.
    pub(crate) scenario: String,
    /// `queued`, `running` or `idle`, as `read_thread` reports it.
    pub(crate) status: &'static str,
    /// The latest request's `task_status` (`None` before the first request).
    pub(crate) task_status: Option<TaskStatus>,
    /// The `event` a result would report for the latest request now.
    pub(crate) event: Option<Event>,
    /// How many turns it has.
    pub(crate) entries: usize,
    /// The last message of the latest turn: who wrote it and what it says.
    pub(crate) last_message: Option<LastMessage>,
    /// The step in progress.
    pub(crate) current_step: Option<String>,
    /// When a sleeping request wakes.
    pub(crate) wake_at: Option<String>,
    /// What the latest request waits on.
    pub(crate) waiting_on: Vec<Waiting>,
    /// The stop page.
    pub(crate) stop_url: String,
}

/// The last message of a turn.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LastMessage {
    /// `user` or `computer`.
    pub(crate) role: &'static str,
    /// Its text.
    pub(crate) text: String,
}

/// Something a thread waits on, with what a button needs to resolve it.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Waiting {
    /// Questions, answered with the answer button.
    Question {
        /// The `followup_uuid`.
        request_id: String,
        /// The questions.
        questions: Vec<QuestionRow>,
    },
    /// A confirmation, approved or denied.
    Confirm {
        /// The `followup_uuid`.
        request_id: String,
        /// What Computer wants to do.
        action: String,
    },
    /// A connector sign-in, finished on its page.
    SignIn {
        /// The sign-in request id.
        request_id: String,
        /// The connector's name.
        display_name: String,
        /// The sign-in page.
        url: String,
    },
    /// A page only Perplexity can show: a form, or two-factor authentication.
    Form {
        /// The form's id.
        request_id: String,
        /// Its title.
        title: String,
        /// Its page.
        url: String,
    },
    /// Credits ran out; a top-up and a message continue.
    Credits {
        /// The billing page.
        url: String,
    },
}

/// One question of a [`Waiting::Question`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct QuestionRow {
    /// The answer key.
    pub(crate) id: String,
    /// The question.
    pub(crate) question: String,
    /// Its choices (none: free text).
    pub(crate) options: Vec<String>,
    /// Several choices may be picked.
    pub(crate) allow_multiple: bool,
}

/// A dashboard button pressed on a thread (`POST /_mock/threads/{thread}/{action}`).
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum PageAction {
    /// Answer the questions `request_id` asks (the first waiting when left out).
    Answer {
        /// The `followup_uuid`.
        #[serde(default)]
        request_id: Option<String>,
        /// Each question's id mapped to its answer.
        answers: Map<String, Value>,
    },
    /// Approve the confirmation `request_id` (the first waiting when left out).
    Approve {
        /// The `followup_uuid`.
        #[serde(default)]
        request_id: Option<String>,
        /// The note sent with the decision.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Deny the confirmation `request_id` (the first waiting when left out).
    Deny {
        /// The `followup_uuid`.
        #[serde(default)]
        request_id: Option<String>,
        /// The note sent with the decision.
        #[serde(default)]
        reason: Option<String>,
    },
    /// Finish the sign-in `request_id`, as its page's button does.
    SignIn {
        /// The sign-in request id.
        request_id: String,
    },
    /// Stop the request in progress, as the stop page's button does.
    Stop,
}

/// What a button did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ActionDone {
    /// The thread.
    pub(crate) thread_id: String,
    /// What happened, in a sentence.
    pub(crate) message: String,
}

/// Why a button did nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ActionRefused {
    /// No such thread.
    UnknownThread(String),
    /// The thread is not in a state the button applies to; the sentence says why.
    NotApplicable(String),
}

impl Service {
    /// Every thread, oldest first.
    pub(crate) fn thread_rows(&self) -> Vec<ThreadRow> {
        let no_downloads = |_: &Asset| String::new();
        let links = Links {
            base_url: &self.engine.base_url,
            download_url: &no_downloads,
        };
        self.engine
            .thread_owners()
            .into_iter()
            .filter_map(|(id, _)| {
                self.engine
                    .with_any_thread(&id, |thread| self.row(thread, &links))
            })
            .collect()
    }

    fn row(&self, thread: &Thread, links: &Links<'_>) -> ThreadRow {
        let latest = thread.latest();
        ThreadRow {
            thread_id: thread.id.clone(),
            owner: thread.owner.clone(),
            scenario: thread.scenario.scenario.name.clone(),
            status: thread.status(),
            task_status: latest.map(|e| e.task_status()),
            event: latest.map(view::event),
            entries: thread.entries.len(),
            last_message: latest
                .and_then(|e| e.transcript.last())
                .map(|(role, text)| LastMessage {
                    role: match role {
                        Role::User => "user",
                        Role::Computer => "computer",
                    },
                    text: text.clone(),
                }),
            current_step: latest.and_then(|e| {
                e.steps
                    .iter()
                    .rev()
                    .find(|s| s.completed_at.is_none())
                    .map(|s| s.title.clone())
            }),
            wake_at: latest.and_then(|e| match &e.phase {
                Phase::Sleeping { wake_at, .. } => Some(iso(*wake_at)),
                _ => None,
            }),
            waiting_on: waiting_on(thread, links),
            stop_url: self.stop_url(&thread.id),
        }
    }

    /// Presses a dashboard button on `thread_id`, as its owner on the Perplexity page would.
    pub(crate) async fn act_as_owner(
        &self,
        thread_id: &str,
        action: PageAction,
    ) -> Result<ActionDone, ActionRefused> {
        let unknown = || ActionRefused::UnknownThread(thread_id.to_owned());
        let owner = self
            .engine
            .with_any_thread(thread_id, |t| t.owner.clone())
            .ok_or_else(unknown)?;
        let account = self
            .engine
            .world
            .account(&owner)
            .cloned()
            .ok_or_else(unknown)?;
        let done = |message: String| {
            Ok(ActionDone {
                thread_id: thread_id.to_owned(),
                message,
            })
        };
        let reply = match action {
            PageAction::Answer {
                request_id,
                answers,
            } => {
                let args = AnswerQuestion {
                    thread_id: thread_id.to_owned(),
                    answers,
                    attachment_urls: Vec::new(),
                    followup_uuid: request_id,
                };
                self.answer(&account, args, Wait::none()).await
            }
            PageAction::Approve { request_id, reason } => {
                self.confirm(
                    &account,
                    confirm_args(thread_id, request_id, reason),
                    true,
                    Wait::none(),
                )
                .await
            }
            PageAction::Deny { request_id, reason } => {
                self.confirm(
                    &account,
                    confirm_args(thread_id, request_id, reason),
                    false,
                    Wait::none(),
                )
                .await
            }
            PageAction::SignIn { request_id } => {
                return match self.visit_sign_in(thread_id, &request_id, true) {
                    SignInVisit::Found { display_name, .. } => done(format!(
                        "Signed in to {display_name} on its page; the request continues once \
                             the client calls notify_connected."
                    )),
                    SignInVisit::AlreadyDone { display_name } => Err(ActionRefused::NotApplicable(
                        format!("The {display_name} sign-in `{request_id}` was already completed."),
                    )),
                    SignInVisit::Missing => Err(ActionRefused::NotApplicable(format!(
                        "Thread `{thread_id}` does not wait on sign-in `{request_id}` (it was \
                         finished, dismissed, or never asked)."
                    ))),
                };
            }
            PageAction::Stop => {
                return match self.stop(thread_id) {
                    Some(true) => done("Computer stopped this task.".to_owned()),
                    Some(false) => Err(ActionRefused::NotApplicable(
                        "Nothing to stop: the task had already ended.".to_owned(),
                    )),
                    None => Err(unknown()),
                };
            }
        };
        match reply {
            Reply::Checkpoint(checkpoint) => done(format!(
                "Sent. The task is {} now.",
                checkpoint.task_status.as_str()
            )),
            Reply::Error(error) => Err(ActionRefused::NotApplicable(error.text)),
            _ => done("Sent.".to_owned()),
        }
    }
}

fn confirm_args(
    thread_id: &str,
    request_id: Option<String>,
    reason: Option<String>,
) -> ConfirmAction {
    ConfirmAction {
        thread_id: thread_id.to_owned(),
        result: reason.unwrap_or_else(|| "Decided on the dashboard.".to_owned()),
        attachment_urls: Vec::new(),
        followup_uuid: request_id,
    }
}

/// What the latest request of `thread` waits on, in the order results list it.
fn waiting_on(thread: &Thread, links: &Links<'_>) -> Vec<Waiting> {
    let Some(entry) = thread.latest() else {
        return Vec::new();
    };
    let Phase::Input { kind, .. } = &entry.phase else {
        return Vec::new();
    };
    let mut out: Vec<Waiting> = entry
        .open_requests()
        .map(|request| match &request.kind {
            RequestKind::Question(questions) => Waiting::Question {
                request_id: request.id.clone(),
                questions: questions
                    .iter()
                    .map(|q| QuestionRow {
                        id: q.id.clone(),
                        question: q.question.clone(),
                        options: q.options.clone(),
                        allow_multiple: q.allow_multiple,
                    })
                    .collect(),
            },
            RequestKind::Confirm { action, .. } => Waiting::Confirm {
                request_id: request.id.clone(),
                action: action.clone(),
            },
            RequestKind::SignIn(spec) => Waiting::SignIn {
                request_id: request.id.clone(),
                display_name: spec.display_name.clone(),
                url: links.auth_url(thread, request),
            },
        })
        .collect();
    match kind {
        InputKind::Interaction { request_id, title } => out.push(Waiting::Form {
            request_id: request_id.clone(),
            title: title.clone(),
            url: links.form_url(thread, request_id),
        }),
        InputKind::TwoFactor { request_id } => out.push(Waiting::Form {
            request_id: request_id.clone(),
            title: "Two-factor authentication".to_owned(),
            url: links.form_url(thread, request_id),
        }),
        InputKind::Credits => out.push(Waiting::Credits {
            url: links.billing_url(&thread.owner),
        }),
        InputKind::Prompts | InputKind::SignIns => {}
    }
    out
}
