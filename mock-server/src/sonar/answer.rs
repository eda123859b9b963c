//! The scripted answer to one chat completions request: its text (the scenario's, or one
//! written from the request), the sources it cites, images and related questions when asked,
//! the `<think>` block of a reasoning model, `response_format`, `max_tokens` and `stop`
//! applied, and its usage and cost as the model's pricing says. Pure: the same request and
//! scenario at the same virtual time give the same answer.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::models::{self, SonarModel};
use super::sources::{self, Lookup};
use super::structured::{self, Fill};
use super::validate::chat::ChatCall;
use super::wire::chat::{ContextSize, ReasoningEffort, SearchType};
use super::wire::completion::{
    ChatMessage, Choice, Completion, Cost, FinishReason, Image, SearchResult, Usage,
};
use crate::fixtures::SonarScript;

/// Images answered when `return_images` is set and `num_images` is not.
const DEFAULT_IMAGES: usize = 3;

/// A written answer, before it is sent whole or in chunks.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// The model.
    pub(crate) model: &'static SonarModel,
    /// The whole content (a reasoning model's `<think>` block first).
    pub(crate) content: String,
    /// `stop` or `length`.
    pub(crate) finish: FinishReason,
    /// The sources cited (empty with `disable_search`).
    pub(crate) sources: Vec<SearchResult>,
    /// Images, when asked for.
    pub(crate) images: Option<Vec<Image>>,
    /// Related questions, when asked for.
    pub(crate) related: Option<Vec<String>>,
    /// The reasoning shown in the `<think>` block.
    pub(crate) reasoning: Option<String>,
    /// What the model searched for.
    pub(crate) search_keywords: Vec<String>,
    /// Tokens and cost of the whole answer.
    pub(crate) usage: Usage,
    /// The cost in US dollars, unrounded (what the ledger charges from).
    pub(crate) cost_usd: f64,
    /// Virtual time before the first token.
    pub(crate) first_token: Duration,
    /// Words per chunk.
    pub(crate) chunk_words: usize,
    /// Virtual time between chunks.
    pub(crate) chunk_interval: Duration,
}

impl Answer {
    /// The credits the answer costs: one per US cent, rounded up, at least one.
    pub(crate) fn credits(&self) -> i64 {
        credits(self.cost_usd)
    }

    /// The content in chunks of `chunk_words` words (each with the space after it), which
    /// put together are the content.
    pub(crate) fn chunks(&self) -> Vec<String> {
        chunks(&self.content, self.chunk_words)
    }

    /// How long the whole answer takes to write, in virtual time.
    pub(crate) fn writing_time(&self) -> Duration {
        let chunks = u32::try_from(self.chunks().len().saturating_sub(1)).unwrap_or(u32::MAX);
        self.first_token
            .saturating_add(self.chunk_interval.saturating_mul(chunks))
    }

    /// The answer as one `chat.completion`.
    pub(crate) fn completion(&self, id: &str, created: i64) -> Completion {
        let searched = !self.sources.is_empty();
        Completion {
            id: id.to_owned(),
            model: self.model.id.to_owned(),
            created,
            usage: self.usage.clone(),
            citations: searched.then(|| self.citations()),
            search_results: searched.then(|| self.sources.clone()),
            images: self.images.clone(),
            related_questions: self.related.clone(),
            object: "chat.completion",
            choices: vec![Choice {
                index: 0,
                finish_reason: Some(self.finish),
                message: Some(ChatMessage::assistant(self.content.clone())),
                delta: Some(ChatMessage::assistant("")),
            }],
        }
    }

    /// The sources' URLs, in citation order.
    pub(crate) fn citations(&self) -> Vec<String> {
        self.sources.iter().map(|s| s.url.clone()).collect()
    }
}

/// Credits for a cost: one per US cent of the cost as the answer shows it (rounded to the
/// thousandth), rounded up, at least one.
pub(crate) fn credits(cost_usd: f64) -> i64 {
    let thousandths = (cost_usd * 1000.0).round() as i64;
    ((thousandths + 9) / 10).max(1)
}

/// Rounds a cost to the thousandth of a dollar, as the live API writes costs.
pub(crate) fn rounded(usd: f64) -> f64 {
    (usd * 1000.0).round() / 1000.0
}

/// Writes the answer to `call` as `script` says, at virtual time `now`.
pub(crate) fn write(call: &ChatCall, script: &SonarScript, now: DateTime<Utc>) -> Answer {
    let request = &call.request;
    let model = call.model;
    let topic = sources::topic(&call.question);
    let options = request.web_search_options.clone().unwrap_or_default();
    let context = options.search_context_size.unwrap_or_default();
    let pro_search =
        options.search_type == Some(SearchType::Pro) && model.pro_search_fees.is_some();
    let searches = request.disable_search != Some(true);
    let sources = if !searches {
        Vec::new()
    } else if let Some(results) = &script.results {
        sources::scripted(results)
    } else {
        let count = request.num_search_results.map_or_else(
            || (3 + 2 * context.index()) * model.sources_factor,
            |n| n as usize,
        );
        sources::find(Lookup {
            topic: &topic,
            count: count.min(20),
            filters: &call.filters,
            country: request.country.as_deref().or(options
                .user_location
                .as_ref()
                .and_then(|l| l.country.as_deref())),
            context,
            now,
        })
    };
    let citations: Vec<String> = sources.iter().map(|s| s.url.clone()).collect();
    let body = match &script.answer {
        Some(text) => text.replace("{query}", &topic),
        None => default_text(call, &topic, &sources, searches),
    };
    let effort = request.reasoning_effort.unwrap_or(ReasoningEffort::Medium);
    let reasoning = model.reasoning.then(|| {
        script
            .reasoning
            .clone()
            .unwrap_or_else(|| thoughts(&topic, effort))
    });
    let today = now.date_naive().format("%Y-%m-%d").to_string();
    let now_text = now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let body = match (&call.schema, &call.pattern) {
        (Some(schema), _) => {
            let value = structured::value(
                schema,
                Fill {
                    answer: &body,
                    topic: &topic,
                    citations: &citations,
                    today: &today,
                    now: &now_text,
                },
            );
            serde_json::to_string(&value).unwrap_or(body)
        }
        (None, Some(pattern)) if !pattern.is_match(&body) => [topic.as_str(), "yes", "no", "1"]
            .into_iter()
            .find(|c| pattern.is_match(c))
            .map_or(body.clone(), str::to_owned),
        _ => body,
    };
    let mut content = match &reasoning {
        Some(thought) => format!("<think>\n{thought}\n</think>\n\n{body}"),
        None => body,
    };
    let finish = cut(&mut content, request);
    let images = (request.return_images == Some(true)).then(|| match &script.images {
        Some(images) => sources::scripted_images(images),
        None => sources::images(
            &topic,
            request.num_images.map_or(DEFAULT_IMAGES, |n| n as usize),
            &sources,
            request.image_domain_filter.as_deref().unwrap_or_default(),
            request.image_format_filter.as_deref().unwrap_or_default(),
        ),
    });
    let related = (request.return_related_questions == Some(true)).then(|| {
        script
            .related_questions
            .clone()
            .unwrap_or_else(|| sources::related(&topic))
    });
    let queries = if searches {
        script
            .search_queries
            .unwrap_or(model.search_queries + u32::from(pro_search))
    } else {
        0
    };
    let meters = Meters {
        model,
        prompt_tokens: call.prompt_tokens,
        completion_tokens: models::tokens(&content),
        reasoning_tokens: reasoning_tokens(model, reasoning.as_deref(), effort),
        citation_tokens: if model.research.is_some() {
            500 * sources.len() as u64
        } else {
            0
        },
        queries: u64::from(queries),
        context,
        pro_search,
    };
    let (usage, cost_usd) = meters.usage();
    Answer {
        model,
        content,
        finish,
        search_keywords: if searches {
            vec![topic.clone()]
        } else {
            Vec::new()
        },
        sources,
        images,
        related,
        reasoning,
        usage,
        cost_usd,
        first_token: script.first_token.unwrap_or(model.first_token),
        chunk_words: script.chunk_words.max(1),
        chunk_interval: script.chunk_interval,
    }
}

/// The answer the default scenario writes: what it is about, where it looked (the filters it
/// honoured), and a sentence per source citing it.
fn default_text(call: &ChatCall, topic: &str, sources: &[SearchResult], searches: bool) -> String {
    let request = &call.request;
    if !searches {
        return format!(
            "Answering from the model's own knowledge, without a web search: here is a short \
             answer about {topic}."
        );
    }
    let filters = &call.filters;
    let mut scope = format!("{} search", filters.mode.as_str());
    if !filters.allow.is_empty() {
        scope.push_str(&format!(" of {}", filters.allow.join(", ")));
    }
    if !filters.deny.is_empty() {
        scope.push_str(&format!(", leaving out {}", filters.deny.join(", ")));
    }
    if let Some(recency) = filters.recency {
        scope.push_str(&format!(", sources from the past {}", recency.as_str()));
    }
    if let (Some(after), Some(before)) = (filters.published_after, filters.published_before) {
        scope.push_str(&format!(", published between {after} and {before}"));
    } else if let Some(after) = filters.published_after {
        scope.push_str(&format!(", published after {after}"));
    } else if let Some(before) = filters.published_before {
        scope.push_str(&format!(", published before {before}"));
    }
    let location = request
        .web_search_options
        .as_ref()
        .and_then(|o| o.user_location.as_ref())
        .map(|l| {
            [&l.city, &l.region, &l.country]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        })
        .filter(|l| !l.is_empty())
        .or_else(|| request.country.clone());
    let mut text = if sources.is_empty() {
        format!(
            "No source matched the search filters ({scope}), so this answer about {topic} cites none."
        )
    } else {
        let mut text = format!("Here is a short answer about {topic}[1].");
        if let Some(second) = sources.get(1) {
            let when = second.date.as_deref().unwrap_or("recently");
            text.push_str(&format!(
                " Coverage from {when} adds the latest details[2]."
            ));
        }
        if sources.len() > 2 {
            let rest: String = (3..=sources.len()).map(|i| format!("[{i}]")).collect();
            text.push_str(&format!(
                " The other sources agree on the main points{rest}."
            ));
        }
        text.push_str(&format!(" (Sources: {scope}.)"));
        text
    };
    if let Some(location) = location {
        text.push_str(&format!(" Answered for a reader in {location}."));
    }
    if let Some(language) = &request.language_preference {
        text.push_str(&format!(" Language: {language}."));
    }
    text
}

/// What a reasoning model thinks: more sentences for a higher `reasoning_effort`.
fn thoughts(topic: &str, effort: ReasoningEffort) -> String {
    let all = [
        format!("The question is about {topic}."),
        "I should look for recent, reliable sources first.".to_owned(),
        "Then I will compare what they say and note where they disagree.".to_owned(),
        "I will cite each claim by its source's number.".to_owned(),
        "Last, I will check the answer against what the request asked for.".to_owned(),
    ];
    let count = match effort {
        ReasoningEffort::Minimal => 1,
        ReasoningEffort::Low => 2,
        ReasoningEffort::Medium => 3,
        ReasoningEffort::High => 5,
    };
    all[..count].join(" ")
}

fn reasoning_tokens(model: &SonarModel, reasoning: Option<&str>, effort: ReasoningEffort) -> u64 {
    let Some(reasoning) = reasoning else {
        return 0;
    };
    if model.research.is_some() {
        match effort {
            ReasoningEffort::Minimal => 2_000,
            ReasoningEffort::Low => 8_000,
            ReasoningEffort::Medium => 20_000,
            ReasoningEffort::High => 60_000,
        }
    } else {
        models::tokens(reasoning)
    }
}

/// Applies `stop` and `max_tokens` to the content; returns why it ends.
fn cut(content: &mut String, request: &crate::sonar::wire::chat::ChatRequest) -> FinishReason {
    if let Some(stop) = &request.stop
        && let Some(at) = stop
            .sequences()
            .into_iter()
            .filter(|s| !s.is_empty())
            .filter_map(|s| content.find(s))
            .min()
    {
        content.truncate(at);
    }
    if let Some(max) = request.max_tokens
        && models::tokens(content) > u64::from(max)
    {
        let end = content
            .char_indices()
            .nth(max as usize * 4)
            .map_or(content.len(), |(i, _)| i);
        content.truncate(end);
        return FinishReason::Length;
    }
    FinishReason::Stop
}

/// `text` in chunks of `words` words, each with the whitespace after it.
pub(crate) fn chunks(text: &str, words: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut count = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if in_word {
                count += 1;
                in_word = false;
            }
        } else if !in_word {
            if count == words {
                out.push(std::mem::take(&mut current));
                count = 0;
            }
            in_word = true;
        }
        current.push(c);
    }
    if !current.is_empty() || out.is_empty() {
        out.push(current);
    }
    out
}

/// What a completion is billed for.
struct Meters {
    model: &'static SonarModel,
    prompt_tokens: u64,
    completion_tokens: u64,
    reasoning_tokens: u64,
    citation_tokens: u64,
    queries: u64,
    context: ContextSize,
    pro_search: bool,
}

impl Meters {
    /// The usage the answer reports, and its unrounded cost.
    fn usage(&self) -> (Usage, f64) {
        let m = self.model;
        let per_million = |tokens: u64, price: f64| tokens as f64 * price / 1_000_000.0;
        let input = per_million(self.prompt_tokens, m.input_per_million);
        let output = per_million(self.completion_tokens, m.output_per_million);
        let fees = if self.pro_search {
            m.pro_search_fees
        } else {
            m.request_fees
        };
        let request = fees.map(|f| f[self.context.index()] / 1000.0);
        let research = m.research.as_ref().map(|r| {
            (
                per_million(self.reasoning_tokens, r.reasoning_per_million),
                per_million(self.citation_tokens, r.citation_per_million),
                self.queries as f64 * r.searches_per_thousand / 1000.0,
            )
        });
        let total =
            input + output + request.unwrap_or(0.0) + research.map_or(0.0, |(r, c, s)| r + c + s);
        let usage = Usage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            total_tokens: self.prompt_tokens + self.completion_tokens,
            search_context_size: self.context.as_str(),
            citation_tokens: self.citation_tokens,
            num_search_queries: self.queries,
            reasoning_tokens: self.reasoning_tokens,
            cost: Cost {
                input_tokens_cost: rounded(input),
                output_tokens_cost: rounded(output),
                reasoning_tokens_cost: research.map(|(r, _, _)| rounded(r)),
                request_cost: request.map(rounded),
                citation_tokens_cost: research.map(|(_, c, _)| rounded(c)),
                search_queries_cost: research.map(|(_, _, s)| rounded(s)),
                total_cost: rounded(total),
            },
        };
        (usage, total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_put_back_together_are_the_text() {
        let text = "One two three four five six seven.\n\nEight nine";
        for words in 1..5 {
            let chunks = chunks(text, words);
            assert_eq!(chunks.concat(), text, "{words}");
            assert!(chunks.len() >= 9 / words, "{chunks:?}");
        }
        assert_eq!(chunks("", 3), [""]);
    }

    #[test]
    fn a_cent_is_a_credit_rounded_up() {
        assert_eq!(credits(0.005), 1);
        assert_eq!(credits(0.0111), 2);
        assert_eq!(credits(0.12), 12);
        assert_eq!(credits(0.1204), 12);
        assert_eq!(credits(0.0), 1);
        assert_eq!(rounded(0.00549), 0.005);
    }
}
