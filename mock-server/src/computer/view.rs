//! The thread as the tools show it: a pure projection of the state machine's entries onto the
//! typed results of the model (checkpoints, transcripts, steps, assets, what a request waits on).
//!
//! URLs are built here from one [`Links`], which also mints download links, so every URL the
//! mock hands out points back at the mock.

use serde_json::{Map, Value, json};

use super::model::listings::{
    AssetItem, EntryState, FormLink, Interaction, OpenPrompt, PromptRequest, Question, Step,
    StepSource, Transcript, WebState,
};
use super::model::results::{
    Awaiting, AwaitingKind, Checkpoint, Event, File, Interactive, Prompt, SignIn, Source,
    TaskStatus,
};
use super::model::tools::ToolName;
use super::thread::{Asset, Entry, InputKind, Phase, Request, RequestKind, Role, Thread};
use crate::clock::iso;
use crate::fixtures::{QuestionSpec, SignInSpec, SourceSpec};

/// Builds the URLs results carry.
pub(crate) struct Links<'a> {
    /// The mock's base URL.
    pub(crate) base_url: &'a str,
    /// Mints a fresh download URL for an asset.
    pub(crate) download_url: &'a dyn Fn(&Asset) -> String,
}

impl Links<'_> {
    /// The sign-in page of a request.
    pub(crate) fn auth_url(&self, thread: &Thread, request: &Request) -> String {
        format!(
            "{}/_mock/connect/{}/{}",
            self.base_url, thread.id, request.id
        )
    }

    /// The billing page of an account.
    pub(crate) fn billing_url(&self, account: &str) -> String {
        format!("{}/_mock/billing/{account}", self.base_url)
    }

    /// The page of a form only Perplexity shows.
    pub(crate) fn form_url(&self, thread: &Thread, request_id: &str) -> String {
        format!("{}/_mock/forms/{}/{request_id}", self.base_url, thread.id)
    }

    /// The public address of a website Computer published: served by the mock, without a
    /// token or an expiry, as a published site is public.
    pub(crate) fn site_url(&self, asset: &Asset) -> String {
        format!("{}/_mock/sites/{}/", self.base_url, asset.asset_id)
    }

    /// The page of an optional sign-in.
    pub(crate) fn optional_auth_url(&self, thread: &Thread, connector: &str) -> String {
        format!(
            "{}/_mock/connect/{}/optional-{connector}",
            self.base_url, thread.id
        )
    }
}

/// The result a call reports for `entry` once it reached a checkpoint.
pub(crate) fn checkpoint(thread: &Thread, entry: &Entry, links: &Links<'_>) -> Checkpoint {
    let mut result = Checkpoint::bare(
        thread.id.clone(),
        event(entry),
        entry.outcome_text.clone(),
        entry.task_status(),
    );
    let failed = matches!(entry.phase, Phase::Failed);
    if failed {
        result.error_code = Some("computer_error");
    }
    result.sources = sources(&entry.sources);
    result.files = entry
        .files
        .iter()
        .filter_map(|id| thread.assets.iter().find(|a| &a.asset_id == id))
        .map(|asset| {
            let (media_type, size_bytes) = file_facts(asset);
            File {
                filename: asset.spec.filename.clone(),
                media_type,
                size_bytes,
                url: (links.download_url)(asset),
            }
        })
        .collect();
    // Scripts write `[name](attached)`; the result links each file to its download URL,
    // as the document's `[report.pdf](https://...)` does.
    result.text = with_file_links(&result.text, thread, entry, links);
    if let Phase::Sleeping { wake_at, .. } = &entry.phase {
        result.wake_at = Some(iso(*wake_at));
    }
    result.interactive = interactive(thread, entry, links);
    let prompts: Vec<Interactive> = entry
        .open_requests()
        .filter(|r| !matches!(r.kind, RequestKind::SignIn(_)))
        .map(|r| prompt(thread, r))
        .collect();
    if prompts.len() > 1 {
        result.pending_interactions = prompts;
    }
    result.optional_auth_requests = entry
        .optional_auth
        .iter()
        .map(|s| {
            Interactive::AuthRequired(sign_in(
                thread,
                s,
                links.optional_auth_url(thread, &s.connector),
                false,
                None,
            ))
        })
        .collect();
    result.is_error = failed;
    result.settings = entry.settings.clone();
    result.awaiting = awaiting(thread, entry, links);
    result
}

/// The `timeout` result: the call stopped waiting, Computer did not.
pub(crate) fn timeout(thread: &Thread) -> Checkpoint {
    Checkpoint::bare(
        thread.id.clone(),
        Event::Timeout,
        "Computer is still working on this task and keeps going after this call returns. Call \
         read_thread with this thread_id to check its status, read new messages and find \
         questions waiting for an answer. Don't call call_perplexity_computer again just to \
         check status: that sends a new message to the task.",
        TaskStatus::Working,
    )
}

/// The result of a call whose queued message was cancelled before Computer started on it.
pub(crate) fn dropped_message(thread: &Thread) -> Checkpoint {
    Checkpoint::bare(
        thread.id.clone(),
        Event::Cancelled,
        "The task was cancelled before Computer started on this message, so it was not sent. \
         Send it again to continue the thread.",
        TaskStatus::Cancelled,
    )
}

/// The `event` a result reports for `entry` where it stands.
pub(crate) fn event(entry: &Entry) -> Event {
    match &entry.phase {
        Phase::Running { .. } => Event::Timeout,
        Phase::Sleeping { .. } => Event::Sleep,
        Phase::Waiting { .. } => Event::Waiting,
        Phase::Completed { .. } => Event::Complete,
        Phase::Failed => Event::Error,
        Phase::Cancelled => Event::Cancelled,
        Phase::Input { kind, .. } => match kind {
            InputKind::Prompts => match entry.open_requests().next().map(|r| &r.kind) {
                Some(RequestKind::Confirm { .. }) => Event::ConfirmAction,
                _ => Event::AskUserQuestion,
            },
            InputKind::SignIns => Event::AuthRequired,
            InputKind::Interaction { .. } => Event::InteractionRequired,
            InputKind::TwoFactor { .. } => Event::TwoFactorRequired,
            InputKind::Credits => Event::InsufficientCredits,
        },
    }
}

fn interactive(thread: &Thread, entry: &Entry, links: &Links<'_>) -> Option<Interactive> {
    let Phase::Input { kind, .. } = &entry.phase else {
        return None;
    };
    Some(match kind {
        InputKind::Prompts => prompt(thread, entry.open_requests().next()?),
        InputKind::SignIns => {
            let request = entry.open_requests().next()?;
            let RequestKind::SignIn(spec) = &request.kind else {
                return None;
            };
            Interactive::AuthRequired(sign_in(
                thread,
                spec,
                links.auth_url(thread, request),
                true,
                Some(ToolName::NotifyConnected),
            ))
        }
        InputKind::Interaction { request_id, title } => Interactive::InteractionRequired {
            thread_id: thread.id.clone(),
            url: links.form_url(thread, request_id),
            title: title.clone(),
        },
        InputKind::TwoFactor { .. } => Interactive::TwoFactorRequired {
            thread_id: thread.id.clone(),
        },
        // The document's account-event object, exactly: the thread is in the result itself.
        InputKind::Credits => Interactive::InsufficientCredits {
            reason: "insufficient_credits",
            billing_url: Some(links.billing_url(&thread.owner)),
            quota_reset_date: None,
        },
    })
}

fn prompt_ref(thread: &Thread, request: &Request) -> Prompt {
    let tool = match request.kind {
        RequestKind::Confirm { .. } => ToolName::ConfirmActionApprove,
        _ => ToolName::AnswerQuestion,
    };
    Prompt {
        thread_id: thread.id.clone(),
        respond_with_tool: tool,
        followup_uuid: request.id.clone(),
    }
}

fn prompt(thread: &Thread, request: &Request) -> Interactive {
    let prompt = prompt_ref(thread, request);
    match request.kind {
        RequestKind::Confirm { .. } => Interactive::ConfirmAction(prompt),
        _ => Interactive::AskUserQuestion(prompt),
    }
}

fn sign_in(
    thread: &Thread,
    spec: &SignInSpec,
    auth_url: String,
    requires_user_response: bool,
    respond_with_tool: Option<ToolName>,
) -> SignIn {
    SignIn {
        thread_id: thread.id.clone(),
        auth_url,
        connector: spec.connector.clone(),
        display_name: spec.display_name.clone(),
        title: spec
            .title
            .clone()
            .unwrap_or_else(|| format!("Connect {}", spec.display_name)),
        description: spec.description.clone().unwrap_or_else(|| {
            format!(
                "Sign in to {} so Computer can use it for this task.",
                spec.display_name
            )
        }),
        requires_user_response,
        respond_with_tool,
    }
}

fn sources(sources: &[SourceSpec]) -> Vec<Source> {
    sources
        .iter()
        .map(|s| Source {
            title: s.title.clone(),
            url: s.url.clone(),
            domain: domain(&s.url),
            snippet: s.snippet.clone(),
        })
        .collect()
}

fn domain(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    host.trim_start_matches("www.").to_owned()
}

/// What `entry` waits on that a client can be asked for: its open questions, confirmations and
/// sign-ins in order, then the page a form or a top-up is finished on.
pub(crate) fn awaiting(thread: &Thread, entry: &Entry, links: &Links<'_>) -> Vec<Awaiting> {
    let Phase::Input { kind, .. } = &entry.phase else {
        return Vec::new();
    };
    let mut out: Vec<Awaiting> = entry
        .open_requests()
        .map(|request| Awaiting {
            request_id: request.id.clone(),
            kind: match &request.kind {
                RequestKind::Question(questions) => AwaitingKind::Questions {
                    schema: question_schema(questions),
                    message: question_message(questions),
                    fits_a_form: !questions
                        .iter()
                        .any(|q| q.allow_multiple || q.allow_attachments),
                },
                RequestKind::Confirm { action, .. } => AwaitingKind::Confirm {
                    action: action.clone(),
                },
                RequestKind::SignIn(spec) => AwaitingKind::SignIn {
                    display_name: spec.display_name.clone(),
                    url: links.auth_url(thread, request),
                },
            },
        })
        .collect();
    match kind {
        InputKind::Interaction { request_id, title } => out.push(Awaiting {
            request_id: request_id.clone(),
            kind: AwaitingKind::Form {
                title: title.clone(),
                url: links.form_url(thread, request_id),
            },
        }),
        // "Credentials, payments, file inputs, richer forms": a step only Perplexity can
        // complete is a URL request, so a task always lists what it waits on.
        InputKind::TwoFactor { request_id } => out.push(Awaiting {
            request_id: request_id.clone(),
            kind: AwaitingKind::TwoFactor {
                url: links.form_url(thread, request_id),
            },
        }),
        InputKind::Credits => out.push(Awaiting {
            request_id: format!("credits-{}", entry.id),
            kind: AwaitingKind::Credits {
                url: links.billing_url(&thread.owner),
            },
        }),
        _ => {}
    }
    out
}

/// The questions of one form, one per line, as an elicitation `message`.
fn question_message(questions: &[QuestionSpec]) -> String {
    questions
        .iter()
        .map(|q| q.question.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A flat elicitation form for a set of questions.
fn question_schema(questions: &[QuestionSpec]) -> Value {
    let mut properties = Map::new();
    for q in questions {
        let property = match (q.options.is_empty(), q.allow_multiple) {
            (false, true) => json!({"type": "array", "title": q.question,
                                    "items": {"type": "string", "enum": q.options}}),
            (false, false) => json!({"type": "string", "title": q.question, "enum": q.options}),
            (true, _) => json!({"type": "string", "title": q.question}),
        };
        properties.insert(q.id.clone(), property);
    }
    let required: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// Media type and size of an asset's download.
pub(crate) fn file_facts(asset: &Asset) -> (Option<String>, Option<u64>) {
    let media_type = media_type(asset);
    let size = if asset.spec.size_unknown {
        None
    } else {
        u64::try_from(file_bytes(asset).len()).ok()
    };
    (media_type, size)
}

/// The asset's content type: the scenario's, else guessed from the file name.
fn media_type(asset: &Asset) -> Option<String> {
    asset
        .spec
        .media_type
        .clone()
        .or_else(|| guess_media_type(&asset.spec.filename).map(str::to_owned))
}

/// The bytes served for an asset: a real file of its type (see `files`).
pub(crate) fn file_bytes(asset: &Asset) -> Vec<u8> {
    super::files::bytes(asset, media_type(asset).as_deref())
}

/// Guesses a content type from a file name.
fn guess_media_type(filename: &str) -> Option<&'static str> {
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

/// An asset as `list_thread_assets` lists it; a published website's `published_url` is its
/// address on the mock.
pub(crate) fn asset_item(asset: &Asset, links: &Links<'_>) -> AssetItem {
    let (mime_type, size_bytes) = file_facts(asset);
    AssetItem {
        asset_id: asset.asset_id.clone(),
        entry_id: asset.entry_id.clone(),
        filename: asset.spec.filename.clone(),
        mime_type,
        size_bytes,
        asset_type: if asset.spec.published_url.is_some() {
            "app"
        } else {
            "file"
        },
        created_at: asset.created_at.timestamp(),
        is_primary_asset: asset.spec.primary,
        root_asset_id: asset.root_asset_id.clone(),
        parent_asset_id: asset.parent_asset_id.clone(),
        published_url: asset
            .spec
            .published_url
            .is_some()
            .then(|| links.site_url(asset)),
    }
}

/// Most entries `read_thread` shows before it truncates.
const TRANSCRIPT_ENTRIES: usize = 10;
/// Most characters of transcript `read_thread` returns before it truncates.
const TRANSCRIPT_CHARS: usize = 12_000;

/// The `read_thread` result; with `web_state_error` the state could not be loaded.
pub(crate) fn transcript(thread: &Thread, links: &Links<'_>, web_state_error: bool) -> Transcript {
    let (text, truncated) = transcript_text(thread, links);
    Transcript {
        thread_id: thread.id.clone(),
        event: Event::Transcript,
        status: thread.status(),
        text,
        truncated,
        web_state: (!web_state_error).then(|| web_state(thread, links)),
        web_state_error: web_state_error.then(|| {
            "Couldn't load the thread state from Perplexity. Retry read_thread.".to_owned()
        }),
        settings: thread.settings.clone(),
    }
}

/// `text` with each `[name](attached)` of the entry's files linked to its download URL, and
/// each published website's scripted address replaced by its address on the mock.
fn with_file_links(text: &str, thread: &Thread, entry: &Entry, links: &Links<'_>) -> String {
    let mut text = text.to_owned();
    for asset in entry
        .files
        .iter()
        .filter_map(|id| thread.assets.iter().find(|a| &a.asset_id == id))
    {
        let placeholder = format!("[{}](attached)", asset.spec.filename);
        if text.contains(&placeholder) {
            let link = format!("[{}]({})", asset.spec.filename, (links.download_url)(asset));
            text = text.replace(&placeholder, &link);
        }
        if let Some(scripted) = asset.spec.published_url.as_deref() {
            text = text.replace(scripted, &links.site_url(asset));
        }
    }
    text
}

fn transcript_text(thread: &Thread, links: &Links<'_>) -> (String, bool) {
    let mut blocks: Vec<String> = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    for (shown, entry) in thread.entries.iter().rev().enumerate() {
        let block = entry
            .transcript
            .iter()
            .map(|(role, text)| match role {
                Role::User => format!("**User:** {text}"),
                // The transcript is the messages as the user saw them, file links included.
                Role::Computer => format!(
                    "**Computer:** {}",
                    with_file_links(text, thread, entry, links)
                ),
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

fn web_state(thread: &Thread, links: &Links<'_>) -> WebState {
    let latest = thread.entries.len().saturating_sub(1);
    let first = thread.entries.len().saturating_sub(TRANSCRIPT_ENTRIES);
    let entries = thread.entries[first..]
        .iter()
        .enumerate()
        .map(|(offset, entry)| entry_state(thread, entry, first + offset == latest, links))
        .collect();
    let wake_at = match thread.latest().map(|e| &e.phase) {
        Some(Phase::Sleeping { wake_at, .. }) => Some(iso(*wake_at)),
        _ => None,
    };
    WebState {
        thread_status: thread.status(),
        wake_at,
        task_status: thread.latest().map(Entry::task_status),
        entries,
    }
}

fn entry_state(thread: &Thread, entry: &Entry, latest: bool, links: &Links<'_>) -> EntryState {
    let mut interactions: Vec<Interaction> = entry
        .open_requests()
        .filter_map(|r| open_prompt(thread, r))
        .collect();
    if let Some(status) = match entry.phase {
        Phase::Completed { .. } => Some("WORKFLOW_COMPLETED"),
        Phase::Failed => Some("WORKFLOW_ERROR"),
        Phase::Cancelled => Some("WORKFLOW_CANCELED"),
        _ => None,
    } {
        interactions.push(Interaction::Workflow { status });
    }
    let auth_requests = entry
        .open_requests()
        .filter_map(|r| match &r.kind {
            RequestKind::SignIn(spec) => Some(Interactive::AuthRequired(sign_in(
                thread,
                spec,
                links.auth_url(thread, r),
                true,
                None,
            ))),
            _ => None,
        })
        .collect();
    let form_links = match &entry.phase {
        Phase::Input {
            kind: InputKind::Interaction { request_id, title },
            ..
        } => vec![FormLink {
            url: links.form_url(thread, request_id),
            title: title.clone(),
        }],
        Phase::Input {
            kind: InputKind::Credits,
            ..
        } => vec![FormLink {
            url: links.billing_url(&thread.owner),
            title: "Add credits".to_owned(),
        }],
        _ => Vec::new(),
    };
    EntryState {
        entry_id: entry.id.clone(),
        created_at: iso(entry.created_at),
        status: entry.task_status(),
        interactions,
        auth_requests,
        form_links,
        steps: latest.then(|| steps(entry)),
    }
}

/// An entry's last 20 steps, oldest first, with up to 5 sources each.
pub(crate) fn steps(entry: &Entry) -> Vec<Step> {
    let skip = entry.steps.len().saturating_sub(20);
    entry.steps[skip..]
        .iter()
        .map(|step| Step {
            id: step.id.clone(),
            title: step.title.clone(),
            kind: step.kind.clone(),
            status: step.status,
            started_at: iso(step.started_at),
            completed_at: step.completed_at.map(iso),
            sources: step
                .sources
                .iter()
                .take(5)
                .map(|s| StepSource {
                    url: s.url.clone(),
                    title: s.title.clone(),
                })
                .collect(),
        })
        .collect()
}

fn open_prompt(thread: &Thread, request: &Request) -> Option<Interaction> {
    let request_form = match &request.kind {
        RequestKind::Question(questions) => PromptRequest::Questions {
            answer_submission_uuid: request.id.clone(),
            questions: questions
                .iter()
                .map(|q| Question {
                    id: q.id.clone(),
                    question: q.question.clone(),
                    options: q.options.clone(),
                    allow_multiple: q.allow_multiple,
                    allow_attachments: q.allow_attachments,
                })
                .collect(),
        },
        RequestKind::Confirm { action, .. } => PromptRequest::Confirm {
            answer_submission_uuid: request.id.clone(),
            action: action.clone(),
        },
        RequestKind::SignIn(_) => return None,
    };
    let open = OpenPrompt {
        prompt: prompt_ref(thread, request),
        status: "WAITING_FOR_USER",
        request: request_form,
    };
    Some(match request.kind {
        RequestKind::Confirm { .. } => Interaction::ConfirmAction(open),
        _ => Interaction::AskUserQuestion(open),
    })
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
