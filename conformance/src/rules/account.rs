//! The account world: paging through `next_cursor`, mode/model/effort and Project arguments,
//! upload envelopes and `attachment_urls`, and refreshing expired download links.
//!
//! What the person asked for comes from the user channel's log (the turns `next-message`
//! delivered); what the client did and what the mock answered come from the journal.

use serde_json::Value;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::{ToolCall, Transcript, UserRecord, path_of};

use super::documents::COMPUTER_DOC;
use super::ids;
use super::rule::Rule;

const CPC: &str = "call_perplexity_computer";

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::COMPUTER_PAGING_NEXT_CURSOR,
            summary: "list_thread_assets is paged while next_cursor is not null, through empty filtered pages",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "list_thread_assets",
                quote: "Returns an assets array and a next_cursor. Keep paging while next_cursor is not null, even when a filtered page is empty.",
            },
            scenarios: &["thread-assets"],
            check: paging,
        },
        Rule {
            id: ids::COMPUTER_SETTINGS_MODE_OR_MODEL,
            summary: "the person's mode, or model with effort, is passed; never mode with model, never effort without model",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "Choosing a Mode or Model",
                quote: "Pass either mode, or model with an optional effort, to call_perplexity_computer: [...] mode and model can’t be used together. effort requires model.",
            },
            scenarios: &["project-settings"],
            check: mode_or_model,
        },
        Rule {
            id: ids::COMPUTER_PROJECT_NEW_CONVERSATION,
            summary: "project_uuid (from projects_list) only starts a new conversation; project_visibility only with project_uuid",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "call_perplexity_computer (parameters)",
                quote: "Start the new conversation inside this Project, using its instructions, files, connected context, and Project Brain. Get it from `projects_list`. Only for new conversations; can’t be combined with `thread_id`. [...] `project` lets all Project members view the new session. Requires `project_uuid`.",
            },
            scenarios: &["project-settings"],
            check: project,
        },
        Rule {
            id: ids::COMPUTER_UPLOAD_ENVELOPE,
            summary: "each file is POSTed, unauthenticated, to upload_url with every upload_fields key and a file part",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "File Uploads (Step 2)",
                quote: "Send an unauthenticated multipart/form-data POST to upload_url. Include every key from upload_fields as a form field, then add the file under a file part.",
            },
            scenarios: &["attachments"],
            check: envelope,
        },
        Rule {
            id: ids::COMPUTER_UPLOAD_ATTACHMENT_URL,
            summary: "the message the files were attached to carries each returned attachment_url in attachment_urls",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "File Uploads (Step 3)",
                quote: "Pass the attachment_url to any task tool via the attachment_urls array.",
            },
            scenarios: &["attachments"],
            check: attachment_urls,
        },
        Rule {
            id: ids::COMPUTER_ASSETS_REFRESH_DOWNLOAD,
            summary: "an expired download link is replaced with create_asset_download, not given up on",
            level: Level::Must,
            doc: DocRef {
                document: COMPUTER_DOC,
                section: "create_asset_download",
                quote: "File download URLs are valid for up to one hour. [...] Call create_asset_download again whenever you need a new URL.",
            },
            scenarios: &["thread-assets"],
            check: refresh_download,
        },
    ]
}

/// The turns the person delivered over `next-message`, with their log records.
fn turns(t: &Transcript) -> impl Iterator<Item = &UserRecord> {
    t.user
        .iter()
        .filter(|u| u.kind == "next-message" && u.response.get("message").is_some())
}

/// The first `call_perplexity_computer` after the user channel handed out `turn`.
fn sent_after<'a>(t: &'a Transcript, turn: &UserRecord) -> Option<&'a ToolCall> {
    t.calls_named(CPC).find(|c| c.seq >= turn.at)
}

fn paging(t: &Transcript) -> Outcome {
    let lists: Vec<_> = t.calls_named("list_thread_assets").collect();
    if lists.is_empty() {
        return Outcome::Unobserved("the client never called list_thread_assets".into());
    }
    let mut handed_out = 0;
    for page in &lists {
        let Some(cursor) = page.result.get("next_cursor").and_then(Value::as_str) else {
            continue;
        };
        handed_out += 1;
        let followed = lists.iter().any(|later| {
            later.seq > page.seq && later.args.get("cursor").and_then(Value::as_str) == Some(cursor)
        });
        if !followed {
            let empty = page
                .result
                .get("assets")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty);
            return Outcome::Violated {
                message: format!(
                    "list_thread_assets returned next_cursor `{cursor}`{} and the client never asked for that page: {}",
                    if empty {
                        " on an empty filtered page"
                    } else {
                        ""
                    },
                    page.describe()
                ),
                evidence: vec![page.seq],
            };
        }
    }
    if handed_out == 0 {
        return Outcome::Unobserved(
            "no list_thread_assets page had a next_cursor, so paging was never exercised".into(),
        );
    }
    Outcome::Pass(format!(
        "each of the {handed_out} next_cursor values was followed"
    ))
}

fn mode_or_model(t: &Transcript) -> Outcome {
    for c in &t.calls {
        let has = |k: &str| c.args.get(k).is_some_and(|v| !v.is_null());
        if has("mode") && has("model") {
            return Outcome::Violated {
                message: format!("mode and model were passed together: {}", c.describe()),
                evidence: vec![c.seq],
            };
        }
        if has("effort") && !has("model") {
            return Outcome::Violated {
                message: format!("effort was passed without model: {}", c.describe()),
                evidence: vec![c.seq],
            };
        }
    }
    let mut picks = 0;
    for turn in turns(t) {
        let Some(settings) = turn.response.get("settings").and_then(Value::as_object) else {
            continue;
        };
        picks += 1;
        let Some(sent) = sent_after(t, turn) else {
            return Outcome::Unobserved(format!(
                "the message the person picked {} for was never sent",
                Value::Object(settings.clone())
            ));
        };
        for (key, value) in settings {
            if sent.args.get(key) != Some(value) {
                return Outcome::Unobserved(format!(
                    "the person picked {key} {value}, but the message was sent without it: {}",
                    sent.describe()
                ));
            }
        }
    }
    if picks == 0 {
        return Outcome::Unobserved("the person never picked a mode or a model".into());
    }
    Outcome::Pass(format!(
        "the {picks} picks were passed, never mode with model nor effort without model"
    ))
}

fn project(t: &Transcript) -> Outcome {
    for c in &t.calls {
        let has = |k: &str| c.args.get(k).is_some_and(|v| !v.is_null());
        if has("project_uuid") && has("thread_id") {
            return Outcome::Violated {
                message: format!(
                    "project_uuid was passed on a follow-up, with thread_id: {}",
                    c.describe()
                ),
                evidence: vec![c.seq],
            };
        }
        if has("project_visibility") && !has("project_uuid") {
            return Outcome::Violated {
                message: format!(
                    "project_visibility was passed without project_uuid: {}",
                    c.describe()
                ),
                evidence: vec![c.seq],
            };
        }
    }
    let Some(turn) = turns(t).find(|u| u.response.get("project").is_some()) else {
        return Outcome::Unobserved(
            "the person's turn naming a Project was never fetched from next-message".into(),
        );
    };
    let wanted = &turn.response["project"];
    let name = wanted
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // The uuid must come from what the mock listed, as the document says to get it.
    let listed = t
        .calls_named("projects_list")
        .filter_map(|c| c.result.get("projects")?.as_array())
        .flatten()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
        .and_then(|p| p.get("project_uuid")?.as_str());
    let Some(uuid) = listed else {
        return Outcome::Unobserved(format!(
            "projects_list never listed the Project `{name}` the person named"
        ));
    };
    let Some(sent) = sent_after(t, turn) else {
        return Outcome::Unobserved(format!(
            "the conversation the person wanted in `{name}` was never started"
        ));
    };
    if sent.args.get("project_uuid").and_then(Value::as_str) != Some(uuid) {
        return Outcome::Unobserved(format!(
            "the conversation was started without project_uuid {uuid} of `{name}`: {}",
            sent.describe()
        ));
    }
    if let Some(visibility) = wanted.get("visibility")
        && sent.args.get("project_visibility") != Some(visibility)
    {
        return Outcome::Unobserved(format!(
            "the person chose project_visibility {visibility}, but it was not passed: {}",
            sent.describe()
        ));
    }
    Outcome::Pass(format!(
        "the new conversation started in `{name}` ({uuid}); no follow-up repeated project_uuid"
    ))
}

/// Upload POSTs to the mock's upload endpoint.
fn upload_posts<'a>(
    t: &'a Transcript,
    path: &'a str,
) -> impl Iterator<Item = &'a mock_server::Exchange> {
    t.exchanges
        .iter()
        .filter(move |e| e.method == "POST" && e.path == path)
}

fn envelope(t: &Transcript) -> Outcome {
    let envelopes: Vec<_> = t
        .calls_named("create_attachment_upload")
        .filter(|c| c.result.get("attachment_url").is_some())
        .collect();
    if envelopes.is_empty() {
        return Outcome::Unobserved(
            "the client never got an upload envelope from create_attachment_upload".into(),
        );
    }
    for env in &envelopes {
        let url = env.result["attachment_url"].as_str().unwrap_or_default();
        let upload_path = path_of(env.result["upload_url"].as_str().unwrap_or_default());
        let posts: Vec<_> = upload_posts(t, &upload_path)
            .filter(|e| e.seq > env.seq)
            .collect();
        // S3 (and the mock) name the stored object in `Location` on success.
        let stored = posts.iter().find(|e| {
            e.status == 204
                && e.response_headers.get("location").and_then(Value::as_str) == Some(url)
        });
        if let Some(post) = stored {
            if post.request_headers.contains_key("authorization") {
                return Outcome::Violated {
                    message: format!(
                        "the upload POST #{} carried an Authorization header; the presigned POST is unauthenticated",
                        post.seq
                    ),
                    evidence: vec![post.seq],
                };
            }
            continue;
        }
        if let Some(refused) = posts.iter().find(|e| e.status >= 400) {
            return Outcome::Violated {
                message: format!(
                    "the upload for {url} was refused (HTTP {}): {}",
                    refused.status,
                    refused
                        .response_body
                        .as_str()
                        .map_or_else(|| refused.response_body.to_string(), str::to_owned)
                ),
                evidence: vec![env.seq, refused.seq],
            };
        }
        return Outcome::Unobserved(format!(
            "the file for {url} was never POSTed to its upload_url: {}",
            env.describe()
        ));
    }
    Outcome::Pass(format!(
        "{} file(s) POSTed with every upload_fields key and a file part",
        envelopes.len()
    ))
}

fn attachment_urls(t: &Transcript) -> Outcome {
    let with_files: Vec<&UserRecord> = turns(t)
        .filter(|u| u.response.get("attachments").is_some())
        .collect();
    if with_files.is_empty() {
        return Outcome::Unobserved(
            "the person's turn with attachments was never fetched from next-message".into(),
        );
    }
    let returned: Vec<&str> = t
        .calls_named("create_attachment_upload")
        .filter_map(|c| c.result.get("attachment_url")?.as_str())
        .collect();
    let mut carried = 0;
    for turn in with_files {
        let attached = turn.response["attachments"].as_array().map_or(0, Vec::len);
        let Some(sent) = sent_after(t, turn) else {
            return Outcome::Unobserved("the message with attachments was never sent".into());
        };
        let passed: Vec<&str> = sent
            .args
            .get("attachment_urls")
            .and_then(Value::as_array)
            .map(|urls| urls.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(foreign) = passed.iter().find(|u| !returned.contains(u)) {
            return Outcome::Violated {
                message: format!(
                    "attachment_urls carried `{foreign}`, which no create_attachment_upload returned: {}",
                    sent.describe()
                ),
                evidence: vec![sent.seq],
            };
        }
        if passed.len() < attached {
            return Outcome::Violated {
                message: format!(
                    "the person attached {attached} file(s) but the message carried {} attachment_url(s): {}",
                    passed.len(),
                    sent.describe()
                ),
                evidence: vec![sent.seq],
            };
        }
        carried += attached;
    }
    Outcome::Pass(format!(
        "the messages carried the {carried} returned attachment_url(s)"
    ))
}

/// The file name at the end of a download path, percent-decoded.
fn file_name(path: &str) -> String {
    let last = path.rsplit('/').next().unwrap_or_default();
    let bytes = last.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = last.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn refresh_download(t: &Transcript) -> Outcome {
    let Some(turn) = turns(t)
        .find(|u| u.response.pointer("/request/kind").and_then(Value::as_str) == Some("download"))
    else {
        return Outcome::Unobserved(
            "the person's download request was never fetched from next-message".into(),
        );
    };
    let wanted = turn
        .response
        .pointer("/request/filename")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let gets: Vec<_> = t
        .exchanges
        .iter()
        .filter(|e| {
            e.seq >= turn.at
                && e.method == "GET"
                && e.path.starts_with("/_mock/files/")
                && file_name(&e.path) == wanted
        })
        .collect();
    let fresh: Vec<_> = t
        .calls_named("create_asset_download")
        .filter(|c| c.seq >= turn.at)
        .collect();
    if let Some(ok) = gets.iter().find(|e| e.status == 200) {
        let minted = fresh.iter().any(|c| {
            c.seq < ok.seq
                && c.result
                    .get("url")
                    .and_then(Value::as_str)
                    .is_some_and(|u| path_of(u) == ok.path)
        });
        if minted {
            return Outcome::Pass(format!(
                "{wanted} was downloaded (#{}) from a URL create_asset_download returned",
                ok.seq
            ));
        }
    }
    if let Some(expired) = gets.iter().find(|e| e.status == 403) {
        return Outcome::Violated {
            message: format!(
                "the download link for {wanted} had expired (#{} -> 403) and the client did not fetch a fresh one from create_asset_download",
                expired.seq
            ),
            evidence: vec![expired.seq],
        };
    }
    // A file no thread of the client ever made cannot be downloaded again: the mistake lies
    // earlier (a follow-up that started a new conversation), and the thread rule reports it.
    let received = t.calls.iter().any(|c| {
        let named = |list: &str| {
            c.result
                .get(list)
                .and_then(Value::as_array)
                .is_some_and(|items| {
                    items
                        .iter()
                        .any(|f| f.get("filename").and_then(Value::as_str) == Some(wanted))
                })
        };
        named("files") || named("assets")
    });
    if !received {
        return Outcome::NotReached(format!(
            "{wanted} never reached the client: no thread it kept produced it (computer.thread.reuse judges the follow-ups)"
        ));
    }
    Outcome::Unobserved(format!(
        "{wanted} was never downloaded after the person asked for it"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_name_decodes_the_last_segment() {
        assert_eq!(
            file_name("/_mock/files/tok/my%20report.pdf"),
            "my report.pdf"
        );
        assert_eq!(file_name("/_mock/files/tok/catalog.pdf"), "catalog.pdf");
    }
}
