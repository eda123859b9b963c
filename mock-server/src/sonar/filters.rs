//! The search filters chat completions and the Search API share, read once: the domain allow
//! and deny lists, the date windows and the recency filter, turned into the window of dates
//! and the domains a source may have.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};

use super::wire::chat::{Recency, SearchMode};
use super::wire::error::SonarError;

/// The most entries `search_domain_filter` takes.
pub(crate) const MAX_DOMAINS: usize = 20;
/// The most languages `search_language_filter` takes.
const MAX_LANGUAGES: usize = 20;

/// Checks `search_language_filter`: at most twenty ISO 639-1 codes.
pub(crate) fn languages(languages: &[String]) -> Result<(), SonarError> {
    if languages.len() > MAX_LANGUAGES {
        return Err(SonarError::invalid_field(
            "search_language_filter",
            format!("at most {MAX_LANGUAGES} languages are allowed"),
        ));
    }
    for (i, language) in languages.iter().enumerate() {
        if language.len() != 2 || !language.chars().all(|c| c.is_ascii_alphabetic()) {
            return Err(SonarError::invalid_field(
                &format!("search_language_filter[{i}]"),
                format!("\"{language}\" is not an ISO 639-1 code: use two letters like \"en\""),
            ));
        }
    }
    Ok(())
}

/// The filters of one request, checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filters {
    /// Domains the sources must come from (entries without a leading `-`).
    pub(crate) allow: Vec<String>,
    /// Domains they must not come from (entries with one, without it).
    pub(crate) deny: Vec<String>,
    /// `web`, `academic` or `sec`.
    pub(crate) mode: SearchMode,
    /// `search_recency_filter`.
    pub(crate) recency: Option<Recency>,
    /// `search_after_date_filter`.
    pub(crate) published_after: Option<NaiveDate>,
    /// `search_before_date_filter`.
    pub(crate) published_before: Option<NaiveDate>,
    /// `last_updated_after_filter`.
    pub(crate) updated_after: Option<NaiveDate>,
    /// `last_updated_before_filter`.
    pub(crate) updated_before: Option<NaiveDate>,
}

/// The raw filter fields of a request.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RawFilters<'a> {
    /// `search_domain_filter`.
    pub(crate) domains: Option<&'a [String]>,
    /// `search_mode`.
    pub(crate) mode: Option<SearchMode>,
    /// `search_recency_filter`.
    pub(crate) recency: Option<Recency>,
    /// `search_after_date_filter`.
    pub(crate) published_after: Option<&'a str>,
    /// `search_before_date_filter`.
    pub(crate) published_before: Option<&'a str>,
    /// `last_updated_after_filter`.
    pub(crate) updated_after: Option<&'a str>,
    /// `last_updated_before_filter`.
    pub(crate) updated_before: Option<&'a str>,
}

impl Filters {
    /// Checks the raw fields: at most twenty domains, each a host name, and dates the API can
    /// read (`3/1/2025` as documented, or `2025-03-01`), after before before.
    pub(crate) fn read(raw: RawFilters<'_>) -> Result<Self, SonarError> {
        let mut filters = Self {
            mode: raw.mode.unwrap_or_default(),
            recency: raw.recency,
            published_after: date("search_after_date_filter", raw.published_after)?,
            published_before: date("search_before_date_filter", raw.published_before)?,
            updated_after: date("last_updated_after_filter", raw.updated_after)?,
            updated_before: date("last_updated_before_filter", raw.updated_before)?,
            ..Self::default()
        };
        let domains = raw.domains.unwrap_or_default();
        if domains.len() > MAX_DOMAINS {
            return Err(SonarError::invalid_field(
                "search_domain_filter",
                format!(
                    "{} entries: at most {MAX_DOMAINS} domains are allowed; keep the ones that \
                     matter most",
                    domains.len()
                ),
            ));
        }
        for (i, entry) in domains.iter().enumerate() {
            let (deny, domain) = match entry.trim().strip_prefix('-') {
                Some(rest) => (true, host(rest)),
                None => (false, host(entry)),
            };
            if domain.is_empty() || domain.contains(char::is_whitespace) {
                return Err(SonarError::invalid_field(
                    &format!("search_domain_filter[{i}]"),
                    format!(
                        "\"{entry}\" is not a domain: write one like \"nature.com\", or \
                         \"-reddit.com\" to leave a domain out"
                    ),
                ));
            }
            if deny {
                filters.deny.push(domain);
            } else {
                filters.allow.push(domain);
            }
        }
        for (field, after, before) in [
            (
                "search_after_date_filter",
                filters.published_after,
                filters.published_before,
            ),
            (
                "last_updated_after_filter",
                filters.updated_after,
                filters.updated_before,
            ),
        ] {
            if let (Some(after), Some(before)) = (after, before)
                && after > before
            {
                return Err(SonarError::invalid_field(
                    field,
                    format!(
                        "{after} is after the matching before filter ({before}): no source \
                         could be in that window; swap them"
                    ),
                ));
            }
        }
        Ok(filters)
    }

    /// The window publication dates fall in, on the day of `now`: `None` when the filters
    /// leave no date at all.
    pub(crate) fn published_window(&self, now: DateTime<Utc>) -> Option<(NaiveDate, NaiveDate)> {
        let mut end = now.date_naive();
        for before in [self.published_before, self.updated_before]
            .into_iter()
            .flatten()
        {
            end = end.min(before);
        }
        let recent = self.recency.map(|r| (now - r.window()).date_naive());
        let start = match (self.published_after, recent) {
            (Some(after), Some(recent)) => after.max(recent),
            (Some(after), None) => after,
            (None, Some(recent)) => recent,
            // Without a filter, sources from the two months before the window's end.
            (None, None) => end - TimeDelta::days(60),
        };
        (start <= end).then_some((start, end))
    }

    /// Whether a source on `domain` passes the allow and deny lists.
    pub(crate) fn admits(&self, domain: &str) -> bool {
        let within = |d: &String| domain == d || domain.ends_with(&format!(".{d}"));
        (self.allow.is_empty() || self.allow.iter().any(within)) && !self.deny.iter().any(within)
    }
}

/// The host of a domain filter entry (`https://www.nature.com/x` is `www.nature.com`).
fn host(entry: &str) -> String {
    let entry = entry.trim();
    let rest = entry.split_once("://").map_or(entry, |(_, rest)| rest);
    rest.split(['/', '?', '#'])
        .next()
        .unwrap_or("")
        .to_lowercase()
}

/// A date filter, read as the API documents it (`%m/%d/%Y`, `3/1/2025`) or as ISO 8601.
fn date(field: &str, text: Option<&str>) -> Result<Option<NaiveDate>, SonarError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let text = text.trim();
    NaiveDate::parse_from_str(text, "%m/%d/%Y")
        .or_else(|_| NaiveDate::parse_from_str(text, "%Y-%m-%d"))
        .map(Some)
        .map_err(|_| {
            SonarError::invalid_field(
                field,
                format!("\"{text}\" is not a date: write it as %m/%d/%Y, e.g. \"3/1/2025\""),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(domains: &[&str]) -> Result<Filters, SonarError> {
        let domains: Vec<String> = domains.iter().map(|d| (*d).to_owned()).collect();
        Filters::read(RawFilters {
            domains: Some(&domains),
            ..RawFilters::default()
        })
    }

    #[test]
    fn domains_split_into_allow_and_deny_lists_and_match_subdomains() {
        let filters = read(&["nature.com", "-reddit.com", "https://arxiv.org/list"]).expect("ok");
        assert_eq!(filters.allow, ["nature.com", "arxiv.org"]);
        assert_eq!(filters.deny, ["reddit.com"]);
        assert!(filters.admits("www.nature.com"));
        assert!(!filters.admits("www.reddit.com"));
        assert!(!filters.admits("example.org"));
    }

    #[test]
    fn dates_are_read_as_documented_and_a_reversed_window_is_refused() {
        let filters = Filters::read(RawFilters {
            published_after: Some("3/1/2025"),
            published_before: Some("2025-03-31"),
            ..RawFilters::default()
        })
        .expect("ok");
        assert_eq!(filters.published_after, NaiveDate::from_ymd_opt(2025, 3, 1));
        let refused = Filters::read(RawFilters {
            published_after: Some("4/1/2025"),
            published_before: Some("3/1/2025"),
            ..RawFilters::default()
        })
        .expect_err("reversed");
        assert!(refused.message.contains("swap them"), "{}", refused.message);
        let refused = Filters::read(RawFilters {
            updated_after: Some("yesterday"),
            ..RawFilters::default()
        })
        .expect_err("not a date");
        assert_eq!(refused.param.as_deref(), Some("last_updated_after_filter"));
    }

    #[test]
    fn more_than_twenty_domains_are_refused() {
        let many: Vec<String> = (0..21).map(|i| format!("site{i}.org")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(read(&many).is_err());
        assert!(read(&["not a domain"]).is_err());
    }
}
