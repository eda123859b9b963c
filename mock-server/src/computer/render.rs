//! A tool's typed reply, wrapped once, at the edge, as the MCP `CallToolResult` a client on a
//! given protocol version receives.
//!
//! A tool answers one JSON object: in the first text content block, again as
//! `structuredContent` (except the out-of-credits result sent before a message), with `isError`
//! on `error` and `access_denied`, and each file as a `resource_link` block for protocol
//! 2025-06-18 and later.

use std::sync::Arc;

use serde_json::value::RawValue;

use super::model::content::{CallToolResult, Content, Reply, SettingsMeta, Text};
use super::model::error::ErrorData;
use super::model::version::ProtocolVersion;

/// The `CallToolResult` of `reply` for a client on `version` (stateless answers add their
/// `resultType` with [`CallToolResult::stateless`]), or the internal error that answers the
/// call if the reply cannot be written as JSON.
pub(crate) fn call_result(
    reply: Reply,
    version: ProtocolVersion,
) -> Result<CallToolResult, ErrorData> {
    // Rendered once: the text block and `structuredContent` are the same JSON.
    let (json, text) = match &reply {
        Reply::Models(list) => (list.json(), Text::Literal(list.literal())),
        _ => {
            let json: Arc<RawValue> = serde_json::value::to_raw_value(&reply)
                .map_err(|error| {
                    ErrorData::internal(format!(
                        "Internal error: the tool's result could not be written as JSON \
                         ({error})."
                    ))
                })?
                .into();
            (json.clone(), Text::Json(json))
        }
    };
    let mut content = vec![Content::Text { text }];
    let (is_error, structured, meta) = match &reply {
        Reply::Checkpoint(checkpoint) => {
            // `resource_link` exists from 2025-06-18 on; older clients would reject the block.
            if version.has_resource_links() {
                content.extend(checkpoint.files.iter().map(|file| Content::ResourceLink {
                    uri: file.url.clone(),
                    name: file.filename.clone(),
                    mime_type: file.media_type.clone(),
                    size: file.size_bytes,
                }));
            }
            (
                checkpoint.is_error,
                true,
                checkpoint.settings.clone().map(SettingsMeta::new),
            )
        }
        Reply::Transcript(transcript) => (
            false,
            true,
            transcript.settings.clone().map(SettingsMeta::new),
        ),
        // Nothing was sent, so nothing is structured, as documented.
        Reply::NotSent(_) => (false, false, None),
        Reply::AccessDenied(_) | Reply::Error(_) => (true, true, None),
        Reply::Ack(_)
        | Reply::Models(_)
        | Reply::Assets(_)
        | Reply::Download(_)
        | Reply::Projects(_)
        | Reply::Upload(_) => (false, true, None),
    };
    Ok(CallToolResult {
        content,
        is_error,
        // `structuredContent` exists from 2025-06-18 on; the text block carries the same JSON.
        structured_content: (structured && version.has_structured_output()).then_some(json),
        meta,
        result_type: None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::computer::model::results::{Checkpoint, Event, File, TaskStatus};

    fn with_a_file() -> Reply {
        let mut checkpoint = Checkpoint::bare("t", Event::Complete, "Done.", TaskStatus::Completed);
        checkpoint.files.push(File {
            filename: "a.pdf".into(),
            media_type: Some("application/pdf".into()),
            size_bytes: Some(3),
            url: "http://x/a.pdf".into(),
        });
        checkpoint.into()
    }

    #[test]
    fn files_become_resource_links_from_2025_06_18_on() {
        let old = call_result(with_a_file(), ProtocolVersion::V2025_03_26).expect("renders");
        assert_eq!(old.content.len(), 1);
        let new = call_result(with_a_file(), ProtocolVersion::V2025_06_18).expect("renders");
        assert_eq!(new.content.len(), 2);
        let value = serde_json::to_value(&new).expect("serializes");
        assert_eq!(
            value["content"][1],
            json!({"type": "resource_link", "uri": "http://x/a.pdf", "name": "a.pdf", "mimeType": "application/pdf", "size": 3})
        );
        assert_eq!(value["structuredContent"]["files"][0]["filename"], "a.pdf");
    }

    #[test]
    fn a_models_list_text_escaped_ahead_is_the_text_escaped_when_written() {
        let world = crate::world::World::builtin();
        let alice = world.account("alice").expect("a built-in account");
        let reply = Reply::Models(world.models_list(alice));
        let written = serde_json::value::to_raw_value(&reply).expect("serializes");
        let result = call_result(reply, ProtocolVersion::V2025_06_18).expect("renders");
        let value = serde_json::to_value(result).expect("serializes");
        assert_eq!(value["content"][0]["text"].as_str(), Some(written.get()));
        let text: serde_json::Value = serde_json::from_str(written.get()).expect("JSON");
        assert_eq!(text, value["structuredContent"]);
        assert!(text["models"].as_array().is_some_and(|m| !m.is_empty()));
    }

    #[test]
    fn the_text_block_is_the_structured_content_as_json() {
        let result = call_result(with_a_file(), ProtocolVersion::STATELESS).expect("renders");
        let value = serde_json::to_value(result.stateless()).expect("serializes");
        let text: serde_json::Value =
            serde_json::from_str(value["content"][0]["text"].as_str().expect("a text block"))
                .expect("JSON");
        assert_eq!(text, value["structuredContent"]);
        assert_eq!(value["resultType"], "complete");
        assert_eq!(
            value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "perplexity-computer-mock"
        );
    }
}
