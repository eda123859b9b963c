//! Files: `files` in results, `resource_link` blocks, downloads, assets and fresh links.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{BASE, Client, Mock, keys, text, text_json, thread_id};

async fn first_turn(client: &mut Client) -> Value {
    client
        .call(
            "call_perplexity_computer",
            json!({"message": "#files Analyze the survey responses"}),
        )
        .await
}

#[tokio::test(start_paused = true)]
async fn a_result_lists_its_files_with_filename_media_type_size_and_url() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = text_json(&first_turn(&mut client).await);

    let files = result["files"].as_array().expect("files");
    let names: Vec<&str> = files
        .iter()
        .filter_map(|f| f["filename"].as_str())
        .collect();
    assert_eq!(names, ["survey-report.pdf", "responses.csv", "site.html"]);
    for file in files {
        assert_eq!(keys(file), ["filename", "media_type", "size_bytes", "url"]);
        assert!(
            file["url"].as_str().unwrap_or("").starts_with(BASE),
            "{file}"
        );
    }
    assert_eq!(files[0]["media_type"], "application/pdf");
    assert_eq!(files[1]["media_type"], "text/csv");
    assert_eq!(files[1]["size_bytes"], "respondent,score\n1,9\n2,7\n".len());
    assert_eq!(files[2]["media_type"], "text/html");
    for file in files {
        let link = format!(
            "[{}]({})",
            file["filename"].as_str().unwrap_or(""),
            file["url"].as_str().unwrap_or("")
        );
        assert!(
            text(&result).contains(&link),
            "{link} is linked in text: {result}"
        );
    }
    assert!(!text(&result).contains("(attached)"), "{result}");
}

fn resource_links(raw: &Value) -> Vec<Value> {
    raw["content"].as_array().expect("content")[1..].to_vec()
}

#[tokio::test(start_paused = true)]
async fn clients_on_2025_06_18_and_later_get_resource_link_blocks_after_the_text_block() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mock = Mock::new();
        let mut client = mock.session_at("alice-dev-token", version).await;
        assert_eq!(client.version, version);

        let raw = first_turn(&mut client).await;
        let result = text_json(&raw);

        assert_eq!(raw["content"][0]["type"], "text");
        let links = resource_links(&raw);
        let files = result["files"].as_array().expect("files");
        assert_eq!(links.len(), files.len(), "{version}");
        for (link, file) in links.iter().zip(files) {
            assert_eq!(link["type"], "resource_link");
            assert_eq!(link["uri"], file["url"]);
            assert_eq!(link["name"], file["filename"]);
            assert_eq!(link["mimeType"], file["media_type"]);
            assert_eq!(link["size"], file["size_bytes"]);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_2025_03_26_client_gets_no_resource_link_blocks() {
    let mock = Mock::new();
    let mut client = mock.session_at("alice-dev-token", "2025-03-26").await;
    assert_eq!(client.version, "2025-03-26");

    let raw = first_turn(&mut client).await;

    assert_eq!(raw["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(text_json(&raw)["files"].as_array().map(Vec::len), Some(3));
}

#[tokio::test(start_paused = true)]
async fn a_download_url_serves_the_file_bytes() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = text_json(&first_turn(&mut client).await);

    let download = mock
        .get(result["files"][1]["url"].as_str().expect("url"))
        .await;

    assert_eq!(download.status, 200);
    assert_eq!(download.headers["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        download.body,
        Value::String("respondent,score\n1,9\n2,7\n".to_owned())
    );
}

#[tokio::test(start_paused = true)]
async fn a_pdf_download_is_a_real_pdf_of_the_size_listed() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = text_json(&first_turn(&mut client).await);
    let report = &result["files"][0];
    assert_eq!(report["filename"], "survey-report.pdf");

    let download = mock.get(report["url"].as_str().expect("url")).await;

    assert_eq!(download.status, 200);
    assert_eq!(download.headers["content-type"], "application/pdf");
    let body = download.body.as_str().expect("a PDF of ASCII text");
    assert!(
        body.starts_with("%PDF-1.4\n") && body.ends_with("%%EOF\n"),
        "{body}"
    );
    assert!(body.contains("/Type /Page "), "one page: {body}");
    assert_eq!(report["size_bytes"], body.len());
}

#[tokio::test(start_paused = true)]
async fn a_published_website_is_served_by_the_mock_at_its_published_url() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(&first_turn(&mut client).await);
    let thread = thread_id(&first);
    let listed = text_json(
        &client
            .call("list_thread_assets", json!({"thread_id": thread}))
            .await,
    );
    let site = listed["assets"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["filename"] == "site.html"))
        .expect("the site is listed");
    let url = site["published_url"].as_str().expect("published_url");
    let site_id = site["asset_id"].as_str().expect("asset_id");
    assert_eq!(url, format!("{BASE}/_mock/sites/{site_id}/"));
    assert!(
        first["text"].as_str().is_some_and(|t| t.contains(url)),
        "the answer names the site where it is: {}",
        first["text"]
    );

    let page = mock.get(url).await;
    assert_eq!(page.status, 200);
    assert_eq!(page.headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(
        page.body,
        Value::String("<h1>Survey results</h1>".to_owned())
    );

    // Public and lasting: a day and more later, with no token, it still opens.
    mock.advance(Duration::from_secs(3 * 24 * 3600));
    assert_eq!(mock.get(url).await.status, 200);
    let bare = mock.get(url.trim_end_matches('/')).await;
    assert_eq!(
        bare.status, 308,
        "the address without its / sends the browser there"
    );
    assert_eq!(
        bare.headers["location"],
        format!("/_mock/sites/{site_id}/").as_str()
    );
    let unknown = mock.get("/_mock/sites/asset_unknown/").await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test(start_paused = true)]
async fn list_thread_assets_shows_versions_primary_assets_and_the_published_site() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(&first_turn(&mut client).await);
    let thread = thread_id(&first);
    let second = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Add the new chart to the report", "thread_id": thread}),
        )
        .await;
    assert_eq!(second["files"][0]["filename"], "survey-report.pdf");

    let listed = client
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;

    assert_eq!(keys(&listed), ["assets", "next_cursor"]);
    assert_eq!(listed["next_cursor"], Value::Null);
    let assets = listed["assets"].as_array().expect("assets");
    assert_eq!(assets.len(), 4);
    for asset in assets {
        assert_eq!(
            keys(asset),
            [
                "asset_id",
                "asset_type",
                "created_at",
                "entry_id",
                "filename",
                "is_primary_asset",
                "mime_type",
                "parent_asset_id",
                "published_url",
                "root_asset_id",
                "size_bytes"
            ]
        );
        assert!(asset["created_at"].is_i64(), "{asset}");
    }
    let (report_v1, csv, site, report_v2) = (&assets[0], &assets[1], &assets[2], &assets[3]);
    assert_eq!(report_v1["filename"], "survey-report.pdf");
    assert_eq!(report_v1["asset_type"], "file");
    assert_eq!(report_v1["is_primary_asset"], true);
    assert_eq!(report_v1["root_asset_id"], Value::Null);
    assert_eq!(report_v1["parent_asset_id"], Value::Null);
    assert_eq!(report_v1["published_url"], Value::Null);
    assert_eq!(csv["is_primary_asset"], false);
    assert_eq!(csv["mime_type"], "text/csv");
    assert!(
        site["published_url"]
            .as_str()
            .is_some_and(|u| u.starts_with(&format!("{BASE}/_mock/sites/asset_"))),
        "{site}"
    );
    assert_eq!(site["asset_type"], "app");
    assert_eq!(report_v2["filename"], "survey-report.pdf");
    assert_eq!(report_v2["root_asset_id"], report_v1["asset_id"]);
    assert_eq!(report_v2["parent_asset_id"], report_v1["asset_id"]);
    assert_ne!(report_v2["entry_id"], report_v1["entry_id"]);
    assert_eq!(report_v1["entry_id"], csv["entry_id"]);

    let only_second = client
        .call_json(
            "list_thread_assets",
            json!({"thread_id": thread, "entry_id": report_v2["entry_id"]}),
        )
        .await;
    assert_eq!(only_second["assets"], json!([report_v2]));
}

#[tokio::test(start_paused = true)]
async fn create_asset_download_gives_a_fresh_hour_long_url_and_null_for_the_website() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(&first_turn(&mut client).await);
    let thread = thread_id(&first);
    let listed = client
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;
    let csv = listed["assets"][1]["asset_id"].clone();
    let site = listed["assets"][2]["asset_id"].clone();

    let download = client
        .call_json(
            "create_asset_download",
            json!({"thread_id": thread, "asset_id": csv}),
        )
        .await;

    assert_eq!(keys(&download), ["asset_id", "expires_in_seconds", "url"]);
    assert_eq!(download["asset_id"], csv);
    assert_eq!(download["expires_in_seconds"], 3600);
    let url = download["url"].as_str().expect("url");
    assert_ne!(url, first["files"][1]["url"], "a fresh URL");
    assert_eq!(mock.get(url).await.status, 200);

    let preview = client
        .call_json(
            "create_asset_download",
            json!({"thread_id": thread, "asset_id": site}),
        )
        .await;
    assert_eq!(preview["expires_in_seconds"], Value::Null);
    assert_eq!(
        mock.get(preview["url"].as_str().expect("url")).await.status,
        200
    );
}

/// docs/where-documents-are-silent.md, "An expired or unknown download link answers 403 in
/// plain text": "`403` with a one-line `text/plain` body that says to call
/// `create_asset_download` for a fresh link".
#[tokio::test(start_paused = true)]
async fn an_expired_download_url_is_refused_with_403_and_a_sentence() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(&first_turn(&mut client).await);
    let thread = thread_id(&first);
    let url = first["files"][1]["url"].as_str().expect("url").to_owned();

    mock.advance(Duration::from_secs(2 * 3600));
    let expired = mock.get(&url).await;

    assert_eq!(expired.status, 403);
    let message = expired.body.as_str().expect("a text body");
    assert!(message.contains("expired"), "{message}");
    assert!(message.contains("create_asset_download"), "{message}");

    let listed = client
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;
    let fresh = client
        .call_json(
            "create_asset_download",
            json!({"thread_id": thread, "asset_id": listed["assets"][1]["asset_id"]}),
        )
        .await;
    assert_eq!(
        mock.get(fresh["url"].as_str().expect("url")).await.status,
        200
    );
}

#[tokio::test(start_paused = true)]
async fn an_unknown_asset_id_is_an_error_naming_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(&first_turn(&mut client).await);

    let raw = client
        .call(
            "create_asset_download",
            json!({"thread_id": thread_id(&first), "asset_id": "asset_nope"}),
        )
        .await;

    assert_eq!(raw["isError"], true);
    assert!(text(&text_json(&raw)).contains("asset_nope"));
}

#[tokio::test(start_paused = true)]
async fn a_website_preview_url_lasts_a_day() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(&first_turn(&mut client).await);
    let site_url = first["files"][2]["url"].as_str().expect("url").to_owned();
    let pdf_url = first["files"][0]["url"].as_str().expect("url").to_owned();

    mock.advance(Duration::from_secs(23 * 3600));
    assert_eq!(mock.get(&site_url).await.status, 200);
    assert_eq!(mock.get(&pdf_url).await.status, 403);

    mock.advance(Duration::from_secs(2 * 3600));
    assert_eq!(mock.get(&site_url).await.status, 403);
}
