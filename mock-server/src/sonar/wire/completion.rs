//! A chat completion as the SDK's `CompletionResponseOutput` parses it, in the field order the
//! live API was recorded sending (`id`, `model`, `created`, `usage`, `citations`, ...,
//! `object`, `choices`); a stream chunk is the same object with another `object`.

use serde::Serialize;

/// A chat completion, or one chunk of a streamed one.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Completion {
    /// A UUID, the same on every chunk of a stream.
    pub(crate) id: String,
    /// The model asked for.
    pub(crate) model: String,
    /// Unix seconds.
    pub(crate) created: i64,
    /// Tokens and cost (on an interim chunk: the tokens so far and a zero cost).
    pub(crate) usage: Usage,
    /// The sources' URLs, in citation order (`[1]` is the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) citations: Option<Vec<String>>,
    /// The sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) search_results: Option<Vec<SearchResult>>,
    /// Images, when the request set `return_images`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) images: Option<Vec<Image>>,
    /// Follow-up questions, when the request set `return_related_questions`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) related_questions: Option<Vec<String>>,
    /// `chat.completion`, `chat.completion.chunk`, or in concise streams `chat.reasoning`,
    /// `chat.reasoning.done` and `chat.completion.done`.
    pub(crate) object: &'static str,
    /// One choice.
    pub(crate) choices: Vec<Choice>,
}

/// The one choice of an answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Choice {
    /// Always 0.
    pub(crate) index: u32,
    /// `stop` or `length` on the last chunk (and a whole answer); `null` before.
    pub(crate) finish_reason: Option<FinishReason>,
    /// The message so far (the whole message on a whole answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) message: Option<ChatMessage>,
    /// What this chunk adds (empty on a whole answer, as the live API sends it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) delta: Option<ChatMessage>,
}

/// Why the answer ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FinishReason {
    /// It was done (or reached a stop sequence).
    Stop,
    /// It reached `max_tokens`.
    Length,
}

/// A message (or a delta) of the assistant.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChatMessage {
    /// Always `assistant`.
    pub(crate) role: &'static str,
    /// The text.
    pub(crate) content: String,
    /// What the model did while it reasoned (concise streams' `chat.reasoning` chunks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning_steps: Option<Vec<ReasoningStep>>,
}

impl ChatMessage {
    /// An assistant message with this text.
    pub(crate) fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: "assistant",
            content: content.into(),
            reasoning_steps: None,
        }
    }
}

/// One step of reasoning.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ReasoningStep {
    /// What the model thought.
    pub(crate) thought: String,
    /// `web_search`.
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    /// The search it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) web_search: Option<WebSearchStep>,
}

/// A search a reasoning step ran.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct WebSearchStep {
    /// What it searched for.
    pub(crate) search_keywords: Vec<String>,
    /// What it found.
    pub(crate) search_results: Vec<SearchResult>,
}

/// A source (`ApiPublicSearchResultOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SearchResult {
    /// Page title.
    pub(crate) title: String,
    /// Page URL.
    pub(crate) url: String,
    /// Publication date (`2026-10-01`).
    pub(crate) date: Option<String>,
    /// Last update.
    pub(crate) last_updated: Option<String>,
    /// What the page says.
    pub(crate) snippet: String,
    /// `web` or `attachment`.
    pub(crate) source: String,
}

/// An image (`ImageResultOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Image {
    /// The image.
    pub(crate) image_url: String,
    /// The page it is on.
    pub(crate) origin_url: String,
    /// Height in pixels.
    pub(crate) height: u32,
    /// Width in pixels.
    pub(crate) width: u32,
    /// Its caption.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
}

/// Tokens and cost (`UsageInfoOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Usage {
    /// Tokens in the messages.
    pub(crate) prompt_tokens: u64,
    /// Tokens in the answer.
    pub(crate) completion_tokens: u64,
    /// Their sum.
    pub(crate) total_tokens: u64,
    /// `low`, `medium` or `high`.
    pub(crate) search_context_size: &'static str,
    /// Tokens of the sources read (deep research bills them).
    pub(crate) citation_tokens: u64,
    /// Searches run.
    pub(crate) num_search_queries: u64,
    /// Tokens spent reasoning.
    pub(crate) reasoning_tokens: u64,
    /// What it cost, in US dollars.
    pub(crate) cost: Cost,
}

/// What a completion cost, in US dollars (`CostOutput`), rounded to the thousandth as the live
/// API writes it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Cost {
    /// Prompt tokens.
    pub(crate) input_tokens_cost: f64,
    /// Answer tokens.
    pub(crate) output_tokens_cost: f64,
    /// Reasoning tokens (deep research).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reasoning_tokens_cost: Option<f64>,
    /// The request fee, by search context size; left out of interim stream chunks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) request_cost: Option<f64>,
    /// Citation tokens (deep research).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) citation_tokens_cost: Option<f64>,
    /// Search queries (deep research).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) search_queries_cost: Option<f64>,
    /// The sum.
    pub(crate) total_cost: f64,
}

impl Cost {
    /// The zero cost interim stream chunks carry.
    pub(crate) fn zero() -> Self {
        Self {
            input_tokens_cost: 0.0,
            output_tokens_cost: 0.0,
            reasoning_tokens_cost: None,
            request_cost: None,
            citation_tokens_cost: None,
            search_queries_cost: None,
            total_cost: 0.0,
        }
    }
}
