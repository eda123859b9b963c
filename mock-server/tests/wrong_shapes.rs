//! No answer of the mock is bare: a path nobody serves, a method a route does not take and a
//! path segment that is not UTF-8 once percent-decoded (`%FF`) are answered, on the control
//! API, the pages and OAuth, in that surface's documented shape with a sentence, not with
//! axum's empty 404/405 or its `text/plain` "Invalid URL".

use axum::body::Body;
use http::{Request, StatusCode};

use crate::common::{Mock, Reply};

async fn send(mock: &Mock, method: &str, path: &str) -> Reply {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .body(Body::empty())
        .expect("request");
    mock.send(request).await
}

/// `{"error": sentence}` with this status, the sentence containing each of `words`.
fn control_shaped(reply: &Reply, status: StatusCode, words: &[&str]) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(
        reply.headers["content-type"], "application/json",
        "{reply:?}"
    );
    let sentence = reply.body["error"].as_str().expect("a sentence");
    for word in words {
        assert!(sentence.contains(word), "{word}: {sentence}");
    }
}

/// RFC 6749's `{"error", "error_description"}` with this status.
fn oauth_shaped(reply: &Reply, status: StatusCode, words: &[&str]) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(reply.body["error"], "invalid_request", "{reply:?}");
    let sentence = reply.body["error_description"]
        .as_str()
        .expect("a sentence");
    for word in words {
        assert!(sentence.contains(word), "{word}: {sentence}");
    }
    assert_eq!(reply.headers["cache-control"], "no-store");
}

#[tokio::test(start_paused = true)]
async fn the_control_api_answers_unknown_paths_and_wrong_methods_in_its_shape() {
    let mock = Mock::new();
    let unknown = send(&mock, "GET", "/_mock/nope").await;
    control_shaped(
        &unknown,
        StatusCode::NOT_FOUND,
        &["GET /_mock/nope", "/_mock"],
    );
    for (method, path, allowed) in [
        ("POST", "/_mock/clock", "GET"),
        ("GET", "/_mock/reset", "POST"),
        ("DELETE", "/_mock/reset", "POST"),
        ("PATCH", "/_mock/faults", "DELETE"),
        ("PUT", "/_mock/uploads/a", "GET"),
    ] {
        let reply = send(&mock, method, path).await;
        control_shaped(
            &reply,
            StatusCode::METHOD_NOT_ALLOWED,
            &[method, path, allowed],
        );
        let allow = reply.headers["allow"].to_str().unwrap_or_default();
        assert!(allow.contains(allowed), "{path}: Allow {allow}");
    }
}

#[tokio::test(start_paused = true)]
async fn oauth_and_its_metadata_answer_unknown_paths_and_wrong_methods_in_rfc_6749s_shape() {
    let mock = Mock::new();
    let token = send(&mock, "GET", "/oauth/token").await;
    oauth_shaped(
        &token,
        StatusCode::METHOD_NOT_ALLOWED,
        &["GET", "/oauth/token", "POST"],
    );
    assert_eq!(token.headers["allow"], "POST");
    for (method, path) in [
        ("GET", "/oauth/register"),
        ("DELETE", "/oauth/authorize"),
        ("POST", "/.well-known/oauth-authorization-server"),
        (
            "POST",
            "/.well-known/oauth-protected-resource/rest/computer/mcp",
        ),
    ] {
        let reply = send(&mock, method, path).await;
        oauth_shaped(&reply, StatusCode::METHOD_NOT_ALLOWED, &[method, path]);
    }
    for path in [
        "/.well-known/nope",
        "/oauth/nope",
        "/.well-known/oauth-protected-resource/%FF",
    ] {
        let reply = send(&mock, "GET", path).await;
        oauth_shaped(
            &reply,
            StatusCode::NOT_FOUND,
            &["/.well-known/oauth-authorization-server"],
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_path_segment_that_is_not_utf_8_is_answered_in_the_surfaces_shape() {
    let mock = Mock::new();
    for (method, path) in [
        ("POST", "/_mock/threads/%FF/actions"),
        ("POST", "/_mock/responses/%FF/cancel"),
        ("POST", "/_mock/accounts/%FF/reset"),
        ("DELETE", "/_mock/agent/responses/%FF"),
    ] {
        let reply = send(&mock, method, path).await;
        control_shaped(&reply, StatusCode::BAD_REQUEST, &["UTF-8"]);
    }
    // Computer's human pages answer with a page, as their other "not found"s do.
    for (method, path) in [
        ("GET", "/_mock/connect/%FF/x"),
        ("POST", "/_mock/forms/%FF/x"),
        ("GET", "/_mock/stop/%FF"),
        ("GET", "/_mock/files/%FF/x"),
        ("GET", "/_mock/sites/%FF/"),
    ] {
        let reply = send(&mock, method, path).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{path}: {reply:?}");
        let page = reply.body.as_str().unwrap_or_default();
        assert!(
            page.contains("<html") && page.contains("UTF-8"),
            "{path}: {page}"
        );
    }
}
