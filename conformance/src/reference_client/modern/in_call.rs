//! In-call elicitation (MRTR) for the modern reference client: each `input_required` is
//! answered by retrying the call; a form that comes back as its event (the user declined it) is
//! resumed with the follow-up tools; a still-running thread is followed with read_thread.

use serde_json::{Map, Value, json};

use super::{CPC, MAX_POLLS, Modern, READ_EVERY, task_json};
use crate::error::ClientError;
use crate::rules::ids;

impl Modern {
    /// Calls a tool with in-call elicitation, answering each `input_required` by retrying the
    /// call; then follows the thread to the end. Returns (thread, no task).
    pub(super) async fn follow_call(
        &mut self,
        args: &Value,
    ) -> Result<Option<(String, Option<String>)>, ClientError> {
        let params = self.call_params(CPC, args);
        let capabilities = self.capabilities("tools/call");
        let mut answer = self
            .send("tools/call", params.clone(), capabilities.clone(), None)
            .await?;
        let mut invalid_once = self.breaks(ids::ELICITATION_CONTENT_SCHEMA);
        for _ in 0..MAX_POLLS {
            let Some(result) = answer.result().cloned() else {
                return Err(ClientError::Protocol {
                    what: "tools/call".into(),
                    detail: answer.message.to_string(),
                });
            };
            if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
                return self.finish(&task_json(&result)).await;
            }
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut responses = Map::new();
            let mut url_asked = false;
            for (key, request) in &requests {
                url_asked |= request.pointer("/params/mode").and_then(Value::as_str) == Some("url");
                responses.insert(key.clone(), self.elicit(request).await?);
            }
            // The same call, with a progress token of its own (the first one's request ended).
            let mut retry = params.clone();
            retry["_meta"]["progressToken"] = json!(format!("progress-{}", self.next_id));
            retry["inputResponses"] = Value::Object(responses.clone());
            if let Some(state) = result.get("requestState") {
                retry["requestState"] = state.clone();
            }
            let mut retry_capabilities = capabilities.clone();
            if url_asked && self.breaks(ids::ELICITATION_MODES_DECLARED) {
                // Breaking the modes rule: the retry answers a URL request declaring form only.
                retry_capabilities = json!({"elicitation": {"form": {}}});
            }
            let asks_fields = requests.values().any(|r| {
                r.pointer("/params/requestedSchema/properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty())
            });
            let accepts = responses.values().any(|r| r.get("content").is_some());
            if invalid_once && asks_fields && accepts {
                // Breaking the content rule: first an answer with a field the form lacks (on a
                // form with fields, which the server checks and refuses, so the state stays
                // usable for the real answer).
                invalid_once = false;
                let mut bad = retry.clone();
                bad["_meta"]["progressToken"] = json!(format!("progress-bad-{}", self.next_id));
                if let Some(all) = bad["inputResponses"].as_object_mut() {
                    for response in all.values_mut() {
                        if response.get("content").is_some() {
                            response["content"]["not-a-field"] = json!("x");
                        }
                    }
                }
                self.send("tools/call", bad, retry_capabilities.clone(), None)
                    .await?;
            }
            // Breaking the MRTR rule: the retry reuses the original JSON-RPC id.
            let reuse = self
                .breaks(ids::ELICITATION_MRTR_REQUEST_STATE)
                .then_some(answer.id);
            answer = self
                .send("tools/call", retry, retry_capabilities, reuse)
                .await?;
        }
        Err(ClientError::Protocol {
            what: "tools/call".into(),
            detail: "the call kept asking for input".into(),
        })
    }

    /// Shows a finished result, or follows a still-running thread with read_thread first.
    async fn finish(
        &mut self,
        task: &Value,
    ) -> Result<Option<(String, Option<String>)>, ClientError> {
        let Some(thread) = task
            .get("thread_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            self.show("error", task).await?;
            return Ok(None);
        };
        let mut task = task.clone();
        // A declined form came back as its event: resume with the follow-up tools.
        while let Some(interactive) = task
            .get("interactive")
            .filter(|_| {
                matches!(
                    task.get("event").and_then(Value::as_str),
                    Some("ask_user_question" | "confirm_action")
                )
            })
            .cloned()
        {
            task = self.resume_with_tools(&thread, &interactive, &task).await?;
        }
        let mut status = task
            .get("task_status")
            .and_then(Value::as_str)
            .unwrap_or("working")
            .to_owned();
        let goes_on = !crate::transcript::terminal(&status) && status != "input_required";
        if goes_on
            && task.get("event").and_then(Value::as_str) == Some("complete")
            && self.breaks(ids::ELICITATION_WORKING_READ_THREAD)
        {
            // Breaking the rule: the answer that goes on working shown as the end.
            self.show("final", &task).await?;
            return Ok(Some((thread, None)));
        }
        let mut last = task.clone();
        let mut polls = 0;
        while !crate::transcript::terminal(&status) && status != "input_required" {
            polls += 1;
            if polls > MAX_POLLS {
                return Err(ClientError::Protocol {
                    what: "read_thread".into(),
                    detail: format!("thread {thread} was still {status} after {MAX_POLLS} polls"),
                });
            }
            tokio::time::sleep(READ_EVERY).await;
            let params = self.call_params("read_thread", &json!({"thread_id": thread}));
            let read = task_json(&self.request("tools/call", params).await?);
            status = read
                .pointer("/web_state/task_status")
                .and_then(Value::as_str)
                .unwrap_or("working")
                .to_owned();
            last = read;
        }
        let kind = if status == "completed" {
            "final"
        } else {
            "error"
        };
        self.show(kind, &last).await?;
        Ok(Some((thread, None)))
    }

    /// The user declined the in-call form, so the call returned the event: ask again the way a
    /// plain tools client does, and answer with the event's follow-up tool on the thread.
    async fn resume_with_tools(
        &mut self,
        thread: &str,
        interactive: &Value,
        task: &Value,
    ) -> Result<Value, ClientError> {
        let text = task.get("text").cloned().unwrap_or(Value::Null);
        let uuid = interactive.get("followup_uuid").cloned();
        let (tool, mut args) =
            if interactive.get("type").and_then(Value::as_str) == Some("confirm_action") {
                let answer = self
                    .user_post("ask", json!({"kind": "confirm", "message": text}))
                    .await?;
                let approve = answer.get("action").and_then(Value::as_str) == Some("accept");
                let (tool, why) = if approve {
                    ("confirm_action_approve", "Approved by the user.")
                } else {
                    ("confirm_action_deny", "Denied by the user.")
                };
                (tool, json!({"thread_id": thread, "result": why}))
            } else {
                let answer = self
                    .user_post("ask", json!({"kind": "question", "message": text}))
                    .await?;
                let answers = answer.get("content").cloned().unwrap_or_else(|| json!({}));
                if self.breaks(ids::ELICITATION_DECLINED_FOLLOW_UP_TOOLS) {
                    // Breaking the rule: the answer sent as a new message on the thread.
                    let message = format!("My answers: {answers}");
                    let params =
                        self.call_params(CPC, &json!({"thread_id": thread, "message": message}));
                    return Ok(task_json(&self.request("tools/call", params).await?));
                }
                (
                    "answer_question",
                    json!({"thread_id": thread, "answers": answers}),
                )
            };
        if let Some(u) = uuid {
            args["followup_uuid"] = u;
        }
        let params = self.call_params(tool, &args);
        Ok(task_json(&self.request("tools/call", params).await?))
    }
}
