//! The reference client's Sonar side, on reqwest: what an application built on
//! `POST /chat/completions` does for its user. It follows every `sonar.*` rule, and with
//! `--break RULE_ID` breaks exactly that one.
//!
//! Per turn of the user's script it sends the conversation so far as `messages` with the turn's
//! `sonar` settings (`model`, `stream`); on a 429 it waits the `Retry-After` the answer gave
//! (real time) and sends the request again, after a 5xx it backs off, and after three tries it
//! shows the error; it shows the answer with its numbered sources, and
//! sends an answered request only once.

use std::time::Duration;

use serde_json::{Value, json};

use super::options::ClientOptions;
use super::pace::SendPaced;
use super::retry::{self, RetryRules};
use crate::error::ClientError;
use crate::rules::ids;

/// The rules the client's retries follow (and break one at a time).
const RETRIES: RetryRules = RetryRules {
    retry_after: ids::SONAR_RATE_LIMIT_RETRY_AFTER,
    backoff: ids::SONAR_SERVER_ERROR_BACKOFF,
    give_up: ids::SONAR_SERVER_ERROR_GIVE_UP,
};

struct Sonar {
    http: reqwest::Client,
    base: String,
    key: String,
    user_url: String,
    break_rule: Option<String>,
}

/// A chat completion as the client keeps it: the text and the sources it cites.
struct Answer {
    content: String,
    citations: Vec<String>,
}

/// Runs the Sonar client to the end of the user's script.
pub(super) async fn run(options: ClientOptions) -> Result<(), ClientError> {
    let base = std::env::var("PERPLEXITY_BASE_URL")
        .map_err(|_| ClientError::MissingEnv("PERPLEXITY_BASE_URL"))?;
    let key = std::env::var("PERPLEXITY_API_KEY")
        .map_err(|_| ClientError::MissingEnv("PERPLEXITY_API_KEY"))?;
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|source| ClientError::Http {
            url: base.clone(),
            source,
        })?;
    let client = Sonar {
        http,
        base: base.trim_end_matches('/').to_owned(),
        key,
        user_url: options.user_url,
        break_rule: options.break_rule,
    };
    let mut messages: Vec<Value> = Vec::new();
    while let Some(turn) = client.next_turn().await? {
        let text = turn.get("message").and_then(Value::as_str).unwrap_or("");
        messages.push(json!({"role": "user", "content": text}));
        let mut body = turn.get("sonar").cloned().unwrap_or_else(|| json!({}));
        if body.get("model").is_none() {
            body["model"] = json!("sonar");
        }
        body["messages"] = Value::Array(messages.clone());
        match client.complete(&body).await? {
            Ok(answer) => {
                client.show("final", &client.with_sources(&answer)).await?;
                if client.breaks(ids::SONAR_ANSWERED_NO_RESEND) {
                    // Breaking the rule: the answered request goes again, spending again.
                    client.send(&body).await?;
                }
                messages.push(json!({"role": "assistant", "content": answer.content}));
            }
            Err(error) => {
                client.show("error", &error).await?;
                // The conversation must still alternate: the turn is dropped.
                messages.pop();
            }
        }
    }
    client.user_post("done", json!({})).await
}

impl Sonar {
    fn breaks(&self, rule: &str) -> bool {
        super::options::breaks(self.break_rule.as_deref(), rule)
    }

    fn err(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
        move |source| ClientError::Http {
            url: url.to_owned(),
            source,
        }
    }

    // ---- the user channel ----

    async fn next_turn(&self) -> Result<Option<Value>, ClientError> {
        let url = format!("{}/next-message", self.user_url);
        let r = self
            .http
            .get(&url)
            .send_paced()
            .await
            .map_err(Self::err(&url))?;
        if r.status() == reqwest::StatusCode::NO_CONTENT {
            return Ok(None);
        }
        r.json().await.map(Some).map_err(Self::err(&url))
    }

    async fn user_post(&self, what: &str, body: Value) -> Result<(), ClientError> {
        let url = format!("{}/{what}", self.user_url);
        self.http
            .post(&url)
            .json(&body)
            .send_paced()
            .await
            .map_err(Self::err(&url))?;
        Ok(())
    }

    async fn show(&self, kind: &str, text: &str) -> Result<(), ClientError> {
        self.user_post("show", json!({"kind": kind, "text": text}))
            .await
    }

    /// The answer as the person sees it: the text, then its numbered sources.
    fn with_sources(&self, answer: &Answer) -> String {
        if answer.citations.is_empty() || self.breaks(ids::SONAR_CITATIONS_SHOWN) {
            // Breaking the rule: the [1], [2] of the text point nowhere the person can see.
            return answer.content.clone();
        }
        let sources: Vec<String> = answer
            .citations
            .iter()
            .enumerate()
            .map(|(i, url)| format!("[{}] {url}", i + 1))
            .collect();
        format!("{}\n\nSources:\n{}", answer.content, sources.join("\n"))
    }

    // ---- the API ----

    /// Sends `body` until it is answered, waiting out each 429's `Retry-After` and backing off
    /// after a 5xx, for at most three tries; `Err(text)` is an API error to show the user.
    async fn complete(&self, body: &Value) -> Result<Result<Answer, String>, ClientError> {
        let url = self.chat_url();
        let post = || self.http.post(&url).bearer_auth(&self.key).json(body);
        let (r, _) = retry::send(RETRIES, self.break_rule.as_deref(), &url, post).await?;
        let status = r.status();
        let text = r.text().await.map_err(Self::err(&url))?;
        if !status.is_success() {
            return Ok(Err(format!("HTTP {status}: {text}")));
        }
        Ok(Ok(if body.get("stream") == Some(&json!(true)) {
            from_stream(&text)
        } else {
            from_json(&text)
        }))
    }

    fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base)
    }

    async fn send(&self, body: &Value) -> Result<reqwest::Response, ClientError> {
        let url = self.chat_url();
        self.http
            .post(&url)
            .bearer_auth(&self.key)
            .json(body)
            .send_paced()
            .await
            .map_err(Self::err(&url))
    }
}

fn citations_of(v: &Value) -> Option<Vec<String>> {
    let list = v.get("citations")?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// A whole answer.
fn from_json(text: &str) -> Answer {
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    Answer {
        content: v
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        citations: citations_of(&v).unwrap_or_default(),
    }
}

/// A streamed answer: the deltas put together, the citations of the last chunk carrying them.
fn from_stream(text: &str) -> Answer {
    let mut answer = Answer {
        content: String::new(),
        citations: Vec::new(),
    };
    for data in text.lines().filter_map(|l| l.strip_prefix("data:")) {
        let Ok(chunk) = serde_json::from_str::<Value>(data.trim()) else {
            continue;
        };
        if let Some(delta) = chunk
            .pointer("/choices/0/delta/content")
            .and_then(Value::as_str)
        {
            answer.content.push_str(delta);
        }
        if let Some(citations) = citations_of(&chunk) {
            answer.citations = citations;
        }
    }
    answer
}
