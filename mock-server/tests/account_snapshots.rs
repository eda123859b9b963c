//! Snapshots of the account world's results, as a client receives them: modes and models per
//! plan, a page of Projects, an upload envelope and a thread's assets.

use serde_json::{Value, json};

use crate::common::{Mock, thread_id};

/// Asserts `value` against `snapshots/account-<name>.snap`, with generated ids, tokens and
/// signatures replaced so the snapshot only changes when the shape or the fixture does.
fn snapshot(name: &str, description: &str, value: &Value) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(description);
    settings.add_filter(
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "[uuid]",
    );
    settings.add_filter(r"asset_[0-9a-f]{32}", "[asset]");
    settings.add_filter(r"/_mock/files/[0-9a-f]{32}/", "/_mock/files/[token]/");
    settings.add_filter(
        r#""x-amz-signature": "[0-9a-f]{32}""#,
        r#""x-amz-signature": "[signature]""#,
    );
    settings.add_filter(
        r#""policy": "[A-Za-z0-9+/=]+""#,
        r#""policy": "[base64 policy]""#,
    );
    settings.bind(|| insta::assert_json_snapshot!(format!("account-{name}"), value));
}

#[tokio::test(start_paused = true)]
async fn models_list_for_the_paid_and_the_free_plan() {
    let mock = Mock::new();
    let alice = mock
        .session("alice-dev-token")
        .await
        .call_json("models_list", json!({}))
        .await;
    let bob = mock
        .session("bob-dev-token")
        .await
        .call_json("models_list", json!({}))
        .await;
    snapshot(
        "models-list",
        "models_list for alice (paid, us) and bob (free, eu)",
        &json!({"alice": alice, "bob": bob}),
    );
}

#[tokio::test(start_paused = true)]
async fn projects_list_first_page() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let page = alice.call_json("projects_list", json!({})).await;
    snapshot(
        "projects-list",
        "projects_list for alice, first page",
        &page,
    );
}

#[tokio::test(start_paused = true)]
async fn create_attachment_upload_envelope() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let envelope = alice
        .call_json(
            "create_attachment_upload",
            json!({"filename": "report.pdf", "mime_type": "application/pdf", "size_bytes": 482190}),
        )
        .await;
    snapshot(
        "upload-envelope",
        "create_attachment_upload for report.pdf (482190 bytes)",
        &envelope,
    );
}

#[tokio::test(start_paused = true)]
async fn list_thread_assets_and_a_fresh_download() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let first = alice.start("#files Analyze the survey").await;
    let thread = thread_id(&first);
    alice
        .call_json(
            "call_perplexity_computer",
            json!({"thread_id": thread, "message": "Add the new chart"}),
        )
        .await;
    let assets = alice
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;
    let asset_id = assets["assets"][0]["asset_id"].clone();
    let download = alice
        .call_json(
            "create_asset_download",
            json!({"thread_id": thread, "asset_id": asset_id}),
        )
        .await;
    snapshot(
        "thread-assets",
        "list_thread_assets after the files scenario's two turns, then create_asset_download",
        &json!({"list_thread_assets": assets, "create_asset_download": download}),
    );
}
