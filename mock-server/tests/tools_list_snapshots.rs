//! The `tools/list` answer of each protocol era, pinned whole (every tool, schema and annotation,
//! in wire order): a client caches it, and an unintended change to one description or schema
//! shows up here as a diff.

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::modern::MODERN;

/// Asserts a `tools/list` response body against `snapshots/tools-list-<era>.snap`; the server's
/// own version is replaced so the snapshot only changes with the catalog.
fn snapshot(era: &str, body: &Value) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(format!("tools/list, protocol {era}"));
    settings.add_filter(
        &format!(
            r#""version": "{}""#,
            regex::escape(env!("CARGO_PKG_VERSION"))
        ),
        r#""version": "[server version]""#,
    );
    settings.bind(|| insta::assert_json_snapshot!(format!("tools-list-{era}"), body));
}

#[tokio::test]
async fn the_handshake_eras_list_the_same_twelve_tools() {
    let mock = Mock::new();
    let mut bodies = Vec::new();
    for version in ["2025-06-18", "2025-11-25"] {
        let mut client = mock.session_at("alice-dev-token", version).await;
        bodies.push(client.rpc("tools/list", json!({})).await.body);
    }
    assert!(bodies.windows(2).all(|pair| pair[0] == pair[1]));
    snapshot("handshake", &bodies[0]);
}

/// 2025-03-26 lists the same tools without a tool `title` or `outputSchema`, which exist only
/// from 2025-06-18 on.
#[tokio::test]
async fn the_2025_03_26_era_lists_them_without_title_or_output_schema() {
    let mock = Mock::new();
    let mut client = mock.session_at("alice-dev-token", "2025-03-26").await;
    snapshot(
        "2025-03-26",
        &client.rpc("tools/list", json!({})).await.body,
    );
}

#[tokio::test]
async fn the_stateless_era_lists_them_with_its_caching_hints() {
    let mock = Mock::new();
    let mut client = mock.modern("alice-dev-token");
    let reply = client.rpc("tools/list", json!({})).await;
    snapshot(MODERN, &reply.body);
}
