//! The scenario fixture model: what Computer does, step by step, for each user turn.
//!
//! A scenario is a list of turns. Each turn is a [`Segment`]: timed steps, then an [`Outcome`].
//! Outcomes that wait on the user (questions, approvals, sign-ins, credits, ...) carry the segment
//! that runs once the user has answered, so a whole conversation is a tree written in one file.
//! The JSON shape is defined by `fixtures/scenario.schema.json`; these types mirror it.

use std::time::Duration;

use serde::{Deserialize, Deserializer};

/// One scripted conversation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Editor hint pointing at the schema; ignored.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// Unique name; a first message containing `#name` selects this scenario.
    pub name: String,
    /// What the scenario shows, for `GET /_mock/scenarios` and the README.
    pub description: String,
    /// A regular expression; a new conversation whose first message matches it follows this scenario.
    #[serde(rename = "match", default)]
    pub match_pattern: Option<String>,
    /// Per-scenario knobs.
    #[serde(default)]
    pub settings: Settings,
    /// Turns that happened before the first message (to script long transcripts).
    #[serde(default)]
    pub history: Vec<HistoryTurn>,
    /// What Computer does for the first, second, ... message of the conversation.
    pub turns: Vec<Turn>,
}

/// Per-scenario knobs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// `read_thread` reports `web_state: null` with `web_state_error` instead of the state.
    #[serde(default)]
    pub web_state_error: bool,
    /// `cancel_task` fails: the result is an error without `task_status`.
    #[serde(default)]
    pub cancel_fails: bool,
    /// MCP Tasks poll interval, in milliseconds (default 5000).
    #[serde(default)]
    pub poll_interval_ms: Option<u64>,
    /// MCP Tasks time to live, in milliseconds (default 30 days).
    #[serde(default)]
    pub ttl_ms: Option<u64>,
}

/// A turn from before the conversation reached the client.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryTurn {
    /// What the user wrote.
    pub user: String,
    /// What Computer answered.
    pub assistant: String,
}

/// What Computer does with one user message.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    /// The account check before the message is sent fails this way; nothing is sent.
    #[serde(default)]
    pub before_send: Option<Refusal>,
    /// The steps and the outcome.
    #[serde(flatten)]
    pub segment: Segment,
}

/// Why a message is refused before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// The account runs out of credits; a top-up lets the message through.
    InsufficientCredits,
    /// The plan's quota is used up until the next reset date.
    QuotaExhausted,
    /// Computer is not available for the account.
    AccessDenied,
}

/// Timed steps followed by an outcome.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// Steps in order; each starts when the previous one ends.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// What happens after the last step.
    pub outcome: Outcome,
}

/// One titled step Computer takes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Shown in progress notifications, `read_thread` and `tasks/get`.
    pub title: String,
    /// Step kind, for example `search_web`, `browse`, `run_code`, `create_file`.
    #[serde(rename = "type", default = "default_step_type")]
    pub kind: String,
    /// How long the step takes on the virtual clock.
    #[serde(deserialize_with = "duration", default)]
    pub duration: Duration,
    /// Sources found during the step.
    #[serde(default)]
    pub sources: Vec<SourceSpec>,
    /// `completed` (default) or `failed`.
    #[serde(default)]
    pub status: StepEnd,
    /// Credits the step costs, taken from the account when it ends on the virtual clock.
    #[serde(default)]
    pub credits: i64,
}

fn default_step_type() -> String {
    "agent".to_owned()
}

/// How a step ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepEnd {
    /// The step succeeded.
    #[default]
    Completed,
    /// The step failed (the task may still go on).
    Failed,
}

/// A web source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// The page URL; sources are unique by URL.
    pub url: String,
    /// Page title, when known.
    #[serde(default)]
    pub title: Option<String>,
    /// A short excerpt, when known.
    #[serde(default)]
    pub snippet: Option<String>,
}

/// A file Computer produces.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    /// File name including extension.
    pub filename: String,
    /// Content type; guessed from the name when left out.
    #[serde(default)]
    pub media_type: Option<String>,
    /// The bytes served at the download URL (as text); a placeholder is generated when absent.
    #[serde(default)]
    pub content: Option<String>,
    /// Whether Computer marks it as the main output.
    #[serde(default)]
    pub primary: bool,
    /// For a website Computer published: its public URL.
    #[serde(default)]
    pub published_url: Option<String>,
    /// The file is an edited version of the earlier file with this name on the same thread.
    #[serde(default)]
    pub edits: Option<String>,
}

/// A connector sign-in Computer needs (or suggests).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignInSpec {
    /// Connector id, for example `slack`.
    pub connector: String,
    /// Display name, for example `Slack`.
    pub display_name: String,
    /// Short title shown to the user.
    #[serde(default)]
    pub title: Option<String>,
    /// Why the sign-in is needed.
    #[serde(default)]
    pub description: Option<String>,
    /// Whether a GET of the `auth_url` completes the sign-in (the user finishes on the page).
    #[serde(default = "yes")]
    pub user_completes: bool,
}

fn yes() -> bool {
    true
}

/// A question or a confirmation Computer waits on.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum InteractionSpec {
    /// One or more questions asked together.
    Question {
        /// The questions.
        questions: Vec<QuestionSpec>,
    },
    /// A sensitive action that needs approval.
    Confirm {
        /// What Computer wants to do.
        action: String,
        /// Shown in the transcript when approved.
        #[serde(default)]
        approved_text: Option<String>,
    },
}

/// One question.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuestionSpec {
    /// Answer key (`answers[id]`), also the form field name.
    pub id: String,
    /// The question text.
    pub question: String,
    /// Choices, when the question offers them.
    #[serde(default)]
    pub options: Vec<String>,
    /// Several choices may be picked.
    #[serde(default)]
    pub allow_multiple: bool,
    /// Files may be attached to the answer.
    #[serde(default)]
    pub allow_attachments: bool,
}

/// What happens after a segment's last step.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum Outcome {
    /// The turn finished with an answer.
    Complete {
        /// The answer, as Markdown.
        text: String,
        /// Sources cited in the answer (added to those found in steps).
        #[serde(default)]
        sources: Vec<SourceSpec>,
        /// Files attached to the answer.
        #[serde(default)]
        files: Vec<FileSpec>,
        /// Connectors the user could reconnect for better results (never blocking).
        #[serde(default)]
        optional_auth_requests: Vec<SignInSpec>,
        /// `input_required` when the answer itself waits on the user; else `completed`.
        #[serde(default)]
        waiting_on_user: bool,
    },
    /// The Computer run failed.
    Error {
        /// What went wrong.
        text: String,
    },
    /// Computer paused itself until a scheduled time.
    Sleep {
        /// What Computer says before sleeping.
        text: String,
        /// How long it sleeps.
        #[serde(deserialize_with = "duration")]
        wake_after: Duration,
        /// What it does when it wakes.
        then: Box<Segment>,
    },
    /// Computer waits on an external condition; a new message continues the thread.
    Waiting {
        /// What it is waiting for.
        text: String,
        /// What a message on the thread resumes; without it the message starts the next turn.
        #[serde(default)]
        then: Option<Box<Segment>>,
    },
    /// Computer asks one or more questions (and possibly confirmations at the same time).
    AskUserQuestion(Checkpoint),
    /// Computer asks to approve an action (and possibly other prompts at the same time).
    ConfirmAction(Checkpoint),
    /// Connectors need a sign-in before the task can go on.
    AuthRequired {
        /// What Computer says.
        text: String,
        /// The sign-ins it waits on, all of them.
        sign_ins: Vec<SignInSpec>,
        /// What happens once every sign-in is done or dismissed.
        then: Box<Segment>,
    },
    /// Input that can only be given on a Perplexity page; a message continues the thread.
    InteractionRequired {
        /// What Computer says.
        text: String,
        /// Title of the form behind the URL.
        title: String,
        /// What happens once the user continues the thread.
        then: Box<Segment>,
    },
    /// A connector or site asks for two-factor authentication; a message continues the thread.
    TwoFactorRequired {
        /// Instructions for the user.
        text: String,
        /// What happens once the user continues the thread.
        then: Box<Segment>,
    },
    /// The account runs out of credits mid-task; a message after a top-up continues it.
    InsufficientCredits {
        /// What Computer says.
        text: String,
        /// What happens once the user continues after topping up.
        then: Box<Segment>,
    },
}

/// Questions and confirmations Computer waits on at once.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    /// What Computer says (Markdown).
    pub text: String,
    /// Every prompt waiting at the same time; more than one shows up as `pending_interactions`.
    pub interactions: Vec<InteractionSpec>,
    /// What happens once every prompt is answered (and nothing was denied).
    pub then: Box<Segment>,
    /// What happens when a confirmation is denied; a short acknowledgement when absent.
    #[serde(default)]
    pub denied: Option<Box<Segment>>,
}

/// Parses `"40s"`, `"2m"`, `"1500ms"`, `"1h"` or a number of milliseconds.
fn duration<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Millis(u64),
        Text(String),
    }
    match Raw::deserialize(deserializer)? {
        Raw::Millis(ms) => Ok(Duration::from_millis(ms)),
        Raw::Text(text) => parse_duration(&text).map_err(serde::de::Error::custom),
    }
}

/// Parses a duration such as `40s`, `2m`, `1500ms`, `1h` or `1d`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().map_err(|_| {
        format!("`{text}` is not a duration: expected a number then ms, s, m, h or d")
    })?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86400.0,
        other => {
            return Err(format!(
                "`{text}` has unknown unit `{other}`: use ms, s, m, h or d"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("`{text}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_accept_the_documented_units() {
        assert_eq!(parse_duration("40s"), Ok(Duration::from_secs(40)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3w").is_err());
    }
}
