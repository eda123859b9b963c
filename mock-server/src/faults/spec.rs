//! The fault vocabulary: what a fault does ([`Kind`]) and which requests it touches
//! ([`Scope`]), read from one grammar whichever door it came through: the compact text of
//! `mock-server --fault SPEC` (`status=429,retry-after=2s,times=1,path=/chat/completions`), or
//! a JSON object with the same keys (`POST /_mock/faults`, a scenario's `faults`). A
//! scenario's older `agent.fault` and `sonar.fault` objects are read into the same types
//! ([`StatusFault::scripted`]).
//!
//! `docs/faults.md` is the reference for users; the sentences here are what a bad spec is
//! refused with.

use std::time::Duration;

use http::StatusCode;
use serde_json::Value;

use crate::fixtures::duration::parse_duration;
use crate::journal::fingerprint;

/// One fault: what it does and which requests it touches.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FaultSpec {
    /// What it does to a request it touches.
    pub(crate) kind: Kind,
    /// Which requests it touches, and how many.
    pub(crate) scope: Scope,
}

/// What a fault does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// Answer with an error status in the surface's error envelope.
    Status(StatusFault),
    /// Close the connection before the response head: the client sees no status.
    ResetBeforeHeaders,
    /// Send the head and the first `after_bytes` bytes of the body, then close the connection.
    ResetMidBody {
        /// Body bytes sent before the reset.
        after_bytes: u64,
    },
    /// End an event stream cleanly after `events` events.
    EndAfterEvents {
        /// Events sent before the stream ends.
        events: u64,
        /// Remove the `id:` lines of the events sent, so there is nothing to resume from.
        strip_ids: bool,
    },
    /// Replace the data of the `event`th event (from 1) with JSON cut short.
    MalformedEvent {
        /// Which event, from 1.
        event: u64,
    },
    /// Wait this long (virtual time) before answering.
    Latency(Duration),
    /// Send the body `bytes` at a time, `every` apart (virtual time).
    Dribble {
        /// Bytes per piece.
        bytes: usize,
        /// Virtual time between pieces.
        every: Duration,
    },
    /// Declare the whole body's `Content-Length` but send only its first `bytes` bytes.
    CutBody {
        /// Bytes sent.
        bytes: u64,
    },
    /// The MCP transport forgets the request's `Mcp-Session-Id`: the request gets 404, and a
    /// new `initialize` a new session.
    ForgetSession,
}

/// Which requests a fault touches: every condition given must hold.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Scope {
    /// How many requests it touches before it is used up; `None`: until it is removed.
    pub(crate) times: Option<u64>,
    /// The request path, exactly, or a prefix when it ends with `*`.
    pub(crate) path: Option<String>,
    /// The HTTP method, upper case.
    pub(crate) method: Option<String>,
    /// The MCP tool a `tools/call` names.
    pub(crate) tool: Option<String>,
    /// The conversation: a request whose body names `#scenario`.
    pub(crate) scenario: Option<String>,
    /// The MCP session (`Mcp-Session-Id`).
    pub(crate) session: Option<String>,
    /// The API key or access token (`Authorization: Bearer KEY`).
    pub(crate) key: Option<String>,
    /// The account the request acts as, however it authenticates (a dev token, an OAuth
    /// access token, an API key).
    pub(crate) account: Option<String>,
}

/// A status fault: the status, the delay it asks the client to wait, and what its envelope
/// says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StatusFault {
    /// 429, 500, 502 or 503 (a scenario's older `fault` object may give any error status).
    pub(crate) status: StatusCode,
    /// The delay said in `Retry-After` (and on the Agent API also in `retry-after-ms`).
    pub(crate) retry_after: Option<Duration>,
    /// The delay said in the Agent API's `retry-after-ms` alone, in milliseconds (as the live
    /// API does); the other surfaces have no such header.
    pub(crate) retry_after_ms: Option<u64>,
    /// The envelope's `type`, instead of the one the surface gives the status.
    pub(crate) error_type: Option<String>,
    /// The envelope's message, instead of the surface's own sentence.
    pub(crate) message: Option<String>,
    /// `x-should-retry`, which the Agent API's SDKs obey before anything else.
    pub(crate) should_retry: Option<bool>,
    /// After a 429 with a delay, every request the fault would touch before the delay has
    /// passed (virtual time) is refused again with the time left, as a rate limiter does;
    /// those refusals do not count towards `times`.
    pub(crate) hold: bool,
}

impl StatusFault {
    /// A bare status: no delay, the surface's own envelope.
    pub(crate) fn new(status: StatusCode) -> Self {
        Self {
            status,
            retry_after: None,
            retry_after_ms: None,
            error_type: None,
            message: None,
            should_retry: None,
            hold: false,
        }
    }

    /// A scenario's older `agent.fault` or `sonar.fault` object, for `times` requests: any
    /// error status, answered in the surface's envelope.
    pub(crate) fn scripted(self, times: Option<u32>) -> FaultSpec {
        FaultSpec {
            kind: Kind::Status(self),
            scope: Scope {
                times: times.map(u64::from),
                ..Scope::default()
            },
        }
    }
}

/// Why a spec was refused: a sentence naming the part at fault and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fault `{spec}`: {reason}")]
pub(crate) struct SpecError {
    /// The spec as given.
    pub(crate) spec: String,
    /// What is wrong with it.
    pub(crate) reason: String,
}

/// The kinds, as the grammar names them (for the sentence a spec without one gets).
const KINDS: &str = "status=429|500|502|503, reset=before-headers|mid-body, \
                     end-after-events=N, malformed-event=N, latency=DURATION, dribble=BYTES, \
                     cut-body=BYTES or forget-session";

/// The options that go with `status` only.
const STATUS_OPTIONS: &[&str] = &[
    "retry-after",
    "retry-after-ms",
    "type",
    "message",
    "should-retry",
    "hold",
];

impl FaultSpec {
    /// Reads the compact text form: `key=value` items (or a bare `forget-session`) separated
    /// by commas.
    pub(crate) fn parse(text: &str) -> Result<Self, SpecError> {
        let items = text
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| match item.split_once('=') {
                Some((key, value)) => (key.trim().to_owned(), Some(value.trim().to_owned())),
                None => (item.to_owned(), None),
            })
            .collect::<Vec<_>>();
        Self::from_items(text, &items)
    }

    /// Reads the JSON form: an object with the compact form's keys (`{"status": 429,
    /// "retry-after": "2s", "times": 1}`); `"forget-session": true` for the bare flag.
    pub(crate) fn from_json(value: &Value) -> Result<Self, SpecError> {
        let shown = value.to_string();
        let Some(object) = value.as_object() else {
            return Err(SpecError {
                spec: shown,
                reason: "expected an object such as {\"status\": 429, \"times\": 1}".into(),
            });
        };
        let mut items = Vec::new();
        for (key, value) in object {
            let value = match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(retry) if key == "should-retry" => Some(retry.to_string()),
                Value::Bool(true) => None,
                other => {
                    return Err(SpecError {
                        spec: shown,
                        reason: format!("`{key}` must be a string or a number, not {other}"),
                    });
                }
            };
            items.push((key.clone(), value));
        }
        Self::from_items(&shown, &items)
    }

    fn from_items(spec: &str, items: &[(String, Option<String>)]) -> Result<Self, SpecError> {
        let refuse = |reason: String| SpecError {
            spec: spec.to_owned(),
            reason,
        };
        let mut kind = None;
        let mut scope = Scope::default();
        let mut status_options = StatusFault::new(StatusCode::INTERNAL_SERVER_ERROR);
        let mut status_option_given = None;
        let mut after_bytes = None;
        let mut every = None;
        let mut strip_ids = None;
        let mut seen = Vec::new();
        for (key, given) in items {
            if seen.contains(key) {
                return Err(refuse(format!("`{key}` is given twice")));
            }
            seen.push(key.clone());
            let value = || {
                given
                    .clone()
                    .filter(|v| !v.is_empty())
                    .ok_or_else(|| refuse(format!("`{key}` needs a value: `{key}=...`")))
            };
            let mut set_kind = |new: Kind| match kind.replace(new) {
                None => Ok(()),
                Some(_) => Err(refuse(format!(
                    "one fault does one thing: `{key}` is a second kind; give each its own fault"
                ))),
            };
            match key.as_str() {
                "status" => {
                    let status = match value()?.as_str() {
                        "429" => StatusCode::TOO_MANY_REQUESTS,
                        "500" => StatusCode::INTERNAL_SERVER_ERROR,
                        "502" => StatusCode::BAD_GATEWAY,
                        "503" => StatusCode::SERVICE_UNAVAILABLE,
                        other => {
                            return Err(refuse(format!(
                                "status must be 429, 500, 502 or 503, not `{other}`"
                            )));
                        }
                    };
                    set_kind(Kind::Status(StatusFault::new(status)))?;
                }
                "reset" => match value()?.as_str() {
                    "before-headers" => set_kind(Kind::ResetBeforeHeaders)?,
                    "mid-body" => set_kind(Kind::ResetMidBody { after_bytes: 0 })?,
                    other => {
                        return Err(refuse(format!(
                            "reset must be `before-headers` or `mid-body`, not `{other}`"
                        )));
                    }
                },
                "end-after-events" => set_kind(Kind::EndAfterEvents {
                    events: number(key, &value()?).map_err(refuse)?,
                    strip_ids: false,
                })?,
                "malformed-event" => {
                    let event = number(key, &value()?).map_err(refuse)?;
                    if event == 0 {
                        return Err(refuse("malformed-event counts from 1".into()));
                    }
                    set_kind(Kind::MalformedEvent { event })?;
                }
                "latency" => set_kind(Kind::Latency(duration(key, &value()?).map_err(refuse)?))?,
                "dribble" => {
                    let bytes = number(key, &value()?).map_err(refuse)?;
                    let bytes = usize::try_from(bytes)
                        .ok()
                        .filter(|b| *b > 0)
                        .ok_or_else(|| refuse("dribble must be at least 1 byte".into()))?;
                    set_kind(Kind::Dribble {
                        bytes,
                        every: Duration::from_secs(1),
                    })?;
                }
                "cut-body" => set_kind(Kind::CutBody {
                    bytes: number(key, &value()?).map_err(refuse)?,
                })?,
                "forget-session" => {
                    if given.is_some() {
                        return Err(refuse("`forget-session` takes no value".into()));
                    }
                    set_kind(Kind::ForgetSession)?;
                }
                "retry-after" => {
                    status_options.retry_after = Some(duration(key, &value()?).map_err(refuse)?);
                }
                "retry-after-ms" => {
                    status_options.retry_after_ms = Some(number(key, &value()?).map_err(refuse)?);
                }
                "type" => status_options.error_type = Some(value()?),
                "message" => status_options.message = Some(value()?),
                "should-retry" => {
                    status_options.should_retry = Some(match value()?.as_str() {
                        "true" => true,
                        "false" => false,
                        other => {
                            return Err(refuse(format!(
                                "should-retry must be `true` or `false`, not `{other}`"
                            )));
                        }
                    });
                }
                "hold" => {
                    if given.is_some() {
                        return Err(refuse("`hold` takes no value".into()));
                    }
                    status_options.hold = true;
                }
                "after-bytes" => after_bytes = Some(number(key, &value()?).map_err(refuse)?),
                "every" => every = Some(duration(key, &value()?).map_err(refuse)?),
                "event-ids" => {
                    strip_ids = Some(match value()?.as_str() {
                        "keep" => false,
                        "strip" => true,
                        other => {
                            return Err(refuse(format!(
                                "event-ids must be `keep` or `strip`, not `{other}`"
                            )));
                        }
                    });
                }
                "times" => {
                    let times = number(key, &value()?).map_err(refuse)?;
                    if times == 0 {
                        return Err(refuse(
                            "times must be at least 1 (leave it out for every request)".into(),
                        ));
                    }
                    scope.times = Some(times);
                }
                "path" => {
                    let path = value()?;
                    if !path.starts_with('/') {
                        return Err(refuse(format!("path must start with `/`, not `{path}`")));
                    }
                    scope.path = Some(path);
                }
                "method" => scope.method = Some(value()?.to_ascii_uppercase()),
                "tool" => scope.tool = Some(value()?),
                "scenario" => scope.scenario = Some(value()?.trim_start_matches('#').to_owned()),
                "session" => scope.session = Some(value()?),
                "key" => scope.key = Some(value()?),
                "account" => scope.account = Some(value()?),
                other => {
                    return Err(refuse(format!(
                        "unknown key `{other}`; a fault is one of {KINDS}, scoped by times, \
                         path, method, tool, scenario, session, key or account"
                    )));
                }
            }
            if STATUS_OPTIONS.contains(&key.as_str()) {
                status_option_given.get_or_insert_with(|| key.clone());
            }
        }
        let mut kind = kind.ok_or_else(|| refuse(format!("say what it does: one of {KINDS}")))?;
        let option_for =
            |option: &str, wanted: &str| refuse(format!("`{option}` goes with `{wanted}` only"));
        match (&mut kind, status_option_given) {
            (Kind::Status(fault), Some(_)) => {
                if status_options.retry_after.is_some() && status_options.retry_after_ms.is_some() {
                    return Err(refuse(
                        "give the delay once: `retry-after` (both headers) or `retry-after-ms` \
                         (the Agent API's own header alone)"
                            .into(),
                    ));
                }
                if status_options.hold
                    && (fault.status != StatusCode::TOO_MANY_REQUESTS
                        || status_options.retry_after.is_none())
                {
                    return Err(refuse(
                        "`hold` needs `status=429` and a `retry-after` to hold for".into(),
                    ));
                }
                status_options.status = fault.status;
                *fault = status_options;
            }
            (_, Some(option)) => return Err(option_for(&option, "status")),
            _ => {}
        }
        match (&mut kind, after_bytes) {
            (Kind::ResetMidBody { after_bytes: slot }, Some(n)) => *slot = n,
            (_, Some(_)) => return Err(option_for("after-bytes", "reset=mid-body")),
            _ => {}
        }
        match (&mut kind, every) {
            (Kind::Dribble { every: slot, .. }, Some(d)) => *slot = d,
            (_, Some(_)) => return Err(option_for("every", "dribble")),
            _ => {}
        }
        match (&mut kind, strip_ids) {
            (
                Kind::EndAfterEvents {
                    strip_ids: slot, ..
                },
                Some(strip),
            ) => *slot = strip,
            (_, Some(_)) => return Err(option_for("event-ids", "end-after-events")),
            _ => {}
        }
        Ok(Self { kind, scope })
    }

    /// The whole spec in the compact form, with the key shown as its fingerprint (for
    /// listings: a credential is never shown back).
    pub(crate) fn shown(&self) -> String {
        let mut items = vec![self.kind.to_string()];
        let scope = &self.scope;
        if let Some(times) = scope.times {
            items.push(format!("times={times}"));
        }
        for (key, value) in [
            ("path", &scope.path),
            ("method", &scope.method),
            ("tool", &scope.tool),
            ("scenario", &scope.scenario),
            ("session", &scope.session),
            ("account", &scope.account),
        ] {
            if let Some(value) = value {
                items.push(format!("{key}={value}"));
            }
        }
        if let Some(key) = &scope.key {
            items.push(format!("key={}", fingerprint(key)));
        }
        items.join(",")
    }
}

/// The kind in the compact form (`status=429,retry-after=2s`).
impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Status(fault) => write!(f, "{fault}"),
            Self::ResetBeforeHeaders => write!(f, "reset=before-headers"),
            Self::ResetMidBody { after_bytes } => {
                write!(f, "reset=mid-body,after-bytes={after_bytes}")
            }
            Self::EndAfterEvents { events, strip_ids } => {
                write!(f, "end-after-events={events}")?;
                if *strip_ids {
                    write!(f, ",event-ids=strip")?;
                }
                Ok(())
            }
            Self::MalformedEvent { event } => write!(f, "malformed-event={event}"),
            Self::Latency(d) => write!(f, "latency={}", shown_duration(*d)),
            Self::Dribble { bytes, every } => {
                write!(f, "dribble={bytes},every={}", shown_duration(*every))
            }
            Self::CutBody { bytes } => write!(f, "cut-body={bytes}"),
            Self::ForgetSession => write!(f, "forget-session"),
        }
    }
}

/// A status fault in the compact form (`status=429,retry-after=2s,hold`).
impl std::fmt::Display for StatusFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "status={}", self.status.as_u16())?;
        if let Some(delay) = self.retry_after {
            write!(f, ",retry-after={}", shown_duration(delay))?;
        }
        if let Some(ms) = self.retry_after_ms {
            write!(f, ",retry-after-ms={ms}")?;
        }
        if let Some(kind) = &self.error_type {
            write!(f, ",type={kind}")?;
        }
        if let Some(message) = &self.message {
            write!(f, ",message={message}")?;
        }
        if let Some(retry) = self.should_retry {
            write!(f, ",should-retry={retry}")?;
        }
        if self.hold {
            write!(f, ",hold")?;
        }
        Ok(())
    }
}

/// A duration as the grammar writes it: whole seconds as `2s`, else milliseconds.
fn shown_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

fn number(key: &str, value: &str) -> Result<u64, String> {
    value
        .parse::<u64>()
        .map_err(|_| format!("`{key}` must be a whole number, not `{value}`"))
}

fn duration(key: &str, value: &str) -> Result<Duration, String> {
    // A bare number is seconds, as `Retry-After` counts them.
    if let Ok(seconds) = value.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    parse_duration(value).map_err(|e| format!("`{key}`: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compact_form_reads_a_kind_its_options_and_a_scope() {
        let spec = FaultSpec::parse("status=429,retry-after=2,times=1,path=/chat/completions");
        assert_eq!(
            spec,
            Ok(FaultSpec {
                kind: Kind::Status(StatusFault {
                    retry_after: Some(Duration::from_secs(2)),
                    ..StatusFault::new(StatusCode::TOO_MANY_REQUESTS)
                }),
                scope: Scope {
                    times: Some(1),
                    path: Some("/chat/completions".into()),
                    ..Scope::default()
                },
            })
        );
        let shown = spec.map(|s| s.shown());
        assert_eq!(
            shown.as_deref(),
            Ok("status=429,retry-after=2s,times=1,path=/chat/completions")
        );
    }

    #[test]
    fn the_json_form_is_the_same_vocabulary() {
        let json = serde_json::json!({"end-after-events": 2, "event-ids": "strip", "tool": "x"});
        let text = FaultSpec::parse("end-after-events=2,event-ids=strip,tool=x");
        assert_eq!(FaultSpec::from_json(&json), text);
        let flag = serde_json::json!({"forget-session": true});
        assert_eq!(
            FaultSpec::from_json(&flag).map(|s| s.kind),
            Ok(Kind::ForgetSession)
        );
    }

    #[test]
    fn bad_specs_are_refused_with_a_sentence() {
        for (spec, reason) in [
            ("", "say what it does"),
            (
                "status=404",
                "status must be 429, 500, 502 or 503, not `404`",
            ),
            ("status=429,status=500", "`status` is given twice"),
            ("status=429,latency=1s", "one fault does one thing"),
            (
                "retry-after=2,latency=1s",
                "`retry-after` goes with `status` only",
            ),
            ("status=503,times=0", "times must be at least 1"),
            (
                "status=503,times=x",
                "`times` must be a whole number, not `x`",
            ),
            ("latency=soon", "`latency`:"),
            (
                "reset=later",
                "reset must be `before-headers` or `mid-body`",
            ),
            ("status=500,colour=red", "unknown key `colour`"),
            ("status=500,path=v1", "path must start with `/`"),
            ("status", "`status` needs a value"),
            ("malformed-event=0", "counts from 1"),
        ] {
            let refused = FaultSpec::parse(spec).map_err(|e| e.to_string());
            let Err(sentence) = refused else {
                panic!("`{spec}` is refused");
            };
            assert!(sentence.contains(reason), "`{spec}`: {sentence}");
        }
    }

    #[test]
    fn a_listing_never_shows_the_key_itself() {
        let spec = FaultSpec::parse("status=500,key=alice-dev-token").map(|s| s.shown());
        let shown = spec.unwrap_or_default();
        assert!(!shown.contains("alice-dev-token"), "{shown}");
        assert!(shown.contains(&fingerprint("alice-dev-token")), "{shown}");
    }
}
