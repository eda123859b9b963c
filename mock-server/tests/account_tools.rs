//! Account tools: `models_list`, `projects_list` and `create_attachment_upload` with its upload.

use serde_json::{Value, json};

use crate::common::{self, BASE, Mock, keys, text, text_json};

#[tokio::test(start_paused = true)]
async fn models_list_offers_the_paid_plan_every_mode_and_model() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client.call("models_list", json!({})).await;
    let list = text_json(&raw);

    assert_eq!(raw["structuredContent"], list);
    assert_eq!(
        keys(&list),
        ["default_mode", "default_model", "models", "modes"]
    );
    assert_eq!(list["default_mode"], "standard");
    assert_eq!(list["default_model"], "claude-opus-4-5");
    let modes: Vec<&str> = list["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .filter_map(|m| m["mode"].as_str())
        .collect();
    assert_eq!(modes, ["light", "standard", "high", "ultra"]);
    for mode in list["modes"].as_array().expect("modes") {
        assert_eq!(keys(mode), ["effort", "mode", "model"]);
    }
    let models = list["models"].as_array().expect("models");
    assert_eq!(models.len(), 4);
    for model in models {
        assert_eq!(
            keys(model),
            [
                "default_effort",
                "description",
                "efforts",
                "fast",
                "id",
                "label"
            ]
        );
    }
    assert!(models.iter().any(|m| m["fast"] == true));
}

#[tokio::test(start_paused = true)]
async fn models_list_offers_the_free_plan_fewer_options() {
    let mock = Mock::new();
    let mut client = mock.session("bob-dev-token").await;

    let list = client.call_json("models_list", json!({})).await;

    let modes: Vec<&str> = list["modes"]
        .as_array()
        .expect("modes")
        .iter()
        .filter_map(|m| m["mode"].as_str())
        .collect();
    assert_eq!(modes, ["light", "standard"]);
    let models: Vec<&str> = list["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(models, ["sonar-fast", "claude-sonnet-4-5"]);
    assert_eq!(list["default_model"], "claude-sonnet-4-5");
}

#[tokio::test(start_paused = true)]
async fn projects_list_returns_the_accounts_projects_with_the_documented_fields() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let list = client.call_json("projects_list", json!({})).await;

    assert_eq!(keys(&list), ["next_cursor", "projects"]);
    assert_eq!(list["next_cursor"], Value::Null);
    let projects = list["projects"].as_array().expect("projects");
    assert_eq!(projects.len(), 2);
    for project in projects {
        assert_eq!(
            keys(project),
            [
                "description",
                "knowledge_enabled",
                "landing_category",
                "name",
                "project_url",
                "project_uuid",
                "role"
            ]
        );
        let url = project["project_url"].as_str().expect("project_url");
        assert!(url.starts_with(BASE));
        assert_eq!(mock.get(url).await.status, 200);
    }
    assert_eq!(projects[0]["name"], "Quarterly board report");
    assert_eq!(projects[0]["role"], "owner");
    assert_eq!(projects[0]["landing_category"], "pinned");
    assert_eq!(projects[0]["knowledge_enabled"], true);
}

#[tokio::test(start_paused = true)]
async fn projects_list_filters_by_search_term() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let list = client
        .call_json(
            "projects_list",
            json!({"search_term": "competitor pricing"}),
        )
        .await;

    let names: Vec<&str> = list["projects"]
        .as_array()
        .expect("projects")
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["Competitor research"]);

    let none = client
        .call_json("projects_list", json!({"search_term": "kangaroo"}))
        .await;
    assert_eq!(none["projects"], json!([]));
}

#[tokio::test(start_paused = true)]
async fn a_project_uuid_from_projects_list_starts_a_conversation() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let list = client.call_json("projects_list", json!({})).await;

    let result = client
        .call_json(
            "call_perplexity_computer",
            json!({
                "message": "#complete Summarize the top stories",
                "project_uuid": list["projects"][0]["project_uuid"],
                "project_visibility": "project",
            }),
        )
        .await;

    assert_eq!(result["event"], "complete");
}

async fn envelope(client: &mut common::Client, size: u64) -> Value {
    client
        .call_json(
            "create_attachment_upload",
            json!({"filename": "notes.txt", "mime_type": "text/plain", "size_bytes": size}),
        )
        .await
}

#[tokio::test(start_paused = true)]
async fn create_attachment_upload_returns_the_envelope() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let envelope = envelope(&mut client, 11).await;

    assert_eq!(
        keys(&envelope),
        ["attachment_url", "upload_fields", "upload_url"]
    );
    let fields = &envelope["upload_fields"];
    for field in ["key", "policy", "x-amz-signature"] {
        assert!(fields[field].is_string(), "{field} in {fields}");
    }
    let key = fields["key"].as_str().expect("key");
    assert!(
        key.starts_with("uploads/") && key.ends_with("/notes.txt"),
        "{key}"
    );
    assert!(
        envelope["attachment_url"]
            .as_str()
            .unwrap_or("")
            .ends_with(key)
    );
    assert!(
        envelope["upload_url"]
            .as_str()
            .unwrap_or("")
            .starts_with(BASE)
    );
}

#[tokio::test(start_paused = true)]
async fn an_attachment_over_the_free_plan_limit_is_refused_for_bob_but_not_alice() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    let mut alice = mock.session("alice-dev-token").await;
    let size = 26 * 1024 * 1024;
    let args = json!({"filename": "video.mp4", "mime_type": "video/mp4", "size_bytes": size});

    let raw = bob.call("create_attachment_upload", args.clone()).await;

    assert_eq!(raw["isError"], true);
    let message = text(&text_json(&raw)).to_owned();
    assert!(message.contains("25 MB"), "{message}");
    let ok = alice.call("create_attachment_upload", args).await;
    assert_eq!(ok["isError"], false, "{ok}");
}

#[tokio::test(start_paused = true)]
async fn a_multipart_post_with_every_field_and_the_file_is_204_and_the_attachment_url_serves_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let envelope = envelope(&mut client, 11).await;
    let fields = envelope["upload_fields"]
        .as_object()
        .expect("fields")
        .clone();

    let posted = mock.upload(&envelope, &fields, b"hello world").await;

    assert_eq!(posted.status, 204, "{posted:?}");
    let served = mock
        .get_as(
            envelope["attachment_url"].as_str().expect("url"),
            "alice-dev-token",
        )
        .await;
    assert_eq!(served.status, 200);
    assert_eq!(served.body, Value::String("hello world".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn a_tampered_field_is_refused_with_an_s3_xml_error() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let envelope = envelope(&mut client, 11).await;
    let mut fields = envelope["upload_fields"]
        .as_object()
        .expect("fields")
        .clone();
    fields.insert("x-amz-signature".to_owned(), json!("0000forged0000"));

    let posted = mock.upload(&envelope, &fields, b"hello world").await;

    assert_eq!(posted.status, 403);
    assert_eq!(posted.headers["content-type"], "application/xml");
    let body = posted.body.as_str().expect("xml");
    assert!(body.contains("<Code>AccessDenied</Code>"), "{body}");
    assert!(body.contains("x-amz-signature"), "{body}");
    let served = mock
        .get_as(
            envelope["attachment_url"].as_str().expect("url"),
            "alice-dev-token",
        )
        .await;
    assert_eq!(served.status, 404, "nothing was stored");
}

#[tokio::test(start_paused = true)]
async fn an_upload_after_the_envelope_expired_is_refused() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let envelope = envelope(&mut client, 11).await;
    let fields = envelope["upload_fields"]
        .as_object()
        .expect("fields")
        .clone();

    mock.advance(std::time::Duration::from_secs(11 * 60));
    let posted = mock.upload(&envelope, &fields, b"hello world").await;

    assert_eq!(posted.status, 403);
    let body = posted.body.as_str().expect("xml");
    assert!(body.contains("<Code>AccessDenied</Code>"), "{body}");
    assert!(body.contains("expired"), "{body}");
}

#[tokio::test(start_paused = true)]
async fn a_file_larger_than_declared_is_refused() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let envelope = envelope(&mut client, 5).await;
    let fields = envelope["upload_fields"]
        .as_object()
        .expect("fields")
        .clone();

    let posted = mock.upload(&envelope, &fields, b"hello world").await;

    assert_eq!(posted.status, 400);
    let body = posted.body.as_str().expect("xml");
    assert!(body.contains("<Code>EntityTooLarge</Code>"), "{body}");
}

#[tokio::test(start_paused = true)]
async fn an_uploaded_attachment_goes_with_the_message() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let attachment = client
        .attach("report.txt", b"Q3 risks: churn, hiring")
        .await;

    let result = client
        .call_json(
            "call_perplexity_computer",
            json!({
                "message": "#complete Summarize this report and pull out the key risks.",
                "attachment_urls": [attachment],
            }),
        )
        .await;

    assert_eq!(result["event"], "complete");
    let read = client
        .read(result["thread_id"].as_str().expect("thread"))
        .await;
    assert!(text(&read).contains(&attachment), "{read}");
}

#[tokio::test(start_paused = true)]
async fn an_attachment_url_that_was_never_uploaded_is_refused_before_anything_is_sent() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let envelope = envelope(&mut client, 11).await;
    let never_posted = envelope["attachment_url"].as_str().expect("url");

    for url in [never_posted, "https://example.com/secret.pdf"] {
        let raw = client
            .call(
                "call_perplexity_computer",
                json!({"message": "#complete Summarize this", "attachment_urls": [url]}),
            )
            .await;
        assert_eq!(raw["isError"], true, "{raw}");
        let result = text_json(&raw);
        assert!(text(&result).contains("`attachment_urls`"), "{result}");
        assert!(text(&result).contains(url), "{result}");
        assert!(result.get("thread_id").is_none());
    }
}

#[tokio::test(start_paused = true)]
async fn bob_cannot_attach_a_file_alice_uploaded() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let mut bob = mock.session("bob-dev-token").await;
    let attachment = alice.attach("private.txt", b"alice's notes").await;

    let raw = bob
        .call(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize this", "attachment_urls": [attachment]}),
        )
        .await;

    assert_eq!(raw["isError"], true, "{raw}");
}
