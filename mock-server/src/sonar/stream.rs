//! A streamed answer: `text/event-stream`, one `data:` line of JSON per chunk and no `event:`
//! line, ending when the answer ends, without a `data: [DONE]` (as the live API was recorded
//! sending; the SDKs stop at `[DONE]` when there is one and at the end of the stream when
//! there is not). Each chunk goes out at its time on the virtual clock.
//!
//! `full` chunks (the default) are `chat.completion.chunk`s carrying the message so far, the
//! delta, the sources and the usage so far with a zero cost; a last chunk with an empty delta
//! carries `finish_reason`, the whole usage, images and related questions. `concise` streams
//! send a `chat.reasoning` chunk (the search), a `chat.reasoning.done` chunk, deltas only, and
//! a `chat.completion.done` chunk with the whole message, sources and usage.

use std::time::Duration;

use axum::response::Response;
use bytes::Bytes;
use chrono::{DateTime, Utc};

use super::answer::Answer;
use super::models;
use super::wire::completion::{
    ChatMessage, Choice, Completion, Cost, ReasoningStep, Usage, WebSearchStep,
};
use super::wire::error::SonarError;
use crate::clock::{Clock, after, to_chrono};
use crate::http::sse;

/// One chunk and when it goes out, after the request arrived.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// Virtual time after the request.
    pub(crate) at: Duration,
    /// The chunk.
    pub(crate) chunk: Completion,
}

/// The chunks of `answer` in `full` mode.
pub(crate) fn full(answer: &Answer, id: &str, created: i64) -> Vec<Frame> {
    let pieces = answer.chunks();
    let searched = !answer.sources.is_empty();
    let mut so_far = String::new();
    let mut frames = Vec::with_capacity(pieces.len() + 1);
    let mut at = answer.first_token;
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            at = at.saturating_add(answer.chunk_interval);
        }
        so_far.push_str(piece);
        let mut chunk = answer.completion(id, created);
        chunk.object = "chat.completion.chunk";
        chunk.usage = interim(&answer.usage, &so_far);
        chunk.images = None;
        chunk.related_questions = None;
        chunk.citations = searched.then(|| answer.citations());
        chunk.choices = vec![choice(None, &so_far, piece)];
        frames.push(Frame { at, chunk });
    }
    let mut last = answer.completion(id, created);
    last.object = "chat.completion.chunk";
    last.choices = vec![choice(Some(answer), &answer.content, "")];
    frames.push(Frame { at, chunk: last });
    frames
}

/// The chunks of `answer` in `concise` mode.
pub(crate) fn concise(answer: &Answer, id: &str, created: i64) -> Vec<Frame> {
    let mut frames = Vec::new();
    let bare = |object: &'static str| {
        let mut chunk = answer.completion(id, created);
        chunk.object = object;
        chunk.usage = interim(&answer.usage, "");
        chunk.citations = None;
        chunk.search_results = None;
        chunk.images = None;
        chunk.related_questions = None;
        chunk
    };
    if !answer.sources.is_empty() || answer.reasoning.is_some() {
        let thought = answer.reasoning.clone().unwrap_or_else(|| {
            format!(
                "Searching the web for {}.",
                answer.search_keywords.join(", ")
            )
        });
        let mut reasoning = bare("chat.reasoning");
        let mut delta = ChatMessage::assistant("");
        delta.reasoning_steps = Some(vec![ReasoningStep {
            thought,
            kind: "web_search",
            web_search: Some(WebSearchStep {
                search_keywords: answer.search_keywords.clone(),
                search_results: answer.sources.clone(),
            }),
        }]);
        reasoning.choices = vec![Choice {
            index: 0,
            finish_reason: None,
            message: Some(ChatMessage::assistant("")),
            delta: Some(delta),
        }];
        frames.push(Frame {
            at: answer.first_token / 2,
            chunk: reasoning,
        });
        let mut done = bare("chat.reasoning.done");
        done.search_results = Some(answer.sources.clone());
        done.citations = Some(answer.citations());
        done.choices = vec![choice(None, "", "")];
        frames.push(Frame {
            at: answer.first_token,
            chunk: done,
        });
    }
    let mut at = answer.first_token;
    for (i, piece) in answer.chunks().iter().enumerate() {
        if i > 0 {
            at = at.saturating_add(answer.chunk_interval);
        }
        // Deltas only: the message stays empty (the SDK's `Choice` requires one) until the
        // done chunk carries it whole.
        let mut chunk = bare("chat.completion.chunk");
        chunk.choices = vec![choice(None, "", piece)];
        frames.push(Frame { at, chunk });
    }
    let mut done = answer.completion(id, created);
    done.object = "chat.completion.done";
    done.choices = vec![choice(Some(answer), &answer.content, "")];
    frames.push(Frame { at, chunk: done });
    frames
}

/// A choice: the message so far (empty in concise mode), the delta, and on the last chunk the
/// answer's finish reason.
fn choice(last: Option<&Answer>, message: &str, delta: &str) -> Choice {
    Choice {
        index: 0,
        finish_reason: last.map(|a| a.finish),
        message: Some(ChatMessage::assistant(message)),
        delta: Some(ChatMessage::assistant(delta)),
    }
}

/// The usage of an interim chunk: the tokens so far, and the zero cost skeleton the SDK's
/// `Cost` documents ("omitted from the zero cost skeleton on interim streaming chunks").
fn interim(usage: &Usage, so_far: &str) -> Usage {
    let completion_tokens = models::tokens(so_far);
    Usage {
        completion_tokens,
        total_tokens: usage.prompt_tokens + completion_tokens,
        cost: Cost::zero(),
        ..usage.clone()
    }
}

/// The SSE answer: each frame at `start` plus its offset on `clock` (a driven clock jumps
/// there, since the client is waiting on the stream).
pub(crate) fn respond(clock: Clock, start: DateTime<Utc>, frames: Vec<Frame>) -> Response {
    let events = futures::stream::unfold(
        (clock, frames.into_iter()),
        move |(clock, mut frames)| async move {
            let frame = frames.next()?;
            clock.block_until(after(start, to_chrono(frame.at))).await;
            let bytes = encode(&frame.chunk);
            Some((bytes, (clock, frames)))
        },
    );
    sse::response(events, sse::KEEP_ALIVE_INTERVAL)
}

/// One chunk on the wire: `data: <json>`, or, should the chunk not serialize, an `error` event
/// in the API's envelope (the SDKs raise it).
fn encode(chunk: &Completion) -> Bytes {
    match serde_json::to_string(chunk) {
        Ok(data) => sse::Event {
            data: &data,
            ..sse::Event::default()
        }
        .encode(),
        Err(e) => {
            let error = SonarError::new(
                http::StatusCode::INTERNAL_SERVER_ERROR,
                "internal_error",
                format!("the mock could not write a chunk ({e}); retry the request"),
            );
            sse::Event {
                name: Some("error"),
                data: &error.body_text(),
                ..sse::Event::default()
            }
            .encode()
        }
    }
}
