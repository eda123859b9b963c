//! In-call elicitation (MRTR) for the modern reference client: each `input_required` is
//! answered by retrying the call; a form that comes back as its event (the user declined it) is
//! resumed with the follow-up tools; a still-running thread is followed with read_thread.

use mock_server::model::arguments::{AnswerQuestion, CallComputer, ConfirmAction, ThreadRef};
use mock_server::model::elicitation::{ElicitAction, InputResponses};
use mock_server::model::lifecycle::{ClientCapabilities, ElicitationModes, ResultType};
use mock_server::model::request::ClientRequest;
use mock_server::model::results::Event;
use mock_server::model::tools::ToolName;
use serde_json::{Map, Value, json};

use super::{CPC, MAX_POLLS, Modern, READ_EVERY, elicit_params, is_result, task_json};
use crate::error::ClientError;
use crate::rules::ids;

impl Modern {
    /// Calls a tool with in-call elicitation, answering each `input_required` by retrying the
    /// call; then follows the thread to the end. Returns (thread, no task).
    pub(super) async fn follow_call(
        &mut self,
        args: &CallComputer,
    ) -> Result<Option<(String, Option<String>)>, ClientError> {
        let params = self.call_params(CPC, args)?;
        let capabilities = self.capabilities("tools/call");
        let mut answer = self
            .send(ClientRequest::CallTool(params.clone()), capabilities, None)
            .await?;
        let mut invalid_once = self.breaks(ids::ELICITATION_CONTENT_SCHEMA);
        for _ in 0..MAX_POLLS {
            let Some(result) = answer.result().cloned() else {
                return Err(ClientError::Protocol {
                    what: "tools/call".into(),
                    detail: super::wire::describe(&answer.message),
                });
            };
            if !is_result(&result, ResultType::InputRequired) {
                return self.finish(&task_json(&result)).await;
            }
            let requests = result
                .get("inputRequests")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut responses = InputResponses::default();
            let mut url_asked = false;
            for (key, request) in &requests {
                url_asked |= elicit_params(request).is_some_and(|p| p.is_url());
                let result = self.elicit(request).await?;
                responses.0.push((key.clone(), result));
            }
            // The same call, with a progress token of its own (the first one's request ended),
            // echoing the state it was given.
            let mut retry = params.clone().with_meta(self.progress());
            retry.input_responses = Some(Box::new(responses.to_value()));
            retry.request_state = result
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let mut retry_capabilities = capabilities;
            if url_asked && self.breaks(ids::ELICITATION_MODES_DECLARED) {
                // Breaking the modes rule: the retry answers a URL request declaring form only.
                retry_capabilities = ClientCapabilities {
                    elicitation: Some(ElicitationModes {
                        form: true,
                        url: false,
                    }),
                    ..ClientCapabilities::default()
                };
            }
            let asks_fields = requests
                .values()
                .any(|r| elicit_params(r).is_some_and(|p| p.has_fields()));
            let accepts = responses.0.iter().any(|(_, r)| r.content.is_some());
            if invalid_once && asks_fields && accepts {
                // Breaking the content rule: first an answer with a field the form lacks (on a
                // form with fields, which the server checks and refuses, so the state stays
                // usable for the real answer).
                invalid_once = false;
                let mut spoiled = responses.clone();
                for (_, response) in &mut spoiled.0 {
                    if let Some(content) = &mut response.content {
                        content.insert("not-a-field".to_owned(), json!("x"));
                    }
                }
                let mut bad = retry.clone();
                bad.meta.progress_token = Some(format!("progress-bad-{}", self.next_id).into());
                bad.input_responses = Some(Box::new(spoiled.to_value()));
                self.send(ClientRequest::CallTool(bad), retry_capabilities, None)
                    .await?;
            }
            // Breaking the MRTR rule: the retry reuses the original JSON-RPC id.
            let reuse = self
                .breaks(ids::ELICITATION_MRTR_REQUEST_STATE)
                .then_some(answer.id);
            answer = self
                .send(ClientRequest::CallTool(retry), retry_capabilities, reuse)
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
                let event = task.get("event").and_then(Value::as_str);
                event == Some(Event::AskUserQuestion.as_str())
                    || event == Some(Event::ConfirmAction.as_str())
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
            && task.get("event").and_then(Value::as_str) == Some(Event::Complete.as_str())
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
            let read = task_json(
                &self
                    .call(ToolName::ReadThread, &ThreadRef::new(&thread))
                    .await?,
            );
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
        let uuid = interactive
            .get("followup_uuid")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if interactive.get("type").and_then(Value::as_str) == Some(Event::ConfirmAction.as_str()) {
            let answer = self
                .user_post("ask", json!({"kind": "confirm", "message": text}))
                .await?;
            let approve =
                answer.get("action").and_then(Value::as_str) == Some(ElicitAction::Accept.as_str());
            let (tool, why) = if approve {
                (ToolName::ConfirmActionApprove, "Approved by the user.")
            } else {
                (ToolName::ConfirmActionDeny, "Denied by the user.")
            };
            let mut args = ConfirmAction::new(thread, why);
            args.followup_uuid = uuid;
            return Ok(task_json(&self.call(tool, &args).await?));
        }
        let answer = self
            .user_post("ask", json!({"kind": "question", "message": text}))
            .await?;
        // The user's answers, by question (none when they gave none).
        let answers: Map<String, Value> = answer
            .get("content")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if self.breaks(ids::ELICITATION_DECLINED_FOLLOW_UP_TOOLS) {
            // Breaking the rule: the answer sent as a new message on the thread.
            let mut args = CallComputer::new(format!("My answers: {}", Value::Object(answers)));
            args.thread_id = Some(thread.to_owned());
            return Ok(task_json(&self.call(CPC, &args).await?));
        }
        let mut args = AnswerQuestion::new(thread, answers);
        args.followup_uuid = uuid;
        Ok(task_json(
            &self.call(ToolName::AnswerQuestion, &args).await?,
        ))
    }
}
