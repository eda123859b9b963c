//! Bad input gets the documented error shape and an actionable sentence, and harms nothing:
//! the same session keeps working and existing threads are unchanged.

use http::StatusCode;
use serde_json::{Value, json};

use crate::common::{self, Client, Mock, thread_id};

/// A session with one finished thread; returns the thread id and its transcript.
async fn session_with_a_thread(mock: &Mock) -> (Client, String, Value) {
    let mut client = mock.session("alice-dev-token").await;
    let started = client
        .start("#complete What is the capital of France?")
        .await;
    let thread = thread_id(&started);
    let transcript = client.read(&thread).await;
    (client, thread, transcript)
}

/// The session still lists tools and starts tasks, and the old thread reads the same.
async fn still_healthy(client: &mut Client, thread: &str, before: &Value) {
    let list = client.rpc("tools/list", json!({})).await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(
        list.body["result"]["tools"].as_array().map(Vec::len),
        Some(12)
    );
    let started = client.start("#complete Say hello").await;
    assert_eq!(started["event"], "complete", "{started}");
    assert_eq!(&client.read(thread).await, before, "the old thread changed");
}

fn error_message(reply: &common::Reply) -> String {
    reply.body["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(start_paused = true)]
async fn malformed_json_is_a_parse_error() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let reply = client
        .post_raw(r#"{"jsonrpc": "2.0", "id": 1, "method": "#.to_owned(), &[])
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["error"]["code"], -32700);
    assert_eq!(reply.body["id"], Value::Null);
    assert!(
        error_message(&reply).contains("the body is not valid JSON"),
        "{reply:?}"
    );
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn wrong_envelopes_are_invalid_requests() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let cases = [
        (
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
            "batches are not supported",
        ),
        (
            json!({"jsonrpc": "1.0", "id": 1, "method": "ping"}),
            "`jsonrpc` must be \"2.0\"",
        ),
        (
            json!({"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}),
            "`id` must be a string or an integer",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": 42}),
            "`method` must be a string",
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}),
            "`params` must be an object",
        ),
    ];
    for (body, says) in cases {
        let reply = client.post(body.clone()).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.body["error"]["code"], -32600, "{body}");
        assert!(error_message(&reply).contains(says), "{body}: {reply:?}");
    }
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn a_body_that_is_not_an_object_is_an_invalid_request() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let reply = client.post(json!("ping")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(reply.body["error"]["code"], -32600);
    assert!(
        error_message(&reply).contains("the body must be a JSON-RPC object"),
        "{reply:?}"
    );
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn tools_call_without_a_tool_name_is_invalid_params() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let reply = client
        .rpc("tools/call", json!({"arguments": {"message": "hi"}}))
        .await;
    assert_eq!(reply.body["error"]["code"], -32602, "{reply:?}");
    assert!(error_message(&reply).contains("params.name"), "{reply:?}");
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn an_unknown_notification_is_accepted_and_ignored() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let reply = client
        .post(json!({"jsonrpc": "2.0", "method": "notifications/something_new"}))
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn an_unknown_method_is_method_not_found() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let reply = client.rpc("resources/list", json!({})).await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.body["error"]["code"], -32601);
    assert!(
        error_message(&reply).contains("This server offers ping, tools/list and tools/call"),
        "{reply:?}"
    );
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn an_unknown_tool_is_a_protocol_error_not_a_tool_result() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let reply = client
        .rpc(
            "tools/call",
            json!({"name": "delete_everything", "arguments": {}}),
        )
        .await;
    assert_eq!(reply.body["error"]["code"], -32602, "{reply:?}");
    assert!(reply.body.get("result").is_none());
    assert!(
        error_message(&reply).contains("Unknown tool: delete_everything"),
        "{reply:?}"
    );
    assert!(error_message(&reply).contains("tools/list"), "{reply:?}");
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn bad_arguments_are_tool_errors_that_name_the_argument() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let cases = [
        ("read_thread", json!({"thread_id": 7}), "thread_id"),
        (
            "call_perplexity_computer",
            json!({"message": ["not", "a", "string"]}),
            "message",
        ),
        (
            "answer_question",
            json!({"thread_id": thread.clone()}),
            "answers",
        ),
        (
            "confirm_action_approve",
            json!({"result": "ok"}),
            "thread_id",
        ),
        (
            "read_thread",
            json!({"thread_id": thread.clone(), "verbose": true}),
            "verbose",
        ),
        (
            "create_attachment_upload",
            json!({"filename": "a.pdf", "mime_type": "application/pdf", "size_bytes": "12"}),
            "size_bytes",
        ),
    ];
    for (tool, arguments, named) in cases {
        let reply = client
            .rpc(
                "tools/call",
                json!({"name": tool, "arguments": arguments.clone()}),
            )
            .await;
        assert_eq!(reply.status, StatusCode::OK);
        assert!(
            reply.body.get("error").is_none(),
            "{tool} {arguments}: a tool error, not a protocol error: {reply:?}"
        );
        let result = &reply.body["result"];
        assert_eq!(result["isError"], true, "{tool} {arguments}: {result}");
        let text = Client::text_of(result);
        assert!(
            text.contains(named),
            "{tool} {arguments}: the message names `{named}`: {text}"
        );
    }
    still_healthy(&mut client, &thread, &before).await;
}

#[tokio::test(start_paused = true)]
async fn an_oversized_body_gets_413_with_a_json_rpc_error() {
    let mock = Mock::new();
    let (mut client, thread, before) = session_with_a_thread(&mock).await;
    let huge = "x".repeat(4 * 1024 * 1024 + 1);
    let body = json!({
        "jsonrpc": "2.0", "id": 99, "method": "tools/call",
        "params": {"name": "call_perplexity_computer", "arguments": {"message": huge, "thread_id": thread.clone()}},
    });
    let reply = client.post(body).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.body["jsonrpc"], "2.0");
    assert!(reply.body["error"]["code"].is_i64(), "{:?}", reply.body);
    assert!(
        error_message(&reply).contains("larger than the 4 MiB"),
        "{:?}",
        reply.body
    );
    assert!(
        error_message(&reply).contains("create_attachment_upload"),
        "{:?}",
        reply.body
    );
    still_healthy(&mut client, &thread, &before).await;
}
