//! What a file's facts can be besides an hour-long link and known values: download URLs that
//! last less than an hour, and the documented `null`s of results and asset listings.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Mock, keys, text_json, thread_id};

#[tokio::test(start_paused = true)]
async fn a_download_url_can_last_less_than_an_hour() {
    // "File download URLs are valid for up to one hour. expires_in_seconds is the time
    // remaining on the URL you received, which can be less than an hour."
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = text_json(
        &client
            .call(
                "call_perplexity_computer",
                json!({"message": "#short-download-links Plan a week in Kyoto"}),
            )
            .await,
    );
    let thread = thread_id(&first);
    let shown = first["files"][0]["url"].as_str().expect("url").to_owned();
    let listed = client
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;
    let asset = listed["assets"][0]["asset_id"].clone();
    let download = client
        .call_json(
            "create_asset_download",
            json!({"thread_id": thread, "asset_id": asset}),
        )
        .await;
    assert_eq!(download["expires_in_seconds"], 900);
    let url = download["url"].as_str().expect("url").to_owned();
    assert_eq!(mock.get(&url).await.status, 200);

    // The number is what the URL really has left: after it, both links are refused.
    mock.advance(Duration::from_secs(901));
    assert_eq!(mock.get(&url).await.status, 403);
    assert_eq!(mock.get(&shown).await.status, 403);

    // "Call create_asset_download again whenever you need a new URL."
    let again = client
        .call_json(
            "create_asset_download",
            json!({"thread_id": thread, "asset_id": asset}),
        )
        .await;
    assert_eq!(again["expires_in_seconds"], 900);
    let fresh = again["url"].as_str().expect("url");
    assert_eq!(mock.get(fresh).await.status, 200);
}

#[tokio::test(start_paused = true)]
async fn a_file_can_have_every_documented_null() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = text_json(
        &client
            .call(
                "call_perplexity_computer",
                json!({"message": "#unknown-file-facts Export the records"}),
            )
            .await,
    );
    // files: "Each has filename, media_type, size_bytes, and url; media_type and size_bytes
    // can be null."
    let file = &result["files"][0];
    assert_eq!(keys(file), ["filename", "media_type", "size_bytes", "url"]);
    assert_eq!(file["media_type"], Value::Null);
    assert_eq!(file["size_bytes"], Value::Null);

    let listed = client
        .call_json(
            "list_thread_assets",
            json!({"thread_id": thread_id(&result)}),
        )
        .await;
    let asset = &listed["assets"][0];
    // mime_type: "Content type guessed from the file name" (nothing to guess from
    // `export.dat`); size_bytes: "null when unknown"; is_primary_asset: "null when the source
    // turn is unavailable".
    for field in ["mime_type", "size_bytes", "is_primary_asset"] {
        assert!(
            asset.get(field).is_some_and(Value::is_null),
            "{field}: {asset:#}"
        );
    }
    assert_eq!(asset["filename"], "export.dat");

    // The file itself is there all the same.
    let download = mock.get(file["url"].as_str().expect("url")).await;
    assert_eq!(download.status, 200);
}
