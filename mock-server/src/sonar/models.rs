//! The Sonar models and the embedding models: their prices (Perplexity's published pricing,
//! US dollars), their rate limits (usage tier 0 of "Rate Limits & Usage Tiers"), and how the
//! mock's model behaves on each (how long it takes, how many searches it runs, whether it
//! thinks aloud). Where the documents are silent the choice is listed in
//! `docs/where-documents-are-silent.md`.

use std::time::Duration;

/// A chat model.
#[derive(Debug)]
pub(crate) struct SonarModel {
    /// Its name in requests.
    pub(crate) id: &'static str,
    /// US dollars per million prompt tokens.
    pub(crate) input_per_million: f64,
    /// US dollars per million answer tokens.
    pub(crate) output_per_million: f64,
    /// US dollars per thousand requests, by search context size (low, medium, high); `None`:
    /// no request fee (deep research bills its searches instead).
    pub(crate) request_fees: Option<[f64; 3]>,
    /// The fees with `web_search_options.search_type: pro` (Pro Search), where offered.
    pub(crate) pro_search_fees: Option<[f64; 3]>,
    /// Deep research's own meters: citation tokens, reasoning tokens (per million) and search
    /// queries (per thousand).
    pub(crate) research: Option<ResearchPrices>,
    /// It thinks in a `<think>` block before answering.
    pub(crate) reasoning: bool,
    /// The mock's time to first token, in virtual time.
    pub(crate) first_token: Duration,
    /// Searches it runs for one question.
    pub(crate) search_queries: u32,
    /// Sources it reads per search context size step (sonar-pro reads twice as many).
    pub(crate) sources_factor: usize,
    /// Requests per minute an account may send (usage tier 0).
    pub(crate) requests_per_minute: usize,
}

/// Deep research's extra meters.
#[derive(Debug)]
pub(crate) struct ResearchPrices {
    /// US dollars per million citation tokens.
    pub(crate) citation_per_million: f64,
    /// US dollars per million reasoning tokens.
    pub(crate) reasoning_per_million: f64,
    /// US dollars per thousand search queries.
    pub(crate) searches_per_thousand: f64,
}

/// The chat models, as the API reference lists them.
pub(crate) const MODELS: &[SonarModel] = &[
    SonarModel {
        id: "sonar",
        input_per_million: 1.0,
        output_per_million: 1.0,
        request_fees: Some([5.0, 8.0, 12.0]),
        pro_search_fees: None,
        research: None,
        reasoning: false,
        first_token: Duration::from_secs(1),
        search_queries: 1,
        sources_factor: 1,
        requests_per_minute: 50,
    },
    SonarModel {
        id: "sonar-pro",
        input_per_million: 3.0,
        output_per_million: 15.0,
        request_fees: Some([6.0, 10.0, 14.0]),
        pro_search_fees: Some([14.0, 18.0, 22.0]),
        research: None,
        reasoning: false,
        first_token: Duration::from_secs(2),
        search_queries: 2,
        sources_factor: 2,
        requests_per_minute: 50,
    },
    SonarModel {
        id: "sonar-reasoning-pro",
        input_per_million: 2.0,
        output_per_million: 8.0,
        request_fees: Some([6.0, 10.0, 14.0]),
        pro_search_fees: None,
        research: None,
        reasoning: true,
        first_token: Duration::from_secs(4),
        search_queries: 2,
        sources_factor: 2,
        requests_per_minute: 50,
    },
    SonarModel {
        id: "sonar-deep-research",
        input_per_million: 2.0,
        output_per_million: 8.0,
        request_fees: None,
        pro_search_fees: None,
        research: Some(ResearchPrices {
            citation_per_million: 2.0,
            reasoning_per_million: 3.0,
            searches_per_thousand: 5.0,
        }),
        reasoning: true,
        first_token: Duration::from_secs(180),
        search_queries: 20,
        sources_factor: 4,
        requests_per_minute: 5,
    },
];

/// The model called `id`.
pub(crate) fn find(id: &str) -> Option<&'static SonarModel> {
    MODELS.iter().find(|m| m.id == id)
}

/// The chat models' names, for a sentence.
pub(crate) fn names() -> String {
    let names: Vec<&str> = MODELS.iter().map(|m| m.id).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// An embedding model.
#[derive(Debug)]
pub(crate) struct EmbeddingModel {
    /// Its name in requests.
    pub(crate) id: &'static str,
    /// Its full number of dimensions (`dimensions` may ask for fewer, down to 128).
    pub(crate) dimensions: u32,
    /// US dollars per million input tokens.
    pub(crate) per_million: f64,
}

/// The fewest dimensions a request may ask for.
pub(crate) const MIN_DIMENSIONS: u32 = 128;

/// `POST /v1/embeddings`'s models.
pub(crate) const EMBEDDING_MODELS: &[EmbeddingModel] = &[
    EmbeddingModel {
        id: "pplx-embed-v1-0.6b",
        dimensions: 1024,
        per_million: 0.004,
    },
    EmbeddingModel {
        id: "pplx-embed-v1-4b",
        dimensions: 2560,
        per_million: 0.03,
    },
];

/// `POST /v1/contextualizedembeddings`'s models.
pub(crate) const CONTEXTUALIZED_MODELS: &[EmbeddingModel] = &[
    EmbeddingModel {
        id: "pplx-embed-context-v1-0.6b",
        dimensions: 1024,
        per_million: 0.008,
    },
    EmbeddingModel {
        id: "pplx-embed-context-v1-4b",
        dimensions: 2560,
        per_million: 0.05,
    },
];

/// The Search API's price: US dollars per thousand requests.
pub(crate) const SEARCH_PER_THOUSAND: f64 = 5.0;

/// Tokens in `text`, as the mock counts them: one per four characters, rounded up.
pub(crate) fn tokens(text: &str) -> u64 {
    let chars = text.chars().count() as u64;
    chars.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_sonar_models_are_served_and_named_in_a_sentence() {
        for id in [
            "sonar",
            "sonar-pro",
            "sonar-reasoning-pro",
            "sonar-deep-research",
        ] {
            assert!(find(id).is_some(), "{id}");
        }
        assert_eq!(
            names(),
            "sonar, sonar-pro, sonar-reasoning-pro or sonar-deep-research"
        );
        assert!(find("sonar-reasoning").is_none());
    }

    #[test]
    fn tokens_are_four_characters_rounded_up() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("abc"), 1);
        assert_eq!(tokens("abcde"), 2);
    }
}
