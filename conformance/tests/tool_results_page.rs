//! docs/conformance-tool-results.md: the result of each Computer tool, as the mock really
//! answers it, taken from the insta snapshots of the mock's own tests, so the page cannot drift
//! from what a client receives. `CONFORMANCE_UPDATE_DOCS=1` rewrites the page.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

const PAGE: &str = "docs/conformance-tool-results.md";
const REGENERATE: &str =
    "CONFORMANCE_UPDATE_DOCS=1 cargo test -p conformance --test integration -- tool_results_page";

/// One example: the tool, which of its calls in which snapshot, what it shows (a title) and
/// what a client does with it.
struct Example {
    tool: &'static str,
    snapshot: &'static str,
    /// Which call of `tool` in the snapshot (0: the first).
    nth: usize,
    title: &'static str,
    note: &'static str,
}

const fn example(
    tool: &'static str,
    snapshot: &'static str,
    nth: usize,
    title: &'static str,
    note: &'static str,
) -> Example {
    Example {
        tool,
        snapshot,
        nth,
        title,
        note,
    }
}

/// The examples, in the order a client meets the tools.
const EXAMPLES: &[Example] = &[
    example(
        "call_perplexity_computer",
        "catalog-timeout-then-complete",
        0,
        "event `timeout`",
        "The task outlasted the call window and goes on: call `read_thread` with the `thread_id`, never `call_perplexity_computer` again to check. The status is `task_status`, at the top level.",
    ),
    example(
        "read_thread",
        "catalog-timeout-then-complete",
        0,
        "while the task works",
        "The task's status is **`web_state.task_status`** (`working`): the top-level `status` is the thread's (`running`, `idle`), and there is no top-level `task_status`. Each entry is a message of the thread, with its steps.",
    ),
    example(
        "read_thread",
        "catalog-timeout-then-complete",
        1,
        "once the task ended",
        "`web_state.task_status` is `completed` (stop polling on `completed`, `failed` or `cancelled`); `text` is the whole transcript.",
    ),
    example(
        "call_perplexity_computer",
        "catalog-follow-up",
        0,
        "event `complete`",
        "The task ended within the call window: the answer is in `text`, `task_status` is `completed`.",
    ),
    example(
        "call_perplexity_computer",
        "catalog-ask-user-question",
        0,
        "event `ask_user_question`",
        "`interactive` holds the questions and the `followup_uuid` to answer with.",
    ),
    example(
        "answer_question",
        "catalog-ask-user-question",
        0,
        "the answer went through",
        "Like `call_perplexity_computer`, it waits for the next event (here `complete`) and reports `task_status` at the top level.",
    ),
    example(
        "call_perplexity_computer",
        "catalog-confirm-action",
        0,
        "event `confirm_action`",
        "Approve or deny it with its `followup_uuid`.",
    ),
    example(
        "confirm_action_approve",
        "catalog-confirm-action",
        0,
        "approved",
        "The task goes on to its next event.",
    ),
    example(
        "confirm_action_deny",
        "catalog-confirm-action",
        0,
        "denied",
        "The task goes on without the action.",
    ),
    example(
        "call_perplexity_computer",
        "catalog-auth-required",
        0,
        "event `auth_required`",
        "Open `auth_url`, then call `notify_connected` with the event's `connector`.",
    ),
    example(
        "notify_connected",
        "catalog-auth-required",
        0,
        "the sign-in was taken",
        "The task went on to its end.",
    ),
    example(
        "cancel_task",
        "catalog-cancel",
        0,
        "the stop was taken",
        "Confirm it with `read_thread` (`web_state.task_status` `cancelled`).",
    ),
    example(
        "list_thread_assets",
        "catalog-short-download-links",
        0,
        "a page of the thread's files",
        "Page on with `cursor` while `next_cursor` is not null (a filtered page can be empty).",
    ),
    example(
        "create_asset_download",
        "catalog-short-download-links",
        0,
        "a fresh download link",
        "For an asset whose `url` expired (links last an hour).",
    ),
    example(
        "create_attachment_upload",
        "catalog-attachments",
        0,
        "an upload envelope",
        "POST the file, without `Authorization`, to `upload_url` with every `upload_fields` key and then the `file` part; send the `attachment_url` in the message's `attachment_urls`.",
    ),
    example(
        "projects_list",
        "catalog-project-settings",
        0,
        "a page of Projects",
        "Page on with `cursor` while `next_cursor` is not null; a new conversation in a Project passes its `project_uuid`.",
    ),
];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A snapshot's value: the JSON after insta's `---` header.
fn snapshot(name: &str) -> Value {
    let path = repository().join("snapshots").join(format!("{name}.snap"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = text
        .splitn(3, "---\n")
        .nth(2)
        .unwrap_or_else(|| panic!("{}: no insta header", path.display()));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `nth` call of `tool` in a catalog snapshot: (its arguments, its whole result).
fn call(name: &str, tool: &str, nth: usize) -> (Value, Value) {
    let steps = snapshot(name);
    let found = steps
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["tool"] == tool)
        .nth(nth)
        .unwrap_or_else(|| panic!("snapshots/{name}.snap has no call {nth} of {tool}"));
    (found["arguments"].clone(), found["result"].clone())
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn page() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# What the Computer tools answer\n\n\
         <!-- Generated from the mock's snapshots (snapshots/*.snap); do not edit. Regenerate with:\n     \
         {REGENERATE} -->\n\n\
         Every tool answers a `CallToolResult` whose `structuredContent` is the tool's JSON and \
         whose `content[0].text` is the same JSON as text (`isError` is `true` when the tool \
         refused). Below, one real answer of the mock per tool and event, as its own tests \
         pin them in `snapshots/` (ids appear as `[uuid-N]`): a client that reads these fields \
         reads the real service's. The first example shows the whole result (the snapshots write \
         `content[0].text` as `(same JSON as structuredContent)`; the mock sends the JSON \
         itself); the others its `structuredContent`.\n\n\
         **Where the task's status is.** `call_perplexity_computer`, `answer_question`, \
         `confirm_action_approve`, `confirm_action_deny`, `notify_connected` and `cancel_task` \
         report it at the top level, `task_status`. **`read_thread` reports it at \
         `web_state.task_status`**: its top-level `status` is the thread's (`running`, `idle`), \
         not the task's. A loop that waits for a task to end after a `timeout` calls \
         `read_thread` and stops when `web_state.task_status` is `completed`, `failed` or \
         `cancelled` (`input_required`: a question, an approval or a sign-in waits); the \
         [tools-flow examples](../examples/README.md) do exactly that. The rules a client must \
         follow on each event are in [the conformance suite](conformance-suite.md) and \
         [every rule of the suite](conformance-rules.md).\n\n\
         | tool | the example shows |\n|---|---|"
    );
    for (i, e) in EXAMPLES.iter().enumerate() {
        let _ = writeln!(out, "| [`{}`](#{}) | {} |", e.tool, i + 1, e.title);
    }
    let _ = writeln!(
        out,
        "| [`models_list`](#{}) | the modes and models of the account's plan |",
        EXAMPLES.len() + 1
    );
    for (i, e) in EXAMPLES.iter().enumerate() {
        let (arguments, result) = call(e.snapshot, e.tool, e.nth);
        let _ = writeln!(
            out,
            "\n<a id=\"{}\"></a>\n## `{}`: {}\n\n{}{}Called with `{}` (`snapshots/{}.snap`):\n\n```json\n{}\n```",
            i + 1,
            e.tool,
            e.title,
            e.note,
            if e.note.is_empty() { "" } else { " " },
            serde_json::to_string(&arguments).unwrap_or_default(),
            e.snapshot,
            if i == 0 {
                pretty(&result)
            } else {
                pretty(&result["structuredContent"])
            }
        );
    }
    let models = &snapshot("account-models-list")["alice"];
    let _ = writeln!(
        out,
        "\n<a id=\"{}\"></a>\n## `models_list`: the modes and models of the account's plan\n\nCalled with `{{}}` as `alice` (`snapshots/account-models-list.snap`):\n\n```json\n{}\n```",
        EXAMPLES.len() + 1,
        pretty(models)
    );
    out
}

#[test]
fn the_tool_results_page_shows_what_the_mock_answers() {
    let generated = page();
    let path = repository().join(PAGE);
    if std::env::var_os("CONFORMANCE_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).expect("write the page");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let diff = similar::TextDiff::from_lines(&committed, &generated)
            .unified_diff()
            .context_radius(2)
            .header(PAGE, "the snapshots")
            .to_string();
        panic!(
            "{PAGE} differs from the mock's snapshots; regenerate it with\n  {REGENERATE}\nand commit it:\n{diff}"
        );
    }
}

#[test]
fn every_tool_of_the_catalog_has_an_example() {
    let page = std::fs::read_to_string(repository().join(PAGE)).unwrap_or_default();
    for tool in [
        "call_perplexity_computer",
        "read_thread",
        "answer_question",
        "confirm_action_approve",
        "confirm_action_deny",
        "notify_connected",
        "cancel_task",
        "list_thread_assets",
        "create_asset_download",
        "create_attachment_upload",
        "projects_list",
        "models_list",
    ] {
        assert!(
            page.contains(&format!("## `{tool}`")),
            "{tool} has no example in {PAGE}"
        );
    }
    // Both places the task's status is, shown in real answers.
    assert!(page.contains("\"task_status\": \"working\""));
    assert!(page.contains("\"web_state\": {"));
}
