//! What a recording shows of one Computer conversation, gathered call by call: the user's
//! turns (entries), the checkpoints each reached in order and what the user did about each
//! (answered, approved, denied, signed in, wrote again), and every step seen, from whichever
//! answer showed it (`read_thread`'s `web_state`, a task's `ai.perplexity/steps`, progress
//! notifications).

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::point::{Point, Resume};
use crate::record::rpc::{Rpc, tool_payload};

/// A step as last seen.
#[derive(Debug, Clone, Default)]
pub(crate) struct StepSeen {
    pub(crate) title: String,
    pub(crate) kind: String,
    pub(crate) status: String,
    pub(crate) started_at: Option<DateTime<Utc>>,
    pub(crate) completed_at: Option<DateTime<Utc>>,
    pub(crate) sources: Vec<Value>,
}

/// One user turn.
#[derive(Debug, Clone, Default)]
pub(crate) struct Entry {
    /// The check before sending refused the first try this way.
    pub(crate) before_send: Option<&'static str>,
    /// Checkpoints in order.
    pub(crate) points: Vec<Point>,
    /// Steps by id, in the order the upstream numbered them.
    pub(crate) steps: BTreeMap<(u64, String), StepSeen>,
    /// Step titles seen only in progress notifications, in order, each with the segment it
    /// came in (how many checkpoints the entry had reached: 0 before the first).
    pub(crate) progress: Vec<(usize, String)>,
    /// The user cancelled it.
    pub(crate) cancelled: bool,
    /// When it started, when an answer said.
    pub(crate) created_at: Option<DateTime<Utc>>,
}

/// The first conversation of a recording.
#[derive(Debug, Default)]
pub(crate) struct Conversation {
    /// The first message, which routes a replay to the scenario.
    pub(crate) first_message: Option<String>,
    thread: Option<String>,
    /// Other Computer threads the recording saw: they are not in the script (one fixture is
    /// one scenario, the first thread's), only in `recording`.
    pub(crate) other_threads: BTreeSet<String>,
    /// Its turns.
    pub(crate) entries: Vec<Entry>,
    refused: Option<&'static str>,
    tasks: BTreeMap<String, String>,
    /// `pollIntervalMs` as the tasks announced it, in order.
    pub(crate) poll_intervals: Vec<u64>,
    /// `cancel_task` calls that failed (an error without `task_status`) before one worked.
    pub(crate) cancel_failures: u32,
    /// The files' downloaded bytes, by path.
    pub(crate) downloads: BTreeMap<String, String>,
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

pub(crate) fn time(value: &Value, key: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value.get(key)?.as_str()?)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

impl Conversation {
    /// Folds every call of the recording into the conversation.
    pub(crate) fn observe(calls: &[Rpc]) -> Self {
        let mut conversation = Self::default();
        for call in calls {
            conversation.call(call);
        }
        conversation
    }

    fn call(&mut self, call: &Rpc) {
        if call.http_status >= 400 {
            // Refused before it reached Computer (a sign-in that lapsed): the client sends it
            // again, and that one is the turn.
            return;
        }
        let answer = call.answer.clone().unwrap_or(Value::Null);
        match call.method.as_str() {
            "tools/call" => self.tool(call, &answer),
            "tasks/get" | "tasks/result" => self.task_answer(call, &answer),
            "tasks/update" => self.input_responses(call.params.get("inputResponses")),
            // The client's answer to an in-call elicitation.
            "" => match call.params.get("action").and_then(Value::as_str) {
                Some("accept") => {
                    self.resume(Resume::Answer, call.params.get("content").cloned());
                }
                Some("decline") => self.resume_confirm(Resume::Deny),
                _ => {}
            },
            _ => {}
        }
    }

    /// Whether a result or call is about our thread (adopting the first one seen).
    fn ours(&mut self, thread: Option<&str>) -> bool {
        match (thread, &self.thread) {
            (Some(id), Some(ours)) => {
                if id != ours {
                    self.other_threads.insert(id.to_owned());
                }
                id == ours
            }
            (Some(id), None) => {
                self.thread = Some(id.to_owned());
                true
            }
            (None, _) => true,
        }
    }

    fn tool(&mut self, call: &Rpc, answer: &Value) {
        let Some(tool) = call.tool() else { return };
        let args = call.arguments();
        let thread_arg = args.get("thread_id").and_then(Value::as_str);
        if thread_arg.is_some() && !self.ours(thread_arg) {
            return;
        }
        let payload = tool_payload(answer);
        let task = answer
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let task_thread = answer
            .pointer("/_meta/ai.perplexity~1threadId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let (Some(task), Some(thread)) = (&task, &task_thread) {
            self.tasks.insert(task.clone(), thread.clone());
        }
        match tool {
            "call_perplexity_computer" if call.params.get("inputResponses").is_some() => {
                // A 2026-07-28 call retried with the answers to its own input requests.
                self.input_responses(call.params.get("inputResponses"));
            }
            "call_perplexity_computer" => {
                let event = payload.as_ref().and_then(|p| text(p, "event"));
                let thread = payload
                    .as_ref()
                    .and_then(|p| text(p, "thread_id"))
                    .or(task_thread);
                if thread_arg.is_none() && self.thread.is_some() {
                    // A second conversation: only the first one is kept (and this one noted).
                    if let Some(other) = thread.filter(|t| Some(t) != self.thread.as_ref()) {
                        self.other_threads.insert(other);
                    }
                    return;
                }
                if self.first_message.is_none() {
                    self.first_message = text(args, "message");
                }
                match event.as_deref() {
                    Some("insufficient_credits") if thread.is_none() => {
                        let interactive = payload.as_ref().and_then(|p| p.get("interactive"));
                        let reason = interactive.and_then(|i| text(i, "reason"));
                        self.refused = Some(match reason.as_deref() {
                            Some("quota_exhausted") => "quota_exhausted",
                            _ if interactive.is_some_and(|i| i.get("billing_url").is_some()) => {
                                "insufficient_credits"
                            }
                            _ => "credit_check_unavailable",
                        });
                        return;
                    }
                    Some("access_denied") => {
                        self.entries.push(Entry {
                            before_send: Some("access_denied"),
                            ..Entry::default()
                        });
                        return;
                    }
                    _ => {}
                }
                if !self.ours(thread.as_deref()) {
                    return;
                }
                if !self.resume(Resume::Message, None) {
                    self.entries.push(Entry {
                        before_send: self.refused.take(),
                        ..Entry::default()
                    });
                }
            }
            "answer_question" => {
                self.resume(Resume::Answer, args.get("answers").cloned());
            }
            "confirm_action_approve" => self.resume_confirm(Resume::Approve),
            "confirm_action_deny" => self.resume_confirm(Resume::Deny),
            "notify_connected" => {
                if self.connected(args.get("connector"), payload.as_ref()) {
                    // The upstream's acknowledgement, not a checkpoint: what the request does
                    // next shows in read_thread (or the next call).
                    self.progress(&call.stream);
                    return;
                }
            }
            "cancel_task" => {
                let failed = payload.as_ref().is_some_and(|p| {
                    p.get("event").and_then(Value::as_str) == Some("error")
                        && p.get("task_status").is_none()
                });
                if failed {
                    self.cancel_failures += 1;
                } else if let Some(entry) = self.entries.last_mut() {
                    entry.cancelled = true;
                }
            }
            "read_thread" => {
                if let Some(payload) = &payload {
                    self.read_thread(payload);
                }
                return;
            }
            _ => return,
        }
        self.progress(&call.stream);
        self.elicitations(&call.stream);
        if let Some(input) = answer.get("inputRequests") {
            self.input_requests(input, answer);
        }
        if let Some(payload) = payload {
            self.checkpoint(payload);
        }
    }

    /// Notes `how` on the latest open checkpoint (moving it on once every prompt is
    /// answered); false when none was waiting.
    fn resume(&mut self, how: Resume, answers: Option<Value>) -> bool {
        let Some(point) = self
            .entries
            .last_mut()
            .and_then(|e| e.points.last_mut())
            .filter(|p| p.resumed.is_none())
        else {
            return false;
        };
        let resumable = match how {
            Resume::Message => matches!(
                point.event(),
                "interaction_required" | "two_factor_required" | "waiting" | "insufficient_credits"
            ),
            Resume::Answer => matches!(point.event(), "ask_user_question" | "confirm_action"),
            Resume::Approve | Resume::Deny => {
                matches!(point.event(), "confirm_action" | "ask_user_question")
            }
            Resume::Connected => point.event() == "auth_required",
        };
        if resumable {
            point.answered(how);
            match (&mut point.answers, answers) {
                (Some(Value::Object(given)), Some(Value::Object(more))) => given.extend(more),
                (given, Some(more)) => *given = Some(more),
                (_, None) => {}
            }
        }
        resumable
    }

    /// A sign-in the user finished. True when the reply only acknowledges it (a `complete`
    /// while a sign-in was waiting, as the Computer documents say `notify_connected` answers);
    /// an acknowledgement that the task still waits (`input_required`) leaves the checkpoint
    /// open for the other sign-ins.
    fn connected(&mut self, connector: Option<&Value>, reply: Option<&Value>) -> bool {
        let acknowledged = reply.is_some_and(|r| text(r, "event").as_deref() == Some("complete"));
        if !acknowledged {
            self.resume(Resume::Connected, None);
            return false;
        }
        let still_waiting =
            reply.is_some_and(|r| text(r, "task_status").as_deref() == Some("input_required"));
        let Some(point) = self
            .entries
            .last_mut()
            .and_then(|e| e.points.last_mut())
            .filter(|p| p.resumed.is_none() && p.event() == "auth_required")
        else {
            return false;
        };
        if !still_waiting {
            point.resumed = Some(Resume::Connected);
            return true;
        }
        point.handled.push(Resume::Connected);
        if let Some(name) = connector.and_then(Value::as_str) {
            point.add_sign_in(serde_json::json!({"connector": name, "display_name": name}));
        }
        true
    }

    /// An approval or a denial; answering the questions of a mixed checkpoint comes first.
    fn resume_confirm(&mut self, how: Resume) {
        let point = self.entries.last_mut().and_then(|e| e.points.last_mut());
        if let Some(point) = point
            && point.resumed == Some(Resume::Answer)
        {
            point.resumed = Some(how);
            return;
        }
        self.resume(how, None);
    }

    /// A Computer result: a new checkpoint, or more of the latest one when it is the same.
    fn checkpoint(&mut self, payload: Value) {
        let Some(entry) = self.entries.last_mut() else {
            return;
        };
        let event = text(&payload, "event").unwrap_or_default();
        match event.as_str() {
            "timeout" | "transcript" | "queued" | "" => return,
            "cancelled" => {
                entry.cancelled = true;
                return;
            }
            _ => {}
        }
        if entry
            .points
            .last()
            .is_some_and(|last| last.restated_by(&payload))
        {
            return;
        }
        if let Some(last) = entry.points.last_mut()
            && last.resumed.is_none()
            && last.event() == event
            && last.result.get("text") == payload.get("text")
        {
            if payload.as_object().map_or(0, serde_json::Map::len)
                >= last.result.as_object().map_or(0, serde_json::Map::len)
            {
                last.result = payload;
            }
            return;
        }
        entry.points.push(Point::waiting_on(payload));
    }

    /// Steps and open prompts from `read_thread`; a settled entry's outcome from its transcript.
    fn read_thread(&mut self, payload: &Value) {
        if !self.ours(payload.get("thread_id").and_then(Value::as_str)) {
            return;
        }
        let Some(states) = payload
            .pointer("/web_state/entries")
            .and_then(Value::as_array)
        else {
            return;
        };
        // The state lists the latest entries: the last is ours, the one before our previous...
        let count = self.entries.len();
        for (back, state) in states.iter().rev().enumerate() {
            let Some(entry) = count
                .checked_sub(back + 1)
                .and_then(|i| self.entries.get_mut(i))
            else {
                break;
            };
            entry.created_at = entry.created_at.or_else(|| time(state, "created_at"));
            if let Some(steps) = state.get("steps").and_then(Value::as_array) {
                merge_steps(entry, steps);
            }
            let prompts = state.get("interactions").and_then(Value::as_array);
            if let Some(point) = entry.points.last_mut().filter(|p| p.resumed.is_none()) {
                for prompt in prompts.into_iter().flatten() {
                    if let Some(questions) = prompt
                        .pointer("/request/questions")
                        .and_then(Value::as_array)
                    {
                        point.questions.extend(questions.iter().cloned());
                    }
                    if let Some(action) = prompt.pointer("/request/action").and_then(Value::as_str)
                    {
                        point.action = Some(action.to_owned());
                    }
                }
                // Sign-ins done drop off the list: keep every one seen.
                for sign_in in state
                    .get("auth_requests")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    point.add_sign_in(sign_in.clone());
                }
            }
            if back == 0 {
                let workflow = prompts.into_iter().flatten().find_map(|p| {
                    (p.get("type").and_then(Value::as_str) == Some("workflow"))
                        .then(|| text(p, "status"))
                        .flatten()
                });
                let said = last_reply(payload.get("text").and_then(Value::as_str).unwrap_or(""));
                let event = match workflow.as_deref() {
                    Some("WORKFLOW_COMPLETED") => "complete",
                    Some("WORKFLOW_ERROR") => "error",
                    _ => continue,
                };
                let mut result = serde_json::json!({"event": event, "text": said,
                    "task_status": state.get("status").cloned().unwrap_or(Value::Null)});
                if event == "complete" {
                    let sources: Vec<Value> = Vec::new();
                    result["sources"] = Value::Array(sources);
                }
                let known = entry
                    .points
                    .last()
                    .is_some_and(|p| p.resumed.is_none() && p.event() == event);
                if !known {
                    self.checkpoint(result);
                }
            }
        }
    }

    /// A task's answer: its steps, its input requests, its final result.
    fn task_answer(&mut self, call: &Rpc, answer: &Value) {
        let task = call.params.get("taskId").and_then(Value::as_str);
        let thread = task.and_then(|t| self.tasks.get(t)).cloned().or_else(|| {
            answer
                .pointer("/_meta/ai.perplexity~1threadId")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
        if !self.ours(thread.as_deref()) {
            return;
        }
        if let Some(interval) = answer.get("pollIntervalMs").and_then(Value::as_u64) {
            self.poll_intervals.push(interval);
        }
        if let Some(steps) = answer
            .pointer("/_meta/ai.perplexity~1steps")
            .and_then(Value::as_array)
            && let Some(entry) = self.entries.last_mut()
        {
            merge_steps(entry, steps);
        }
        if let Some(input) = answer.get("inputRequests") {
            self.input_requests(input, answer);
        }
        let result = answer.get("result").unwrap_or(answer);
        if let Some(payload) = tool_payload(result) {
            self.checkpoint(payload);
        }
    }

    /// Questions, confirmations and sign-ins a 2026-07-28 answer asks for (`inputRequests`).
    fn input_requests(&mut self, input: &Value, answer: &Value) {
        let Some(requests) = input.as_object() else {
            return;
        };
        let mut point = Point::default();
        let mut event = None;
        for (key, request) in requests {
            let params = request.get("params").unwrap_or(&Value::Null);
            let message = text(params, "message").unwrap_or_default();
            if key.starts_with("answer:") {
                event.get_or_insert("ask_user_question");
                point.questions.extend(schema_questions(params));
            } else if key.starts_with("confirm:") {
                event.get_or_insert("confirm_action");
                point.action = Some(message.clone());
            } else if key.starts_with("sign-in:") {
                // A URL-mode request: the page signs the connector in.
                event.get_or_insert("auth_required");
                point.sign_ins.push(url_sign_in(&message));
            } else if key.starts_with("credits:") {
                // A URL-mode request: the billing page, after which the task goes on.
                event.get_or_insert("insufficient_credits");
            }
        }
        let Some(event) = event else { return };
        point.prompts = requests
            .keys()
            .filter(|key| {
                ["answer:", "confirm:", "sign-in:", "credits:"]
                    .iter()
                    .any(|kind| key.starts_with(kind))
            })
            .count();
        let text = answer
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(|m| m.trim_start_matches("Waiting for you: ").to_owned())
            .unwrap_or_default();
        point.result =
            serde_json::json!({"event": event, "text": text, "task_status": "input_required"});
        self.open(point);
    }

    /// Legacy in-call elicitations (`elicitation/create` on the call's stream).
    fn elicitations(&mut self, stream: &[Value]) {
        for message in stream {
            if message.get("method").and_then(Value::as_str) != Some("elicitation/create") {
                continue;
            }
            let params = message.get("params").unwrap_or(&Value::Null);
            let questions = schema_questions(params);
            let text = text(params, "message").unwrap_or_default();
            let mut point = Point::default();
            if questions.is_empty() {
                point.action = Some(text.clone());
                point.result = serde_json::json!({"event": "confirm_action", "text": text, "task_status": "input_required"});
            } else {
                point.questions = questions;
                point.result = serde_json::json!({"event": "ask_user_question", "text": text, "task_status": "input_required"});
            }
            self.open(point);
        }
    }

    /// A checkpoint seen through a form: kept unless the entry already waits on one.
    fn open(&mut self, point: Point) {
        let Some(entry) = self.entries.last_mut() else {
            return;
        };
        if let Some(last) = entry.points.last_mut().filter(|p| p.resumed.is_none()) {
            if last.questions.is_empty() {
                last.questions = point.questions;
            }
            last.action = last.action.take().or(point.action);
            if last.handled.is_empty() {
                last.prompts = last.prompts.max(point.prompts);
            }
            return;
        }
        entry.points.push(point);
    }

    /// Answers sent with `inputResponses` (tasks/update, or a retried call).
    fn input_responses(&mut self, responses: Option<&Value>) {
        let Some(responses) = responses.and_then(Value::as_object) else {
            return;
        };
        for (key, response) in responses {
            let action = response.get("action").and_then(Value::as_str);
            match (key.split(':').next(), action) {
                (Some("answer"), Some("accept")) => {
                    self.resume(Resume::Answer, response.get("content").cloned());
                }
                (Some("confirm"), Some("accept")) => self.resume_confirm(Resume::Approve),
                (Some("confirm"), Some("decline")) => self.resume_confirm(Resume::Deny),
                (Some("sign-in"), Some("accept")) => {
                    self.resume(Resume::Connected, None);
                }
                (Some("credits"), Some("accept")) => {
                    self.resume(Resume::Message, None);
                }
                _ => {}
            }
        }
    }

    /// Step titles from progress notifications, in the segment the call reached them in (a
    /// call that moved a checkpoint on reports the steps after it).
    fn progress(&mut self, stream: &[Value]) {
        let Some(entry) = self.entries.last_mut() else {
            return;
        };
        let segment = entry.points.len();
        for message in stream {
            if message.get("method").and_then(Value::as_str) == Some("notifications/progress")
                && let Some(line) = message.pointer("/params/message").and_then(Value::as_str)
                && !entry.progress.iter().any(|(_, l)| l == line)
            {
                entry.progress.push((segment, line.to_owned()));
            }
        }
    }
}

/// The connector a URL-mode sign-in request names in its message ("Sign in to Slack so
/// Computer can continue."), as `read_thread`'s `auth_requests` would list it.
fn url_sign_in(message: &str) -> Value {
    let rest = message.strip_prefix("Sign in to ").unwrap_or(message);
    let name = rest
        .split_once(" so ")
        .map_or(rest, |(name, _)| name)
        .trim_end_matches('.')
        .trim();
    let connector: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    serde_json::json!({"connector": connector, "display_name": name})
}

/// The form fields of an elicitation as questions.
fn schema_questions(params: &Value) -> Vec<Value> {
    let Some(properties) = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(id, field)| {
            let options = field
                .get("enum")
                .or_else(|| field.pointer("/items/enum"))
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            serde_json::json!({"id": id, "question": field.get("title").or_else(|| field.get("description")).cloned().unwrap_or(Value::String(id.clone())),
                "options": options, "allow_multiple": field.get("type").and_then(Value::as_str) == Some("array")})
        })
        .collect()
}

/// The last thing Computer said in a `read_thread` transcript.
fn last_reply(transcript: &str) -> String {
    transcript
        .rsplit_once("**Computer:** ")
        .map(|(_, said)| {
            said.split("\n\n**User:** ")
                .next()
                .unwrap_or(said)
                .to_owned()
        })
        .unwrap_or_default()
}

/// Keeps the latest view of each step (`step-N` ids sort by N).
fn merge_steps(entry: &mut Entry, steps: &[Value]) {
    for step in steps {
        let Some(id) = step.get("id").and_then(Value::as_str) else {
            continue;
        };
        let number = id
            .rsplit('-')
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(u64::MAX);
        let seen = entry.steps.entry((number, id.to_owned())).or_default();
        seen.title = text(step, "title").unwrap_or_default();
        seen.kind = text(step, "type").unwrap_or_else(|| "agent".into());
        seen.status = text(step, "status").unwrap_or_default();
        seen.started_at = time(step, "started_at").or(seen.started_at);
        seen.completed_at = time(step, "completed_at").or(seen.completed_at);
        if let Some(sources) = step.get("sources").and_then(Value::as_array)
            && sources.len() >= seen.sources.len()
        {
            seen.sources = sources.clone();
        }
    }
}
