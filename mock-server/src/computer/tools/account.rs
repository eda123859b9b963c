//! The account tools: the modes and models it may choose, its Projects, attachment uploads.

use super::schema::{OBJECT, OBJECTS, STRING};
use crate::computer::model::tools::{
    JsonType, ObjectSchema, Schema, Tool, ToolAnnotations, ToolName,
};

/// `models_list`.
pub(super) const MODELS_LIST: Tool = Tool {
    name: ToolName::ModelsList,
    title: "List modes and models",
    description: "Lists the modes and models you can choose for a task.",
    input_schema: ObjectSchema::input(&[], &[]),
    output_schema: Some(ObjectSchema::output(
        &[
            ("default_mode", Schema::nullable(JsonType::String)),
            ("modes", OBJECTS),
            ("models", OBJECTS),
            ("default_model", Schema::nullable(JsonType::String)),
        ],
        &["default_mode", "modes", "models", "default_model"],
    )),
    annotations: ToolAnnotations::new("List modes and models", true, false, true),
};

/// `projects_list`.
pub(super) const PROJECTS_LIST: Tool = Tool {
    name: ToolName::ProjectsList,
    title: "List Projects",
    description: "Lists Projects you can access, 50 at a time.",
    input_schema: ObjectSchema::input(
        &[
            (
                "search_term",
                STRING.description("Filter by a Project described in natural language."),
            ),
            (
                "cursor",
                STRING.description("`next_cursor` from a previous page."),
            ),
        ],
        &[],
    ),
    output_schema: Some(ObjectSchema::output(
        &[
            ("projects", OBJECTS),
            ("next_cursor", Schema::nullable(JsonType::String)),
        ],
        &["projects", "next_cursor"],
    )),
    annotations: ToolAnnotations::new("List Projects", true, false, true),
};

/// `create_attachment_upload`.
pub(super) const CREATE_ATTACHMENT_UPLOAD: Tool = Tool {
    name: ToolName::CreateAttachmentUpload,
    title: "Create attachment upload",
    description: "Request a presigned S3 POST for a single file. Returns an envelope your client \
        uses to upload bytes directly to S3.",
    input_schema: ObjectSchema::input(
        &[
            (
                "filename",
                STRING.description("File name including extension (e.g. `report.pdf`)."),
            ),
            (
                "mime_type",
                STRING
                    .description("Content type of the file (e.g. `application/pdf`, `image/png`)."),
            ),
            (
                "size_bytes",
                Schema::described(
                    JsonType::Integer,
                    "File size in bytes. Must not exceed your plan's limit (200 MB on paid \
                     plans, 25 MB on Free).",
                ),
            ),
        ],
        &["filename", "mime_type", "size_bytes"],
    ),
    output_schema: Some(ObjectSchema::output(
        &[
            ("attachment_url", STRING),
            ("upload_url", STRING),
            ("upload_fields", OBJECT),
        ],
        &["attachment_url", "upload_url", "upload_fields"],
    )),
    annotations: ToolAnnotations::new("Create attachment upload", false, false, false),
};
