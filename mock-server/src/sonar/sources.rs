//! What the mock's search finds when a scenario scripts no sources: made up from the question,
//! the same for the same request, and always inside the request's filters (the allowed and
//! denied domains, the search mode's kind of site, the recency and date windows), so a client
//! can check that its filters were honoured. Images and related questions likewise.

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};

use super::filters::Filters;
use super::wire::chat::{ContextSize, SearchMode};
use super::wire::completion::{Image, SearchResult};
use crate::fixtures::{SonarImage, SonarResult};

/// Sites a web search finds, with the names the answer calls them by.
const WEB: &[(&str, &str)] = &[
    ("en.wikipedia.org", "Wikipedia"),
    ("www.reuters.com", "Reuters"),
    ("www.bbc.com", "BBC News"),
    ("arstechnica.com", "Ars Technica"),
    ("www.nature.com", "Nature"),
    ("www.britannica.com", "Britannica"),
    ("www.theguardian.com", "The Guardian"),
    ("www.wired.com", "Wired"),
];

/// Sites an academic search finds.
const ACADEMIC: &[(&str, &str)] = &[
    ("arxiv.org", "arXiv"),
    ("www.nature.com", "Nature"),
    ("pubmed.ncbi.nlm.nih.gov", "PubMed"),
    ("www.science.org", "Science"),
    ("www.jstor.org", "JSTOR"),
    ("scholar.archive.org", "Internet Archive Scholar"),
];

/// Where an SEC search looks.
const SEC: &[(&str, &str)] = &[("www.sec.gov", "SEC EDGAR")];

/// What a search is for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lookup<'a> {
    /// What it is about.
    pub(crate) topic: &'a str,
    /// How many sources to find.
    pub(crate) count: usize,
    /// The request's filters.
    pub(crate) filters: &'a Filters,
    /// The country results are biased to.
    pub(crate) country: Option<&'a str>,
    /// How much of each page a snippet shows.
    pub(crate) context: ContextSize,
    /// Virtual now.
    pub(crate) now: DateTime<Utc>,
}

/// The sources a search finds: `count` of them, newest first, fewer when the filters leave
/// fewer sites or no dates at all.
pub(crate) fn find(lookup: Lookup<'_>) -> Vec<SearchResult> {
    let Lookup {
        topic,
        count,
        filters,
        country,
        context,
        now,
    } = lookup;
    let sites = sites(filters);
    let Some((start, end)) = filters.published_window(now) else {
        return Vec::new();
    };
    if sites.is_empty() {
        return Vec::new();
    }
    let today = now.date_naive();
    let span = (end - start).num_days();
    let slug = slug(topic);
    let mut found = Vec::new();
    for i in 0..count {
        let (domain, label) = &sites[i % sites.len()];
        let steps = i64::try_from(i).unwrap_or(i64::MAX).saturating_add(1);
        let date = end - TimeDelta::days(span.saturating_mul(steps) / (count as i64 + 1).max(1));
        let low = filters.updated_after.map_or(date, |after| after.max(date));
        let high = filters
            .updated_before
            .map_or(today, |before| before.min(today));
        if low > high {
            continue;
        }
        let updated = (date + TimeDelta::days(1)).min(high).max(low);
        let path = if i < sites.len() {
            slug.clone()
        } else {
            format!("{slug}-{}", i / sites.len() + 1)
        };
        found.push(SearchResult {
            title: format!("{} - {label}", title_case(topic)),
            url: format!("https://{domain}/{path}"),
            date: Some(iso(date)),
            last_updated: Some(iso(updated)),
            snippet: snippet(label, topic, country, context),
            source: "web".to_owned(),
        });
    }
    found
}

/// A scenario's own sources, as the wire shows them.
pub(crate) fn scripted(results: &[SonarResult]) -> Vec<SearchResult> {
    results
        .iter()
        .map(|r| SearchResult {
            title: r.title.clone(),
            url: r.url.clone(),
            date: r.date.clone(),
            last_updated: r.last_updated.clone().or_else(|| r.date.clone()),
            snippet: r.snippet.clone(),
            source: r.source.clone().unwrap_or_else(|| "web".to_owned()),
        })
        .collect()
}

/// A scenario's own images.
pub(crate) fn scripted_images(images: &[SonarImage]) -> Vec<Image> {
    images
        .iter()
        .map(|i| Image {
            image_url: i.image_url.clone(),
            origin_url: i.origin_url.clone(),
            height: i.height,
            width: i.width,
            title: i.title.clone(),
        })
        .collect()
}

/// `count` images about `topic`, from the allowed image domains (else the sources' sites), in
/// the first allowed format (else `jpg`).
pub(crate) fn images(
    topic: &str,
    count: usize,
    sources: &[SearchResult],
    domain_filter: &[String],
    format_filter: &[String],
) -> Vec<Image> {
    let allowed: Vec<String> = domain_filter
        .iter()
        .filter(|d| !d.starts_with('-'))
        .map(|d| d.trim().to_lowercase())
        .collect();
    let denied: Vec<String> = domain_filter
        .iter()
        .filter_map(|d| d.strip_prefix('-'))
        .map(|d| d.trim().to_lowercase())
        .collect();
    let mut domains: Vec<String> = if allowed.is_empty() {
        sources
            .iter()
            .filter_map(|s| s.url.split('/').nth(2).map(str::to_owned))
            .collect()
    } else {
        allowed
    };
    if domains.is_empty() {
        domains = WEB.iter().map(|(d, _)| (*d).to_owned()).collect();
    }
    domains.retain(|d| {
        !denied
            .iter()
            .any(|x| d == x || d.ends_with(&format!(".{x}")))
    });
    let Some(first) = domains.first().cloned() else {
        return Vec::new();
    };
    let format = format_filter
        .first()
        .map_or_else(|| "jpg".to_owned(), |f| f.trim().to_lowercase());
    let slug = slug(topic);
    (0..count)
        .map(|i| {
            let domain = domains.get(i % domains.len()).unwrap_or(&first);
            Image {
                image_url: format!("https://{domain}/images/{slug}-{}.{format}", i + 1),
                origin_url: format!("https://{domain}/{slug}"),
                height: if i % 2 == 0 { 800 } else { 900 },
                width: 1200,
                title: Some(format!("{} ({})", title_case(topic), i + 1)),
            }
        })
        .collect()
}

/// Three follow-up questions about `topic`.
pub(crate) fn related(topic: &str) -> Vec<String> {
    vec![
        format!("What is the history of {topic}?"),
        format!("How does {topic} compare with the alternatives?"),
        format!("What are the latest developments in {topic}?"),
    ]
}

/// How questions start, left out of what they are about.
const QUESTION_WORDS: &[&str] = &[
    "what is new in ",
    "what is new with ",
    "what's new in ",
    "what is ",
    "what are ",
    "what's ",
    "who is ",
    "who are ",
    "how does ",
    "how do ",
    "how is ",
    "why is ",
    "why do ",
    "tell me about ",
    "tell me more about ",
    "explain ",
    "summarize ",
    "describe ",
    "the latest on ",
    "the latest in ",
];

/// What a question is about: its words without `#scenario` tags and without a leading
/// question phrase ("What is new in"), at most twelve of them, without the closing question
/// mark.
pub(crate) fn topic(question: &str) -> String {
    let words: Vec<&str> = question
        .split_whitespace()
        .filter(|w| !w.starts_with('#'))
        .take(16)
        .collect();
    let mut topic = words.join(" ");
    let lower = topic.to_lowercase();
    if let Some(rest) = QUESTION_WORDS
        .iter()
        .find(|w| lower.starts_with(*w))
        .and_then(|start| topic.get(start.len()..))
    {
        topic = rest.to_owned();
    }
    let topic: Vec<&str> = topic.split_whitespace().take(12).collect();
    let topic = topic.join(" ");
    let topic = topic.trim_end_matches(['?', '.', '!', ':']).trim();
    if topic.is_empty() {
        "your question".to_owned()
    } else {
        topic.to_owned()
    }
}

/// The sites a search may find: the allowed domains, else the search mode's kind of site;
/// never a denied one.
fn sites(filters: &Filters) -> Vec<(String, String)> {
    let candidates: Vec<(String, String)> = if filters.allow.is_empty() {
        let pool = match filters.mode {
            SearchMode::Web => WEB,
            SearchMode::Academic => ACADEMIC,
            SearchMode::Sec => SEC,
        };
        pool.iter()
            .map(|(d, l)| ((*d).to_owned(), (*l).to_owned()))
            .collect()
    } else {
        filters
            .allow
            .iter()
            .map(|d| (d.clone(), d.clone()))
            .collect()
    };
    candidates
        .into_iter()
        .filter(|(domain, _)| filters.admits(domain))
        .collect()
}

fn snippet(label: &str, topic: &str, country: Option<&str>, context: ContextSize) -> String {
    let mut sentences = vec![format!(
        "{label} on {topic}: the main facts, who reported them and when."
    )];
    if context.index() >= 1 {
        sentences.push(format!(
            "It explains how {topic} developed and what changed most recently."
        ));
    }
    if context.index() >= 2 {
        sentences.push("It also lists the open questions and where to read more.".to_owned());
    }
    if let Some(country) = country {
        sentences.push(format!("Coverage for readers in {country}."));
    }
    sentences.join(" ")
}

/// `2026-10-24`.
fn iso(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// A URL path for `topic`: lower-case words joined by `-`.
fn slug(topic: &str) -> String {
    let words: Vec<String> = topic
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        "answer".to_owned()
    } else {
        words.join("-")
    }
}

fn title_case(topic: &str) -> String {
    let mut chars = topic.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sonar::filters::RawFilters;

    fn now() -> DateTime<Utc> {
        crate::clock::Clock::fixed_epoch()
    }

    fn lookup<'a>(filters: &'a Filters, count: usize) -> Lookup<'a> {
        Lookup {
            topic: "solar power",
            count,
            filters,
            country: None,
            context: ContextSize::Low,
            now: now(),
        }
    }

    #[test]
    fn sources_respect_the_domain_lists_and_the_recency_window() {
        let domains = vec!["nature.com".to_owned(), "-wikipedia.org".to_owned()];
        let filters = Filters::read(RawFilters {
            domains: Some(&domains),
            recency: Some(crate::sonar::wire::chat::Recency::Week),
            ..RawFilters::default()
        })
        .expect("filters");
        let found = find(lookup(&filters, 4));
        assert_eq!(found.len(), 4);
        let week_ago = (now() - TimeDelta::days(7)).date_naive();
        for source in &found {
            assert!(
                source.url.starts_with("https://nature.com/"),
                "{}",
                source.url
            );
            let date = NaiveDate::parse_from_str(source.date.as_deref().unwrap_or(""), "%Y-%m-%d")
                .expect("a date");
            assert!(date >= week_ago && date <= now().date_naive(), "{date}");
        }
    }

    #[test]
    fn an_impossible_window_or_denying_every_site_finds_nothing() {
        let sec_denied = vec!["-sec.gov".to_owned()];
        let filters = Filters::read(RawFilters {
            domains: Some(&sec_denied),
            mode: Some(SearchMode::Sec),
            ..RawFilters::default()
        })
        .expect("filters");
        assert!(find(lookup(&filters, 3)).is_empty());
        let future = Filters::read(RawFilters {
            published_after: Some("1/1/2030"),
            ..RawFilters::default()
        })
        .expect("filters");
        assert!(find(lookup(&future, 3)).is_empty());
    }

    #[test]
    fn the_topic_leaves_out_scenario_tags() {
        assert_eq!(topic("#cited-answer What is new in AI?"), "AI");
        assert_eq!(topic("Tell me about the Mars rover."), "the Mars rover");
        assert_eq!(topic("#only"), "your question");
    }
}
