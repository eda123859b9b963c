//! What the account's limits ask of a client: the upload's true size (the plan's limit is
//! checked against it), a refused upload shown to the user, and Projects paged past the first
//! 50 before one is taken for missing.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{Rpc, ToolCall, Transcript};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::outcomes::{show_kind, show_text, shows, without_user_channel};
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";
const UPLOAD: &str = "create_attachment_upload";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_UPLOAD_SIZE_BYTES,
            summary: "create_attachment_upload's size_bytes is the attached file's size, which the plan's limit is checked against",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "create_attachment_upload",
                quote: "size_bytes | integer | Yes | File size in bytes. Must not exceed your plan's limit (200 MB on paid plans, 25 MB on Free).",
            },
            scenarios: &["attachments", "attachment-over-limit"],
            check: size_bytes,
        },
        Rule {
            id: ids::COMPUTER_UPLOAD_REFUSAL_SHOWN,
            summary: "a create_attachment_upload refused by a plan limit is shown to the user as an error, and no attachment_url is made up for it",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "File Uploads",
                quote: "Plans also limit how many files you can attach per day or week. When a limit is reached, create_attachment_upload returns an error.",
            },
            scenarios: &["attachment-over-limit"],
            check: refusal_shown,
        },
        Rule {
            id: ids::COMPUTER_PROJECTS_PAGE_ON,
            summary: "projects_list is paged while next_cursor is not null until the Project the user named is found",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "projects_list",
                quote: "Keep paging while next_cursor is not null before concluding a Project doesn't exist.",
            },
            scenarios: &["project-on-page-two"],
            check: projects_paged,
        },
    ]
}

/// The files the user attached, from the turns the user channel handed out: (name, size).
fn attached_files(t: &Transcript) -> Vec<(String, u64)> {
    t.user
        .iter()
        .filter(|u| u.kind == "next-message")
        .filter_map(|u| u.response.get("attachments").and_then(Value::as_array))
        .flatten()
        .filter_map(|file| {
            let name = file.get("filename").and_then(Value::as_str)?;
            let size = file.get("size_bytes").and_then(Value::as_u64).or_else(|| {
                let content = file.get("content").and_then(Value::as_str)?;
                u64::try_from(content.len()).ok()
            })?;
            Some((name.to_owned(), size))
        })
        .collect()
}

fn size_bytes(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let files = attached_files(t);
    let uploads: Vec<&ToolCall> = t.calls_named(UPLOAD).collect();
    if uploads.is_empty() {
        return Outcome::Unobserved("no create_attachment_upload was called".into());
    }
    for call in &uploads {
        let name = call
            .args
            .get("filename")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some((_, size)) = files.iter().find(|(f, _)| f == name) else {
            continue;
        };
        let given = call.args.get("size_bytes").and_then(Value::as_u64);
        if given != Some(*size) {
            let given = given.map_or_else(|| "no size_bytes".to_owned(), |g| g.to_string());
            return Outcome::Violated {
                message: format!(
                    "{name} is {size} bytes, but create_attachment_upload (#{}) said {given}",
                    call.seq
                ),
                evidence: vec![call.seq],
            };
        }
    }
    Outcome::Pass(format!(
        "{} upload(s) requested with the file's size in bytes",
        uploads.len()
    ))
}

/// An error result's explanation: its `text`, else its first content block as it came.
fn result_text<'a>(t: &'a Transcript, rpc: &'a Rpc) -> &'a str {
    t.calls
        .iter()
        .find(|c| c.seq == rpc.seq)
        .and_then(|c| c.result.get("text").and_then(Value::as_str))
        .or_else(|| rpc.response.pointer("/result/content/0/text")?.as_str())
        .unwrap_or_default()
}

fn refusal_shown(t: &Transcript) -> Outcome {
    if let Some(unjudged) = without_user_channel(t) {
        return unjudged;
    }
    let refused: Vec<&Rpc> = t
        .rpcs
        .iter()
        .filter(|r| r.params.get("name").and_then(Value::as_str) == Some(UPLOAD))
        .filter(|r| r.response.pointer("/result/isError") == Some(&Value::Bool(true)))
        .collect();
    if refused.is_empty() {
        return Outcome::Unobserved("no create_attachment_upload was refused".into());
    }
    let issued: Vec<&str> = t
        .calls_named(UPLOAD)
        .filter_map(|c| c.result.get("attachment_url").and_then(Value::as_str))
        .collect();
    if let Some(made_up) = t.calls_named(CPC).find_map(|c| {
        c.args
            .get("attachment_urls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|url| !issued.contains(url))
            .map(|url| (c, url))
    }) {
        return Outcome::Violated {
            message: format!(
                "{} passed {} in attachment_urls, which no create_attachment_upload returned",
                made_up.0.describe(),
                made_up.1
            ),
            evidence: vec![made_up.0.seq],
        };
    }
    for r in refused {
        let text = result_text(t, r);
        // Shown before the user is asked for anything more.
        let next_turn = t
            .user
            .iter()
            .find(|u| u.at > r.seq && u.kind == "next-message")
            .map_or(usize::MAX, |u| u.at);
        let shown = shows(t).any(|u| {
            u.at > r.seq
                && u.at <= next_turn
                && show_kind(u) == "error"
                && show_text(u).contains(text)
        });
        if !shown {
            return Outcome::Violated {
                message: format!(
                    "create_attachment_upload was refused (#{}: \"{text}\") and the user was never shown why (show kind error)",
                    r.seq
                ),
                evidence: vec![r.seq],
            };
        }
    }
    Outcome::Pass("each refused upload was shown to the user as an error".into())
}

fn projects_paged(t: &Transcript) -> Outcome {
    let named: Vec<(usize, &str)> = t
        .user
        .iter()
        .filter(|u| u.kind == "next-message")
        .filter_map(|u| Some((u.at, u.response.pointer("/project/name")?.as_str()?)))
        .collect();
    if named.is_empty() {
        return Outcome::Unobserved("the user named no Project".into());
    }
    for (at, name) in named {
        let sent = t
            .calls_named(CPC)
            .find(|c| c.seq >= at)
            .map_or(usize::MAX, |c| c.seq);
        let pages: Vec<&ToolCall> = t
            .calls_named("projects_list")
            .filter(|c| c.seq >= at && c.seq < sent)
            .collect();
        let Some(first) = pages.first() else {
            return Outcome::Violated {
                message: format!(
                    "the user named the Project \"{name}\", but no projects_list looked for it before the message was sent"
                ),
                evidence: Vec::new(),
            };
        };
        let mut page = *first;
        loop {
            let lists_it = page
                .result
                .get("projects")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .any(|p| p.get("name").and_then(Value::as_str) == Some(name));
            if lists_it {
                break;
            }
            let Some(cursor) = page.result.get("next_cursor").and_then(Value::as_str) else {
                // Every page was read: the Project does not exist.
                break;
            };
            let Some(next) = pages.iter().find(|c| {
                c.seq > page.seq && c.args.get("cursor").and_then(Value::as_str) == Some(cursor)
            }) else {
                return Outcome::Violated {
                    message: format!(
                        "projects_list (#{}) did not list \"{name}\" and had next_cursor {cursor}, but the client stopped paging before the message was sent",
                        page.seq
                    ),
                    evidence: vec![page.seq],
                };
            };
            page = next;
        }
    }
    Outcome::Pass("projects_list was paged until the named Project was found".into())
}
