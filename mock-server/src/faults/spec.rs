//! The fault vocabulary: what a fault does ([`Kind`]) and which requests it touches
//! ([`Scope`]), read from one grammar whichever door it came through: the compact text of
//! `mock-server --fault SPEC` (`status=429,retry-after=2s,times=1,path=/chat/completions`), or
//! a JSON object with the same keys (`POST /_mock/faults`, a scenario's `faults`).
//!
//! `docs/faults.md` is the reference for users; the sentences here are what a bad spec is
//! refused with.

use std::time::Duration;

use http::StatusCode;
use serde_json::Value;

use crate::fixtures::parse_duration;
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
    /// Answer with this status (429, 500, 502, 503) in the surface's error envelope.
    Status {
        /// 429, 500, 502 or 503.
        status: StatusCode,
        /// The `Retry-After` delay (and the Agent API's `retry-after-ms`), if any.
        retry_after: Option<Duration>,
    },
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
        let mut retry_after = None;
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
                    set_kind(Kind::Status {
                        status,
                        retry_after: None,
                    })?;
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
                "retry-after" => retry_after = Some(duration(key, &value()?).map_err(refuse)?),
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
                other => {
                    return Err(refuse(format!(
                        "unknown key `{other}`; a fault is one of {KINDS}, scoped by times, \
                         path, method, tool, scenario, session or key"
                    )));
                }
            }
        }
        let mut kind = kind.ok_or_else(|| refuse(format!("say what it does: one of {KINDS}")))?;
        let option_for =
            |option: &str, wanted: &str| refuse(format!("`{option}` goes with `{wanted}` only"));
        match (&mut kind, retry_after) {
            (
                Kind::Status {
                    retry_after: slot, ..
                },
                Some(delay),
            ) => *slot = Some(delay),
            (_, Some(_)) => return Err(option_for("retry-after", "status")),
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
            Self::Status {
                status,
                retry_after,
            } => {
                write!(f, "status={}", status.as_u16())?;
                if let Some(delay) = retry_after {
                    write!(f, ",retry-after={}", shown_duration(*delay))?;
                }
                Ok(())
            }
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
                kind: Kind::Status {
                    status: StatusCode::TOO_MANY_REQUESTS,
                    retry_after: Some(Duration::from_secs(2)),
                },
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
