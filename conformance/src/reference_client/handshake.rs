//! The handshake-era reference client: plays the host for the user's script, follows every
//! result the way the Computer document says, and breaks one rule on request.

use std::time::Duration;

use mock_server::model::arguments::{
    AnswerQuestion, CallComputer, ConfirmAction, NotifyConnected, ThreadRef,
};
use mock_server::model::results::Event;
use mock_server::model::tools::ToolName;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::ClientError;
use crate::rules::ids;
use crate::transcript::terminal;

use super::account::AccountState;
use super::options::ClientOptions;
use super::session::Session;

const CPC: ToolName = ToolName::CallPerplexityComputer;
/// Polls of read_thread before the client gives up on a thread (real time: about 30 s).
const MAX_POLLS: usize = 3000;
/// Real time between read_thread polls.
const POLL_EVERY: Duration = Duration::from_millis(10);

/// Runs the handshake-era conversation to the end of the user's script.
pub(super) async fn run(options: ClientOptions) -> Result<(), ClientError> {
    let mut client = Client {
        io: Session::new(options)?,
        forget_thread: false,
        after_waiting: false,
        account: AccountState::default(),
    };
    client.io.initialize().await?;
    client.converse().await?;
    client.io.user_post("done", json!({})).await?;
    Ok(())
}

struct Client {
    io: Session,
    /// Set after a `waiting` result when breaking `computer.waiting.same-thread`.
    forget_thread: bool,
    /// Whether the last request settled on `waiting` (thread reuse is broken only elsewhere).
    after_waiting: bool,
    /// Download links, settings and Project of the conversation.
    account: AccountState,
}

/// What a conversation turn ended with.
struct Settled {
    thread: Option<String>,
}

impl Client {
    // ---- the conversation ----

    async fn converse(&mut self) -> Result<(), ClientError> {
        let mut thread: Option<String> = None;
        while let Some(next) = self.io.user_get("next-message").await? {
            let Some(message) = next
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
            else {
                continue;
            };
            // Something the person asks of the host itself (list files, download one).
            if let Some(request) = next.get("request") {
                self.account
                    .host_request(&mut self.io, request, thread.as_deref())
                    .await?;
                continue;
            }
            let mut args = CallComputer::new(message);
            let keep = match thread.as_deref() {
                Some(_) if self.forget_thread => false,
                // Breaking thread reuse: a follow-up starts a new conversation.
                Some(_) if self.io.breaks(ids::COMPUTER_THREAD_REUSE) && !self.after_waiting => {
                    false
                }
                Some(_) => true,
                None => false,
            };
            if keep {
                args.thread_id.clone_from(&thread);
            }
            self.after_waiting = false;
            if !self
                .account
                .turn_arguments(&mut self.io, &next, &mut args)
                .await?
            {
                continue;
            }
            let result = self.io.call(CPC, &args).await?;
            let settled = self.drive(result, args).await?;
            if settled.thread.is_some() {
                thread = settled.thread;
            }
        }
        Ok(())
    }

    /// Follows one request until it settles, and returns the thread to continue.
    async fn drive(
        &mut self,
        mut result: Value,
        sent: CallComputer,
    ) -> Result<Settled, ClientError> {
        let mut thread: Option<String> = sent.thread_id.clone();
        let mut handled: Vec<String> = Vec::new();
        let mut had_pending = false;
        let mut retried_denied = false;
        let mut continued_early = false;
        loop {
            if let Some(t) = result.get("thread_id").and_then(Value::as_str) {
                thread = Some(t.to_owned());
            }
            self.account.remember_files(&result);
            // An event this client does not know is followed as a plain result.
            let event = result
                .get("event")
                .and_then(|event| Event::deserialize(event).ok());
            let status = result
                .get("task_status")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let Some(t) = thread.clone() else {
                // No thread: only an out-of-credits refusal before sending gets here.
                if event == Some(Event::InsufficientCredits) {
                    let quota = result
                        .pointer("/interactive/reason")
                        .and_then(Value::as_str)
                        == Some("quota_exhausted");
                    if quota && self.io.breaks(ids::COMPUTER_CREDITS_QUOTA_RESET) {
                        // The refusal without the date the quota comes back.
                        let vague = json!({"text": "Computer can't take this message right now."});
                        self.io.show("error", &vague).await?;
                    } else {
                        self.io.show("error", &result).await?;
                    }
                    if self.io.breaks(ids::COMPUTER_CREDITS_BEFORE_SEND) {
                        return Ok(Settled { thread: None });
                    }
                    if !self.top_up(&result).await? {
                        return Ok(Settled { thread: None });
                    }
                    result = self.io.call(CPC, &sent).await?;
                    continue;
                }
                if event == Some(Event::AccessDenied)
                    && self.io.breaks(ids::COMPUTER_ACCESS_DENIED_SHOWN)
                    && !retried_denied
                {
                    // Taken for a passing failure: the message goes out again.
                    retried_denied = true;
                    result = self.io.call(CPC, &sent).await?;
                    continue;
                }
                self.io.show("error", &result).await?;
                return Ok(Settled { thread: None });
            };
            match event {
                Some(Event::InsufficientCredits) => {
                    self.io.show("error", &result).await?;
                    if !self.top_up(&result).await? {
                        return Ok(Settled { thread: Some(t) });
                    }
                    let message = "Credits are topped up; please continue.";
                    if self.io.breaks(ids::COMPUTER_CREDITS_DURING_TASK) {
                        // A new conversation instead of the same thread; then the client gives up.
                        self.io.call(CPC, &CallComputer::new(message)).await?;
                        return Ok(Settled { thread: Some(t) });
                    }
                    result = self.io.call(CPC, &follow_up(&t, message)).await?;
                }
                Some(Event::Timeout) => {
                    if self.io.user_get("interrupt").await?.is_some() {
                        return self.cancel(&t).await;
                    }
                    if self.io.breaks(ids::COMPUTER_TIMEOUT_READ_THREAD) {
                        result = self.io.call(CPC, &follow_up(&t, "Is it done yet?")).await?;
                        continue;
                    }
                    result = self.poll(&t).await?;
                }
                Some(Event::Sleep) => {
                    if self.io.breaks(ids::COMPUTER_SLEEP_NO_RESEND) {
                        result = self
                            .io
                            .call(CPC, &follow_up(&t, "Wake up and check now."))
                            .await?;
                        continue;
                    }
                    self.io.show("status", &result).await?;
                    result = self.poll(&t).await?;
                }
                Some(Event::Waiting) => {
                    self.io.show("status", &result).await?;
                    if self.io.breaks(ids::COMPUTER_WAITING_SAME_THREAD) {
                        self.forget_thread = true;
                    }
                    self.after_waiting = true;
                    return Ok(Settled { thread: Some(t) });
                }
                Some(Event::AskUserQuestion | Event::ConfirmAction) => {
                    let items: Vec<Value> =
                        match result.get("pending_interactions").and_then(Value::as_array) {
                            Some(list) if !list.is_empty() => {
                                had_pending |= list.len() > 1;
                                list.clone()
                            }
                            _ => result.get("interactive").cloned().into_iter().collect(),
                        };
                    let next = items.into_iter().find(|i| {
                        let uuid = i
                            .get("followup_uuid")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        !handled.iter().any(|h| h == uuid)
                    });
                    let Some(item) = next else {
                        result = self.poll(&t).await?;
                        continue;
                    };
                    if had_pending
                        && !handled.is_empty()
                        && self.io.breaks(ids::COMPUTER_PENDING_EACH)
                    {
                        return Ok(Settled { thread: Some(t) });
                    }
                    if let Some(uuid) = item.get("followup_uuid").and_then(Value::as_str) {
                        handled.push(uuid.to_owned());
                    }
                    result = self.interact(&t, &item, &result).await?;
                }
                Some(Event::AuthRequired)
                    if self.io.breaks(ids::COMPUTER_AUTH_NOTIFY_AFTER_SIGN_IN) =>
                {
                    // Breaking the rule: the sign-in finished on its page taken for enough, so
                    // the client never tells Computer and leaves the request waiting.
                    if let Some(url) = result
                        .pointer("/interactive/auth_url")
                        .and_then(Value::as_str)
                    {
                        self.io.ask_url(url, "Sign in").await?;
                    }
                    self.io.show("status", &result).await?;
                    return Ok(Settled { thread: Some(t) });
                }
                Some(Event::AuthRequired) => {
                    result = self.sign_in(&t, &result).await?;
                }
                Some(Event::InteractionRequired) => {
                    let url = result
                        .pointer("/interactive/url")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let text = result
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let go_on = follow_up(&t, "I completed it in Perplexity; please continue.");
                    if self.io.breaks(ids::COMPUTER_INTERACTION_OPEN_URL) && !continued_early {
                        // The thread continued before the form was completed.
                        continued_early = true;
                        result = self.io.call(CPC, &go_on).await?;
                        continue;
                    }
                    if !self.io.ask_url(&url, text).await? {
                        self.io.show("error", &result).await?;
                        return Ok(Settled { thread: Some(t) });
                    }
                    result = self.io.call(CPC, &go_on).await?;
                }
                Some(Event::TwoFactorRequired) => {
                    // The user follows the instructions; their reply continues this thread.
                    if !self.io.breaks(ids::COMPUTER_TWO_FACTOR_INSTRUCTIONS_SHOWN) {
                        self.io.show("status", &result).await?;
                    }
                    return Ok(Settled { thread: Some(t) });
                }
                _ => {
                    let finished = if self.io.breaks(ids::COMPUTER_STATUS_TASK_STATUS) {
                        // The mistake the document warns about: "complete" taken as finished.
                        matches!(
                            event,
                            Some(
                                Event::Complete
                                    | Event::Error
                                    | Event::Cancelled
                                    | Event::AccessDenied
                            )
                        )
                    } else {
                        terminal(&status)
                    };
                    if finished {
                        // Breaking the error rule: a failed run passed off as an answer.
                        let as_answer = status == "completed"
                            || (event == Some(Event::Error)
                                && self.io.breaks(ids::COMPUTER_ERROR_SHOWN));
                        self.io
                            .show(if as_answer { "final" } else { "error" }, &result)
                            .await?;
                        if self.io.breaks(ids::COMPUTER_AUTH_OPTIONAL_IGNORED) {
                            self.notify_optional(&t, &result).await?;
                        }
                        return Ok(Settled { thread: Some(t) });
                    }
                    if status == "input_required" {
                        // Waiting on something the result does not show: read_thread tells.
                        let read = self
                            .io
                            .call(ToolName::ReadThread, &ThreadRef::new(&t))
                            .await?;
                        if let Some(sign_in) = first_auth_request(&read) {
                            result = self.sign_in(&t, &json!({"interactive": sign_in})).await?;
                            continue;
                        }
                    }
                    result = self.poll(&t).await?;
                }
            }
        }
    }

    /// Polls read_thread until the request needs something or ends; returns it as a result.
    async fn poll(&mut self, thread: &str) -> Result<Value, ClientError> {
        for _ in 0..MAX_POLLS {
            let read = self
                .io
                .call(ToolName::ReadThread, &ThreadRef::new(thread))
                .await?;
            if read.get("web_state_error").is_some_and(Value::is_string)
                && self.io.breaks(ids::COMPUTER_READ_THREAD_RETRY_STATE_ERROR)
            {
                // Breaking the rule: a state that could not be loaded taken for a failure.
                return Ok(
                    json!({"thread_id": thread, "event": "complete", "task_status": "failed", "text": "Computer could not load this thread."}),
                );
            }
            // Without web_state (it could not be loaded) nothing is known: read again.
            let status = read
                .pointer("/web_state/task_status")
                .and_then(Value::as_str)
                .unwrap_or("working");
            if terminal(status) {
                let mut done = read.clone();
                done["event"] = json!("complete");
                done["task_status"] = json!(status);
                return Ok(done);
            }
            if status == "input_required" {
                if let Some(form) = first_form(&read) {
                    return Ok(form_as_result(thread, status, &form));
                }
                if let Some(sign_in) = first_auth_request(&read) {
                    return Ok(
                        json!({"thread_id": thread, "event": "auth_required", "task_status": status, "interactive": sign_in}),
                    );
                }
                return Ok(
                    json!({"thread_id": thread, "event": "complete", "task_status": "failed", "text": "The task waits on input this client cannot give."}),
                );
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
        Err(ClientError::Protocol {
            what: "read_thread".into(),
            detail: format!("thread {thread} was still working after {MAX_POLLS} polls"),
        })
    }

    async fn top_up(&mut self, result: &Value) -> Result<bool, ClientError> {
        match result
            .pointer("/interactive/billing_url")
            .and_then(Value::as_str)
        {
            Some(url) => {
                self.io
                    .ask_url(url, "You are out of credits. Add credits here.")
                    .await
            }
            None if self.io.breaks(ids::COMPUTER_CREDITS_NO_BILLING_URL) => {
                // No page was offered; this client makes one up from the MCP URL's origin.
                let origin = self
                    .io
                    .options
                    .url
                    .split("/rest/")
                    .next()
                    .unwrap_or_default();
                let made_up = format!("{origin}/_mock/billing/alice");
                self.io
                    .ask_url(&made_up, "You are out of credits. Add credits here.")
                    .await
            }
            None => Ok(false),
        }
    }

    /// Answers a question or a confirmation.
    async fn interact(
        &mut self,
        thread: &str,
        item: &Value,
        result: &Value,
    ) -> Result<Value, ClientError> {
        let uuid = item
            .get("followup_uuid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let text = result.get("text").cloned().unwrap_or(Value::Null);
        // A form found in read_thread is the read-thread rule's; an event's, the tool's own.
        let from_read = item.get(FROM_READ_THREAD) == Some(&json!(true));
        let breaks_uuid = |io: &Session, tool_rule: &str| {
            io.breaks(if from_read {
                ids::COMPUTER_READ_THREAD_ANSWER_FORM
            } else {
                tool_rule
            })
        };
        if item.get("type").and_then(Value::as_str) == Some("confirm_action") {
            let answer = self
                .io
                .user_post(
                    "ask",
                    json!({"kind": "confirm", "message": text, "thread_id": thread}),
                )
                .await?;
            let approve = answer.get("action").and_then(Value::as_str) == Some("accept");
            let reason = if approve {
                "Approved by the user."
            } else {
                "Denied by the user."
            };
            let mut args = ConfirmAction::new(thread, reason);
            if !breaks_uuid(&self.io, ids::COMPUTER_CONFIRM_DECIDE) {
                args.followup_uuid = uuid;
            }
            let tool = if approve {
                ToolName::ConfirmActionApprove
            } else {
                ToolName::ConfirmActionDeny
            };
            return self.io.call(tool, &args).await;
        }
        let answer = self
            .io
            .user_post(
                "ask",
                json!({"kind": "question", "message": text, "thread_id": thread}),
            )
            .await?;
        // The user's answers, by question (none when they gave none).
        let answers = answer
            .get("content")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut args = AnswerQuestion::new(thread, answers);
        if !breaks_uuid(&self.io, ids::COMPUTER_QUESTION_ANSWER) {
            args.followup_uuid = uuid;
        }
        self.io.call(ToolName::AnswerQuestion, &args).await
    }

    /// Opens the sign-in URL (through the user), then notify_connected with the connector.
    async fn sign_in(&mut self, thread: &str, result: &Value) -> Result<Value, ClientError> {
        let read = self
            .io
            .call(ToolName::ReadThread, &ThreadRef::new(thread))
            .await?;
        let waiting = auth_requests(&read);
        let mut sign_in = result
            .get("interactive")
            .cloned()
            .or_else(|| waiting.first().cloned())
            .unwrap_or(Value::Null);
        loop {
            let answer = self.notify(thread, &sign_in, &waiting).await?;
            let connected = sign_in.get("connector").cloned();
            let stale_next = waiting
                .iter()
                .find(|w| w.get("connector") != connected.as_ref())
                .cloned();
            if answer.get("task_status").and_then(Value::as_str) == Some("input_required")
                && let Some(next) = stale_next
                && self
                    .io
                    .breaks(ids::COMPUTER_AUTH_INPUT_REQUIRED_READ_THREAD)
            {
                // Breaking the rule: the next sign-in taken from the earlier read, without
                // reading what the task needs now.
                sign_in = next;
                continue;
            }
            return Ok(answer);
        }
    }

    /// Opens one sign-in's URL (through the user), then notify_connected with its connector.
    async fn notify(
        &mut self,
        thread: &str,
        sign_in: &Value,
        waiting: &[Value],
    ) -> Result<Value, ClientError> {
        let connector = sign_in
            .get("connector")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let name = sign_in
            .get("display_name")
            .and_then(Value::as_str)
            .unwrap_or(&connector)
            .to_owned();
        if !self.io.breaks(ids::COMPUTER_AUTH_OPEN_THEN_NOTIFY)
            && let Some(url) = sign_in.get("auth_url").and_then(Value::as_str)
            && !self.io.ask_url(url, &format!("Sign in to {name}")).await?
        {
            return Ok(
                json!({"thread_id": thread, "event": "complete", "task_status": "failed", "text": "The user declined the sign-in."}),
            );
        }
        let mut args = NotifyConnected::new(thread, format!("{name} connected"));
        let omit = waiting.len() > 1 && self.io.breaks(ids::COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL);
        if !connector.is_empty() && !omit {
            args.connector = Some(connector);
        }
        self.io.call(ToolName::NotifyConnected, &args).await
    }

    /// Breaking `computer.auth.optional-ignored`: "reconnects" every optional connector.
    async fn notify_optional(&mut self, thread: &str, result: &Value) -> Result<(), ClientError> {
        let optional = result
            .get("optional_auth_requests")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for o in optional {
            if let Some(c) = o.get("connector").and_then(Value::as_str) {
                let mut args = NotifyConnected::new(thread, "Connected");
                args.connector = Some(c.to_owned());
                self.io.call(ToolName::NotifyConnected, &args).await?;
            }
        }
        Ok(())
    }

    /// cancel_task, then confirm with read_thread, retrying while the task stays active.
    async fn cancel(&mut self, thread: &str) -> Result<Settled, ClientError> {
        for _ in 0..3 {
            let cancelled = self
                .io
                .call(ToolName::CancelTask, &ThreadRef::new(thread))
                .await?;
            if self.io.breaks(ids::COMPUTER_CANCEL_CONFIRM) {
                self.io.show("final", &cancelled).await?;
                return Ok(Settled {
                    thread: Some(thread.to_owned()),
                });
            }
            let read = self
                .io
                .call(ToolName::ReadThread, &ThreadRef::new(thread))
                .await?;
            let status = read
                .pointer("/web_state/task_status")
                .and_then(Value::as_str);
            if status.is_some_and(crate::transcript::terminal) {
                self.io.show("final", &read).await?;
                return Ok(Settled {
                    thread: Some(thread.to_owned()),
                });
            }
        }
        Err(ClientError::Protocol {
            what: "cancel_task".into(),
            detail: format!("thread {thread} stayed active after three cancellations"),
        })
    }
}

/// A follow-up `message` on `thread`.
fn follow_up(thread: &str, message: &str) -> CallComputer {
    let mut args = CallComputer::new(message);
    args.thread_id = Some(thread.to_owned());
    args
}

/// Sign-ins the thread still waits on, from a read_thread result.
fn auth_requests(read: &Value) -> Vec<Value> {
    read.pointer("/web_state/entries")
        .and_then(Value::as_array)
        .and_then(|entries| entries.last())
        .and_then(|e| e.get("auth_requests"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn first_auth_request(read: &Value) -> Option<Value> {
    auth_requests(read).into_iter().next()
}

/// Marks an interactive the client built from a read_thread form (never sent to the server).
const FROM_READ_THREAD: &str = "from_read_thread";

/// The first question or confirmation waiting in a read_thread result.
fn first_form(read: &Value) -> Option<Value> {
    read.pointer("/web_state/entries")
        .and_then(Value::as_array)
        .and_then(|entries| entries.last())
        .and_then(|e| e.get("interactions"))
        .and_then(Value::as_array)
        .and_then(|all| {
            all.iter()
                .find(|i| i.get("status").and_then(Value::as_str) == Some("WAITING_FOR_USER"))
        })
        .cloned()
}

/// A read_thread form as the result the client follows: its event, and an interactive whose
/// `followup_uuid` is the form's `request.answer_submission_uuid`.
fn form_as_result(thread: &str, status: &str, form: &Value) -> Value {
    let kind = form
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("ask_user_question");
    let request = form.get("request").cloned().unwrap_or(Value::Null);
    let text = match request.get("questions").and_then(Value::as_array) {
        Some(questions) => questions
            .iter()
            .filter_map(|q| q.get("question").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        None => request
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    };
    let mut interactive = json!({
        "type": kind,
        "thread_id": thread,
        "respond_with_tool": form.get("respond_with_tool"),
        FROM_READ_THREAD: true,
    });
    if let Some(uuid) = request.get("answer_submission_uuid") {
        interactive["followup_uuid"] = uuid.clone();
    }
    json!({"thread_id": thread, "event": kind, "task_status": status, "text": text, "interactive": interactive})
}
