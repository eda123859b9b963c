//! Sign-ins: open the URL before notify_connected, name the connector when several wait, and
//! leave optional reconnections alone.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{COMPUTER_DOC, DocRef, Level, Outcome, Rule, Transcript};

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: "computer.auth.open-then-notify",
            summary: "the auth_url is opened before notify_connected, which names the event's connector",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Status and Progress Updates (follow-up table)",
                quote: "auth_required: Open the OAuth URL, then call notify_connected with the event's connector.",
            },
            scenarios: &["auth-required", "multiple-sign-ins"],
            check: open_then_notify,
        },
        Rule {
            id: "computer.auth.connector-when-several",
            summary: "notify_connected passes connector while more than one sign-in is waiting",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "notify_connected",
                quote: "connector: The connector from the auth_required event, for example slack. The display name also works. Pass it when more than one sign-in is waiting.",
            },
            scenarios: &["multiple-sign-ins"],
            check: connector_when_several,
        },
        Rule {
            id: "computer.auth.optional-ignored",
            summary: "no notify_connected for optional_auth_requests",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Response Format",
                quote: "optional_auth_requests: Connectors you can reconnect for better results. [...] The task isn't waiting on these, so don't call notify_connected for them.",
            },
            scenarios: &["optional-auth"],
            check: optional_ignored,
        },
    ]
}

/// Every required sign-in the client was shown: (connector, display name, auth_url, seq).
fn sign_ins(t: &Transcript) -> Vec<(String, String, String, usize)> {
    let mut found = Vec::new();
    let mut push = |v: &Value, seq: usize| {
        if v.get("type").and_then(Value::as_str) != Some("auth_required") {
            return;
        }
        if v.get("requires_user_response") == Some(&Value::Bool(false)) {
            return;
        }
        let field = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        found.push((
            field("connector"),
            field("display_name"),
            field("auth_url"),
            seq,
        ));
    };
    for c in &t.calls {
        if let Some(i) = c.result.get("interactive") {
            push(i, c.seq);
        }
        if let Some(entries) = c
            .result
            .pointer("/web_state/entries")
            .and_then(Value::as_array)
        {
            for e in entries {
                for a in e
                    .get("auth_requests")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    push(a, c.seq);
                }
            }
        }
    }
    found
}

fn open_then_notify(t: &Transcript) -> Outcome {
    let notifies: Vec<_> = t.calls_named("notify_connected").collect();
    if notifies.is_empty() {
        return Outcome::Unobserved("the client never called notify_connected".into());
    }
    let known = sign_ins(t);
    for n in notifies {
        let shown: Vec<_> = known.iter().filter(|s| s.3 < n.seq).collect();
        let candidates: Vec<_> = match n.args.get("connector").and_then(Value::as_str) {
            Some(c) => {
                let matching: Vec<_> = shown
                    .iter()
                    .filter(|s| s.0.eq_ignore_ascii_case(c) || s.1.eq_ignore_ascii_case(c))
                    .collect();
                if matching.is_empty() {
                    return Outcome::Violated {
                        message: format!(
                            "notify_connected named connector `{c}`, which no auth_required event asked for: {}",
                            n.describe()
                        ),
                        evidence: vec![n.seq],
                    };
                }
                matching.into_iter().copied().collect()
            }
            None => shown,
        };
        if candidates.is_empty() {
            return Outcome::Violated {
                message: format!(
                    "notify_connected with no auth_required before it: {}",
                    n.describe()
                ),
                evidence: vec![n.seq],
            };
        }
        if !candidates
            .iter()
            .any(|s| t.opened_before(&s.2, n.seq).is_some())
        {
            return Outcome::Violated {
                message: format!(
                    "notify_connected was called before the auth_url ({}) was opened: {}",
                    candidates[0].2,
                    n.describe()
                ),
                evidence: vec![candidates[0].3, n.seq],
            };
        }
    }
    Outcome::Pass("each notify_connected followed a GET of its auth_url".into())
}

/// Sign-ins waiting at the start of `multiple-sign-ins` (GitHub and Linear).
const SEVERAL: usize = 2;

fn connector_when_several(t: &Transcript) -> Outcome {
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut exercised = false;
    for n in t.calls_named("notify_connected") {
        // Sign-ins finished with the page's own button count as done too.
        let on_page = t
            .exchanges
            .iter()
            .filter(|e| {
                e.seq < n.seq && e.method == "POST" && e.path.starts_with("/_mock/connect/")
            })
            .map(|e| e.path.clone())
            .collect::<BTreeSet<_>>()
            .len();
        let waiting = SEVERAL.saturating_sub(done.len() + on_page);
        let connector = n.args.get("connector").and_then(Value::as_str);
        if waiting >= 2 {
            exercised = true;
            if connector.is_none() {
                return Outcome::Violated {
                    message: format!(
                        "notify_connected without `connector` while {waiting} sign-ins were waiting: {}",
                        n.describe()
                    ),
                    evidence: vec![n.seq],
                };
            }
        }
        if let Some(c) = connector
            && n.result.get("task_status").is_some()
        {
            done.insert(c.to_ascii_lowercase());
        }
    }
    if exercised {
        Outcome::Pass("notify_connected named the connector while several sign-ins waited".into())
    } else {
        Outcome::Unobserved(
            "the client never called notify_connected while several sign-ins were waiting".into(),
        )
    }
}

fn optional_ignored(t: &Transcript) -> Outcome {
    let optional: BTreeSet<String> = t
        .calls
        .iter()
        .filter_map(|c| c.result.get("optional_auth_requests")?.as_array())
        .flatten()
        .filter_map(|o| o.get("connector")?.as_str().map(str::to_ascii_lowercase))
        .collect();
    if optional.is_empty() {
        return Outcome::Unobserved("no result carried optional_auth_requests".into());
    }
    let required: BTreeSet<String> = sign_ins(t)
        .into_iter()
        .map(|s| s.0.to_ascii_lowercase())
        .collect();
    for n in t.calls_named("notify_connected") {
        let connector = n
            .args
            .get("connector")
            .and_then(Value::as_str)
            .map(str::to_ascii_lowercase);
        let for_optional = match &connector {
            Some(c) => optional.contains(c) && !required.contains(c),
            None => required.is_empty(),
        };
        if for_optional {
            return Outcome::Violated {
                message: format!(
                    "notify_connected was called for an optional reconnection nothing waits on: {}",
                    n.describe()
                ),
                evidence: vec![n.seq],
            };
        }
    }
    Outcome::Pass("optional_auth_requests were left alone".into())
}
