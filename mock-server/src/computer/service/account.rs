//! What belongs to the account rather than a thread: `models_list`, `projects_list`,
//! `create_attachment_upload`, and the check that attachments are the account's own uploads.

use std::collections::BTreeMap;

use serde_json::json;

use super::{Service, refuse};
use crate::clock::iso;
use crate::computer::model::arguments::{CreateAttachmentUpload, ProjectsList};
use crate::computer::model::content::Reply;
use crate::computer::model::listings::{ProjectItem, ProjectPage, UploadEnvelope};
use crate::http::encoding::base64;
use crate::world::{Account, AttachmentRefusal};

/// Projects per `projects_list` page, as documented.
const PROJECTS_PAGE: usize = 50;

impl Service {
    /// `models_list`: the modes and models the account may choose.
    pub(crate) fn models(&self, account: &Account) -> Reply {
        Reply::Models(self.engine.world.models_list(account))
    }

    /// `projects_list`: a page of the Projects the account can access, filtered by words.
    pub(crate) fn projects(&self, account: &Account, args: ProjectsList) -> Reply {
        let term = args.search_term.as_deref().map(str::to_lowercase);
        let scope = format!("projects:{}", term.as_deref().unwrap_or(""));
        let start = match self.page_start(account, args.cursor.as_deref(), None, &scope) {
            Ok(start) => start,
            Err(refused) => return refused,
        };
        let base = &self.engine.base_url;
        let matching: Vec<&crate::world::Project> = account
            .projects
            .iter()
            .filter(|p| {
                term.as_ref().is_none_or(|t| {
                    t.split_whitespace().any(|word| {
                        p.name.to_lowercase().contains(word)
                            || p.description.to_lowercase().contains(word)
                    })
                })
            })
            .collect();
        let end = (start + PROJECTS_PAGE).min(matching.len());
        let projects = matching
            .get(start..end)
            .unwrap_or(&[])
            .iter()
            .map(|p| ProjectItem {
                project: (*p).clone(),
                project_url: format!("{base}/_mock/projects/{}", p.project_uuid),
            })
            .collect();
        Reply::Projects(ProjectPage {
            projects,
            next_cursor: self.next_cursor(account, &scope, end, matching.len()),
        })
    }

    /// `create_attachment_upload`: a presigned S3 POST envelope for one file.
    pub(crate) fn create_upload(&self, account: &Account, args: CreateAttachmentUpload) -> Reply {
        let engine = &self.engine;
        let filename = args.filename.as_str();
        let mime_type = args.mime_type.as_str();
        let size = args.size_bytes.as_i64().unwrap_or(0);
        let size = match u64::try_from(size) {
            Ok(size) if size > 0 => size,
            _ => {
                return refuse(
                    None,
                    "Argument `size_bytes` must be the file's size in bytes, greater than zero.",
                );
            }
        };
        if filename.contains('/') || filename.trim().is_empty() {
            return refuse(
                None,
                "Argument `filename` must be a file name without slashes, such as `report.pdf`.",
            );
        }
        // Checked last, so a malformed request does not use up one of the plan's uploads.
        match engine
            .world
            .take_attachment(account, size, engine.clock.now())
        {
            Ok(()) => {}
            Err(AttachmentRefusal::TooLarge { limit }) => {
                return refuse(
                    None,
                    format!(
                        "The file is {size} bytes, over your plan's limit of {} MB per \
                         attachment.",
                        limit / (1024 * 1024)
                    ),
                );
            }
            Err(AttachmentRefusal::LimitReached {
                window,
                limit,
                next_at,
            }) => {
                return refuse(
                    None,
                    format!(
                        "Your plan allows {limit} attachments per {window}, and that limit is \
                         reached. You can attach another file after {}, or upgrade your plan.",
                        iso(next_at)
                    ),
                );
            }
        }
        let base = &engine.base_url;
        let key = format!("uploads/{}/{}", uuid::Uuid::new_v4(), filename);
        let expires = engine.clock.now() + chrono::Duration::minutes(10);
        let policy = json!({
            "expiration": iso(expires),
            "conditions": [
                {"bucket": "mock-computer-uploads"},
                {"key": key},
                {"Content-Type": mime_type},
                ["content-length-range", 1, size],
            ],
        });
        let policy = base64(policy.to_string().as_bytes());
        let now = engine.clock.now();
        let fields: BTreeMap<String, String> = [
            ("key", key.clone()),
            ("Content-Type", mime_type.to_owned()),
            ("policy", policy),
            ("x-amz-algorithm", "AWS4-HMAC-SHA256".to_owned()),
            (
                "x-amz-credential",
                format!(
                    "MOCKACCESSKEY/{}/us-east-1/s3/aws4_request",
                    now.format("%Y%m%d")
                ),
            ),
            ("x-amz-date", now.format("%Y%m%dT%H%M%SZ").to_string()),
            ("x-amz-signature", uuid::Uuid::new_v4().simple().to_string()),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect();
        engine
            .world
            .issue_upload(&account.id, fields.clone(), size, expires, now);
        Reply::Upload(UploadEnvelope {
            attachment_url: format!("{base}/_mock/uploads/{key}"),
            upload_url: format!("{base}/_mock/uploads"),
            upload_fields: fields,
        })
    }

    /// Attachments must be files this account uploaded through `create_attachment_upload`:
    /// Computer fetches them from storage, so any other URL (or an envelope whose POST never
    /// happened) fails before anything is sent.
    pub(super) fn check_attachments(
        &self,
        account: &Account,
        urls: &[String],
        thread_id: Option<&str>,
    ) -> Result<(), Reply> {
        let prefix = format!("{}/_mock/uploads/", self.engine.base_url);
        for url in urls {
            let uploaded = url.strip_prefix(&prefix).is_some_and(|key| {
                self.engine
                    .world
                    .owns_upload(&account.id, key, self.engine.clock.now())
            });
            if !uploaded {
                return Err(refuse(
                    thread_id,
                    format!(
                        "Argument `attachment_urls`: `{url}` is not a file you uploaded. Call \
                         create_attachment_upload, POST the file to its upload_url with every \
                         upload_fields key, then pass its attachment_url."
                    ),
                ));
            }
        }
        Ok(())
    }
}
