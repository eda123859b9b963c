//! `POST /v1/embeddings` and `POST /v1/contextualizedembeddings`: the requests
//! (`EmbeddingsRequestInput`, `ContextualizedEmbeddingsRequestInput`) and the answers, in the
//! API reference's field order (`object`, `data`, `model`, `usage`).

use serde::{Deserialize, Serialize};

/// An embeddings request.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct EmbeddingsRequest {
    /// One text or up to 512.
    #[serde(default)]
    pub(crate) input: Option<Texts>,
    /// `pplx-embed-v1-0.6b` or `pplx-embed-v1-4b`.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Matryoshka dimensions, 128 up to the model's own.
    #[serde(default)]
    pub(crate) dimensions: Option<u32>,
    /// `base64_int8` (default) or `base64_binary`.
    #[serde(default)]
    pub(crate) encoding_format: Option<EncodingFormat>,
}

/// `input`: one text or several.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Texts {
    /// One text.
    One(String),
    /// Several.
    Many(Vec<String>),
}

/// A contextualized embeddings request: documents, each a list of chunks in order.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ContextualizedRequest {
    /// Up to 512 documents.
    #[serde(default)]
    pub(crate) input: Option<Vec<Vec<String>>>,
    /// `pplx-embed-context-v1-0.6b` or `pplx-embed-context-v1-4b`.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// Matryoshka dimensions, 128 up to the model's own.
    #[serde(default)]
    pub(crate) dimensions: Option<u32>,
    /// `base64_int8` (default) or `base64_binary`.
    #[serde(default)]
    pub(crate) encoding_format: Option<EncodingFormat>,
}

/// How a vector is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EncodingFormat {
    /// Base64 of one signed byte per dimension.
    #[default]
    Base64Int8,
    /// Base64 of one bit per dimension, packed (the first dimension is the high bit).
    Base64Binary,
}

/// The embeddings answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EmbeddingsResponse {
    /// `list`.
    pub(crate) object: &'static str,
    /// One vector per text, in order.
    pub(crate) data: Vec<EmbeddingObject>,
    /// The model.
    pub(crate) model: String,
    /// Tokens and cost.
    pub(crate) usage: EmbeddingsUsage,
}

/// The contextualized embeddings answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ContextualizedResponse {
    /// `list`.
    pub(crate) object: &'static str,
    /// One entry per document, in order.
    pub(crate) data: Vec<DocumentEmbeddings>,
    /// The model.
    pub(crate) model: String,
    /// Tokens and cost.
    pub(crate) usage: EmbeddingsUsage,
}

/// One document's chunks (`ContextualizedEmbeddingObjectOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DocumentEmbeddings {
    /// `list`.
    pub(crate) object: &'static str,
    /// The document's place in `input`.
    pub(crate) index: usize,
    /// One vector per chunk, in order.
    pub(crate) data: Vec<EmbeddingObject>,
}

/// One vector (`EmbeddingObjectOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EmbeddingObject {
    /// `embedding`.
    pub(crate) object: &'static str,
    /// The text's place in its list.
    pub(crate) index: usize,
    /// The vector, base64 as `encoding_format` says.
    pub(crate) embedding: String,
}

/// Tokens and cost (`EmbeddingsUsageOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EmbeddingsUsage {
    /// Tokens in the input.
    pub(crate) prompt_tokens: u64,
    /// The same.
    pub(crate) total_tokens: u64,
    /// What it cost.
    pub(crate) cost: EmbeddingsCost,
}

/// What embeddings cost (`EmbeddingsUsageCostOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EmbeddingsCost {
    /// Input tokens, in US dollars.
    pub(crate) input_cost: f64,
    /// The same.
    pub(crate) total_cost: f64,
    /// `USD`.
    pub(crate) currency: &'static str,
}
