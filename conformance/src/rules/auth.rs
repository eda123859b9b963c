//! Sign-ins: open the URL before notify_connected, call it once the user signed in, name the
//! connector when several wait, and leave optional reconnections alone.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Transcript, path_of};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::rule::Rule;

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_AUTH_OPEN_THEN_NOTIFY,
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
            id: ids::COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL,
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
            id: ids::COMPUTER_AUTH_OPTIONAL_IGNORED,
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
        Rule {
            id: ids::COMPUTER_AUTH_NOTIFY_AFTER_SIGN_IN,
            summary: "once the user opened an auth_required event's auth_url, notify_connected tells Computer, so the request continues",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Conversation Threading",
                quote: "If Computer needs to connect to a service mid-task, it returns an auth_required event. After you sign in, notify_connected tells Computer, and the same request continues on the same thread",
            },
            scenarios: &["auth-required", "multiple-sign-ins"],
            check: notify_after_sign_in,
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
        if let Some((thread, url)) = unnotified_sign_in(t) {
            return not_reached_without_notify(&thread, &url);
        }
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

/// Each `auth_required` event whose `auth_url` the client then opened: (thread, auth_url, the
/// seq of the result).
fn signed_in_events(t: &Transcript) -> Vec<(String, String, usize)> {
    t.calls
        .iter()
        .filter(|c| c.result.get("event").and_then(Value::as_str) == Some("auth_required"))
        .filter_map(|c| {
            let url = c.result.pointer("/interactive/auth_url")?.as_str()?;
            let thread = c.result.get("thread_id")?.as_str()?;
            t.opened_before(url, usize::MAX)
                .is_some_and(|opened| opened > c.seq)
                .then(|| (thread.to_owned(), url.to_owned(), c.seq))
        })
        .collect()
}

/// "After you sign in, notify_connected tells Computer": the page finishing the sign-in
/// connects the account, but the request waits until the client says so. Each auth_required
/// event whose auth_url the client opened is followed by a notify_connected on its thread.
/// The first sign-in the user finished on a thread the client then never told Computer about
/// (its thread and auth_url): rules whose trigger a `notify_connected` is, or that judge how a
/// thread was followed after it, are not reached there; [`notify_after_sign_in`] reports it.
pub(super) fn unnotified_sign_in(t: &Transcript) -> Option<(String, String)> {
    signed_in_events(t)
        .into_iter()
        .find_map(|(thread, url, seq)| {
            let told = t.calls_named("notify_connected").any(|n| {
                n.seq > seq && n.args.get("thread_id").and_then(Value::as_str) == Some(&thread)
            });
            (!told).then_some((thread, url))
        })
}

/// Not judged because of a sign-in the client never told Computer about.
pub(super) fn not_reached_without_notify(thread: &str, url: &str) -> Outcome {
    Outcome::NotReached(format!(
        "the user signed in at {url} and the client never called notify_connected on thread {thread}, which {} reports",
        ids::COMPUTER_AUTH_NOTIFY_AFTER_SIGN_IN
    ))
}

fn notify_after_sign_in(t: &Transcript) -> Outcome {
    let events = signed_in_events(t);
    if events.is_empty() {
        let asked = t
            .calls
            .iter()
            .any(|c| c.result.get("event").and_then(Value::as_str) == Some("auth_required"));
        if asked {
            // The user never reached the page: the order of the two steps is the other rule's.
            return Outcome::NotReached(format!(
                "the client never opened an auth_required event's auth_url, which {} judges",
                ids::COMPUTER_AUTH_OPEN_THEN_NOTIFY
            ));
        }
        return Outcome::Unobserved(
            "no auth_required event whose auth_url the client then opened".into(),
        );
    }
    for (thread, url, seq) in &events {
        let told = t.calls_named("notify_connected").any(|n| {
            n.seq > *seq && n.args.get("thread_id").and_then(Value::as_str) == Some(thread)
        });
        if !told {
            let opened = t.opened_before(url, usize::MAX).unwrap_or(*seq);
            return Outcome::Violated {
                message: format!(
                    "the user signed in at {url}, and the client never called notify_connected on thread {thread}, so the request waits for ever"
                ),
                evidence: vec![*seq, opened],
            };
        }
    }
    Outcome::Pass(format!(
        "notify_connected followed each of {} sign-ins the user finished",
        events.len()
    ))
}

/// Judges from what the mock answered, in journal order, which sign-ins were waiting: a
/// `read_thread` lists them all (its latest entry's `auth_requests`), an `auth_required`
/// result names one more, a `notify_connected` answered with a task status settles the one it
/// named, and a sign-in page's own button settles its connector. A `notify_connected` that
/// named a connector and was answered `input_required` proves another was waiting beside it.
fn connector_when_several(t: &Transcript) -> Outcome {
    let pages: Vec<(String, String)> = sign_ins(t)
        .into_iter()
        .map(|s| (path_of(&s.2), s.0.to_ascii_lowercase()))
        .collect();
    let mut waiting: BTreeSet<String> = BTreeSet::new();
    let mut exercised = false;
    let mut page_posts = t
        .exchanges
        .iter()
        .filter(|e| e.method == "POST" && e.path.starts_with("/_mock/connect/") && e.status < 400)
        .peekable();
    for c in &t.calls {
        while let Some(post) = page_posts.next_if(|e| e.seq < c.seq) {
            if let Some((_, connector)) = pages.iter().find(|(path, _)| *path == post.path) {
                waiting.remove(connector);
            }
        }
        if c.name == "notify_connected" {
            let connector = c
                .args
                .get("connector")
                .and_then(Value::as_str)
                .map(str::to_ascii_lowercase);
            match &connector {
                None if waiting.len() >= 2 => {
                    return Outcome::Violated {
                        message: format!(
                            "notify_connected without `connector` while {} sign-ins were waiting ({}): {}",
                            waiting.len(),
                            waiting.iter().cloned().collect::<Vec<_>>().join(", "),
                            c.describe()
                        ),
                        evidence: vec![c.seq],
                    };
                }
                Some(_) if waiting.len() >= 2 => exercised = true,
                Some(_) if c.task_status() == Some("input_required") => exercised = true,
                _ => {}
            }
            match connector {
                Some(name) if c.task_status().is_some() => {
                    waiting.remove(&name);
                }
                // With a single sign-in waiting, the server answers that one.
                None if c.task_status().is_some() && waiting.len() == 1 => waiting.clear(),
                _ => {}
            }
            continue;
        }
        if let Some(entries) = c
            .result
            .pointer("/web_state/entries")
            .and_then(Value::as_array)
        {
            waiting = entries
                .last()
                .and_then(|e| e.get("auth_requests"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|a| a.get("connector")?.as_str().map(str::to_ascii_lowercase))
                .collect();
        }
        if let Some(i) = c.result.get("interactive")
            && i.get("type").and_then(Value::as_str) == Some("auth_required")
            && let Some(connector) = i.get("connector").and_then(Value::as_str)
        {
            waiting.insert(connector.to_ascii_lowercase());
        }
    }
    if exercised {
        Outcome::Pass("notify_connected named the connector while several sign-ins waited".into())
    } else if let Some((thread, url)) = unnotified_sign_in(t) {
        not_reached_without_notify(&thread, &url)
    } else {
        Outcome::Unobserved(
            "the client never called notify_connected while the mock showed several sign-ins waiting".into(),
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
