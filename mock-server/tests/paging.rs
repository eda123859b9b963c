//! Cursor paging: `projects_list` 50 at a time, `list_thread_assets` whose filtered pages may be
//! empty while `next_cursor` is not null, and cursors that were forged, belong to another
//! account or to other arguments, each refused with a sentence.

use mock_server::{MockServer, world::WORLD_FIXTURE};
use serde_json::{Value, json};

use crate::common::{self, Mock, mock_with_scenario, text, text_json};

/// A mock whose world gives alice 120 more Projects named `Bulk project N`.
fn mock_with_many_projects() -> Mock {
    let mut world: Value = serde_json::from_str(WORLD_FIXTURE).expect("world");
    let projects = world["projects"].as_array_mut().expect("projects");
    for i in 0..120 {
        projects.push(json!({
            "project_uuid": format!("00000000-0000-4000-8000-{i:012}"),
            "name": format!("Bulk project {i}"),
            "description": "One of many.",
            "knowledge_enabled": false,
            "members": [{"account": "alice", "role": "viewer", "landing_category": "invited"}],
        }));
    }
    let dir = std::env::temp_dir().join(format!(
        "mock-server-paging-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("world.json");
    std::fs::write(&path, world.to_string()).expect("written");
    Mock::with(MockServer::builder().world(path))
}

#[tokio::test(start_paused = true)]
async fn projects_list_pages_fifty_at_a_time_until_next_cursor_is_null() {
    let mock = mock_with_many_projects();
    let mut alice = mock.session("alice-dev-token").await;
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    let mut cursor = Value::Null;
    loop {
        let args = if cursor.is_null() {
            json!({})
        } else {
            json!({"cursor": cursor})
        };
        let page = alice.call_json("projects_list", args).await;
        let projects = page["projects"].as_array().expect("projects");
        sizes.push(projects.len());
        seen.extend(projects.iter().map(|p| p["project_uuid"].clone()));
        cursor = page["next_cursor"].clone();
        if cursor.is_null() {
            break;
        }
    }
    assert_eq!(sizes, [50, 50, 22], "2 built-in + 120 bulk");
    let mut unique = seen.clone();
    unique.sort_by_key(|v| v.to_string());
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no Project twice");
}

#[tokio::test(start_paused = true)]
async fn a_search_term_pages_too_and_its_cursor_only_fits_the_same_search() {
    let mock = mock_with_many_projects();
    let mut alice = mock.session("alice-dev-token").await;
    let first = alice
        .call_json("projects_list", json!({"search_term": "bulk"}))
        .await;
    assert_eq!(first["projects"].as_array().map(Vec::len), Some(50));
    let cursor = first["next_cursor"].clone();
    assert!(cursor.is_string());

    let other = alice
        .call(
            "projects_list",
            json!({"search_term": "board", "cursor": cursor}),
        )
        .await;
    assert_eq!(other["isError"], true, "{other}");
    let message = text(&text_json(&other)).to_owned();
    assert!(
        message.contains("`cursor`") && message.contains("other arguments"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_forged_cursor_or_another_accounts_cursor_is_refused_and_leaks_nothing() {
    let mock = mock_with_many_projects();
    let mut alice = mock.session("alice-dev-token").await;
    let mut bob = mock.session("bob-dev-token").await;
    let forged = alice
        .call("projects_list", json!({"cursor": "eyJvZmZzZXQiOjUwfQ"}))
        .await;
    assert_eq!(forged["isError"], true, "{forged}");
    assert!(text(&text_json(&forged)).contains("was not handed out"));

    let first = alice.call_json("projects_list", json!({})).await;
    let stolen = bob
        .call("projects_list", json!({"cursor": first["next_cursor"]}))
        .await;
    assert_eq!(stolen["isError"], true, "{stolen}");
    let body = text_json(&stolen);
    assert!(body.get("projects").is_none(), "nothing of alice's: {body}");
    assert!(!stolen.to_string().contains("Bulk project"));
}

fn many_files_scenario() -> Value {
    let files: Vec<Value> = (0..25)
        .map(|i| json!({"filename": format!("chart-{i:02}.png"), "media_type": "image/png"}))
        .collect();
    json!({
        "name": "many-files",
        "description": "Twenty-five charts, then one report.",
        "turns": [
            {
                "steps": [{"title": "Drawing charts", "type": "run_code", "duration": "10s"}],
                "outcome": {"event": "complete", "text": "Here are the charts.", "files": files}
            },
            {
                "steps": [{"title": "Writing the report", "type": "create_file", "duration": "10s"}],
                "outcome": {"event": "complete", "text": "Here is the report.",
                            "files": [{"filename": "report.pdf", "primary": true}]}
            }
        ]
    })
}

#[tokio::test(start_paused = true)]
async fn a_filtered_asset_page_can_be_empty_while_next_cursor_is_not_null() {
    let mock = mock_with_scenario(&many_files_scenario());
    let mut alice = mock.session("alice-dev-token").await;
    let first = alice.start("#many-files Draw the charts").await;
    let thread = common::thread_id(&first);
    alice
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Now the report", "thread_id": thread}),
        )
        .await;

    let all = alice
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;
    assert_eq!(all["assets"].as_array().map(Vec::len), Some(20));
    let rest = alice
        .call_json(
            "list_thread_assets",
            json!({"thread_id": thread, "cursor": all["next_cursor"]}),
        )
        .await;
    assert_eq!(rest["assets"].as_array().map(Vec::len), Some(6));
    assert_eq!(rest["next_cursor"], Value::Null);
    let report_entry = rest["assets"][5]["entry_id"].clone();
    assert_eq!(rest["assets"][5]["filename"], "report.pdf");

    // Filtered to the second turn: the first page holds none of its assets, yet goes on.
    let filtered = alice
        .call_json(
            "list_thread_assets",
            json!({"thread_id": thread, "entry_id": report_entry}),
        )
        .await;
    assert_eq!(filtered["assets"], json!([]));
    assert!(filtered["next_cursor"].is_string(), "{filtered}");
    let second = alice
        .call_json(
            "list_thread_assets",
            json!({"thread_id": thread, "entry_id": report_entry, "cursor": filtered["next_cursor"]}),
        )
        .await;
    assert_eq!(second["assets"].as_array().map(Vec::len), Some(1));
    assert_eq!(second["assets"][0]["filename"], "report.pdf");
    assert_eq!(second["next_cursor"], Value::Null);

    // That cursor belongs to the filtered listing, not the unfiltered one.
    let mixed = alice
        .call(
            "list_thread_assets",
            json!({"thread_id": thread, "cursor": filtered["next_cursor"]}),
        )
        .await;
    assert_eq!(mixed["isError"], true, "{mixed}");
}
