//! The catalog: the twelve tools in `tools/list` order, their input schemas compiled once,
//! and the dispatch of a call to its group after its arguments passed the schema.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::schema::parse;
use super::{account, task, thread};
use crate::computer::model::content::Reply;
use crate::computer::service::{Service, Wait};
use crate::world::Account;

/// Names of the tools, in `tools/list` order.
pub const TOOL_NAMES: [&str; 12] = [
    "call_perplexity_computer",
    "answer_question",
    "confirm_action_approve",
    "confirm_action_deny",
    "notify_connected",
    "cancel_task",
    "read_thread",
    "models_list",
    "list_thread_assets",
    "create_asset_download",
    "projects_list",
    "create_attachment_upload",
];

/// The `tools/list` entries.
pub(crate) fn catalog() -> &'static [Value] {
    static CATALOG: LazyLock<Vec<Value>> = LazyLock::new(build_catalog);
    &CATALOG
}

fn build_catalog() -> Vec<Value> {
    let mut tools = task::entries();
    tools.extend(thread::entries());
    tools.extend(account::entries());
    // Keep TOOL_NAMES and the catalog in one order.
    tools.sort_by_key(|t| {
        TOOL_NAMES
            .iter()
            .position(|n| t["name"] == *n)
            .unwrap_or(usize::MAX)
    });
    tools
}

static VALIDATORS: LazyLock<HashMap<String, jsonschema::Validator>> = LazyLock::new(|| {
    catalog()
        .iter()
        .filter_map(|tool| {
            let name = tool["name"].as_str()?.to_owned();
            let validator = jsonschema::draft202012::new(&tool["inputSchema"]).ok()?;
            Some((name, validator))
        })
        .collect()
});

/// Whether `name` is one of the twelve tools.
pub(crate) fn is_tool(name: &str) -> bool {
    TOOL_NAMES.contains(&name)
}

/// Checks arguments against the tool's input schema; the message names the argument.
fn validate(tool: &str, args: &Value) -> Result<(), String> {
    let Some(validator) = VALIDATORS.get(tool) else {
        return Ok(());
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

/// A tool's arguments, checked against its input schema and read into its struct, or the tool
/// error to answer.
pub(crate) fn arguments<T: DeserializeOwned>(tool: &str, args: &Value) -> Result<T, Reply> {
    validate(tool, args)
        .map_err(|message| Reply::error(args.get("thread_id").and_then(Value::as_str), message))?;
    parse(tool, args)
}

/// Runs a tool call through the service. `name` must be a known tool.
pub(crate) async fn call(
    service: &Service,
    account: &Account,
    name: &str,
    args: Value,
    wait: Wait,
) -> Reply {
    if let Err(message) = validate(name, &args) {
        return Reply::error(args.get("thread_id").and_then(Value::as_str), message);
    }
    match name {
        "read_thread" | "list_thread_assets" | "create_asset_download" => {
            thread::call(service, account, name, &args).await
        }
        "models_list" | "projects_list" | "create_attachment_upload" => {
            account::call(service, account, name, &args)
        }
        // A task tool's future holds a whole send and is the largest by far: boxed, it does
        // not make every other call's future (which the router boxes again) as large.
        _ => Box::pin(task::call(service, account, name, &args, wait)).await,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_catalog_lists_the_twelve_documented_tools_in_order() {
        let names: Vec<&str> = catalog()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, TOOL_NAMES);
    }

    #[test]
    fn every_input_schema_compiles() {
        assert_eq!(VALIDATORS.len(), TOOL_NAMES.len());
    }

    #[test]
    fn a_wrong_type_names_the_argument() {
        let message = validate("read_thread", &json!({"thread_id": 42})).expect_err("wrong type");
        assert!(message.contains("argument `thread_id`"), "{message}");
    }

    #[test]
    fn a_missing_required_argument_is_named() {
        let message = validate("answer_question", &json!({"thread_id": "t"})).expect_err("missing");
        assert!(message.contains("\"answers\""), "{message}");
    }
}
