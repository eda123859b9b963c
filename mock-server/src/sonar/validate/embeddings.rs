//! Embeddings validation, with the limits the API reference states: at most 512 texts (or
//! documents), none empty, each at most 32K tokens, all together at most 120,000; for
//! contextualized embeddings at most 16,000 chunks and 32K tokens per document; `dimensions`
//! from 128 up to the model's own.

use super::body;
use crate::sonar::models::{self, EmbeddingModel, MIN_DIMENSIONS};
use crate::sonar::wire::embeddings::{
    ContextualizedRequest, EmbeddingsRequest, EncodingFormat, Texts,
};
use crate::sonar::wire::error::SonarError;

/// The most texts (or documents) one request may carry.
pub(crate) const MAX_INPUTS: usize = 512;
/// The most tokens one text (or one document) may have.
pub(crate) const MAX_TOKENS_EACH: u64 = 32_768;
/// The most tokens one request may carry.
pub(crate) const MAX_TOKENS_TOTAL: u64 = 120_000;
/// The most chunks a contextualized request may carry.
pub(crate) const MAX_CHUNKS: usize = 16_000;

/// An embeddings request that passed every rule.
#[derive(Debug, Clone)]
pub(crate) struct EmbedCall {
    /// The model.
    pub(crate) model: &'static EmbeddingModel,
    /// The texts, grouped by document (one text per group for plain embeddings).
    pub(crate) documents: Vec<Vec<String>>,
    /// Dimensions of each vector.
    pub(crate) dimensions: u32,
    /// How vectors are written.
    pub(crate) encoding: EncodingFormat,
    /// Tokens in every text.
    pub(crate) tokens: u64,
}

impl EmbedCall {
    /// The first text: where `#name` picks a scenario.
    pub(crate) fn first_text(&self) -> &str {
        self.documents
            .first()
            .and_then(|d| d.first())
            .map_or("", String::as_str)
    }
}

/// Parses and checks a `POST /v1/embeddings` body.
pub(crate) fn embeddings(body: &[u8]) -> Result<EmbedCall, SonarError> {
    let request: EmbeddingsRequest = body::parse(
        body,
        r#"{"model": "pplx-embed-v1-0.6b", "input": ["a text", "another"]}"#,
    )?;
    let model = model(request.model.as_deref(), models::EMBEDDING_MODELS)?;
    let single = matches!(request.input, Some(Texts::One(_)));
    let texts = match request.input {
        None => {
            return Err(SonarError::invalid_field(
                "input",
                "input is required: a string, or a list of up to 512 strings",
            ));
        }
        Some(Texts::One(one)) => vec![one],
        Some(Texts::Many(many)) => many,
    };
    if texts.is_empty() || texts.len() > MAX_INPUTS {
        return Err(SonarError::invalid_field(
            "input",
            format!("{} texts: send 1 to {MAX_INPUTS}", texts.len()),
        ));
    }
    let mut total = 0;
    for (i, text) in texts.iter().enumerate() {
        let at = if single {
            "input".to_owned()
        } else {
            format!("input[{i}]")
        };
        total += checked_text(&at, text)?;
    }
    within_total(total)?;
    Ok(EmbedCall {
        model,
        documents: texts.into_iter().map(|t| vec![t]).collect(),
        dimensions: dimensions(request.dimensions, model)?,
        encoding: request.encoding_format.unwrap_or_default(),
        tokens: total,
    })
}

/// Parses and checks a `POST /v1/contextualizedembeddings` body.
pub(crate) fn contextualized(body: &[u8]) -> Result<EmbedCall, SonarError> {
    let request: ContextualizedRequest = body::parse(
        body,
        r#"{"model": "pplx-embed-context-v1-0.6b", "input": [["chunk one", "chunk two"]]}"#,
    )?;
    let model = model(request.model.as_deref(), models::CONTEXTUALIZED_MODELS)?;
    let Some(documents) = request.input else {
        return Err(SonarError::invalid_field(
            "input",
            "input is required: a list of documents, each a list of its chunks in order",
        ));
    };
    if documents.is_empty() || documents.len() > MAX_INPUTS {
        return Err(SonarError::invalid_field(
            "input",
            format!("{} documents: send 1 to {MAX_INPUTS}", documents.len()),
        ));
    }
    let chunks: usize = documents.iter().map(Vec::len).sum();
    if chunks > MAX_CHUNKS {
        return Err(SonarError::invalid_field(
            "input",
            format!("{chunks} chunks in all: at most {MAX_CHUNKS} are allowed; split the request"),
        ));
    }
    let mut total = 0;
    for (d, document) in documents.iter().enumerate() {
        if document.is_empty() {
            return Err(SonarError::invalid_field(
                &format!("input[{d}]"),
                "a document needs at least one chunk",
            ));
        }
        let mut in_document = 0;
        for (c, chunk) in document.iter().enumerate() {
            in_document += checked_text(&format!("input[{d}][{c}]"), chunk)?;
        }
        if in_document > MAX_TOKENS_EACH {
            return Err(SonarError::invalid_field(
                &format!("input[{d}]"),
                format!(
                    "about {in_document} tokens: a document may have at most {MAX_TOKENS_EACH}; \
                     split it into two documents"
                ),
            ));
        }
        total += in_document;
    }
    within_total(total)?;
    Ok(EmbedCall {
        model,
        dimensions: dimensions(request.dimensions, model)?,
        encoding: request.encoding_format.unwrap_or_default(),
        tokens: total,
        documents,
    })
}

fn model(
    name: Option<&str>,
    served: &'static [EmbeddingModel],
) -> Result<&'static EmbeddingModel, SonarError> {
    let list: Vec<&str> = served.iter().map(|m| m.id).collect();
    let Some(name) = name else {
        return Err(SonarError::invalid_field(
            "model",
            format!("a model is required: use {}", list.join(" or ")),
        ));
    };
    served.iter().find(|m| m.id == name).ok_or_else(|| {
        SonarError::new(
            http::StatusCode::BAD_REQUEST,
            "invalid_model",
            format!(
                "Invalid model '{name}'. Permitted models: {}.",
                list.join(", ")
            ),
        )
        .param("model")
    })
}

/// A text's tokens, or why it is refused.
fn checked_text(at: &str, text: &str) -> Result<u64, SonarError> {
    if text.is_empty() {
        return Err(SonarError::invalid_field(
            at,
            "an empty string: every text needs at least one character",
        ));
    }
    let tokens = models::tokens(text);
    if tokens > MAX_TOKENS_EACH {
        return Err(SonarError::invalid_field(
            at,
            format!("about {tokens} tokens: a text may have at most {MAX_TOKENS_EACH}; split it"),
        ));
    }
    Ok(tokens)
}

fn within_total(total: u64) -> Result<(), SonarError> {
    if total > MAX_TOKENS_TOTAL {
        return Err(SonarError::invalid_field(
            "input",
            format!(
                "about {total} tokens in all: a request may carry at most {MAX_TOKENS_TOTAL}; \
                 send the texts in several requests"
            ),
        ));
    }
    Ok(())
}

fn dimensions(asked: Option<u32>, model: &EmbeddingModel) -> Result<u32, SonarError> {
    let Some(asked) = asked else {
        return Ok(model.dimensions);
    };
    if !(MIN_DIMENSIONS..=model.dimensions).contains(&asked) {
        return Err(SonarError::invalid_field(
            "dimensions",
            format!(
                "{asked} is out of range for {}: use {MIN_DIMENSIONS} to {}",
                model.id, model.dimensions
            ),
        ));
    }
    Ok(asked)
}
