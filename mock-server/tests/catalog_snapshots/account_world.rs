//! The account-world scenarios of the conformance suite: attachments, project settings and a
//! thread's assets, each snapshotted like the other catalog scenarios.

use std::time::Duration;

use serde_json::{Value, json};

use super::script::{Script, field, thread};

#[tokio::test(start_paused = true)]
async fn attachments() {
    let mut s = Script::new().await;
    let csv = b"region,revenue\nEMEA,1200\nAmericas,2450\nAPAC,980\n";
    let envelope = s
        .call(
            "create_attachment_upload",
            json!({"filename": "q3-sales.csv", "mime_type": "text/csv", "size_bytes": csv.len()}),
        )
        .await;
    let fields = envelope["upload_fields"]
        .as_object()
        .cloned()
        .expect("upload_fields");
    let reply = s.mock.upload(&envelope, &fields, csv).await;
    s.log.push(json!({
        "upload": "POST upload_url with every upload_fields key, then the file",
        "status": reply.status.as_u16(),
        "location": reply.headers.get("location").and_then(|v| v.to_str().ok()),
    }));
    s.call(
        "call_perplexity_computer",
        json!({"message": "#attachments Summarize the attached sales figures.",
               "attachment_urls": [field(&envelope, "/attachment_url")]}),
    )
    .await;
    s.snapshot("attachments");
}

#[tokio::test(start_paused = true)]
async fn project_settings() {
    let mut s = Script::new().await;
    let projects = s.call("projects_list", json!({})).await;
    let project = projects["projects"]
        .as_array()
        .and_then(|all| all.iter().find(|p| p["name"] == "Competitor research"))
        .map(|p| field(p, "/project_uuid"))
        .expect("alice sees Competitor research");
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#project-settings Draft the competitor pricing summary.",
                   "project_uuid": project, "project_visibility": "project", "mode": "ultra"}),
        )
        .await;
    let id = thread(&r);
    s.call(
        "call_perplexity_computer",
        json!({"message": "Now go deeper on the two cheapest.", "thread_id": id,
               "model": "claude-opus-4-5", "effort": "high"}),
    )
    .await;
    s.call(
        "call_perplexity_computer",
        json!({"message": "Thanks. A short recap, please.", "thread_id": id}),
    )
    .await;
    s.call("read_thread", json!({"thread_id": id})).await;
    s.snapshot("project-settings");
}

#[tokio::test(start_paused = true)]
async fn thread_assets() {
    let mut s = Script::new().await;
    let r = s
        .call(
            "call_perplexity_computer",
            json!({"message": "#thread-assets Collect product photos for all 41 catalog items."}),
        )
        .await;
    let id = thread(&r);
    let second = s
        .call(
            "call_perplexity_computer",
            json!({"message": "Now write the catalog from them.", "thread_id": id}),
        )
        .await;
    let read = s.call("read_thread", json!({"thread_id": id})).await;
    let latest = read
        .pointer("/web_state/entries")
        .and_then(Value::as_array)
        .and_then(|e| e.last())
        .map(|e| field(e, "/entry_id"))
        .expect("an entry");
    // The latest turn's files: two empty filtered pages before the one that holds them.
    let mut cursor: Option<String> = None;
    loop {
        let mut args = json!({"thread_id": id, "entry_id": latest});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = s.call("list_thread_assets", args).await;
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    // Two hours later the link in the result has expired; a fresh one works.
    s.advance(Duration::from_secs(7200));
    s.open(&field(&second, "/files/0/url")).await;
    let mut cursor: Option<String> = None;
    let catalog = loop {
        let mut args = json!({"thread_id": id});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = s.call("list_thread_assets", args).await;
        if let Some(a) = page["assets"]
            .as_array()
            .and_then(|all| all.iter().find(|a| a["filename"] == "catalog.pdf"))
        {
            break field(a, "/asset_id");
        }
        cursor = Some(field(&page, "/next_cursor"));
    };
    let fresh = s
        .call(
            "create_asset_download",
            json!({"thread_id": id, "asset_id": catalog}),
        )
        .await;
    s.open(&field(&fresh, "/url")).await;
    s.snapshot("thread-assets");
}
