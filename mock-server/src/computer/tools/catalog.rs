//! The catalog: the twelve tools in `tools/list` order, their input schemas compiled once, and
//! the one dispatch of a call to its service command after its arguments passed the schema.

use std::sync::LazyLock;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::schema::parse;
use super::{account, task, thread};
use crate::computer::model::arguments::ThreadRef;
use crate::computer::model::content::Reply;
use crate::computer::model::tools::{Tool, ToolName};
use crate::computer::model::version::ProtocolVersion;
use crate::computer::service::{Service, Wait};
use crate::world::Account;

/// Names of the tools, in `tools/list` order.
pub const TOOL_NAMES: [&str; 12] = {
    let mut names = [""; 12];
    let mut i = 0;
    while i < names.len() {
        names[i] = ToolName::ALL[i].as_str();
        i += 1;
    }
    names
};

/// The `tools/list` entries, in [`ToolName::ALL`] order.
static CATALOG: [Tool; 12] = [
    task::CALL_PERPLEXITY_COMPUTER,
    task::ANSWER_QUESTION,
    task::CONFIRM_ACTION_APPROVE,
    task::CONFIRM_ACTION_DENY,
    task::NOTIFY_CONNECTED,
    task::CANCEL_TASK,
    thread::READ_THREAD,
    account::MODELS_LIST,
    thread::LIST_THREAD_ASSETS,
    thread::CREATE_ASSET_DOWNLOAD,
    account::PROJECTS_LIST,
    account::CREATE_ATTACHMENT_UPLOAD,
];

/// The `tools/list` entries.
pub(crate) fn catalog() -> &'static [Tool] {
    &CATALOG
}

/// The `tools/list` entries a session on `version` receives: before 2025-06-18 a tool has no
/// `title` and no `outputSchema` (both were added in 2025-06-18), so they are left out.
pub(crate) fn catalog_for(version: ProtocolVersion) -> &'static [Tool] {
    if version.has_structured_output() {
        &CATALOG
    } else {
        &CATALOG_2025_03_26
    }
}

/// [`CATALOG`] without what 2025-03-26 does not have.
static CATALOG_2025_03_26: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    CATALOG
        .iter()
        .map(|tool| Tool {
            title: "",
            output_schema: None,
            ..tool.clone()
        })
        .collect()
});

/// Each tool's compiled input schema, in [`ToolName::ALL`] order; a schema that does not compile
/// (a mistake in the table above, which the tests catch) keeps the compiler's message.
static VALIDATORS: LazyLock<Vec<Result<jsonschema::Validator, String>>> = LazyLock::new(|| {
    CATALOG
        .iter()
        .map(|tool| {
            let schema = serde_json::to_value(tool.input_schema).map_err(|e| e.to_string())?;
            jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())
        })
        .collect()
});

/// Checks arguments against the tool's input schema; the message names the argument.
fn validate(tool: ToolName, args: &Value) -> Result<(), String> {
    let validator = match VALIDATORS.get(tool.index()) {
        Some(Ok(validator)) => validator,
        Some(Err(problem)) => {
            return Err(format!(
                "The server cannot check arguments for {tool}: its input schema does not \
                 compile ({problem})."
            ));
        }
        None => return Err(format!("The server has no input schema for {tool}.")),
    };
    // Most calls are valid: answering that is much cheaper than collecting no errors.
    if validator.is_valid(args) {
        return Ok(());
    }
    let problems: Vec<String> = validator
        .iter_errors(args)
        .map(|error| {
            let path = error
                .instance_path()
                .as_str()
                .trim_start_matches('/')
                .to_owned();
            if path.is_empty() {
                error.to_string()
            } else {
                format!("argument `{path}`: {error}")
            }
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "Invalid arguments for {tool}: {}.",
            problems.join("; ")
        ))
    }
}

/// The thread a call's arguments name, for the tool error that answers them.
fn named_thread(args: &Value) -> Option<&str> {
    args.get("thread_id").and_then(Value::as_str)
}

/// A tool's arguments, checked against its input schema and read into its struct, or the tool
/// error to answer.
pub(crate) fn arguments<T: DeserializeOwned>(tool: ToolName, args: &Value) -> Result<T, Reply> {
    validate(tool, args).map_err(|message| Reply::error(named_thread(args), message))?;
    parse(tool, args)
}

/// Runs a tool call through the service: its arguments checked and read, then its command.
pub(crate) async fn call(
    service: &Service,
    account: &Account,
    tool: ToolName,
    args: Value,
    wait: Wait,
) -> Reply {
    if let Err(message) = validate(tool, &args) {
        return Reply::error(named_thread(&args), message);
    }
    // A task tool's future holds a whole send and is the largest by far: boxed, it does not make
    // every other call's future (which the router boxes again) as large.
    match tool {
        ToolName::CallPerplexityComputer => match parse(tool, &args) {
            Ok(a) => Box::pin(service.send(account, a, wait)).await.reply,
            Err(refused) => refused,
        },
        ToolName::AnswerQuestion => match parse(tool, &args) {
            Ok(a) => Box::pin(service.answer(account, a, wait)).await,
            Err(refused) => refused,
        },
        ToolName::ConfirmActionApprove | ToolName::ConfirmActionDeny => match parse(tool, &args) {
            Ok(a) => {
                let approve = tool == ToolName::ConfirmActionApprove;
                Box::pin(service.confirm(account, a, approve, wait)).await
            }
            Err(refused) => refused,
        },
        ToolName::NotifyConnected => match parse(tool, &args) {
            Ok(a) => Box::pin(service.connected(account, a, wait)).await,
            Err(refused) => refused,
        },
        ToolName::CancelTask => parse::<ThreadRef>(tool, &args)
            .map_or_else(|r| r, |a| service.cancel(account, &a.thread_id)),
        ToolName::ReadThread => match parse::<ThreadRef>(tool, &args) {
            Ok(a) => service.read(account, &a.thread_id).await,
            Err(refused) => refused,
        },
        ToolName::ModelsList => service.models(account),
        ToolName::ListThreadAssets => {
            parse(tool, &args).map_or_else(|r| r, |a| service.list_assets(account, a))
        }
        ToolName::CreateAssetDownload => {
            parse(tool, &args).map_or_else(|r| r, |a| service.create_download(account, a))
        }
        ToolName::ProjectsList => {
            parse(tool, &args).map_or_else(|r| r, |a| service.projects(account, a))
        }
        ToolName::CreateAttachmentUpload => {
            parse(tool, &args).map_or_else(|r| r, |a| service.create_upload(account, a))
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_catalog_lists_the_twelve_documented_tools_in_order() {
        let names: Vec<ToolName> = catalog().iter().map(|tool| tool.name).collect();
        assert_eq!(names, ToolName::ALL);
        assert_eq!(TOOL_NAMES.map(ToolName::parse), ToolName::ALL.map(Some));
    }

    #[test]
    fn every_input_schema_compiles() {
        let problems: Vec<&String> = VALIDATORS.iter().filter_map(|v| v.as_ref().err()).collect();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(VALIDATORS.len(), ToolName::ALL.len());
    }

    #[test]
    fn a_wrong_type_names_the_argument() {
        let message =
            validate(ToolName::ReadThread, &json!({"thread_id": 42})).expect_err("wrong type");
        assert!(message.contains("argument `thread_id`"), "{message}");
    }

    #[test]
    fn a_missing_required_argument_is_named() {
        let message =
            validate(ToolName::AnswerQuestion, &json!({"thread_id": "t"})).expect_err("missing");
        assert!(message.contains("\"answers\""), "{message}");
    }
}
