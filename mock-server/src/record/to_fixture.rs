//! Exchanges → a scenario fixture in the mock's own format (`fixtures/scenario.schema.json`):
//! the Computer conversation (or, without one, the Agent API conversation) as the script the
//! mock plays, and the exchanges themselves, normalised as the journal is, under `recording`
//! for `mock-server verify`.
//!
//! The Computer surface wins when a recording has both: one fixture is one scenario, and the
//! Agent API exchanges stay in `recording`.

mod agent;
mod computer;
mod observe;
mod point;

use serde_json::{Value, json};

use super::capture::Captured;
use super::error::RecordError;
use super::redact::{self, Secrets, UserRedactions};
use super::rpc;
use crate::journal::Normalizer;

/// What a fixture is made from.
#[derive(Debug)]
pub struct FixtureOptions<'a> {
    /// The scenario's name.
    pub name: &'a str,
    /// The upstream's base URL, noted in the file.
    pub upstream: &'a str,
    /// The user's `--redact` patterns.
    pub redactions: &'a UserRedactions,
}

/// The fixture for a recording, already redacted.
pub fn fixture(captures: &[Captured], options: &FixtureOptions<'_>) -> Result<Value, RecordError> {
    let exchanges = redact::exchanges(captures);
    let calls = rpc::calls(&exchanges);
    let mut conversation = observe::Conversation::observe(&calls);
    for exchange in &exchanges {
        if exchange.method == "GET"
            && exchange.status == 200
            && let Value::String(text) = &exchange.response_body
        {
            conversation
                .downloads
                .insert(exchange.path.clone(), text.clone());
        }
    }
    let mut description = format!(
        "Recorded from {} by `mock-server record` ({} exchanges).",
        options.upstream,
        exchanges.len()
    );
    if let Some(note) = threads_left_out(conversation.other_threads.len()) {
        description = format!("{description} {note}");
    }
    let scenario = if conversation.entries.is_empty() {
        let Some(script) = agent::script(&exchanges) else {
            if !calls.is_empty() {
                // MCP traffic of another server: nothing for the mock to play, but the
                // recording is still there for `verify`.
                return finish(
                    json!({"name": options.name, "description": description, "turns": [{"outcome": {
                        "event": "complete",
                        "text": "(not recorded: the recording has no Computer conversation)"}}]}),
                    captures,
                    &exchanges,
                    options,
                );
            }
            return Err(RecordError::Empty(
                "the recording has no Computer tool call and no Agent API request, so there \
                 is no scenario to write: point the client at the proxy's URL and try again"
                    .into(),
            ));
        };
        if script.differing > 0 {
            description = format!(
                "{description} {} Agent API request(s) played a turn already recorded with a \
                 different output; the script keeps the first.",
                script.differing
            );
        }
        let mut scenario = json!({"name": options.name, "description": description});
        if let Some(first) = script.first_message {
            scenario["match"] = json!(format!("^{}$", regex::escape(&first)));
        }
        if !script.faults.is_empty() {
            scenario["faults"] = Value::Array(script.faults);
        }
        scenario["agent"] = script.agent;
        scenario
    } else {
        let (turns, settings) = computer::turns(&conversation);
        let mut scenario = json!({"name": options.name, "description": description});
        if let Some(first) = &conversation.first_message {
            scenario["match"] = json!(format!("^{}$", regex::escape(first.trim())));
        }
        if settings.as_object().is_some_and(|s| !s.is_empty()) {
            scenario["settings"] = settings;
        }
        scenario["turns"] = json!(turns);
        scenario
    };
    finish(scenario, captures, &exchanges, options)
}

/// How many Computer threads besides the first the recording saw (they are not in the script).
pub(crate) fn other_threads(captures: &[Captured]) -> usize {
    let exchanges = redact::exchanges(captures);
    observe::Conversation::observe(&rpc::calls(&exchanges))
        .other_threads
        .len()
}

/// The sentence that says a recording's other threads are not in the script.
pub(crate) fn threads_left_out(others: usize) -> Option<String> {
    (others > 0).then(|| {
        format!(
            "Only the first Computer thread is the script: {others} other thread(s) seen are \
             kept in `recording` (for `verify`) but not replayed; record one thread per fixture."
        )
    })
}

/// Adds the recording, then applies the user's patterns and scrubs every credential seen.
fn finish(
    mut scenario: Value,
    captures: &[Captured],
    exchanges: &[crate::journal::Exchange],
    options: &FixtureOptions<'_>,
) -> Result<Value, RecordError> {
    scenario["recording"] = recording(captures, exchanges, options.upstream);
    options.redactions.apply(&mut scenario);
    let text = Secrets::of(captures).scrub(&scenario.to_string());
    serde_json::from_str(&text)
        .map_err(|e| RecordError::Empty(format!("the fixture did not serialise: {e}")))
}

/// The `recording` section: every exchange normalised, with the wait before it.
fn recording(
    captures: &[Captured],
    exchanges: &[crate::journal::Exchange],
    upstream: &str,
) -> Value {
    let normalized = Normalizer::new().keep_repeats().normalize(exchanges);
    let items = normalized.as_array().cloned().unwrap_or_default();
    let mut previous = None;
    let items: Vec<Value> = items
        .into_iter()
        .zip(captures)
        .map(|(mut item, capture)| {
            let wait = previous.map_or(0, |p: std::time::Duration| {
                capture.at.saturating_sub(p).as_millis()
            });
            previous = Some(capture.at);
            if let Value::Object(map) = &mut item {
                map.shift_insert(
                    0,
                    "wait_ms".into(),
                    json!(u64::try_from(wait).unwrap_or(u64::MAX)),
                );
            }
            item
        })
        .collect();
    json!({"upstream": upstream, "exchanges": items})
}
