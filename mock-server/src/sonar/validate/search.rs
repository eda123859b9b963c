//! Search API validation: one query or up to five, `max_results` from 1 to 20, token budgets,
//! a two-letter country, two-letter languages and the search filters.

use super::body;
use crate::sonar::filters::{self, Filters, RawFilters};
use crate::sonar::wire::chat::ContextSize;
use crate::sonar::wire::error::SonarError;
use crate::sonar::wire::search::{Query, SearchKind, SearchRequest};

/// A request body that shows what to send.
const EXAMPLE: &str = r#"{"query": "latest AI developments", "max_results": 5}"#;

/// The most queries one request may carry.
pub(crate) const MAX_QUERIES: usize = 5;
/// The most results per query.
const MAX_RESULTS: u32 = 20;
/// The largest token budgets.
const MAX_TOKENS: u32 = 1_000_000;

/// A Search API request that passed every rule.
#[derive(Debug, Clone)]
pub(crate) struct SearchCall {
    /// The queries, in order.
    pub(crate) queries: Vec<String>,
    /// Whether `query` was a list (the results are then grouped per query).
    pub(crate) grouped: bool,
    /// Results per query.
    pub(crate) max_results: usize,
    /// Tokens a snippet may show.
    pub(crate) max_tokens_per_page: u64,
    /// Tokens all snippets together may show.
    pub(crate) max_tokens: u64,
    /// How much of each page a snippet shows.
    pub(crate) context: ContextSize,
    /// The filters.
    pub(crate) filters: Filters,
    /// The country, upper-case.
    pub(crate) country: Option<String>,
    /// `fast` returns fewer results.
    pub(crate) fast: bool,
    /// Answer `server_time`.
    pub(crate) server_time: bool,
}

/// Parses and checks a Search API body.
pub(crate) fn request(body: &[u8]) -> Result<SearchCall, SonarError> {
    let request: SearchRequest = body::parse(body, EXAMPLE)?;
    let (queries, grouped) = match &request.query {
        None => {
            return Err(SonarError::invalid_field(
                "query",
                format!("a query is required, e.g. {EXAMPLE}"),
            ));
        }
        Some(Query::One(one)) => (vec![one.clone()], false),
        Some(Query::Many(many)) => (many.clone(), true),
    };
    if queries.is_empty() || queries.len() > MAX_QUERIES {
        return Err(SonarError::invalid_field(
            "query",
            format!(
                "{} queries: send one query, or a list of 1 to {MAX_QUERIES}",
                queries.len()
            ),
        ));
    }
    for (i, query) in queries.iter().enumerate() {
        if query.trim().is_empty() {
            let at = if grouped {
                format!("query[{i}]")
            } else {
                "query".to_owned()
            };
            return Err(SonarError::invalid_field(
                &at,
                "an empty query: say what to search for",
            ));
        }
    }
    let bounded = |field: &str, value: Option<u32>, max: u32, default: u32| {
        let value = value.unwrap_or(default);
        if value == 0 || value > max {
            return Err(SonarError::invalid_field(
                field,
                format!("{value} is out of range: use a whole number from 1 to {max}"),
            ));
        }
        Ok(value)
    };
    let max_results = bounded("max_results", request.max_results, MAX_RESULTS, 10)?;
    let max_tokens = bounded("max_tokens", request.max_tokens, MAX_TOKENS, 10_000)?;
    let per_page = bounded(
        "max_tokens_per_page",
        request.max_tokens_per_page,
        MAX_TOKENS,
        4096,
    )?;
    let country = match &request.country {
        Some(c) if c.len() != 2 || !c.chars().all(|ch| ch.is_ascii_alphabetic()) => {
            return Err(SonarError::invalid_field(
                "country",
                format!("\"{c}\" is not an ISO 3166-1 alpha-2 code: use two letters like \"US\""),
            ));
        }
        other => other.as_ref().map(|c| c.to_uppercase()),
    };
    filters::languages(
        request
            .search_language_filter
            .as_deref()
            .unwrap_or_default(),
    )?;
    let filters = Filters::read(RawFilters {
        domains: request.search_domain_filter.as_deref(),
        mode: request.search_mode,
        recency: request.search_recency_filter,
        published_after: request.search_after_date_filter.as_deref(),
        published_before: request.search_before_date_filter.as_deref(),
        updated_after: request.last_updated_after_filter.as_deref(),
        updated_before: request.last_updated_before_filter.as_deref(),
    })?;
    Ok(SearchCall {
        queries,
        grouped,
        max_results: max_results as usize,
        max_tokens_per_page: u64::from(per_page),
        context: request.search_context_size.unwrap_or_default(),
        max_tokens: u64::from(max_tokens),
        filters,
        country,
        fast: request.search_type == Some(SearchKind::Fast),
        server_time: request.display_server_time == Some(true),
    })
}
