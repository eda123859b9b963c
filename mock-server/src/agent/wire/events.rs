//! Stream events, exactly as the official wire format writes them: `type` first, then
//! `sequence_number` (the event's place in the run's log), then the event's own fields.
//!
//! A run keeps its log as these values; a stream (or a resumed one) writes each as the JSON of
//! one `data:` line.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::items::{FetchedPage, OutputItem, SandboxRun, SearchResult};
use super::response::{Response, RunError};

/// One event of a run's log.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StreamEvent {
    /// Its index in the log.
    pub(crate) sequence_number: usize,
    /// What happened.
    pub(crate) event: Event,
}

/// What an event says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// `response.created`: the response as it first appears.
    Created(Box<Response>),
    /// `response.in_progress`: the run started.
    InProgress(Box<Response>),
    /// `response.reasoning.started`.
    ReasoningStarted {
        /// What the model thinks about.
        thought: String,
    },
    /// `response.reasoning.stopped`.
    ReasoningStopped {
        /// What the model thought about.
        thought: String,
    },
    /// `response.reasoning.search_queries`.
    SearchQueries {
        /// The queries sent.
        queries: Vec<String>,
    },
    /// `response.reasoning.search_results`.
    SearchResults {
        /// What they found.
        results: Vec<SearchResult>,
    },
    /// `response.reasoning.fetch_url_queries`.
    FetchUrlQueries {
        /// The pages asked for.
        urls: Vec<String>,
    },
    /// `response.reasoning.fetch_url_results`.
    FetchUrlResults {
        /// The pages read.
        contents: Vec<FetchedPage>,
    },
    /// `response.sandbox.results`: what a sandbox command printed, as it finishes (the
    /// document names the event without its fields; these are its `sandbox_results` item's).
    SandboxResults {
        /// The item's `call_id`.
        call_id: String,
        /// The item's `results`.
        results: Vec<SandboxRun>,
    },
    /// `response.output_item.added`.
    OutputItemAdded {
        /// The item as it first appears.
        item: OutputItem,
        /// Its index in `output`.
        output_index: usize,
    },
    /// `response.output_item.done`.
    OutputItemDone {
        /// The item, whole.
        item: OutputItem,
        /// Its index in `output`.
        output_index: usize,
    },
    /// `response.output_text.delta`: a piece of a message's text.
    OutputTextDelta {
        /// The message.
        item_id: String,
        /// Its index in `output`.
        output_index: usize,
        /// The content part (always 0).
        content_index: usize,
        /// The piece.
        delta: String,
    },
    /// `response.output_text.done`: a message's whole text.
    OutputTextDone {
        /// The message.
        item_id: String,
        /// Its index in `output`.
        output_index: usize,
        /// The content part (always 0).
        content_index: usize,
        /// The text.
        text: String,
    },
    /// `response.completed`: the whole response.
    Completed(Box<Response>),
    /// `response.incomplete`: the whole response, cut by the output cap.
    Incomplete(Box<Response>),
    /// `response.failed`: why, and the whole response.
    Failed {
        /// The response's `error`.
        error: RunError,
        /// The response.
        response: Box<Response>,
    },
    /// `response.cancelled`: the whole response.
    Cancelled(Box<Response>),
}

impl Event {
    /// The event's `type`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Self::Created(_) => "response.created",
            Self::InProgress(_) => "response.in_progress",
            Self::ReasoningStarted { .. } => "response.reasoning.started",
            Self::ReasoningStopped { .. } => "response.reasoning.stopped",
            Self::SearchQueries { .. } => "response.reasoning.search_queries",
            Self::SearchResults { .. } => "response.reasoning.search_results",
            Self::FetchUrlQueries { .. } => "response.reasoning.fetch_url_queries",
            Self::FetchUrlResults { .. } => "response.reasoning.fetch_url_results",
            Self::SandboxResults { .. } => "response.sandbox.results",
            Self::OutputItemAdded { .. } => "response.output_item.added",
            Self::OutputItemDone { .. } => "response.output_item.done",
            Self::OutputTextDelta { .. } => "response.output_text.delta",
            Self::OutputTextDone { .. } => "response.output_text.done",
            Self::Completed(_) => "response.completed",
            Self::Incomplete(_) => "response.incomplete",
            Self::Failed { .. } => "response.failed",
            Self::Cancelled(_) => "response.cancelled",
        }
    }
}

impl Serialize for StreamEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.event.kind())?;
        map.serialize_entry("sequence_number", &self.sequence_number)?;
        match &self.event {
            Event::Created(response)
            | Event::InProgress(response)
            | Event::Completed(response)
            | Event::Incomplete(response)
            | Event::Cancelled(response) => map.serialize_entry("response", response)?,
            Event::ReasoningStarted { thought } | Event::ReasoningStopped { thought } => {
                map.serialize_entry("thought", thought)?;
            }
            Event::SearchQueries { queries } => map.serialize_entry("queries", queries)?,
            Event::SearchResults { results } => map.serialize_entry("results", results)?,
            Event::FetchUrlQueries { urls } => map.serialize_entry("urls", urls)?,
            Event::FetchUrlResults { contents } => map.serialize_entry("contents", contents)?,
            Event::SandboxResults { call_id, results } => {
                map.serialize_entry("call_id", call_id)?;
                map.serialize_entry("results", results)?;
            }
            Event::OutputItemAdded { item, output_index }
            | Event::OutputItemDone { item, output_index } => {
                map.serialize_entry("item", item)?;
                map.serialize_entry("output_index", output_index)?;
            }
            Event::OutputTextDelta {
                item_id,
                output_index,
                content_index,
                delta,
            } => {
                map.serialize_entry("item_id", item_id)?;
                map.serialize_entry("output_index", output_index)?;
                map.serialize_entry("content_index", content_index)?;
                map.serialize_entry("delta", delta)?;
            }
            Event::OutputTextDone {
                item_id,
                output_index,
                content_index,
                text,
            } => {
                map.serialize_entry("item_id", item_id)?;
                map.serialize_entry("output_index", output_index)?;
                map.serialize_entry("content_index", content_index)?;
                map.serialize_entry("text", text)?;
            }
            Event::Failed { error, response } => {
                map.serialize_entry("error", error)?;
                map.serialize_entry("response", response)?;
            }
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::wire::items::Message;

    fn rendered(sequence_number: usize, event: Event) -> String {
        serde_json::to_string(&StreamEvent {
            sequence_number,
            event,
        })
        .expect("an event renders")
    }

    #[test]
    fn the_type_and_sequence_number_come_before_the_events_own_fields() {
        assert_eq!(
            rendered(
                3,
                Event::ReasoningStarted {
                    thought: "t".into()
                }
            ),
            r#"{"type":"response.reasoning.started","sequence_number":3,"thought":"t"}"#
        );
        assert_eq!(
            rendered(
                4,
                Event::OutputTextDelta {
                    item_id: "msg_1".into(),
                    output_index: 0,
                    content_index: 0,
                    delta: "Hi ".into(),
                }
            ),
            r#"{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi "}"#
        );
        assert_eq!(
            rendered(
                5,
                Event::OutputItemAdded {
                    item: OutputItem::Message(Message::started("msg_1".into())),
                    output_index: 1,
                }
            ),
            r#"{"type":"response.output_item.added","sequence_number":5,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]},"output_index":1}"#
        );
        assert_eq!(
            rendered(
                6,
                Event::FetchUrlQueries {
                    urls: vec!["https://u/".into()]
                }
            ),
            r#"{"type":"response.reasoning.fetch_url_queries","sequence_number":6,"urls":["https://u/"]}"#
        );
        assert_eq!(
            rendered(
                7,
                Event::SandboxResults {
                    call_id: "call_1".into(),
                    results: vec![SandboxRun {
                        stdout: "hi\n".into(),
                        stderr: String::new(),
                        exit_code: 0,
                        duration_ms: 1200,
                        status: crate::agent::wire::items::ItemStatus::Completed,
                    }],
                }
            ),
            r#"{"type":"response.sandbox.results","sequence_number":7,"call_id":"call_1","results":[{"stdout":"hi\n","stderr":"","exit_code":0,"duration_ms":1200,"status":"completed"}]}"#
        );
    }
}
