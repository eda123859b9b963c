//! Tool results exactly as "Response Format" documents them.
//!
//! A task tool answers one JSON object: in the first text content block, again as
//! `structuredContent` (except the out-of-credits result sent before a message), with `isError`
//! on `error` and `access_denied`, and each file as a `resource_link` block for protocol
//! 2025-06-18 and later. Optional fields appear exactly when the document says.

use serde_json::{Map, Value, json};

use super::model::version::ProtocolVersion;
use super::thread::{
    Asset, Entry, InputKind, Phase, Request, RequestKind, Role, TaskStatus, Thread,
};
use crate::clock::iso;
use crate::scenario::{SignInSpec, SourceSpec};

/// What a tool answers, before it is wrapped as an MCP `CallToolResult`.
#[derive(Debug, Clone)]
pub(crate) struct ToolOutput {
    /// The result object.
    pub(crate) body: Value,
    /// Whether the object is also sent as `structuredContent`.
    pub(crate) structured: bool,
    /// The MCP `isError` flag.
    pub(crate) is_error: bool,
    /// Files to offer as `resource_link` blocks.
    pub(crate) links: Vec<FileLink>,
    /// The result's `_meta`, for facts the documented fields have no room for.
    pub(crate) meta: Option<Value>,
}

/// A file offered as a `resource_link` content block.
#[derive(Debug, Clone)]
pub(crate) struct FileLink {
    pub(crate) url: String,
    pub(crate) name: String,
    pub(crate) mime_type: Option<String>,
    pub(crate) size: Option<u64>,
}

impl ToolOutput {
    /// A successful result with `structuredContent`.
    pub(crate) fn ok(body: Value) -> Self {
        Self {
            body,
            structured: true,
            is_error: false,
            links: Vec::new(),
            meta: None,
        }
    }

    /// An error result (`isError: true`) with `structuredContent`.
    pub(crate) fn error(body: Value) -> Self {
        Self {
            is_error: true,
            ..Self::ok(body)
        }
    }

    /// A tool error from the MCP server itself: no `error_code`, no `task_status`.
    pub(crate) fn server_error(thread_id: Option<&str>, text: impl Into<String>) -> Self {
        let mut body = Map::new();
        if let Some(id) = thread_id {
            body.insert("thread_id".into(), id.into());
        }
        body.insert("event".into(), "error".into());
        body.insert("text".into(), text.into().into());
        Self::error(Value::Object(body))
    }

    /// The MCP `CallToolResult` for a client on `protocol_version`.
    pub(crate) fn to_call_result(&self, protocol_version: ProtocolVersion) -> Value {
        let text = serde_json::to_string(&self.body).unwrap_or_default();
        let mut content = vec![json!({"type": "text", "text": text})];
        // `resource_link` exists from 2025-06-18 on; older clients would reject the block.
        if protocol_version.has_resource_links() {
            content.extend(self.links.iter().map(|link| {
                let mut block =
                    json!({"type": "resource_link", "uri": link.url, "name": link.name});
                if let Some(mime) = &link.mime_type {
                    block["mimeType"] = mime.clone().into();
                }
                if let Some(size) = link.size {
                    block["size"] = size.into();
                }
                block
            }));
        }
        let mut result = json!({"content": content, "isError": self.is_error});
        if self.structured {
            result["structuredContent"] = self.body.clone();
        }
        if let Some(meta) = &self.meta {
            result["_meta"] = meta.clone();
        }
        result
    }
}

/// Everything rendering needs besides the thread.
pub(crate) struct RenderContext<'a> {
    pub(crate) base_url: &'a str,
    /// Mints a fresh download URL for an asset.
    pub(crate) download_url: &'a dyn Fn(&Asset) -> String,
}

impl RenderContext<'_> {
    pub(crate) fn auth_url(&self, thread: &Thread, request: &Request) -> String {
        format!(
            "{}/_mock/connect/{}/{}",
            self.base_url, thread.id, request.id
        )
    }

    pub(crate) fn billing_url(&self, account: &str) -> String {
        format!("{}/_mock/billing/{account}", self.base_url)
    }

    pub(crate) fn form_url(&self, thread: &Thread, request_id: &str) -> String {
        format!("{}/_mock/forms/{}/{request_id}", self.base_url, thread.id)
    }

    pub(crate) fn optional_auth_url(&self, thread: &Thread, connector: &str) -> String {
        format!(
            "{}/_mock/connect/{}/optional-{connector}",
            self.base_url, thread.id
        )
    }
}

/// The result a call reports for `entry` once it reached a checkpoint.
pub(crate) fn checkpoint_result(
    thread: &Thread,
    entry: &Entry,
    ctx: &RenderContext<'_>,
) -> ToolOutput {
    let status = entry.task_status();
    let mut body = Map::new();
    body.insert("thread_id".into(), thread.id.clone().into());
    let event = event_name(entry);
    body.insert("event".into(), event.into());
    body.insert("text".into(), entry.outcome_text.clone().into());
    body.insert("task_status".into(), status.as_str().into());
    if matches!(entry.phase, Phase::Failed) {
        body.insert("error_code".into(), "computer_error".into());
    }
    if !entry.sources.is_empty() {
        body.insert("sources".into(), sources_json(&entry.sources));
    }
    let assets: Vec<&Asset> = entry
        .files
        .iter()
        .filter_map(|id| thread.assets.iter().find(|a| &a.asset_id == id))
        .collect();
    let mut links = Vec::new();
    if !assets.is_empty() {
        let files: Vec<Value> = assets
            .iter()
            .map(|asset| {
                let url = (ctx.download_url)(asset);
                let (media_type, size) = file_facts(asset);
                links.push(FileLink {
                    url: url.clone(),
                    name: asset.spec.filename.clone(),
                    mime_type: media_type.clone(),
                    size,
                });
                json!({
                    "filename": asset.spec.filename,
                    "media_type": media_type,
                    "size_bytes": size,
                    "url": url,
                })
            })
            .collect();
        // Scripts write `[name](attached)`; the result links each file to its download URL,
        // as the document's `[report.pdf](https://...)` does.
        let mut text = entry.outcome_text.clone();
        for link in &links {
            text = text.replace(
                &format!("[{}](attached)", link.name),
                &format!("[{}]({})", link.name, link.url),
            );
        }
        body.insert("text".into(), text.into());
        body.insert("files".into(), files.into());
    }
    if let Phase::Sleeping { wake_at, .. } = &entry.phase {
        body.insert("wake_at".into(), iso(*wake_at).into());
    }
    if let Some(interactive) = interactive(thread, entry, ctx) {
        body.insert("interactive".into(), interactive);
    }
    let prompts: Vec<Value> = entry
        .open_requests()
        .filter(|r| !matches!(r.kind, RequestKind::SignIn(_)))
        .map(|r| prompt_interactive(thread, r))
        .collect();
    if prompts.len() > 1 {
        body.insert("pending_interactions".into(), prompts.into());
    }
    if !entry.optional_auth.is_empty() {
        let optional: Vec<Value> = entry
            .optional_auth
            .iter()
            .map(|s| {
                let mut item = sign_in_json(thread, s, ctx.optional_auth_url(thread, &s.connector));
                item["requires_user_response"] = false.into();
                item
            })
            .collect();
        body.insert("optional_auth_requests".into(), optional.into());
    }
    let mut output = ToolOutput::ok(Value::Object(body));
    output.is_error = matches!(entry.phase, Phase::Failed);
    output.links = links;
    output.meta = settings_meta(entry.settings.as_ref());
    output
}

/// The `timeout` result: the call stopped waiting, Computer did not.
pub(crate) fn timeout_result(thread: &Thread) -> ToolOutput {
    ToolOutput::ok(json!({
        "thread_id": thread.id,
        "event": "timeout",
        "text": "Computer is still working on this task and keeps going after this call returns. \
                 Call read_thread with this thread_id to check its status, read new messages and \
                 find questions waiting for an answer. Don't call call_perplexity_computer again \
                 just to check status: that sends a new message to the task.",
        "task_status": TaskStatus::Working.as_str(),
    }))
}

/// The result of a call whose queued message was cancelled before Computer started on it.
pub(crate) fn dropped_message_result(thread: &Thread) -> ToolOutput {
    ToolOutput::ok(json!({
        "thread_id": thread.id,
        "event": "cancelled",
        "text": "The task was cancelled before Computer started on this message, so it was not \
                 sent. Send it again to continue the thread.",
        "task_status": TaskStatus::Cancelled.as_str(),
    }))
}

fn event_name(entry: &Entry) -> &'static str {
    match &entry.phase {
        Phase::Running { .. } => "timeout",
        Phase::Sleeping { .. } => "sleep",
        Phase::Waiting { .. } => "waiting",
        Phase::Completed { .. } => "complete",
        Phase::Failed => "error",
        Phase::Cancelled => "cancelled",
        Phase::Input { kind, .. } => match kind {
            InputKind::Prompts => match entry.open_requests().next().map(|r| &r.kind) {
                Some(RequestKind::Confirm { .. }) => "confirm_action",
                _ => "ask_user_question",
            },
            InputKind::SignIns => "auth_required",
            InputKind::Interaction { .. } => "interaction_required",
            InputKind::TwoFactor => "two_factor_required",
            InputKind::Credits => "insufficient_credits",
        },
    }
}

fn interactive(thread: &Thread, entry: &Entry, ctx: &RenderContext<'_>) -> Option<Value> {
    let Phase::Input { kind, .. } = &entry.phase else {
        return None;
    };
    Some(match kind {
        InputKind::Prompts => prompt_interactive(thread, entry.open_requests().next()?),
        InputKind::SignIns => {
            let request = entry.open_requests().next()?;
            let RequestKind::SignIn(spec) = &request.kind else {
                return None;
            };
            let mut item = sign_in_json(thread, spec, ctx.auth_url(thread, request));
            item["requires_user_response"] = true.into();
            item["respond_with_tool"] = "notify_connected".into();
            item
        }
        InputKind::Interaction { request_id, title } => json!({
            "type": "interaction_required",
            "thread_id": thread.id,
            "url": ctx.form_url(thread, request_id),
            "title": title,
        }),
        InputKind::TwoFactor => json!({
            "type": "two_factor_required",
            "thread_id": thread.id,
        }),
        // The document's account-event object, exactly: the thread is in the result itself.
        InputKind::Credits => json!({
            "type": "insufficient_credits",
            "reason": "insufficient_credits",
            "billing_url": ctx.billing_url(&thread.owner),
        }),
    })
}

fn prompt_interactive(thread: &Thread, request: &Request) -> Value {
    let (kind, tool) = match request.kind {
        RequestKind::Confirm { .. } => ("confirm_action", "confirm_action_approve"),
        _ => ("ask_user_question", "answer_question"),
    };
    json!({
        "type": kind,
        "thread_id": thread.id,
        "respond_with_tool": tool,
        "followup_uuid": request.id,
    })
}

fn sign_in_json(thread: &Thread, spec: &SignInSpec, auth_url: String) -> Value {
    json!({
        "type": "auth_required",
        "thread_id": thread.id,
        "auth_url": auth_url,
        "connector": spec.connector,
        "display_name": spec.display_name,
        "title": spec.title.clone().unwrap_or_else(|| format!("Connect {}", spec.display_name)),
        "description": spec.description.clone().unwrap_or_else(|| {
            format!("Sign in to {} so Computer can use it for this task.", spec.display_name)
        }),
    })
}

fn sources_json(sources: &[SourceSpec]) -> Value {
    sources
        .iter()
        .map(|s| {
            json!({
                "title": s.title,
                "url": s.url,
                "domain": domain(&s.url),
                "snippet": s.snippet,
            })
        })
        .collect()
}

fn domain(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    host.trim_start_matches("www.").to_owned()
}

/// Media type and size of an asset's download.
pub(crate) fn file_facts(asset: &Asset) -> (Option<String>, Option<u64>) {
    let media_type = asset
        .spec
        .media_type
        .clone()
        .or_else(|| guess_media_type(&asset.spec.filename).map(str::to_owned));
    let size = u64::try_from(file_bytes(asset).len()).ok();
    (media_type, size)
}

/// The bytes served for an asset.
pub(crate) fn file_bytes(asset: &Asset) -> Vec<u8> {
    match &asset.spec.content {
        Some(content) => content.clone().into_bytes(),
        None => format!(
            "Mock file {} generated by Perplexity Computer (mock).\n",
            asset.spec.filename
        )
        .into_bytes(),
    }
}

/// Guesses a content type from a file name.
pub(crate) fn guess_media_type(filename: &str) -> Option<&'static str> {
    let ext = filename.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "pdf" => "application/pdf",
        "md" => "text/markdown",
        "txt" => "text/plain",
        "csv" => "text/csv",
        "html" | "htm" => "text/html",
        "json" => "application/json",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "zip" => "application/zip",
        "mp4" => "video/mp4",
        _ => return None,
    })
}

/// Most entries `read_thread` shows before it truncates.
const TRANSCRIPT_ENTRIES: usize = 10;
/// Most characters of transcript `read_thread` returns before it truncates.
const TRANSCRIPT_CHARS: usize = 12_000;

/// The `read_thread` result.
pub(crate) fn read_thread_result(
    thread: &Thread,
    ctx: &RenderContext<'_>,
    web_state_error: bool,
) -> ToolOutput {
    let (text, truncated) = transcript(thread);
    let mut body = Map::new();
    body.insert("thread_id".into(), thread.id.clone().into());
    body.insert("event".into(), "transcript".into());
    body.insert("status".into(), thread.status().into());
    body.insert("text".into(), text.into());
    if truncated {
        body.insert("truncated".into(), true.into());
    }
    if web_state_error {
        body.insert("web_state".into(), Value::Null);
        body.insert(
            "web_state_error".into(),
            "Couldn't load the thread state from Perplexity. Retry read_thread.".into(),
        );
    } else {
        body.insert("web_state".into(), web_state(thread, ctx));
    }
    let mut output = ToolOutput::ok(Value::Object(body));
    output.meta = settings_meta(thread.settings.as_ref());
    output
}

/// Key of the mode, model and effort in a result's `_meta`. The documented fields of
/// `read_thread` and of task results are exact sets, so the settings travel beside them, under
/// a vendor key as the service's own `_meta["ai.perplexity/threadId"]` does.
pub(crate) const SETTINGS_META: &str = "ai.perplexity/settings";

/// `{"ai.perplexity/settings": {...}}`, or nothing for a request without settings.
fn settings_meta(settings: Option<&crate::world::TaskSettings>) -> Option<Value> {
    let settings = serde_json::to_value(settings?).ok()?;
    Some(json!({ SETTINGS_META: settings }))
}

fn transcript(thread: &Thread) -> (String, bool) {
    let mut blocks: Vec<String> = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    for (shown, entry) in thread.entries.iter().rev().enumerate() {
        let block = entry
            .transcript
            .iter()
            .map(|(role, text)| match role {
                Role::User => format!("**User:** {text}"),
                Role::Computer => format!("**Computer:** {text}"),
            })
            .collect::<Vec<_>>()
            .join("\n\n");
        if shown >= TRANSCRIPT_ENTRIES || (used + block.len() > TRANSCRIPT_CHARS && shown > 0) {
            truncated = true;
            break;
        }
        used += block.len();
        blocks.push(block);
    }
    if let Some(project) = &thread.project
        && !truncated
    {
        // The conversation began inside the Project, so its instructions come first.
        let instructions = project
            .instructions
            .as_deref()
            .map(|i| format!("\n\n**Project instructions:** {i}"))
            .unwrap_or_default();
        blocks.push(format!(
            "**Project:** {} ({} session){instructions}",
            project.name, project.visibility
        ));
    }
    blocks.reverse();
    (blocks.join("\n\n---\n\n"), truncated)
}

fn web_state(thread: &Thread, ctx: &RenderContext<'_>) -> Value {
    let latest = thread.entries.len().saturating_sub(1);
    let first = thread.entries.len().saturating_sub(TRANSCRIPT_ENTRIES);
    let entries: Vec<Value> = thread.entries[first..]
        .iter()
        .enumerate()
        .map(|(offset, entry)| entry_state(thread, entry, first + offset == latest, ctx))
        .collect();
    let wake_at = match thread.latest().map(|e| &e.phase) {
        Some(Phase::Sleeping { wake_at, .. }) => Value::from(iso(*wake_at)),
        _ => Value::Null,
    };
    json!({
        "thread_status": thread.status(),
        "wake_at": wake_at,
        "task_status": thread.latest().map(|e| e.task_status().as_str()),
        "entries": entries,
    })
}

fn entry_state(thread: &Thread, entry: &Entry, latest: bool, ctx: &RenderContext<'_>) -> Value {
    let mut interactions: Vec<Value> = entry
        .open_requests()
        .filter_map(|r| interaction_json(thread, r))
        .collect();
    if let Some(marker) = match entry.phase {
        Phase::Completed { .. } => Some("WORKFLOW_COMPLETED"),
        Phase::Failed => Some("WORKFLOW_ERROR"),
        Phase::Cancelled => Some("WORKFLOW_CANCELED"),
        _ => None,
    } {
        interactions.push(json!({"type": "workflow", "status": marker}));
    }
    let auth_requests: Vec<Value> = entry
        .open_requests()
        .filter_map(|r| match &r.kind {
            RequestKind::SignIn(spec) => {
                let mut item = sign_in_json(thread, spec, ctx.auth_url(thread, r));
                item["requires_user_response"] = true.into();
                Some(item)
            }
            _ => None,
        })
        .collect();
    let form_links: Vec<Value> = match &entry.phase {
        Phase::Input {
            kind: InputKind::Interaction { request_id, title },
            ..
        } => vec![json!({"url": ctx.form_url(thread, request_id), "title": title})],
        Phase::Input {
            kind: InputKind::Credits,
            ..
        } => vec![json!({"url": ctx.billing_url(&thread.owner), "title": "Add credits"})],
        _ => Vec::new(),
    };
    let mut state = json!({
        "entry_id": entry.id,
        "created_at": iso(entry.created_at),
        "status": entry.task_status().as_str(),
        "interactions": interactions,
        "auth_requests": auth_requests,
        "form_links": form_links,
    });
    if latest {
        state["steps"] = steps_json(entry);
    }
    state
}

/// The latest entry's last 20 steps, oldest first, with up to 5 sources each.
pub(crate) fn steps_json(entry: &Entry) -> Value {
    let skip = entry.steps.len().saturating_sub(20);
    entry.steps[skip..]
        .iter()
        .map(|step| {
            let sources: Vec<Value> = step
                .sources
                .iter()
                .take(5)
                .map(|s| json!({"url": s.url, "title": s.title}))
                .collect();
            json!({
                "id": step.id,
                "title": step.title,
                "type": step.kind,
                "status": step.status,
                "started_at": iso(step.started_at),
                "completed_at": step.completed_at.map(iso),
                "sources": sources,
            })
        })
        .collect()
}

fn interaction_json(thread: &Thread, request: &Request) -> Option<Value> {
    let request_json = match &request.kind {
        RequestKind::Question(questions) => json!({
            "answer_submission_uuid": request.id,
            "questions": questions.iter().map(|q| json!({
                "id": q.id,
                "question": q.question,
                "options": q.options,
                "allow_multiple": q.allow_multiple,
                "allow_attachments": q.allow_attachments,
            })).collect::<Vec<_>>(),
        }),
        RequestKind::Confirm { action, .. } => json!({
            "answer_submission_uuid": request.id,
            "action": action,
        }),
        RequestKind::SignIn(_) => return None,
    };
    let mut item = prompt_interactive(thread, request);
    item["status"] = "WAITING_FOR_USER".into();
    item["request"] = request_json;
    Some(item)
}

/// A one-line summary of what the request waits on, for acknowledgements.
pub(crate) fn describe_open(entry: &Entry) -> String {
    let names: Vec<String> = entry
        .open_requests()
        .map(|r| match &r.kind {
            RequestKind::SignIn(s) => format!("{} sign-in", s.display_name),
            RequestKind::Question(_) => "a question".to_owned(),
            RequestKind::Confirm { .. } => "a confirmation".to_owned(),
        })
        .collect();
    if names.is_empty() {
        "input in Perplexity".to_owned()
    } else {
        names.join(", ")
    }
}

/// Whether a sign-in request belongs to `connector` (its id or display name).
pub(crate) fn sign_in_matches(request: &Request, connector: &str) -> bool {
    matches!(&request.kind, RequestKind::SignIn(s)
        if s.connector.eq_ignore_ascii_case(connector.trim())
            || s.display_name.eq_ignore_ascii_case(connector.trim()))
}
