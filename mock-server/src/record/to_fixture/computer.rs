//! A Computer conversation as scenario turns: each entry's steps split into the segments its
//! checkpoints end, each checkpoint written as the outcome that reproduces it, and what the
//! user did next as its `then` (or `denied`).
//!
//! Steps are split where the upstream shows a wait: an `ask_user` step (the step a request
//! shows while it waits on the user) or a gap in time before a step (a sleep, a wait). Step
//! durations are the upstream's own timestamps, so the replay keeps its virtual time.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::observe::{Conversation, Entry, StepSeen, time};
use super::point::{Point, Resume};

/// What an outcome says when the recording never saw how a request ended.
pub(crate) const NOT_RECORDED: &str =
    "(not recorded: the recording stopped before this request ended)";

/// A step the recording saw start and never end lasts this long in the replay (so a cancel or
/// a look at it finds it still running).
const UNFINISHED_STEP_MS: i64 = 3_600_000;

/// The scenario's `turns` and `settings`.
pub(crate) fn turns(conversation: &Conversation) -> (Vec<Value>, Value) {
    let turns = conversation
        .entries
        .iter()
        .map(|entry| turn(entry, conversation))
        .collect();
    let mut settings = Map::new();
    let mut intervals = conversation.poll_intervals.clone();
    intervals.dedup();
    if !intervals.is_empty() && intervals != [5000] {
        settings.insert("poll_intervals_ms".into(), json!(intervals));
    }
    if conversation.cancel_failures > 0 {
        settings.insert(
            "cancel_failures".into(),
            json!(conversation.cancel_failures),
        );
    }
    (turns, Value::Object(settings))
}

fn turn(entry: &Entry, conversation: &Conversation) -> Value {
    let mut segments = split_steps(entry);
    let mut turn = build(entry, &mut segments, 0, conversation);
    if let (Some(refusal), Value::Object(map)) = (entry.before_send, &mut turn) {
        map.insert("before_send".into(), json!(refusal));
    }
    turn
}

/// The segment that starts at checkpoint index `at` (and everything after it), as JSON.
fn build(entry: &Entry, segments: &mut Vec<Vec<Value>>, at: usize, conv: &Conversation) -> Value {
    let steps = segments.get_mut(at).map(std::mem::take).unwrap_or_default();
    let Some(point) = entry.points.get(at) else {
        let text = if entry.cancelled {
            "(not recorded: the request was cancelled before it ended)"
        } else if entry.before_send == Some("access_denied") {
            "(not recorded: Computer was not available to the account)"
        } else {
            NOT_RECORDED
        };
        return json!({"steps": steps, "outcome": {"event": "complete", "text": text}});
    };
    let next = |segments: &mut Vec<Vec<Value>>| build(entry, segments, at + 1, conv);
    let unrecorded = || json!({"outcome": {"event": "complete", "text": NOT_RECORDED}});
    let result = &point.result;
    let said = result
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let outcome = match point.event() {
        "complete" => complete(result, &steps, conv),
        "error" => json!({"event": "error", "text": said}),
        "sleep" => {
            let wake = time(result, "wake_at");
            let slept = wake
                .zip(segment_end(&steps, entry))
                .map_or(3_600_000, |(wake, end)| {
                    (wake - end).num_milliseconds().max(0)
                });
            json!({"event": "sleep", "text": said, "wake_after": slept, "then": next(segments)})
        }
        "waiting" => {
            let mut out = json!({"event": "waiting", "text": said});
            if point.resumed.is_some() {
                out["then"] = next(segments);
            }
            out
        }
        event @ ("ask_user_question" | "confirm_action") => {
            let (then, denied) = match point.resumed {
                Some(Resume::Deny) => (unrecorded(), Some(next(segments))),
                Some(_) => (next(segments), None),
                None => (unrecorded(), None),
            };
            let mut out = json!({"event": event, "text": said,
                "interactions": interactions(point, event, &said_before(entry, at)), "then": then});
            if let Some(denied) = denied {
                out["denied"] = denied;
            }
            out
        }
        "auth_required" => {
            let then = if point.resumed.is_some() {
                next(segments)
            } else {
                unrecorded()
            };
            json!({"event": "auth_required", "text": said, "sign_ins": sign_ins(point), "then": then})
        }
        event @ ("interaction_required" | "two_factor_required" | "insufficient_credits") => {
            let then = if point.resumed.is_some() {
                next(segments)
            } else {
                unrecorded()
            };
            let mut out = json!({"event": event, "text": said, "then": then});
            if event == "interaction_required" {
                out["title"] = result
                    .pointer("/interactive/title")
                    .cloned()
                    .unwrap_or_else(|| json!("Continue on Perplexity"));
            }
            out
        }
        other => {
            json!({"event": "error", "text": format!("(recorded an unknown event `{other}`) {said}")})
        }
    };
    json!({"steps": steps, "outcome": outcome})
}

/// When the last step of a segment ended (or the entry started).
fn segment_end(steps: &[Value], entry: &Entry) -> Option<DateTime<Utc>> {
    let total: i64 = steps.iter().filter_map(|s| s["duration"].as_i64()).sum();
    let first = entry
        .steps
        .values()
        .find_map(|s| s.started_at)
        .or(entry.created_at)?;
    Some(first + chrono::Duration::milliseconds(total))
}

/// A `complete` outcome: the answer, the sources not already found in steps, the files.
fn complete(result: &Value, steps: &[Value], conv: &Conversation) -> Value {
    let mut said = result
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut files = Vec::new();
    for file in result
        .get("files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = file
            .get("filename")
            .and_then(Value::as_str)
            .unwrap_or("file");
        if let Some(url) = file.get("url").and_then(Value::as_str) {
            said = said.replace(&format!("]({url})"), "](attached)");
        }
        let mut spec = json!({"filename": name});
        if let Some(media) = file.get("media_type").filter(|m| !m.is_null()) {
            spec["media_type"] = media.clone();
        }
        if file.get("size_bytes").is_some_and(Value::is_null) {
            spec["size_unknown"] = json!(true);
        }
        if let Some(content) = file
            .get("url")
            .and_then(Value::as_str)
            .and_then(|url| conv.downloads.get(url_path(url)))
        {
            spec["content"] = json!(content);
        }
        files.push(spec);
    }
    let in_steps: Vec<&str> = steps
        .iter()
        .flat_map(|s| s["sources"].as_array().into_iter().flatten())
        .filter_map(|s| s["url"].as_str())
        .collect();
    let sources: Vec<Value> = result
        .get("sources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|s| s["url"].as_str().is_some_and(|u| !in_steps.contains(&u)))
        .map(source)
        .collect();
    let optional: Vec<Value> = result
        .get("optional_auth_requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(sign_in)
        .collect();
    let mut out = json!({"event": "complete", "text": said});
    if !sources.is_empty() {
        out["sources"] = json!(sources);
    }
    if !files.is_empty() {
        out["files"] = json!(files);
    }
    if !optional.is_empty() {
        out["optional_auth_requests"] = json!(optional);
    }
    if result.get("task_status").and_then(Value::as_str) == Some("input_required") {
        out["waiting_on_user"] = json!(true);
    }
    out
}

/// The path of an absolute URL (downloads are kept by path).
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or(path)
}

/// A source as a fixture writes it.
fn source(found: &Value) -> Value {
    let mut out = json!({"url": found["url"]});
    for key in ["title", "snippet"] {
        if let Some(v) = found.get(key).filter(|v| !v.is_null()) {
            out[key] = v.clone();
        }
    }
    out
}

/// A sign-in as a fixture writes it.
fn sign_in(found: &Value) -> Value {
    let mut out = json!({
        "connector": found.get("connector").cloned().unwrap_or_else(|| json!("connector")),
        "display_name": found.get("display_name").cloned().unwrap_or_else(|| json!("Connector")),
    });
    for key in ["title", "description"] {
        if let Some(v) = found.get(key).filter(|v| v.is_string()) {
            out[key] = v.clone();
        }
    }
    out
}

fn sign_ins(point: &Point) -> Vec<Value> {
    let mut found: Vec<Value> = Vec::new();
    let interactive = point.result.get("interactive").into_iter();
    for sign in interactive.chain(point.sign_ins.iter()) {
        let spec = sign_in(sign);
        if !found.iter().any(|f| f["connector"] == spec["connector"]) {
            found.push(spec);
        }
    }
    found
}

/// The progress lines of the segment that ends at checkpoint `at`.
fn said_before(entry: &Entry, at: usize) -> Vec<&str> {
    entry
        .progress
        .iter()
        .filter(|(segment, _)| *segment == at)
        .map(|(_, line)| line.as_str())
        .collect()
}

/// The prompts a question or confirmation checkpoint waits on, in the order the result lists
/// them. Without a form, the progress lines that opened them (`Asking: ...`, `Confirm: ...`)
/// say what each asks.
fn interactions(point: &Point, event: &str, said_before: &[&str]) -> Vec<Value> {
    let listed: Vec<&Value> = match point
        .result
        .get("pending_interactions")
        .and_then(Value::as_array)
    {
        Some(all) if all.len() > 1 => all.iter().collect(),
        _ => point.result.get("interactive").into_iter().collect(),
    };
    let kinds: Vec<&str> = if listed.is_empty() {
        vec![event]
    } else {
        listed.iter().filter_map(|p| p["type"].as_str()).collect()
    };
    let said = point
        .result
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("");
    let opened = |prefix: &str| said_before.iter().find_map(|l| l.strip_prefix(prefix));
    kinds
        .into_iter()
        .map(|kind| match kind {
            "confirm_action" => json!({"kind": "confirm",
                "action": point.action.clone().or_else(|| opened(CONFIRM_STEP).map(str::to_owned))
                    .unwrap_or_else(|| said.to_owned())}),
            _ => json!({"kind": "question",
                "questions": questions(point, opened(QUESTION_STEP).unwrap_or(said))}),
        })
        .collect()
}

/// The questions: as a form showed them, else named after the answers given (asking `said`'s
/// first line), else one.
fn questions(point: &Point, said: &str) -> Vec<Value> {
    if !point.questions.is_empty() {
        return point
            .questions
            .iter()
            .map(|q| {
                let mut out = json!({"id": q["id"], "question": q["question"]});
                for key in ["options", "allow_multiple", "allow_attachments"] {
                    if let Some(v) = q.get(key).filter(|v| !v.is_null()) {
                        out[key] = v.clone();
                    }
                }
                out
            })
            .collect();
    }
    let first_line = said.lines().next().unwrap_or(said);
    match point.answers.as_ref().and_then(Value::as_object) {
        Some(answers) if !answers.is_empty() => answers
            .keys()
            .map(|id| json!({"id": id, "question": first_line}))
            .collect(),
        _ => vec![json!({"id": "q1", "question": first_line})],
    }
}

/// The entry's steps, as fixture steps, in one list per segment.
fn split_steps(entry: &Entry) -> Vec<Vec<Value>> {
    let count = entry.points.len() + 1;
    let mut segments: Vec<Vec<Value>> = vec![Vec::new(); count];
    let steps: Vec<&StepSeen> = entry.steps.values().collect();
    let mut segment = 0usize;
    let mut waiting = false;
    let mut previous_end: Option<DateTime<Utc>> = None;
    for (i, step) in steps.iter().enumerate() {
        if step.kind == "ask_user" {
            if !waiting {
                segment += 1;
                waiting = true;
            }
            previous_end = step.completed_at;
            continue;
        }
        let gap =
            matches!((previous_end, step.started_at), (Some(end), Some(start)) if start > end);
        let waits_in_time = entry
            .points
            .get(segment)
            .is_some_and(|p| matches!(p.event(), "sleep" | "waiting"));
        if !waiting && gap && waits_in_time {
            segment += 1;
        }
        waiting = false;
        let next_start = steps.get(i + 1).and_then(|s| s.started_at);
        let duration = match (step.started_at, step.completed_at.or(next_start)) {
            (Some(start), Some(end)) if step.status != "cancelled" => {
                (end - start).num_milliseconds().max(0)
            }
            // Still running, or stopped by a cancel: it never ended on its own.
            (Some(_), None) if step.status != "completed" && step.status != "failed" => {
                UNFINISHED_STEP_MS
            }
            (Some(start), Some(end)) if step.status == "cancelled" => {
                (end - start).num_milliseconds().max(0) + UNFINISHED_STEP_MS
            }
            _ => 0,
        };
        let mut out = json!({"title": step.title, "type": step.kind, "duration": duration});
        if !step.sources.is_empty() {
            out["sources"] = Value::Array(step.sources.iter().map(source).collect());
        }
        if step.status == "failed" {
            out["status"] = json!("failed");
        }
        segments[segment.min(count - 1)].push(out);
        previous_end = step.completed_at;
    }
    // A recording without step states still has their titles from progress notifications.
    if entry.steps.is_empty() {
        for (segment, line) in &entry.progress {
            let title = line.trim_start_matches("Working: ");
            if !narrates_a_checkpoint(title, entry.points.get(*segment)) {
                segments[(*segment).min(count - 1)].push(json!({"title": title, "duration": 0}));
            }
        }
    }
    segments
}

/// The progress line the mock opens a question's step with, before the question.
const QUESTION_STEP: &str = "Asking: ";
/// The progress line the mock opens a confirmation's step with, before the action.
const CONFIRM_STEP: &str = "Confirm: ";

/// Whether a progress line is the mock's own word for the checkpoint that ends its segment
/// (the step it opens for each prompt, sign-in, code or top-up it waits on) or for how the
/// request ended, rather than a step of the work. A mock replaying the checkpoint says these
/// itself, so as steps they would be said twice.
fn narrates_a_checkpoint(line: &str, checkpoint: Option<&Point>) -> bool {
    let waits_on = checkpoint.is_some_and(|point| match point.event() {
        "ask_user_question" | "confirm_action" => {
            line.starts_with(QUESTION_STEP) || line.starts_with(CONFIRM_STEP)
        }
        "auth_required" => point
            .sign_ins
            .iter()
            .chain(point.result.get("interactive"))
            .filter_map(|s| s.get("display_name").and_then(Value::as_str))
            .any(|name| line.strip_prefix("Connect ") == Some(name)),
        "interaction_required" => {
            point
                .result
                .pointer("/interactive/title")
                .and_then(Value::as_str)
                == Some(line)
        }
        "two_factor_required" => line == "Two-factor authentication",
        "insufficient_credits" => line == "Out of credits",
        _ => false,
    });
    waits_on
        || line.starts_with("Sleeping until ")
        || ["Completed.", "Failed.", "Waiting."].contains(&line)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Conversation, turns};
    use crate::record::rpc::Rpc;

    fn call(
        tool: &str,
        arguments: serde_json::Value,
        progress: &[&str],
        result: serde_json::Value,
    ) -> Rpc {
        Rpc {
            method: "tools/call".into(),
            params: json!({"name": tool, "arguments": arguments}),
            answer: Some(json!({"structuredContent": result})),
            stream: progress
                .iter()
                .map(
                    |line| json!({"method": "notifications/progress", "params": {"message": line}}),
                )
                .collect(),
            http_status: 200,
        }
    }

    #[test]
    fn progress_lines_are_the_steps_of_their_segment_without_the_mocks_own_narration() {
        let asked = "May I send it?";
        let calls = [
            Rpc {
                http_status: 401,
                ..call(
                    "call_perplexity_computer",
                    json!({"message": "Send it"}),
                    &[],
                    json!({}),
                )
            },
            call(
                "call_perplexity_computer",
                json!({"message": "Send it"}),
                &["Drafting", "Confirm: Send the email"],
                json!({"event": "confirm_action", "text": asked, "thread_id": "t1",
                    "task_status": "input_required"}),
            ),
            call(
                "confirm_action_approve",
                json!({"thread_id": "t1", "result": "yes"}),
                &["Sending", "Completed."],
                json!({"event": "complete", "text": "Sent.", "thread_id": "t1",
                    "task_status": "completed"}),
            ),
        ];
        let (turns, _) = turns(&Conversation::observe(&calls));
        assert_eq!(
            turns,
            vec![
                json!({"steps": [{"title": "Drafting", "duration": 0}], "outcome": {
                "event": "confirm_action", "text": asked,
                "interactions": [{"kind": "confirm", "action": "Send the email"}],
                "then": {"steps": [{"title": "Sending", "duration": 0}],
                    "outcome": {"event": "complete", "text": "Sent."}}}})
            ],
            "the refused (401) call is no turn"
        );
    }
}
