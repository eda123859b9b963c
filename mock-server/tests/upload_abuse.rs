//! Upload POSTs that are not what the envelope allows: cut short, without a file part, with the
//! key of another envelope, a policy from another envelope, or an envelope already used. Each
//! gets an S3-style error and stores nothing; and the stored bytes go only to their owner.

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::{Map, Value, json};

use crate::common::{self, BASE, Mock, multipart};

async fn envelope(client: &mut common::Client, size: usize) -> (Value, Map<String, Value>) {
    let envelope = client
        .call_json(
            "create_attachment_upload",
            json!({"filename": "notes.txt", "mime_type": "text/plain", "size_bytes": size}),
        )
        .await;
    let fields = envelope["upload_fields"]
        .as_object()
        .expect("upload_fields")
        .clone();
    (envelope, fields)
}

async fn post_raw(mock: &Mock, content_type: &str, body: Vec<u8>) -> common::Reply {
    mock.send(
        Request::post("/_mock/uploads")
            .header("content-type", content_type)
            .body(Body::from(body))
            .expect("request"),
    )
    .await
}

fn assert_s3_error(reply: &common::Reply, status: StatusCode, code: &str) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(reply.headers["content-type"], "application/xml");
    let body = reply.body.as_str().expect("xml");
    assert!(body.contains(&format!("<Code>{code}</Code>")), "{body}");
}

/// `GET attachment_url` with `token` (none: no `Authorization`).
async fn fetch(mock: &Mock, envelope: &Value, token: Option<&str>) -> common::Reply {
    let url = envelope["attachment_url"].as_str().expect("url");
    let mut request = Request::get(url.strip_prefix(BASE).unwrap_or(url));
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    mock.send(request.body(Body::empty()).expect("request"))
        .await
}

/// What the envelope's owner (alice) gets for its `attachment_url`.
async fn stored(mock: &Mock, envelope: &Value) -> StatusCode {
    fetch(mock, envelope, Some("alice-dev-token")).await.status
}

#[tokio::test(start_paused = true)]
async fn a_body_cut_short_of_its_multipart_end_is_refused_as_malformed() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (envelope, fields) = envelope(&mut alice, 11).await;
    let (content_type, mut body) = multipart(&fields, "notes.txt", b"hello world");
    body.truncate(body.len() - 20);
    let reply = post_raw(&mock, &content_type, body).await;
    assert_s3_error(&reply, StatusCode::BAD_REQUEST, "MalformedPOSTRequest");
    assert_eq!(stored(&mock, &envelope).await, StatusCode::NOT_FOUND);
}

#[tokio::test(start_paused = true)]
async fn a_post_without_a_file_part_is_refused() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (envelope, fields) = envelope(&mut alice, 11).await;
    let (content_type, body) = multipart(&fields, "notes.txt", b"");
    // Rename the file part so the form carries no `file`.
    let body = String::from_utf8(body)
        .expect("utf-8")
        .replace("name=\"file\"", "name=\"attachment\"");
    let reply = post_raw(&mock, &content_type, body.into_bytes()).await;
    assert_s3_error(&reply, StatusCode::BAD_REQUEST, "InvalidArgument");
    assert_eq!(stored(&mock, &envelope).await, StatusCode::NOT_FOUND);
}

#[tokio::test(start_paused = true)]
async fn the_policy_of_one_envelope_does_not_open_another() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (first, first_fields) = envelope(&mut alice, 11).await;
    let (second, mut second_fields) = envelope(&mut alice, 11).await;
    second_fields.insert("policy".to_owned(), first_fields["policy"].clone());
    let reply = mock.upload(&second, &second_fields, b"hello world").await;
    assert_s3_error(&reply, StatusCode::FORBIDDEN, "AccessDenied");
    assert!(reply.body.as_str().unwrap_or_default().contains("policy"));
    assert_eq!(stored(&mock, &first).await, StatusCode::NOT_FOUND);
    assert_eq!(stored(&mock, &second).await, StatusCode::NOT_FOUND);
}

#[tokio::test(start_paused = true)]
async fn a_key_that_no_envelope_names_is_refused() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (envelope, mut fields) = envelope(&mut alice, 11).await;
    fields.insert("key".to_owned(), json!("uploads/forged/notes.txt"));
    let reply = mock.upload(&envelope, &fields, b"hello world").await;
    assert_s3_error(&reply, StatusCode::FORBIDDEN, "AccessDenied");
    assert_eq!(stored(&mock, &envelope).await, StatusCode::NOT_FOUND);
}

#[tokio::test(start_paused = true)]
async fn a_large_upload_goes_through_and_is_served_back_whole() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let file: Vec<u8> = (0..3 * 1024 * 1024 + 17).map(|i| (i % 251) as u8).collect();
    let (envelope, fields) = envelope(&mut alice, file.len()).await;
    let reply = mock.upload(&envelope, &fields, &file).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{:?}", reply.status);
    // As S3 does, the 204 names the stored object, which is the envelope's attachment_url.
    assert_eq!(
        reply.headers.get("location").and_then(|v| v.to_str().ok()),
        envelope["attachment_url"].as_str()
    );
    let served = fetch(&mock, &envelope, Some("alice-dev-token")).await;
    assert_eq!(served.status, StatusCode::OK);
}

#[tokio::test(start_paused = true)]
async fn a_file_part_before_the_envelopes_fields_is_refused() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (envelope, _) = envelope(&mut alice, 11).await;
    let (content_type, body) = multipart(&Map::new(), "notes.txt", b"hello world");
    let reply = post_raw(&mock, &content_type, body).await;
    assert_s3_error(&reply, StatusCode::FORBIDDEN, "AccessDenied");
    assert!(reply.body.as_str().unwrap_or_default().contains("key"));
    assert_eq!(stored(&mock, &envelope).await, StatusCode::NOT_FOUND);
}

#[tokio::test(start_paused = true)]
async fn an_envelope_is_used_once_and_a_second_post_leaves_the_first_file() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (envelope, fields) = envelope(&mut alice, 11).await;
    let first = mock.upload(&envelope, &fields, b"alice's own").await;
    assert_eq!(first.status, StatusCode::NO_CONTENT, "{first:?}");
    // Anyone who saw the envelope (it is in the journal) tries to overwrite the file.
    let again = mock.upload(&envelope, &fields, b"overwritten").await;
    assert_s3_error(&again, StatusCode::FORBIDDEN, "AccessDenied");
    let message = again.body.as_str().unwrap_or_default();
    assert!(message.contains("already used"), "{message}");
    assert!(message.contains("create_attachment_upload"), "{message}");
    let served = fetch(&mock, &envelope, Some("alice-dev-token")).await;
    assert_eq!(served.body, Value::String("alice's own".to_owned()));
}

#[tokio::test(start_paused = true)]
async fn stored_bytes_are_served_only_with_the_owners_token() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let (envelope, fields) = envelope(&mut alice, 11).await;
    let posted = mock.upload(&envelope, &fields, b"hello world").await;
    assert_eq!(posted.status, StatusCode::NO_CONTENT, "{posted:?}");

    let anonymous = fetch(&mock, &envelope, None).await;
    assert_s3_error(&anonymous, StatusCode::FORBIDDEN, "AccessDenied");
    let message = anonymous.body.as_str().unwrap_or_default();
    assert!(message.contains("Authorization: Bearer"), "{message}");
    assert!(!message.contains("hello world"), "{message}");
    let unknown = fetch(&mock, &envelope, Some("not-a-token")).await;
    assert_s3_error(&unknown, StatusCode::FORBIDDEN, "AccessDenied");
    // Another account is told no more than that there is no such key.
    let bob = fetch(&mock, &envelope, Some("bob-dev-token")).await;
    assert_s3_error(&bob, StatusCode::NOT_FOUND, "NoSuchKey");
    let owner = fetch(&mock, &envelope, Some("alice-dev-token")).await;
    assert_eq!(owner.status, StatusCode::OK);
    assert_eq!(owner.body, Value::String("hello world".to_owned()));
}
