//! `POST /chat/completions`: the request, field by field as `ApiChatCompletionsRequestInput`
//! declares it. Fields the mock does not act on (`best_of`, `logprobs`, `thread_id`, ...) and
//! fields it does not know are ignored, as the API ignores them; `model` and `messages` are
//! optional here so that their absence gets a sentence of its own instead of serde's.

use serde::Deserialize;
use serde_json::Value;

/// A chat completions request.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ChatRequest {
    /// `sonar`, `sonar-pro`, `sonar-reasoning-pro` or `sonar-deep-research`.
    #[serde(default)]
    pub(crate) model: Option<String>,
    /// The conversation.
    #[serde(default)]
    pub(crate) messages: Option<Vec<Message>>,
    /// Answer as server-sent events.
    #[serde(default)]
    pub(crate) stream: Option<bool>,
    /// `full` (default) or `concise` chunks.
    #[serde(default)]
    pub(crate) stream_mode: Option<StreamMode>,
    /// The longest answer, in tokens.
    #[serde(default)]
    pub(crate) max_tokens: Option<u32>,
    /// Sampling temperature, 0 to 2.
    #[serde(default)]
    pub(crate) temperature: Option<f64>,
    /// Nucleus sampling, 0 to 1.
    #[serde(default)]
    pub(crate) top_p: Option<f64>,
    /// Top-k sampling, 0 to 2048.
    #[serde(default)]
    pub(crate) top_k: Option<u32>,
    /// -2 to 2.
    #[serde(default)]
    pub(crate) presence_penalty: Option<f64>,
    /// -2 to 2.
    #[serde(default)]
    pub(crate) frequency_penalty: Option<f64>,
    /// Where the answer stops.
    #[serde(default)]
    pub(crate) stop: Option<Stop>,
    /// `web`, `academic` or `sec`.
    #[serde(default)]
    pub(crate) search_mode: Option<SearchMode>,
    /// Domains to search (`nature.com`), or to leave out (`-reddit.com`).
    #[serde(default)]
    pub(crate) search_domain_filter: Option<Vec<String>>,
    /// How recent the sources must be.
    #[serde(default)]
    pub(crate) search_recency_filter: Option<Recency>,
    /// Sources published after this date (`3/1/2025`).
    #[serde(default)]
    pub(crate) search_after_date_filter: Option<String>,
    /// Sources published before this date.
    #[serde(default)]
    pub(crate) search_before_date_filter: Option<String>,
    /// Sources updated after this date.
    #[serde(default)]
    pub(crate) last_updated_after_filter: Option<String>,
    /// Sources updated before this date.
    #[serde(default)]
    pub(crate) last_updated_before_filter: Option<String>,
    /// ISO 639-1 languages of the sources.
    #[serde(default)]
    pub(crate) search_language_filter: Option<Vec<String>>,
    /// Answer `images`.
    #[serde(default)]
    pub(crate) return_images: Option<bool>,
    /// Answer `related_questions`.
    #[serde(default)]
    pub(crate) return_related_questions: Option<bool>,
    /// How many images.
    #[serde(default)]
    pub(crate) num_images: Option<u32>,
    /// How many sources.
    #[serde(default)]
    pub(crate) num_search_results: Option<u32>,
    /// Domains the images come from (or not, with `-`).
    #[serde(default)]
    pub(crate) image_domain_filter: Option<Vec<String>>,
    /// Image formats (`png`, `jpg`, ...).
    #[serde(default)]
    pub(crate) image_format_filter: Option<Vec<String>>,
    /// Plain text, a JSON schema the answer satisfies, or a regular expression.
    #[serde(default)]
    pub(crate) response_format: Option<ResponseFormat>,
    /// Answer without searching the web.
    #[serde(default)]
    pub(crate) disable_search: Option<bool>,
    /// How hard a reasoning model thinks.
    #[serde(default)]
    pub(crate) reasoning_effort: Option<ReasoningEffort>,
    /// Search context size, search type and the user's location.
    #[serde(default)]
    pub(crate) web_search_options: Option<WebSearchOptions>,
    /// Function tools the model may call (accepted; the mock's model answers in text).
    #[serde(default)]
    pub(crate) tools: Option<Vec<ToolSpec>>,
    /// ISO 3166-1 alpha-2 country to bias the search to.
    #[serde(default)]
    pub(crate) country: Option<String>,
    /// The answer's language.
    #[serde(default)]
    pub(crate) language_preference: Option<String>,
}

/// One message of the conversation.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Message {
    /// Who wrote it.
    pub(crate) role: Role,
    /// What it says; `null` only on an assistant message that calls tools.
    #[serde(default)]
    pub(crate) content: Option<Content>,
}

/// A message's author.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Role {
    /// Instructions.
    System,
    /// The person asking.
    User,
    /// The model.
    Assistant,
    /// A tool's result.
    Tool,
}

impl Role {
    /// The role as the wire writes it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::Tool => "tool",
        }
    }
}

/// A message's content: text, or a list of chunks.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Content {
    /// Plain text.
    Text(String),
    /// Text, image, file, PDF and video chunks.
    Parts(Vec<Part>),
}

impl Content {
    /// The text of the content (its text chunks joined by a space).
    pub(crate) fn text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Parts(parts) => parts
                .iter()
                .filter_map(|part| match part {
                    Part::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// Whether the content says nothing: no text and no media.
    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Self::Text(text) => text.trim().is_empty(),
            Self::Parts(parts) => parts.iter().all(|part| match part {
                Part::Text { text } => text.trim().is_empty(),
                _ => false,
            }),
        }
    }
}

/// One chunk of a message's content.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum Part {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, by URL or as a `data:` URL.
    ImageUrl {
        /// Where it is.
        image_url: UrlRef,
    },
    /// A file.
    FileUrl {
        /// Where it is.
        file_url: UrlRef,
        /// Its name.
        #[serde(default)]
        file_name: Option<String>,
    },
    /// A PDF.
    PdfUrl {
        /// Where it is.
        pdf_url: UrlRef,
    },
    /// A video.
    VideoUrl {
        /// Where it is.
        video_url: UrlRef,
    },
}

/// A URL, written as a string or as `{"url": ...}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum UrlRef {
    /// `"https://..."`.
    Plain(String),
    /// `{"url": "https://..."}`.
    Object {
        /// The URL.
        url: String,
    },
}

/// `stop`: one sequence or several.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Stop {
    /// One sequence.
    One(String),
    /// Several.
    Many(Vec<String>),
}

impl Stop {
    /// Every sequence.
    pub(crate) fn sequences(&self) -> Vec<&str> {
        match self {
            Self::One(one) => vec![one.as_str()],
            Self::Many(many) => many.iter().map(String::as_str).collect(),
        }
    }
}

/// How stream chunks are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StreamMode {
    /// Each chunk carries the message so far and the sources.
    Full,
    /// Deltas only; reasoning, then content, then a done chunk with the sources.
    Concise,
}

/// Where the search looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SearchMode {
    /// The web.
    #[default]
    Web,
    /// Scholarly sources.
    Academic,
    /// SEC filings.
    Sec,
}

impl SearchMode {
    /// The word, as the request wrote it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Web => "web",
            Self::Academic => "academic",
            Self::Sec => "sec",
        }
    }
}

/// How recent the sources must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Recency {
    /// The past hour.
    Hour,
    /// The past day.
    Day,
    /// The past week.
    Week,
    /// The past month.
    Month,
    /// The past year.
    Year,
}

impl Recency {
    /// The window it stands for.
    pub(crate) fn window(self) -> chrono::TimeDelta {
        match self {
            Self::Hour => chrono::TimeDelta::hours(1),
            Self::Day => chrono::TimeDelta::days(1),
            Self::Week => chrono::TimeDelta::days(7),
            Self::Month => chrono::TimeDelta::days(30),
            Self::Year => chrono::TimeDelta::days(365),
        }
    }

    /// The word, as the request wrote it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Hour => "hour",
            Self::Day => "day",
            Self::Week => "week",
            Self::Month => "month",
            Self::Year => "year",
        }
    }
}

/// How hard a reasoning model thinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReasoningEffort {
    /// Barely.
    Minimal,
    /// A little.
    Low,
    /// The default.
    Medium,
    /// Thoroughly.
    High,
}

/// `response_format`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum ResponseFormat {
    /// Plain text (the default).
    Text,
    /// JSON satisfying a schema.
    JsonSchema {
        /// The schema and its name.
        json_schema: JsonSchemaSpec,
    },
    /// Text matching a regular expression.
    Regex {
        /// The expression.
        regex: RegexSpec,
    },
}

/// `response_format.json_schema`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct JsonSchemaSpec {
    /// The JSON Schema the answer satisfies (a JSON Schema is JSON by nature, so it stays one).
    pub(crate) schema: Value,
    /// Its name.
    #[serde(default)]
    pub(crate) name: Option<String>,
}

/// `response_format.regex`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RegexSpec {
    /// The expression.
    pub(crate) regex: String,
}

/// `web_search_options`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct WebSearchOptions {
    /// How much of each source the model reads (and how many sources): `low` (default),
    /// `medium`, `high`.
    #[serde(default)]
    pub(crate) search_context_size: Option<ContextSize>,
    /// `fast`, `pro` (Pro Search, multi-step, on `sonar-pro`) or `auto`.
    #[serde(default)]
    pub(crate) search_type: Option<SearchType>,
    /// Where the user is.
    #[serde(default)]
    pub(crate) user_location: Option<UserLocation>,
}

/// `web_search_options.search_context_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ContextSize {
    /// The least (the default).
    #[default]
    Low,
    /// More.
    Medium,
    /// The most.
    High,
}

impl ContextSize {
    /// The word, as usage reports it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }

    /// Its place in the price tables (low, medium, high).
    pub(crate) fn index(self) -> usize {
        match self {
            Self::Low => 0,
            Self::Medium => 1,
            Self::High => 2,
        }
    }
}

/// `web_search_options.search_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum SearchType {
    /// One quick search.
    Fast,
    /// Pro Search: several steps.
    Pro,
    /// The API decides (the mock: fast).
    Auto,
}

/// `web_search_options.user_location`.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct UserLocation {
    /// City.
    #[serde(default)]
    pub(crate) city: Option<String>,
    /// Region or state.
    #[serde(default)]
    pub(crate) region: Option<String>,
    /// ISO country code.
    #[serde(default)]
    pub(crate) country: Option<String>,
}

/// A function tool offered to the model.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ToolSpec {
    /// Always `function` (checked as the request is read; nothing else reads it).
    #[serde(rename = "type")]
    _kind: ToolKind,
    /// The function.
    pub(crate) function: FunctionSpec,
}

/// The only tool type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ToolKind {
    /// A function.
    Function,
}

/// A function the model may call.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct FunctionSpec {
    /// Its name.
    pub(crate) name: String,
}
