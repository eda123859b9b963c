//! Every refusal in its surface's documented shape: bodies up to the MCP endpoint's 4 MiB limit
//! are served (not refused by a smaller default), other methods on the MCP URL get 405 with a
//! JSON-RPC error, a path id that is not UTF-8 gets the Agent API's envelope, and a POST to the
//! upload endpoint that is not a form upload gets S3's XML.

use axum::body::Body;
use http::{Request, StatusCode};
use serde_json::json;

use crate::common::{MCP, Mock};

#[tokio::test(start_paused = true)]
async fn an_mcp_body_between_2_and_4_mib_is_answered_as_json_rpc() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    // 3 MiB: over axum's 2 MB default, under the documented 4 MiB.
    let padding = "x".repeat(3 * 1024 * 1024);
    let reply = client.rpc("ping", json!({"padding": padding})).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.headers);
    assert_eq!(reply.body["jsonrpc"], "2.0");
    assert_eq!(reply.body["result"], json!({}), "{:?}", reply.body);
}

#[tokio::test(start_paused = true)]
async fn the_oauth_endpoints_take_bodies_up_to_4_mib_too() {
    let mock = Mock::new();
    let padding = "x".repeat(3 * 1024 * 1024);
    let reply = mock
        .post_json(
            "/oauth/register",
            json!({"redirect_uris": 1, "padding": padding}),
        )
        .await;
    // Read and refused on its merits (an OAuth error body), not by size as plain text.
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{:?}", reply.headers);
    assert_eq!(
        reply.body["error"], "invalid_redirect_uri",
        "{:?}",
        reply.body
    );
}

#[tokio::test(start_paused = true)]
async fn put_and_patch_on_the_mcp_url_are_405_with_a_json_rpc_error() {
    let mock = Mock::new();
    for method in ["PUT", "PATCH"] {
        let request = Request::builder()
            .method(method)
            .uri(MCP)
            .header("authorization", "Bearer alice-dev-token")
            .header("content-type", "application/json")
            .body(Body::from(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#))
            .expect("request");
        let reply = mock.send(request).await;
        assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{method}");
        assert_eq!(reply.headers["allow"], "GET, POST, DELETE", "{method}");
        assert_eq!(reply.body["jsonrpc"], "2.0", "{method}: {:?}", reply.body);
        assert_eq!(reply.body["id"], json!(null), "{method}");
        assert_eq!(reply.body["error"]["code"], -32000, "{method}");
        let message = reply.body["error"]["message"].as_str().expect("a sentence");
        assert!(message.contains(&format!("not {method}")), "{message}");
        assert!(message.contains("POST"), "{message}");
    }
}

/// `HEAD` on the MCP URL is `GET` without its body (as axum's method routing gives it): the
/// standalone stream's head, and a stream that ends at once instead of staying open.
#[tokio::test(start_paused = true)]
async fn head_on_the_mcp_url_is_the_get_stream_without_its_body() {
    let mock = Mock::new();
    let client = mock.session("alice-dev-token").await;
    let session = client.session.clone().expect("a session");
    let head = |method: &str| {
        Request::builder()
            .method(method)
            .uri(MCP)
            .header("authorization", "Bearer alice-dev-token")
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .body(Body::empty())
            .expect("request")
    };
    let reply = mock.send(head("HEAD")).await;
    assert_eq!(reply.status, StatusCode::OK, "{:?}", reply.headers);
    assert_eq!(reply.headers["content-type"], "text/event-stream");
    assert!(reply.events.is_empty(), "{:?}", reply.events);
    // A HEAD answer has no body of its own to announce a length for.
    assert!(
        !reply.headers.contains_key("content-length"),
        "{:?}",
        reply.headers
    );
    // Without a session it is refused as GET is, with no body either.
    let mut unknown = head("HEAD");
    unknown.headers_mut().remove("mcp-session-id");
    let (status, headers) = mock.send_head(unknown).await;
    assert!(!headers.contains_key("content-length"), "{headers:?}");
    let mut get = head("GET");
    get.headers_mut().remove("mcp-session-id");
    assert_eq!(status, mock.send(get).await.status);
}

#[tokio::test(start_paused = true)]
async fn an_agent_path_id_that_is_not_utf8_is_refused_in_the_envelope() {
    let mock = Mock::new();
    for path in [
        "/v1/agent/%FF",
        "/v1/responses/%FF/cancel",
        "/v1/agent/resp_1/files/%C3%28/content",
    ] {
        let method = if path.ends_with("/cancel") {
            "POST"
        } else {
            "GET"
        };
        let request = Request::builder()
            .method(method)
            .uri(path)
            .header("authorization", "Bearer alice-dev-token")
            .body(Body::empty())
            .expect("request");
        let reply = mock.send(request).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "{path}: {:?}",
            reply.body
        );
        assert_eq!(reply.body["error"]["type"], "invalid_request", "{path}");
        assert_eq!(reply.body["error"]["code"], 400, "{path}");
        let message = reply.body["error"]["message"].as_str().expect("message");
        assert!(message.starts_with("invalid response id"), "{message}");
        assert!(message.contains("UTF-8"), "{message}");
        assert!(reply.headers.contains_key("x-request-id"), "{path}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_post_to_the_upload_endpoint_that_is_not_a_form_gets_s3_xml() {
    let mock = Mock::new();
    for content_type in [Some("application/json"), Some("text/plain"), None] {
        let mut request = Request::post("/_mock/uploads");
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let reply = mock
            .send(request.body(Body::from("{}")).expect("request"))
            .await;
        assert_eq!(
            reply.status,
            StatusCode::PRECONDITION_FAILED,
            "{content_type:?}"
        );
        assert_eq!(reply.headers["content-type"], "application/xml");
        let body = reply.body.as_str().expect("an XML body");
        assert!(body.starts_with("<?xml"), "{body}");
        assert!(body.contains("<Code>PreconditionFailed</Code>"), "{body}");
        assert!(body.contains("multipart/form-data"), "{body}");
    }
}
