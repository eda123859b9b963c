//! Chat completions validation, rule by rule as the API states them: a served model; messages
//! that alternate user and assistant after any system messages and end with the user (or a
//! tool result); sampling parameters in range; search filters the API can read; and a
//! `response_format` whose schema compiles (or whose expression does).

use regex::Regex;
use serde_json::Value;

use super::body;
use crate::sonar::filters::{self, Filters, RawFilters};
use crate::sonar::models::{self, SonarModel};
use crate::sonar::wire::chat::{
    ChatRequest, Content, Message, Part, ResponseFormat, Role, StreamMode, UrlRef,
};
use crate::sonar::wire::error::SonarError;

/// A request body that shows what to send.
const EXAMPLE: &str =
    r#"{"model": "sonar", "messages": [{"role": "user", "content": "What is new?"}]}"#;

/// The most images an answer may carry.
const MAX_IMAGES: u32 = 20;
/// The most sources an answer may cite.
const MAX_SOURCES: u32 = 20;

/// A chat completions request that passed every rule.
#[derive(Debug, Clone)]
pub(crate) struct ChatCall {
    /// The model.
    pub(crate) model: &'static SonarModel,
    /// The request, typed.
    pub(crate) request: ChatRequest,
    /// The last user message's text: what the answer is about, and where `#name` picks a
    /// scenario.
    pub(crate) question: String,
    /// Tokens in every message (text, and each attachment's URL).
    pub(crate) prompt_tokens: u64,
    /// The search filters.
    pub(crate) filters: Filters,
    /// The JSON Schema the answer must satisfy.
    pub(crate) schema: Option<Value>,
    /// The expression the answer should match.
    pub(crate) pattern: Option<Regex>,
}

impl ChatCall {
    /// Whether the answer streams.
    pub(crate) fn streams(&self) -> bool {
        self.request.stream == Some(true)
    }

    /// Whether the stream's chunks are concise.
    pub(crate) fn concise(&self) -> bool {
        self.request.stream_mode == Some(StreamMode::Concise)
    }
}

/// Parses and checks a chat completions body.
pub(crate) fn request(body: &[u8]) -> Result<ChatCall, SonarError> {
    let request: ChatRequest = body::parse(body, EXAMPLE).map_err(refine_messages(body))?;
    check(request)
}

/// Checks a request already read (an async job's `request`).
pub(crate) fn check(request: ChatRequest) -> Result<ChatCall, SonarError> {
    let model = model(&request)?;
    let messages = request.messages.as_deref().unwrap_or_default();
    let question = conversation(messages)?;
    ranges(&request)?;
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
    let (schema, pattern) = response_format(request.response_format.as_ref())?;
    if let Some(tools) = &request.tools {
        for (i, tool) in tools.iter().enumerate() {
            if tool.function.name.trim().is_empty() {
                return Err(SonarError::invalid_field(
                    &format!("tools[{i}].function.name"),
                    "a function tool needs a name",
                ));
            }
        }
    }
    let prompt_tokens = messages
        .iter()
        .map(|m| models::tokens(&described(m)) + 4)
        .sum();
    Ok(ChatCall {
        model,
        question,
        prompt_tokens,
        filters,
        schema,
        pattern,
        request,
    })
}

fn model(request: &ChatRequest) -> Result<&'static SonarModel, SonarError> {
    let Some(name) = request.model.as_deref() else {
        return Err(SonarError::invalid_field(
            "model",
            format!("a model is required: use {}", models::names()),
        ));
    };
    models::find(name).ok_or_else(|| {
        SonarError::new(
            http::StatusCode::BAD_REQUEST,
            "invalid_model",
            format!(
                "Invalid model '{name}'. Permitted models: {}.",
                models::names()
            ),
        )
        .param("model")
    })
}

/// The rules on `messages`; returns the last user message's text.
fn conversation(messages: &[Message]) -> Result<String, SonarError> {
    if messages.is_empty() {
        return Err(SonarError::invalid_field(
            "messages",
            format!("at least one message is required, e.g. {EXAMPLE}"),
        ));
    }
    let mut previous: Option<Role> = None;
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        let fits = matches!(
            (previous, message.role),
            (None | Some(Role::System), Role::System | Role::User)
                | (Some(Role::User), Role::Assistant)
                | (Some(Role::Assistant | Role::Tool), Role::User | Role::Tool)
                | (Some(Role::Tool), Role::Assistant)
        );
        if !fits {
            return Err(SonarError::new(
                http::StatusCode::BAD_REQUEST,
                "invalid_message",
                format!(
                    "{at}: After the (optional) system message(s), user and assistant roles \
                     should be alternating; a {} message cannot follow {}",
                    message.role.as_str(),
                    previous.map_or("the start", Role::as_str),
                ),
            )
            .param(at));
        }
        let empty = message.content.as_ref().is_none_or(Content::is_empty);
        if empty && message.role != Role::Assistant {
            return Err(SonarError::invalid_field(
                &format!("{at}.content"),
                format!(
                    "a {} message needs content: text, or a list of text, image_url, file_url, \
                     pdf_url or video_url chunks",
                    message.role.as_str()
                ),
            ));
        }
        previous = Some(message.role);
    }
    let last = messages.len() - 1;
    if !matches!(messages[last].role, Role::User | Role::Tool) {
        return Err(SonarError::new(
            http::StatusCode::BAD_REQUEST,
            "invalid_message",
            format!(
                "messages[{last}]: Last message must have role `user` or `tool`: end the \
                 conversation with the question to answer"
            ),
        )
        .param(format!("messages[{last}]")));
    }
    Ok(messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .and_then(|m| m.content.as_ref())
        .map(Content::text)
        .unwrap_or_default())
}

/// A message as the model reads it: its role, text and each attachment's URL.
fn described(message: &Message) -> String {
    let mut text = message.role.as_str().to_owned();
    match &message.content {
        Some(Content::Text(t)) => text.push_str(t),
        Some(Content::Parts(parts)) => {
            for part in parts {
                let (url, name) = match part {
                    Part::Text { text: t } => (None, Some(t.as_str())),
                    Part::ImageUrl { image_url } => (Some(image_url), None),
                    Part::FileUrl {
                        file_url,
                        file_name,
                    } => (Some(file_url), file_name.as_deref()),
                    Part::PdfUrl { pdf_url } => (Some(pdf_url), None),
                    Part::VideoUrl { video_url } => (Some(video_url), None),
                };
                if let Some(UrlRef::Plain(url) | UrlRef::Object { url }) = url {
                    text.push_str(url);
                }
                text.push_str(name.unwrap_or_default());
            }
        }
        None => {}
    }
    text
}

fn ranges(request: &ChatRequest) -> Result<(), SonarError> {
    let out = |field: &str, value: f64, range: &str| {
        Err(SonarError::invalid_field(
            field,
            format!("{value} is out of range: use a number {range}"),
        ))
    };
    if let Some(t) = request.temperature
        && !(0.0..2.0).contains(&t)
    {
        return out("temperature", t, "from 0 up to (not including) 2");
    }
    if let Some(p) = request.top_p
        && !(0.0..=1.0).contains(&p)
    {
        return out("top_p", p, "from 0 to 1");
    }
    for (field, value) in [
        ("presence_penalty", request.presence_penalty),
        ("frequency_penalty", request.frequency_penalty),
    ] {
        if let Some(v) = value
            && !(-2.0..=2.0).contains(&v)
        {
            return out(field, v, "from -2 to 2");
        }
    }
    if let Some(k) = request.top_k
        && k > 2048
    {
        return out("top_k", f64::from(k), "from 0 to 2048");
    }
    for (field, value, max) in [
        ("max_tokens", request.max_tokens, u32::MAX),
        ("num_images", request.num_images, MAX_IMAGES),
        (
            "num_search_results",
            request.num_search_results,
            MAX_SOURCES,
        ),
    ] {
        if let Some(v) = value
            && (v == 0 || v > max)
        {
            return Err(SonarError::invalid_field(
                field,
                format!("{v} is out of range: use a whole number from 1 to {max}"),
            ));
        }
    }
    Ok(())
}

fn response_format(
    format: Option<&ResponseFormat>,
) -> Result<(Option<Value>, Option<Regex>), SonarError> {
    match format {
        None | Some(ResponseFormat::Text) => Ok((None, None)),
        Some(ResponseFormat::JsonSchema { json_schema }) => {
            let field = "response_format.json_schema.schema";
            if !json_schema.schema.is_object() {
                return Err(SonarError::invalid_field(
                    field,
                    "the schema must be a JSON Schema object, e.g. {\"type\": \"object\", \
                     \"properties\": {\"answer\": {\"type\": \"string\"}}}",
                ));
            }
            if let Some(name) = &json_schema.name
                && name.trim().is_empty()
            {
                return Err(SonarError::invalid_field(
                    "response_format.json_schema.name",
                    "an empty name: leave it out or name the schema",
                ));
            }
            jsonschema::validator_for(&json_schema.schema).map_err(|e| {
                SonarError::invalid_field(field, format!("not a valid JSON Schema: {e}"))
            })?;
            Ok((Some(json_schema.schema.clone()), None))
        }
        Some(ResponseFormat::Regex { regex }) => Regex::new(&regex.regex)
            .map(|pattern| (None, Some(pattern)))
            .map_err(|e| {
                SonarError::invalid_field(
                    "response_format.regex.regex",
                    format!("not a valid regular expression: {e}"),
                )
            }),
    }
}

/// Turns a refusal of the whole `messages` entry into one naming the role, the content or the
/// chunk that does not fit, with what each may be.
fn refine_messages(body: &[u8]) -> impl FnOnce(SonarError) -> SonarError + '_ {
    move |refusal| {
        let Some(at) = refusal.param.clone().filter(|p| p.starts_with("messages[")) else {
            return refusal;
        };
        let value: Option<Value> = serde_json::from_slice(body).ok();
        let index: Option<usize> = at
            .trim_start_matches("messages[")
            .trim_end_matches(']')
            .parse()
            .ok();
        let message = value
            .as_ref()
            .zip(index)
            .and_then(|(v, i)| v.get("messages")?.get(i).cloned());
        let Some(message) = message else {
            return refusal;
        };
        if !message.is_object() {
            return SonarError::invalid_field(
                &at,
                "a message is an object like {\"role\": \"user\", \"content\": \"...\"}",
            );
        }
        if serde_json::from_value::<Role>(message.get("role").cloned().unwrap_or(Value::Null))
            .is_err()
        {
            return SonarError::invalid_field(
                &format!("{at}.role"),
                "the role must be system, user, assistant or tool",
            );
        }
        if let Some(Value::Array(parts)) = message.get("content") {
            for (i, part) in parts.iter().enumerate() {
                if let Err(e) = serde_json::from_value::<Part>(part.clone()) {
                    return SonarError::invalid_field(
                        &format!("{at}.content[{i}]"),
                        format!(
                            "{e}: a chunk is {{\"type\": \"text\", \"text\": \"...\"}} or \
                             {{\"type\": \"image_url\", \"image_url\": {{\"url\": \"...\"}}}} \
                             (also file_url, pdf_url, video_url)"
                        ),
                    );
                }
            }
        }
        SonarError::invalid_field(
            &format!("{at}.content"),
            "the content must be a string, a list of chunks, or null",
        )
    }
}
