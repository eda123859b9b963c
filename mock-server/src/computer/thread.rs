//! One Computer thread: its entries (turns), the script cursor of the request in progress, and
//! the transitions the script and the follow-up tools make on virtual time.
//!
//! State is advanced lazily: [`Thread::advance`] replays everything the script scheduled up to
//! "now" (steps starting and ending, outcomes, wake-ups, queued messages). A thread nobody looks
//! at does no work, yet every observer sees exactly what a live Computer would have done by then.

use std::collections::VecDeque;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use uuid::Uuid;

mod canned;
mod entry;

pub(crate) use entry::{
    Activity, Asset, Entry, InputKind, Phase, QueuedMessage, Request, RequestKind, RequestState,
    Role, StepRecord,
};

use crate::clock::to_chrono;
use crate::fixtures::{
    FileSpec, InteractionSpec, LoadedScenario, Outcome, Segment, SourceSpec, StepEnd,
};
use crate::world::TaskSettings;

/// Most sources a result carries.
pub(crate) const MAX_SOURCES: usize = 50;

/// One conversation with Computer.
#[derive(Debug)]
pub(crate) struct Thread {
    /// The thread id (a UUID).
    pub(crate) id: String,
    /// The account that started it.
    pub(crate) owner: String,
    /// The script it follows.
    pub(crate) scenario: Arc<LoadedScenario>,
    /// The scripted turn the next new request takes.
    pub(crate) next_turn: usize,
    /// Its turns, oldest first.
    pub(crate) entries: Vec<Entry>,
    /// Messages sent while Computer was busy.
    pub(crate) queue: VecDeque<QueuedMessage>,
    /// Every file its turns produced.
    pub(crate) assets: Vec<Asset>,
    /// Progress lines, for calls that follow it.
    pub(crate) activity: Vec<Activity>,
    /// `read_thread` calls that found the state unloadable so far (see `web_state_error`).
    pub(crate) web_state_failures: u32,
    /// `cancel_task` calls so far (scenario settings make the first ones fail or miss).
    pub(crate) cancel_attempts: u32,
    /// Mode, model and effort for the next request; a follow-up that names a mode or a model
    /// switches them, one that names neither keeps them.
    pub(crate) settings: Option<TaskSettings>,
    /// The Project the conversation started in: its name and instructions head the transcript.
    pub(crate) project: Option<ProjectContext>,
    /// Other accounts that may view the thread (Project members, with `project_visibility:
    /// project`).
    pub(crate) viewers: Vec<String>,
    /// Other accounts that may also write to it: the members among `viewers` whose Project role
    /// is `owner` or `editor`.
    pub(crate) writers: Vec<String>,
    /// Set when the script ran the account out of credits; the engine empties the balance.
    ran_out_of_credits: bool,
    /// Credits the steps that ended cost since the engine last billed them.
    credits_spent: i64,
    /// Credits the owner had left when the engine last looked (`None`: unlimited). Steps that
    /// use them up stop the request as out of credits before the next step.
    pub(crate) credit_budget: Option<i64>,
    step_counter: u64,
}

/// The Project a conversation started inside.
#[derive(Debug, Clone)]
pub(crate) struct ProjectContext {
    /// The Project's name.
    pub(crate) name: String,
    /// Its instructions, if any.
    pub(crate) instructions: Option<String>,
    /// `private` or `project`.
    pub(crate) visibility: String,
}

/// What became of a message handed to [`Thread::deliver`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// A new entry started.
    NewEntry,
    /// The waiting request resumed with the message.
    Resumed,
    /// Computer is busy; the message runs when the current request stops.
    Queued,
}

impl Thread {
    /// A new thread of `owner` following `scenario`, with its scripted history dated before `now`.
    pub(crate) fn new(owner: &str, scenario: Arc<LoadedScenario>, now: DateTime<Utc>) -> Self {
        let mut thread = Self {
            id: Uuid::new_v4().to_string(),
            owner: owner.to_owned(),
            scenario,
            next_turn: 0,
            entries: Vec::new(),
            queue: VecDeque::new(),
            assets: Vec::new(),
            activity: Vec::new(),
            web_state_failures: 0,
            cancel_attempts: 0,
            settings: None,
            project: None,
            viewers: Vec::new(),
            writers: Vec::new(),
            ran_out_of_credits: false,
            credits_spent: 0,
            credit_budget: None,
            step_counter: 0,
        };
        let history = thread.scenario.scenario.history.clone();
        for (i, turn) in history.iter().enumerate() {
            // Scripted history is dated back from the thread's creation, an hour per turn.
            let at = now - chrono::Duration::hours(i64::try_from(history.len() - i).unwrap_or(0));
            let mut entry = Entry::blank(0, at);
            entry.transcript.push((Role::User, turn.user.clone()));
            entry
                .transcript
                .push((Role::Computer, turn.assistant.clone()));
            entry.outcome_text = turn.assistant.clone();
            entry.phase = Phase::Completed {
                waiting_on_user: false,
            };
            thread.entries.push(entry);
        }
        thread
    }

    /// Credits spent by steps since the last call; clears the count.
    pub(crate) fn take_credits_spent(&mut self) -> i64 {
        std::mem::take(&mut self.credits_spent)
    }

    /// Whether the script ran the account out of credits since the last call; clears the flag.
    pub(crate) fn take_credit_exhaustion(&mut self) -> bool {
        std::mem::take(&mut self.ran_out_of_credits)
    }

    /// The entry of the request in progress (or the last one).
    pub(crate) fn latest(&self) -> Option<&Entry> {
        self.entries.last()
    }

    /// The entry a given message created or resumed.
    pub(crate) fn entry_for_message(&self, message_id: u64) -> Option<usize> {
        self.entries
            .iter()
            .rposition(|e| e.message_id == message_id)
    }

    /// `queued`, `running` or `idle`, as `read_thread` reports it.
    pub(crate) fn status(&self) -> &'static str {
        if !self.queue.is_empty() {
            "queued"
        } else if matches!(self.latest().map(|e| &e.phase), Some(Phase::Running { .. })) {
            "running"
        } else {
            "idle"
        }
    }

    /// Index of the next scripted turn a new message would use, if any remain.
    pub(crate) fn next_turn_index(&self) -> Option<usize> {
        (self.next_turn < self.scenario.scenario.turns.len()).then_some(self.next_turn)
    }

    /// Hands a user message to Computer at `now`.
    pub(crate) fn deliver(
        &mut self,
        message_id: u64,
        text: &str,
        attachments: &[String],
        now: DateTime<Utc>,
    ) -> Delivery {
        self.advance(now);
        let busy = matches!(self.latest().map(|e| &e.phase), Some(Phase::Running { .. }));
        if busy {
            self.queue.push_back(QueuedMessage {
                message_id,
                text: text.to_owned(),
                attachments: attachments.to_vec(),
                queued_at: now,
            });
            return Delivery::Queued;
        }
        self.start_or_resume(message_id, text, attachments, now)
    }

    fn start_or_resume(
        &mut self,
        message_id: u64,
        text: &str,
        attachments: &[String],
        now: DateTime<Utc>,
    ) -> Delivery {
        let user_text = with_attachments(text, attachments);
        if let Some(entry) = self.entries.last_mut() {
            let resume = match &entry.phase {
                Phase::Input {
                    kind:
                        InputKind::Interaction { .. } | InputKind::TwoFactor { .. } | InputKind::Credits,
                    then,
                    ..
                } => Some(then.clone()),
                Phase::Waiting { then: Some(then) } => Some(then.clone()),
                _ => None,
            };
            if let Some(segment) = resume {
                entry.transcript.push((Role::User, user_text));
                entry.message_id = message_id;
                entry.phase = Phase::Running {
                    segment,
                    index: 0,
                    at: now,
                };
                entry.checkpoint += 1;
                self.resolve_input_steps(now);
                return Delivery::Resumed;
            }
            if entry.is_active() {
                // A new message supersedes a request that was asleep or waiting on prompts.
                Self::stop_entry(entry, now, "Superseded by a newer message.");
            }
        }
        let segment = match self.next_turn_index() {
            Some(index) => {
                self.next_turn += 1;
                self.scenario.scenario.turns[index].segment.clone()
            }
            None => canned::unscripted_reply(text),
        };
        let mut entry = Entry::blank(message_id, now);
        entry.settings = self.settings.clone();
        entry.transcript.push((Role::User, user_text));
        entry.phase = Phase::Running {
            segment,
            index: 0,
            at: now,
        };
        self.entries.push(entry);
        Delivery::NewEntry
    }

    /// Stops the request in progress, as `cancel_task` or the stop page does.
    pub(crate) fn cancel(&mut self, now: DateTime<Utc>) -> bool {
        self.advance(now);
        let had_queue = !self.queue.is_empty();
        self.queue.clear();
        let Some(entry) = self.entries.last_mut() else {
            return false;
        };
        if !entry.is_active() && !matches!(entry.phase, Phase::Waiting { .. }) {
            return had_queue;
        }
        Self::stop_entry(entry, now, "Task cancelled.");
        true
    }

    fn stop_entry(entry: &mut Entry, now: DateTime<Utc>, note: &str) {
        if let Phase::Input { requests, .. } = &entry.phase {
            entry.past_requests.extend(requests.iter().cloned());
        }
        for step in entry.steps.iter_mut().filter(|s| s.completed_at.is_none()) {
            step.status = "cancelled";
            step.completed_at = Some(now);
        }
        entry.step_open = false;
        entry.transcript.push((Role::Computer, note.to_owned()));
        entry.outcome_text = note.to_owned();
        entry.phase = Phase::Cancelled;
        entry.checkpoint += 1;
    }

    /// Replays everything the script scheduled up to `now`.
    pub(crate) fn advance(&mut self, now: DateTime<Utc>) {
        loop {
            let Some(index) = self.entries.len().checked_sub(1) else {
                return;
            };
            let phase = self.entries[index].phase.clone();
            match phase {
                Phase::Running {
                    segment,
                    index: step_index,
                    at,
                } => {
                    if at > now {
                        return;
                    }
                    if let Some(step) = segment.steps.get(step_index) {
                        if !self.entries[index].step_open {
                            self.open_step(index, &step.title, &step.kind, at);
                        }
                        let end = at + to_chrono(step.duration);
                        if end > now {
                            return;
                        }
                        self.close_step(index, step.status, &step.sources, end);
                        self.credits_spent += step.credits;
                        // Only a step that costs credits can use the balance up, so free steps
                        // of other threads go on even while the account is empty.
                        let more_to_do = step_index + 1 < segment.steps.len();
                        if more_to_do
                            && step.credits > 0
                            && self
                                .credit_budget
                                .is_some_and(|left| self.credits_spent >= left)
                        {
                            // The balance is gone and work remains: Computer stops as out of
                            // credits; a message after a top-up resumes with the next step.
                            let rest = Segment {
                                steps: segment.steps[step_index + 1..].to_vec(),
                                outcome: segment.outcome,
                            };
                            let out_of_credits = Outcome::InsufficientCredits {
                                text: "I ran out of credits before finishing. Top up, then \
                                       continue this thread and I'll pick up where I stopped."
                                    .to_owned(),
                                then: Box::new(rest),
                            };
                            self.apply_outcome(index, out_of_credits, end);
                            continue;
                        }
                        self.entries[index].phase = Phase::Running {
                            segment,
                            index: step_index + 1,
                            at: end,
                        };
                    } else {
                        self.apply_outcome(index, segment.outcome, at);
                    }
                }
                Phase::Sleeping { wake_at, then } => {
                    if wake_at > now {
                        return;
                    }
                    let entry = &mut self.entries[index];
                    entry.phase = Phase::Running {
                        segment: then,
                        index: 0,
                        at: wake_at,
                    };
                    self.note(index, "Woke up and resumed the task.".to_owned());
                }
                _ => {
                    let Some(queued) = self.queue.pop_front() else {
                        return;
                    };
                    let at = self.idle_since(index).max(queued.queued_at);
                    self.start_or_resume(queued.message_id, &queued.text, &queued.attachments, at);
                }
            }
        }
    }

    /// The virtual time of the next scheduled change, if one is scheduled.
    pub(crate) fn next_event_at(&self) -> Option<DateTime<Utc>> {
        let entry = self.latest()?;
        match &entry.phase {
            Phase::Running { segment, index, at } => match segment.steps.get(*index) {
                Some(step) if entry.step_open => Some(*at + to_chrono(step.duration)),
                _ => Some(*at),
            },
            Phase::Sleeping { wake_at, .. } => Some(*wake_at),
            _ => None,
        }
    }

    fn idle_since(&self, index: usize) -> DateTime<Utc> {
        let entry = &self.entries[index];
        entry
            .steps
            .iter()
            .filter_map(|s| s.completed_at)
            .max()
            .unwrap_or(entry.created_at)
    }

    fn note(&mut self, index: usize, message: String) {
        let entry = &mut self.entries[index];
        entry.checkpoint += 1;
        self.activity.push(Activity {
            message_id: entry.message_id,
            message,
        });
    }

    fn open_step(&mut self, index: usize, title: &str, kind: &str, at: DateTime<Utc>) {
        self.step_counter += 1;
        let step = StepRecord {
            id: format!("step-{}", self.step_counter),
            title: title.to_owned(),
            kind: kind.to_owned(),
            status: "working",
            started_at: at,
            completed_at: None,
            sources: Vec::new(),
            request_id: None,
        };
        let entry = &mut self.entries[index];
        entry.steps.push(step);
        entry.step_open = true;
        self.note(index, title.to_owned());
    }

    fn close_step(
        &mut self,
        index: usize,
        end: StepEnd,
        sources: &[SourceSpec],
        at: DateTime<Utc>,
    ) {
        let entry = &mut self.entries[index];
        entry.step_open = false;
        if let Some(step) = entry.steps.last_mut() {
            step.status = match end {
                StepEnd::Completed => "completed",
                StepEnd::Failed => "failed",
            };
            step.completed_at = Some(at);
            step.sources = sources.to_vec();
        }
        add_sources(&mut entry.sources, sources);
        entry.checkpoint += 1;
    }

    /// Marks the synthetic "waiting on you" steps done once the request moves on.
    fn resolve_input_steps(&mut self, now: DateTime<Utc>) {
        if let Some(entry) = self.entries.last_mut() {
            for step in entry
                .steps
                .iter_mut()
                .filter(|s| s.status == "input_required")
            {
                step.status = "completed";
                step.completed_at = Some(now);
            }
        }
    }

    fn open_input_step(
        &mut self,
        index: usize,
        title: String,
        request_id: Option<&str>,
        at: DateTime<Utc>,
    ) {
        self.step_counter += 1;
        let entry = &mut self.entries[index];
        entry.steps.push(StepRecord {
            id: format!("step-{}", self.step_counter),
            title: title.clone(),
            kind: "ask_user".to_owned(),
            status: "input_required",
            started_at: at,
            completed_at: None,
            sources: Vec::new(),
            request_id: request_id.map(str::to_owned),
        });
        self.note(index, title);
    }

    fn apply_outcome(&mut self, index: usize, outcome: Outcome, at: DateTime<Utc>) {
        let text = outcome_text(&outcome).to_owned();
        {
            let entry = &mut self.entries[index];
            entry.transcript.push((Role::Computer, text.clone()));
            entry.outcome_text = text.clone();
        }
        let new_request = || Uuid::new_v4().to_string();
        let phase = match outcome {
            Outcome::Complete {
                sources,
                files,
                optional_auth_requests,
                waiting_on_user,
                ..
            } => {
                add_sources(&mut self.entries[index].sources, &sources);
                for file in files {
                    self.add_asset(index, file, at);
                }
                self.entries[index].optional_auth = optional_auth_requests;
                self.note(index, "Completed.".to_owned());
                Phase::Completed { waiting_on_user }
            }
            Outcome::Error { .. } => {
                self.note(index, "Failed.".to_owned());
                Phase::Failed
            }
            Outcome::Sleep {
                wake_after, then, ..
            } => {
                let wake_at = at + to_chrono(wake_after);
                self.note(
                    index,
                    format!("Sleeping until {}.", crate::clock::iso(wake_at)),
                );
                Phase::Sleeping {
                    wake_at,
                    then: *then,
                }
            }
            Outcome::Waiting { then, .. } => {
                self.note(index, "Waiting.".to_owned());
                Phase::Waiting {
                    then: then.map(|t| *t),
                }
            }
            Outcome::AskUserQuestion(checkpoint) | Outcome::ConfirmAction(checkpoint) => {
                let requests: Vec<Request> = checkpoint
                    .interactions
                    .into_iter()
                    .map(|interaction| Request {
                        id: new_request(),
                        kind: match interaction {
                            InteractionSpec::Question { questions } => {
                                RequestKind::Question(questions)
                            }
                            InteractionSpec::Confirm {
                                action,
                                approved_text,
                            } => RequestKind::Confirm {
                                action,
                                approved_text,
                            },
                        },
                        state: RequestState::Open,
                        connected: false,
                    })
                    .collect();
                for request in &requests {
                    let title = match &request.kind {
                        RequestKind::Question(questions) => questions
                            .first()
                            .map(|q| format!("Asking: {}", q.question))
                            .unwrap_or_default(),
                        RequestKind::Confirm { action, .. } => format!("Confirm: {action}"),
                        RequestKind::SignIn(_) => String::new(),
                    };
                    self.open_input_step(index, title, Some(&request.id), at);
                }
                Phase::Input {
                    kind: InputKind::Prompts,
                    requests,
                    then: *checkpoint.then,
                    denied: checkpoint.denied.map(|d| *d),
                }
            }
            Outcome::AuthRequired { sign_ins, then, .. } => {
                let requests: Vec<Request> = sign_ins
                    .into_iter()
                    .map(|sign_in| Request {
                        id: new_request(),
                        kind: RequestKind::SignIn(sign_in),
                        state: RequestState::Open,
                        connected: false,
                    })
                    .collect();
                for request in &requests {
                    if let RequestKind::SignIn(s) = &request.kind {
                        let title = format!("Connect {}", s.display_name);
                        self.open_input_step(index, title, Some(&request.id), at);
                    }
                }
                Phase::Input {
                    kind: InputKind::SignIns,
                    requests,
                    then: *then,
                    denied: None,
                }
            }
            Outcome::InteractionRequired { title, then, .. } => {
                self.open_input_step(index, title.clone(), None, at);
                Phase::Input {
                    kind: InputKind::Interaction {
                        request_id: new_request(),
                        title,
                    },
                    requests: Vec::new(),
                    then: *then,
                    denied: None,
                }
            }
            Outcome::TwoFactorRequired { then, .. } => {
                self.open_input_step(index, "Two-factor authentication".to_owned(), None, at);
                Phase::Input {
                    kind: InputKind::TwoFactor {
                        request_id: new_request(),
                    },
                    requests: Vec::new(),
                    then: *then,
                    denied: None,
                }
            }
            Outcome::InsufficientCredits { then, .. } => {
                self.ran_out_of_credits = true;
                self.open_input_step(index, "Out of credits".to_owned(), None, at);
                Phase::Input {
                    kind: InputKind::Credits,
                    requests: Vec::new(),
                    then: *then,
                    denied: None,
                }
            }
        };
        let entry = &mut self.entries[index];
        entry.phase = phase;
        entry.checkpoint += 1;
    }

    fn add_asset(&mut self, index: usize, spec: FileSpec, at: DateTime<Utc>) {
        let entry_id = self.entries[index].id.clone();
        let parent = spec.edits.as_ref().and_then(|name| {
            self.assets
                .iter()
                .rev()
                .find(|a| &a.spec.filename == name)
                .cloned()
        });
        let asset = Asset {
            asset_id: format!("asset_{}", Uuid::new_v4().simple()),
            entry_id,
            created_at: at,
            root_asset_id: parent
                .as_ref()
                .map(|p| p.root_asset_id.clone().unwrap_or(p.asset_id.clone())),
            parent_asset_id: parent.map(|p| p.asset_id),
            spec,
        };
        self.entries[index].files.push(asset.asset_id.clone());
        self.assets.push(asset);
    }

    /// Resolves an open request of the latest entry; resumes the script when none is left.
    pub(crate) fn resolve(&mut self, request_id: &str, state: RequestState, now: DateTime<Utc>) {
        let Some(entry) = self.entries.last_mut() else {
            return;
        };
        let Phase::Input {
            requests,
            then,
            denied,
            ..
        } = &mut entry.phase
        else {
            return;
        };
        let Some(request) = requests
            .iter_mut()
            .find(|r| r.id == request_id && r.state == RequestState::Open)
        else {
            return;
        };
        request.state = state;
        // The step that waited on this request ends with it, so steps agree with what
        // read_thread still lists (auth_requests, interactions).
        // A dismissed sign-in never connected; anything else was answered.
        let step_status = match state {
            RequestState::Dismissed => "cancelled",
            _ => "completed",
        };
        for step in entry
            .steps
            .iter_mut()
            .filter(|s| s.request_id.as_deref() == Some(request_id) && s.completed_at.is_none())
        {
            step.status = step_status;
            step.completed_at = Some(now);
        }
        let note = match (&request.kind, state) {
            (RequestKind::Confirm { approved_text, .. }, RequestState::Answered) => {
                approved_text.clone()
            }
            _ => None,
        };
        if requests.iter().any(|r| r.state == RequestState::Open) {
            entry.checkpoint += 1;
            return;
        }
        let any_denied = requests.iter().any(|r| r.state == RequestState::Denied);
        let segment = if any_denied {
            denied.clone().unwrap_or_else(|| Segment {
                steps: Vec::new(),
                outcome: Outcome::Complete {
                    text: "Understood. I did not go ahead with that action.".to_owned(),
                    sources: Vec::new(),
                    files: Vec::new(),
                    optional_auth_requests: Vec::new(),
                    waiting_on_user: false,
                },
            })
        } else if let Some(names) = canned::dismissed_sign_ins(requests) {
            // Dismissed, the work goes on without that service, and the answer says so.
            canned::without(&names)
        } else {
            then.clone()
        };
        if let Some(note) = note {
            entry.transcript.push((Role::Computer, note));
        }
        let done = std::mem::take(requests);
        entry.past_requests.extend(done);
        entry.phase = Phase::Running {
            segment,
            index: 0,
            at: now,
        };
        entry.checkpoint += 1;
        self.resolve_input_steps(now);
    }

    /// The user finished sign-in `request_id` on its page (`submit`: pressed its button; a
    /// visit alone does when the scenario says the user completes it there): the account is
    /// connected. The request still waits on it: "Open the OAuth URL, then call
    /// `notify_connected`", so the client's `notify_connected` (or, in a task or a URL
    /// elicitation, the server noticing the page finished) resumes it. Whether it is connected.
    pub(crate) fn connect_on_page(&mut self, request_id: &str, submit: bool) -> bool {
        let Some(request) = self.open_sign_in(request_id) else {
            return false;
        };
        let completes =
            submit || matches!(&request.kind, RequestKind::SignIn(s) if s.user_completes);
        let newly = completes && !request.connected;
        request.connected |= completes;
        let connected = request.connected;
        if newly && let Some(entry) = self.entries.last_mut() {
            entry.checkpoint += 1;
        }
        connected
    }

    /// Resumes sign-in `request_id` if the user finished it on its page, as a task or a URL
    /// elicitation does without `notify_connected` ("The user signs in on that page and the
    /// task continues"). Whether it was resumed.
    pub(crate) fn resume_connected(&mut self, request_id: &str, now: DateTime<Utc>) -> bool {
        let connected = self.open_sign_in(request_id).is_some_and(|r| r.connected);
        if connected {
            self.resolve(request_id, RequestState::CompletedOnPage, now);
        }
        connected
    }

    /// The latest request's open sign-in `request_id`.
    fn open_sign_in(&mut self, request_id: &str) -> Option<&mut Request> {
        let entry = self.entries.last_mut()?;
        let Phase::Input { requests, .. } = &mut entry.phase else {
            return None;
        };
        requests.iter_mut().find(|r| {
            r.id == request_id
                && r.state == RequestState::Open
                && matches!(r.kind, RequestKind::SignIn(_))
        })
    }
}

fn outcome_text(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Complete { text, .. }
        | Outcome::Error { text }
        | Outcome::Sleep { text, .. }
        | Outcome::Waiting { text, .. }
        | Outcome::AuthRequired { text, .. }
        | Outcome::InteractionRequired { text, .. }
        | Outcome::TwoFactorRequired { text, .. }
        | Outcome::InsufficientCredits { text, .. } => text,
        Outcome::AskUserQuestion(c) | Outcome::ConfirmAction(c) => &c.text,
    }
}

/// Adds sources, one per URL, in the order found, up to [`MAX_SOURCES`].
fn add_sources(into: &mut Vec<SourceSpec>, new: &[SourceSpec]) {
    for source in new {
        if into.len() >= MAX_SOURCES {
            return;
        }
        if !into.iter().any(|s| s.url == source.url) {
            into.push(source.clone());
        }
    }
}

fn with_attachments(text: &str, attachments: &[String]) -> String {
    if attachments.is_empty() {
        return text.to_owned();
    }
    let list: Vec<String> = attachments.iter().map(|a| format!("- {a}")).collect();
    format!("{text}\n\nAttachments:\n{}", list.join("\n"))
}
