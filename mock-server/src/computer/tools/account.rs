//! The account tools: the modes and models it may choose, its Projects, attachment uploads.

use serde_json::{Value, json};

use super::schema::{annotations, input, output, parse};
use crate::computer::model::content::Reply;
use crate::computer::service::Service;
use crate::world::Account;

/// The account tools' `tools/list` entries.
pub(super) fn entries() -> Vec<Value> {
    vec![
        json!({
            "name": "models_list",
            "title": "List modes and models",
            "description": "Lists the modes and models you can choose for a task.",
            "inputSchema": input(json!({}), &[]),
            "outputSchema": output(json!({
                "default_mode": {"type": ["string", "null"]},
                "modes": {"type": "array", "items": {"type": "object"}},
                "models": {"type": "array", "items": {"type": "object"}},
                "default_model": {"type": ["string", "null"]}
            }), &["default_mode", "modes", "models", "default_model"]),
            "annotations": annotations("List modes and models", true, false, true),
        }),
        json!({
            "name": "projects_list",
            "title": "List Projects",
            "description": "Lists Projects you can access, 50 at a time.",
            "inputSchema": input(json!({
                "search_term": {"type": "string", "description": "Filter by a Project described in natural language."},
                "cursor": {"type": "string", "description": "`next_cursor` from a previous page."}
            }), &[]),
            "outputSchema": output(json!({
                "projects": {"type": "array", "items": {"type": "object"}},
                "next_cursor": {"type": ["string", "null"]}
            }), &["projects", "next_cursor"]),
            "annotations": annotations("List Projects", true, false, true),
        }),
        json!({
            "name": "create_attachment_upload",
            "title": "Create attachment upload",
            "description": "Request a presigned S3 POST for a single file. Returns an envelope your client uses to upload bytes directly to S3.",
            "inputSchema": input(json!({
                "filename": {"type": "string", "description": "File name including extension (e.g. `report.pdf`)."},
                "mime_type": {"type": "string", "description": "Content type of the file (e.g. `application/pdf`, `image/png`)."},
                "size_bytes": {"type": "integer", "description": "File size in bytes. Must not exceed your plan's limit (200 MB on paid plans, 25 MB on Free)."}
            }), &["filename", "mime_type", "size_bytes"]),
            "outputSchema": output(json!({
                "attachment_url": {"type": "string"},
                "upload_url": {"type": "string"},
                "upload_fields": {"type": "object"}
            }), &["attachment_url", "upload_url", "upload_fields"]),
            "annotations": annotations("Create attachment upload", false, false, false),
        }),
    ]
}

/// Runs account tool `name` with `args` (already checked against its schema).
pub(super) fn call(service: &Service, account: &Account, name: &str, args: &Value) -> Reply {
    match name {
        "models_list" => service.models(account),
        "projects_list" => parse(name, args).map_or_else(|r| r, |a| service.projects(account, a)),
        "create_attachment_upload" => {
            parse(name, args).map_or_else(|r| r, |a| service.create_upload(account, a))
        }
        other => Reply::error(None, format!("Unknown tool `{other}`.")),
    }
}
