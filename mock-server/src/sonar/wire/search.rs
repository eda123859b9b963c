//! `POST /search` (the Search API): the request (`ApiSearchRequestInput`) and the answer
//! (`ApiSearchResponseOutput`).

use serde::{Deserialize, Serialize};

use super::chat::{ContextSize, Recency, SearchMode};

/// A Search API request.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct SearchRequest {
    /// One query, or up to five.
    #[serde(default)]
    pub(crate) query: Option<Query>,
    /// Results per query, 1 to 20 (default 10).
    #[serde(default)]
    pub(crate) max_results: Option<u32>,
    /// The token budget across all results (default 10,000).
    #[serde(default)]
    pub(crate) max_tokens: Option<u32>,
    /// Tokens read from each page (default 4096).
    #[serde(default)]
    pub(crate) max_tokens_per_page: Option<u32>,
    /// ISO 3166-1 alpha-2 country to bias the results to.
    #[serde(default)]
    pub(crate) country: Option<String>,
    /// `web`, `academic` or `sec`.
    #[serde(default)]
    pub(crate) search_mode: Option<SearchMode>,
    /// Domains to search (`nature.com`), or to leave out (`-reddit.com`).
    #[serde(default)]
    pub(crate) search_domain_filter: Option<Vec<String>>,
    /// How recent the results must be.
    #[serde(default)]
    pub(crate) search_recency_filter: Option<Recency>,
    /// Published after this date.
    #[serde(default)]
    pub(crate) search_after_date_filter: Option<String>,
    /// Published before this date.
    #[serde(default)]
    pub(crate) search_before_date_filter: Option<String>,
    /// Updated after this date.
    #[serde(default)]
    pub(crate) last_updated_after_filter: Option<String>,
    /// Updated before this date.
    #[serde(default)]
    pub(crate) last_updated_before_filter: Option<String>,
    /// ISO 639-1 languages of the results.
    #[serde(default)]
    pub(crate) search_language_filter: Option<Vec<String>>,
    /// How much of each page a snippet shows.
    #[serde(default)]
    pub(crate) search_context_size: Option<ContextSize>,
    /// `web`, `fast` or `people`.
    #[serde(default)]
    pub(crate) search_type: Option<SearchKind>,
    /// Answer `server_time`.
    #[serde(default)]
    pub(crate) display_server_time: Option<bool>,
}

/// `query`: one string or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Query {
    /// One query.
    One(String),
    /// Several (multi-query search).
    Many(Vec<String>),
}

/// `search_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SearchKind {
    /// The default.
    Web,
    /// Fewer, faster results.
    Fast,
    /// People's profiles.
    People,
}

/// The Search API's answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SearchResponse {
    /// A UUID.
    pub(crate) id: String,
    /// One query's results as a list; several queries' as one list per query, in order.
    pub(crate) results: Results,
    /// The server's time (`display_server_time`), else `null`.
    pub(crate) server_time: Option<String>,
}

/// The results of one query, or of each of several.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum Results {
    /// One query.
    Flat(Vec<SearchPage>),
    /// One list per query.
    Grouped(Vec<Vec<SearchPage>>),
}

/// One result (`ApiSearchPageOutput`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SearchPage {
    /// Page title.
    pub(crate) title: String,
    /// Page URL.
    pub(crate) url: String,
    /// What the page says, up to `max_tokens_per_page`.
    pub(crate) snippet: String,
    /// Publication date.
    pub(crate) date: Option<String>,
    /// Last update.
    pub(crate) last_updated: Option<String>,
}
