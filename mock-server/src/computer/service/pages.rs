//! What the human pages behind the URLs the tools hand out do: a sign-in page (visited, or its
//! button pressed), a Perplexity-only form, the stop page, and file downloads. The pages act as
//! the thread's owner, whoever opens them, as a link that was shared would.

use super::Service;
use crate::computer::engine::DownloadError;
use crate::computer::model::results::TaskStatus;
use crate::computer::thread::{InputKind, Phase, RequestKind, RequestState};
use crate::computer::view;

/// What a sign-in page found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SignInVisit {
    /// The sign-in exists: its connector's name, and whether the visit completed it.
    Found {
        /// The connector's display name.
        display_name: String,
        /// Whether the sign-in is done now.
        completed: bool,
    },
    /// The sign-in was finished (or dismissed) earlier: a used link.
    AlreadyDone {
        /// The connector's display name.
        display_name: String,
    },
    /// No such sign-in (unknown link).
    Missing,
}

/// The title of the page `request` a request in `phase` waits on, if it waits on that page.
fn page_title(phase: &Phase, request: &str) -> Option<String> {
    match phase {
        Phase::Input {
            kind: InputKind::Interaction { request_id, title },
            ..
        } if request_id == request => Some(title.clone()),
        Phase::Input {
            kind: InputKind::TwoFactor { request_id },
            ..
        } if request_id == request => Some("Two-factor authentication".to_owned()),
        _ => None,
    }
}

/// A form only Perplexity shows, as its page renders it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FormPage {
    /// The form's title, from the scenario.
    pub(crate) title: String,
    /// What Computer said about it, from the scenario.
    pub(crate) instructions: String,
    /// Whether it had been submitted before this visit.
    pub(crate) submitted: bool,
}

/// A file to serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileDownload {
    /// Its bytes.
    pub(crate) bytes: Vec<u8>,
    /// Its content type, when known.
    pub(crate) media_type: Option<String>,
}

impl Service {
    /// A visit to sign-in page `request` of `thread` (`submit`: its button was pressed). A
    /// scenario may finish the sign-in on the visit alone; finished, the account is connected
    /// and the request waits for `notify_connected`. An optional reconnection is done at once,
    /// as it never blocks the task.
    pub(crate) fn visit_sign_in(&self, thread: &str, request: &str, submit: bool) -> SignInVisit {
        if let Some(connector) = request.strip_prefix("optional-") {
            return SignInVisit::Found {
                display_name: connector.to_owned(),
                completed: true,
            };
        }
        self.engine
            .with_any_thread(thread, |t| {
                let found = t.entries.iter().rev().find_map(|e| match &e.phase {
                    Phase::Input { requests, .. } => {
                        requests.iter().find(|r| r.id == request).cloned()
                    }
                    _ => None,
                });
                // A link whose sign-in ended: the request moved to the entry's past requests.
                let past = || {
                    t.entries
                        .iter()
                        .rev()
                        .flat_map(|e| e.past_requests.iter())
                        .find(|r| r.id == request)
                        .cloned()
                };
                let Some(found) = found.or_else(past) else {
                    return SignInVisit::Missing;
                };
                let RequestKind::SignIn(spec) = &found.kind else {
                    return SignInVisit::Missing;
                };
                if found.state != RequestState::Open {
                    return SignInVisit::AlreadyDone {
                        display_name: spec.display_name.clone(),
                    };
                }
                // Connected, not resumed: the client's notify_connected continues the request.
                let completed = t.connect_on_page(request, submit);
                SignInVisit::Found {
                    display_name: spec.display_name.clone(),
                    completed,
                }
            })
            .unwrap_or(SignInVisit::Missing)
    }

    /// Form `request` of `thread` (a Perplexity-only form, or two-factor), while the thread
    /// still waits on it; `submit`: its button was pressed, which completes the form's step.
    /// The request continues with the next message, as the document says (a task's poll
    /// sends one by itself).
    pub(crate) fn form(&self, thread: &str, request: &str, submit: bool) -> Option<FormPage> {
        let now = self.now();
        self.engine
            .with_any_thread(thread, |t| {
                let entry = t.entries.last_mut()?;
                let title = page_title(&entry.phase, request)?;
                let already = entry.pages_done.iter().any(|d| d == request);
                if submit && !already {
                    entry.pages_done.push(request.to_owned());
                    if let Some(step) = entry.steps.iter_mut().rev().find(|s| {
                        s.title == title && s.kind == "ask_user" && s.status == "input_required"
                    }) {
                        step.status = "completed";
                        step.completed_at = Some(now);
                    }
                    entry.checkpoint += 1;
                }
                Some(FormPage {
                    title,
                    instructions: entry.outcome_text.clone(),
                    submitted: already,
                })
            })
            .flatten()
    }

    /// The status of `thread`'s latest request (`Some(None)`: a thread with no request yet;
    /// `None`: no such thread).
    pub(crate) fn stop_status(&self, thread: &str) -> Option<Option<TaskStatus>> {
        self.engine
            .with_any_thread(thread, |t| t.latest().map(|e| e.task_status()))
    }

    /// The stop page's button: stops `thread`'s request; whether there was one to stop (`None`:
    /// no such thread).
    pub(crate) fn stop(&self, thread: &str) -> Option<bool> {
        let now = self.now();
        self.engine.with_any_thread(thread, |t| t.cancel(now))
    }

    /// The published website `asset_id` (its page), if there is one.
    pub(crate) fn published_site(&self, asset_id: &str) -> Option<FileDownload> {
        let asset = self.engine.published_site(asset_id)?;
        let (media_type, _) = view::file_facts(&asset);
        Some(FileDownload {
            bytes: view::file_bytes(&asset),
            media_type: media_type.or(Some("text/html".to_owned())),
        })
    }

    /// The file behind download token `token`, if the link is valid and current.
    pub(crate) fn download(&self, token: &str) -> Result<FileDownload, DownloadError> {
        let asset = self.engine.resolve_download(token)?;
        let (media_type, _) = view::file_facts(&asset);
        Ok(FileDownload {
            bytes: view::file_bytes(&asset),
            media_type,
        })
    }
}
