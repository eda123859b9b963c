//! The account world in the reference client: attachments (upload envelope, presigned POST,
//! `attachment_urls`), a Project and the person's mode or model for a message, and the host's
//! own requests: list a turn's files (paging through `next_cursor`) and download a file again
//! (refreshing an expired link with `create_asset_download`).

use std::collections::BTreeMap;

use mock_server::model::arguments::{
    CallComputer, CreateAssetDownload, CreateAttachmentUpload, ListThreadAssets, ProjectsList,
    ThreadRef,
};
use mock_server::model::tools::ToolName;
use serde_json::{Map, Value, json};

use crate::error::ClientError;
use crate::rules::ids;

use super::pace::SendPaced;
use super::session::Session;

/// How one attachment went.
enum Attached {
    /// An envelope was handed out: its attachment_url (a failed POST is shown to the user).
    Url(String),
    /// create_attachment_upload refused it (a plan's limit).
    Refused,
}

/// What the client remembers between turns.
#[derive(Debug, Default)]
pub(super) struct AccountState {
    /// Download links the results handed out, by file name.
    files: BTreeMap<String, String>,
    /// The settings the thread runs with, as the client last set them.
    settings: Settings,
    /// The Project of the conversation and its visibility (sent again on follow-ups only when
    /// breaking `computer.project.new-conversation`).
    project: Option<(String, Option<String>)>,
    /// Whether models_list was read in this run (a pick is made from what it lists).
    listed_models: bool,
}

impl AccountState {
    /// Remembers the download links of a result's `files`.
    pub(super) fn remember_files(&mut self, result: &Value) {
        for f in result
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(name), Some(url)) = (
                f.get("filename").and_then(Value::as_str),
                f.get("url").and_then(Value::as_str),
            ) {
                self.files.insert(name.to_owned(), url.to_owned());
            }
        }
    }
}

/// The mode, model and effort a person picked (`call_perplexity_computer`'s settings).
#[derive(Debug, Default)]
struct Settings {
    mode: Option<String>,
    model: Option<String>,
    effort: Option<String>,
}

impl Settings {
    /// Takes the settings a turn picks (`{"mode": …}`, `{"model": …, "effort": …}`) over the
    /// ones it has.
    fn pick(&mut self, picked: &Map<String, Value>) {
        let text = |key: &str| picked.get(key).and_then(Value::as_str).map(str::to_owned);
        if let Some(mode) = text("mode") {
            self.mode = Some(mode);
        }
        if let Some(model) = text("model") {
            self.model = Some(model);
        }
        if let Some(effort) = text("effort") {
            self.effort = Some(effort);
        }
    }

    /// Puts the settings on a message's arguments.
    fn apply(&self, args: &mut CallComputer) {
        args.mode.clone_from(&self.mode);
        args.model.clone_from(&self.model);
        args.effort.clone_from(&self.effort);
    }
}

/// A multipart/form-data body: every field first, the file part last (S3's order).
fn multipart(
    fields: &serde_json::Map<String, Value>,
    filename: &str,
    mime: &str,
    file: &[u8],
) -> (String, Vec<u8>) {
    // Any boundary works that the content does not contain; the clock makes one unlikely to.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let boundary = format!("conformance-{nanos:x}");
    let mut body = Vec::new();
    for (name, value) in fields {
        let value = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\nContent-Type: {mime}\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(file);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl AccountState {
    /// Adds what the person's turn carries beyond text to the message's arguments: uploaded
    /// attachments, the Project of a new conversation, and the picked mode or model. `false`
    /// when the message cannot go (an attachment was refused, and the user told why).
    pub(super) async fn turn_arguments(
        &mut self,
        io: &mut Session,
        turn: &Value,
        args: &mut CallComputer,
    ) -> Result<bool, ClientError> {
        let continuing = args.thread_id.is_some();
        if !continuing {
            self.settings = Settings::default();
            self.project = None;
        }
        if let Some(files) = turn.get("attachments").and_then(Value::as_array) {
            let mut urls = Vec::new();
            for file in files {
                match self.attach(io, file).await? {
                    Attached::Url(url) => urls.push(url),
                    // The user was told; the message needs the file, so it is not sent.
                    Attached::Refused => return Ok(false),
                }
            }
            if !urls.is_empty() && !io.breaks(ids::COMPUTER_UPLOAD_ATTACHMENT_URL) {
                args.attachment_urls = urls;
            }
        }
        if let Some(project) = turn.get("project") {
            let name = project
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if let Some(uuid) = self.find_project(io, name).await? {
                // A follow-up that names no visibility keeps the one the conversation had.
                let kept = self.project.take().and_then(|(_, visibility)| visibility);
                let visibility = project
                    .get("visibility")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.project = Some((uuid, visibility.or(kept)));
            }
        }
        if (!continuing || io.breaks(ids::COMPUTER_PROJECT_NEW_CONVERSATION))
            && let Some((uuid, visibility)) = &self.project
        {
            args.project_uuid = Some(uuid.clone());
            args.project_visibility.clone_from(visibility);
        }
        if let Some(picked) = turn.get("settings").and_then(Value::as_object) {
            // The options come from models_list (breaking the rule: picked blind).
            if !self.listed_models && !io.breaks(ids::COMPUTER_SETTINGS_LISTED) {
                io.call(ToolName::ModelsList, &Map::new()).await?;
                self.listed_models = true;
            }
            // The breaking client merges the new pick into the old one, the classic bug that
            // sends a mode and a model together.
            if !io.breaks(ids::COMPUTER_SETTINGS_MODE_OR_MODEL) {
                self.settings = Settings::default();
            }
            self.settings.pick(picked);
            // A follow-up that names neither keeps the thread's settings, so they are only
            // passed on the turn the person picked them.
            self.settings.apply(args);
        }
        Ok(true)
    }

    /// Uploads one attached file; returns its attachment_url.
    async fn attach(&mut self, io: &mut Session, file: &Value) -> Result<Attached, ClientError> {
        let name = file
            .get("filename")
            .and_then(Value::as_str)
            .unwrap_or("file");
        let mime = file
            .get("mime_type")
            .and_then(Value::as_str)
            .unwrap_or("application/octet-stream");
        let content = file
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default();
        // The file's size: given for a file the turn does not spell out, else its content's.
        let mut size = file
            .get("size_bytes")
            .and_then(Value::as_u64)
            .unwrap_or(content.len() as u64);
        if io.breaks(ids::COMPUTER_UPLOAD_SIZE_BYTES) {
            // Breaking the rule: the size rounded up to whole KiB.
            size = (size / 1024 + 1) * 1024;
        }
        let envelope = io
            .call(
                ToolName::CreateAttachmentUpload,
                &CreateAttachmentUpload::new(name, mime, size),
            )
            .await?;
        let (Some(upload_url), Some(attachment_url), Some(fields)) = (
            envelope.get("upload_url").and_then(Value::as_str),
            envelope.get("attachment_url").and_then(Value::as_str),
            envelope.get("upload_fields").and_then(Value::as_object),
        ) else {
            // Refused (a plan's limit): the user is told why, unless breaking the rule.
            if !io.breaks(ids::COMPUTER_UPLOAD_REFUSAL_SHOWN) {
                io.show("error", &envelope).await?;
            }
            return Ok(Attached::Refused);
        };
        let mut fields = fields.clone();
        if io.breaks(ids::COMPUTER_UPLOAD_ENVELOPE) {
            fields.remove("policy");
        }
        let (content_type, body) = multipart(&fields, name, mime, content.as_bytes());
        // Unauthenticated: the presigned POST carries its own signature.
        let response = io
            .http
            .post(upload_url)
            .header("content-type", content_type)
            .body(body)
            .send_paced()
            .await
            .map_err(Session::http_error(upload_url))?;
        if !response.status().is_success() {
            let text = response.text().await.unwrap_or_default();
            io.show(
                "error",
                &json!({"text": format!("Upload of {name} failed: {text}")}),
            )
            .await?;
        }
        Ok(Attached::Url(attachment_url.to_owned()))
    }

    /// The uuid of the Project named `name`, paging projects_list until it is found or the
    /// listing ends.
    async fn find_project(
        &mut self,
        io: &mut Session,
        name: &str,
    ) -> Result<Option<String>, ClientError> {
        let mut cursor: Option<String> = None;
        loop {
            let args = ProjectsList {
                cursor: cursor.clone(),
                ..ProjectsList::default()
            };
            let page = io.call(ToolName::ProjectsList, &args).await?;
            let found = page
                .get("projects")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
                .and_then(|p| p.get("project_uuid")?.as_str());
            if let Some(uuid) = found {
                return Ok(Some(uuid.to_owned()));
            }
            match page.get("next_cursor").and_then(Value::as_str) {
                // Breaking the rule: a first page without it taken for "no such Project".
                Some(_) if io.breaks(ids::COMPUTER_PROJECTS_PAGE_ON) => return Ok(None),
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(None),
            }
        }
    }

    /// Every asset of `thread` (of one turn with `entry_id`), paging while next_cursor is not
    /// null.
    async fn list_assets(
        &mut self,
        io: &mut Session,
        thread: &str,
        entry_id: Option<&str>,
    ) -> Result<Vec<Value>, ClientError> {
        let mut assets = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut args = ListThreadAssets::new(thread);
            args.entry_id = entry_id.map(str::to_owned);
            args.cursor.clone_from(&cursor);
            let page = io.call(ToolName::ListThreadAssets, &args).await?;
            let items = page
                .get("assets")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            // The mistake the document warns about: an empty filtered page taken as the end.
            if items.is_empty() && io.breaks(ids::COMPUTER_PAGING_NEXT_CURSOR) {
                return Ok(assets);
            }
            assets.extend(items);
            match page.get("next_cursor").and_then(Value::as_str) {
                Some(next) => cursor = Some(next.to_owned()),
                None => return Ok(assets),
            }
        }
    }

    /// Carries out something the person asked the host (not Computer) to do.
    pub(super) async fn host_request(
        &mut self,
        io: &mut Session,
        request: &Value,
        thread: Option<&str>,
    ) -> Result<(), ClientError> {
        let Some(thread) = thread else {
            return io
                .show(
                    "error",
                    &json!({"text": "There is no conversation to look at yet."}),
                )
                .await;
        };
        match request.get("kind").and_then(Value::as_str) {
            Some("files") => {
                let entry = if request.get("of").and_then(Value::as_str) == Some("latest") {
                    let read = io
                        .call(ToolName::ReadThread, &ThreadRef::new(thread))
                        .await?;
                    read.pointer("/web_state/entries")
                        .and_then(Value::as_array)
                        .and_then(|e| e.last())
                        .and_then(|e| e.get("entry_id")?.as_str())
                        .map(str::to_owned)
                } else {
                    None
                };
                let assets = self.list_assets(io, thread, entry.as_deref()).await?;
                let names: Vec<&str> = assets
                    .iter()
                    .filter_map(|a| a.get("filename")?.as_str())
                    .collect();
                io.user_post(
                    "show",
                    json!({"kind": "files", "text": names.join("\n"), "files": assets, "thread_id": thread}),
                )
                .await
                .map(|_| ())
            }
            Some("download") => {
                let name = request
                    .get("filename")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                self.download(io, thread, name).await
            }
            _ => {
                io.show("error", &json!({"text": "This host cannot do that."}))
                    .await
            }
        }
    }

    /// Downloads `name`: the link the client has first, a fresh one when it has expired.
    async fn download(
        &mut self,
        io: &mut Session,
        thread: &str,
        name: &str,
    ) -> Result<(), ClientError> {
        if let Some(url) = self.files.get(name).cloned()
            && let Some(bytes) = self.get_file(io, &url).await?
        {
            return self.show_file(io, thread, name, &url, bytes).await;
        }
        if io.breaks(ids::COMPUTER_ASSETS_REFRESH_DOWNLOAD) {
            return io
                .show(
                    "error",
                    &json!({"text": format!("The link to {name} has expired.")}),
                )
                .await;
        }
        let assets = self.list_assets(io, thread, None).await?;
        let Some(asset_id) = assets
            .iter()
            .find(|a| a.get("filename").and_then(Value::as_str) == Some(name))
            .and_then(|a| a.get("asset_id")?.as_str())
        else {
            return io
                .show(
                    "error",
                    &json!({"text": format!("{name} is not in this conversation.")}),
                )
                .await;
        };
        let fresh = io
            .call(
                ToolName::CreateAssetDownload,
                &CreateAssetDownload::new(thread, asset_id),
            )
            .await?;
        let Some(url) = fresh.get("url").and_then(Value::as_str).map(str::to_owned) else {
            return io.show("error", &fresh).await;
        };
        self.files.insert(name.to_owned(), url.clone());
        match self.get_file(io, &url).await? {
            Some(bytes) => self.show_file(io, thread, name, &url, bytes).await,
            None => {
                io.show(
                    "error",
                    &json!({"text": format!("Could not download {name}.")}),
                )
                .await
            }
        }
    }

    /// GETs a download link: the bytes, or None when the link is refused (expired).
    async fn get_file(&self, io: &Session, url: &str) -> Result<Option<usize>, ClientError> {
        let response = io
            .http
            .get(url)
            .send_paced()
            .await
            .map_err(Session::http_error(url))?;
        if !response.status().is_success() {
            return Ok(None);
        }
        let bytes = response.bytes().await.map_err(Session::http_error(url))?;
        Ok(Some(bytes.len()))
    }

    async fn show_file(
        &self,
        io: &Session,
        thread: &str,
        name: &str,
        url: &str,
        size: usize,
    ) -> Result<(), ClientError> {
        io.user_post(
            "show",
            json!({"kind": "file", "text": format!("Downloaded {name} ({size} bytes)."),
                   "files": [{"filename": name, "url": url, "size_bytes": size}], "thread_id": thread}),
        )
        .await
        .map(|_| ())
    }
}
