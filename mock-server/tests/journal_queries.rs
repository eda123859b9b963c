//! `GET /_mock/journal` selects with since, limit, path, method and status, streams its answer
//! a page at a time, and with `follow=true` sends each new exchange as it finishes.

use std::time::Duration;

use axum::body::Body;
use futures::FutureExt;
use http::{Request, StatusCode};
use http_body_util::BodyExt;
use mock_server::{JournalQuery, MockServer, StatusFilter};
use serde_json::{Value, json};
use tower::ServiceExt;

use crate::common::{MCP, Mock};

/// The journal's answer to `query`, as a live body.
async fn open(mock: &Mock, query: &str) -> axum::response::Response {
    let request = Request::get(format!("/_mock/journal?{query}"))
        .body(Body::empty())
        .expect("request");
    mock.router
        .clone()
        .oneshot(request)
        .await
        .expect("infallible")
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

async fn select(mock: &Mock, query: &str) -> Vec<Value> {
    let body = open(mock, query).await.into_body();
    lines(&body.collect().await.expect("body").to_bytes())
}

fn seqs(lines: &[Value]) -> Vec<u64> {
    lines.iter().filter_map(|l| l["seq"].as_u64()).collect()
}

/// Seven exchanges: GET clock, GET scenarios, POST advance (400), then four GET clock.
async fn seven(mock: &Mock) {
    mock.get("/_mock/clock").await;
    mock.get("/_mock/scenarios").await;
    mock.post_json("/_mock/clock/advance", json!({"seconds": 1}))
        .await;
    for _ in 0..4 {
        mock.get("/_mock/clock").await;
    }
}

#[tokio::test(start_paused = true)]
async fn since_limit_and_the_filters_select_exchanges() {
    let mock = Mock::new();
    seven(&mock).await;
    assert_eq!(seqs(&select(&mock, "since=4").await), [4, 5, 6]);
    assert_eq!(seqs(&select(&mock, "since=1&limit=2").await), [1, 2]);
    assert_eq!(
        seqs(&select(&mock, "path=/_mock/clock").await),
        [0, 3, 4, 5, 6]
    );
    assert_eq!(
        seqs(&select(&mock, "path=/_mock/clock*").await),
        [0, 2, 3, 4, 5, 6]
    );
    assert_eq!(seqs(&select(&mock, "method=post").await), [2]);
    assert_eq!(seqs(&select(&mock, "status=4xx").await), [2]);
    assert_eq!(seqs(&select(&mock, "status=200&since=5").await), [5, 6]);
    // The same selection from code.
    let query = JournalQuery {
        status: Some(StatusFilter::Exact(400)),
        ..JournalQuery::default()
    };
    let found = mock.handle.journal().query(&query);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, "/_mock/clock/advance");
}

#[tokio::test(start_paused = true)]
async fn a_bad_journal_parameter_is_a_400_with_a_sentence() {
    let mock = Mock::new();
    let reply = mock.get("/_mock/journal?limit=ten").await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    let error = reply.body["error"].as_str().expect("error");
    assert!(error.contains("limit must be a whole number"), "{error}");
    let reply = mock.get("/_mock/journal?order=desc").await;
    let error = reply.body["error"].as_str().expect("error");
    assert!(error.contains("the journal takes since=SEQ"), "{error}");
}

#[tokio::test(start_paused = true)]
async fn a_long_journal_is_streamed_in_pages_not_built_whole() {
    let mock = Mock::new();
    for _ in 0..200 {
        mock.get("/_mock/clock").await;
    }
    let mut body = open(&mock, "").await.into_body();
    let mut chunks = 0;
    let mut all = Vec::new();
    while let Some(frame) = body.frame().await {
        if let Ok(data) = frame.expect("frame").into_data() {
            chunks += 1;
            all.extend_from_slice(&data);
        }
    }
    let seqs = seqs(&lines(&all));
    assert_eq!(seqs, (0..200).collect::<Vec<u64>>());
    assert!(chunks >= 4, "64 exchanges a chunk: {chunks} chunks");
}

#[tokio::test(start_paused = true)]
async fn follow_sends_each_new_matching_exchange_once_it_finishes() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let mut client = mock.session("alice-dev-token").await;
    let since = mock.handle.journal().stats().next_seq;
    let response = open(
        &mock,
        &format!("follow=true&since={since}&path={MCP}&status=200&limit=1"),
    )
    .await;
    assert_eq!(response.headers()["content-type"], "application/x-ndjson");
    let mut body = response.into_body();
    let call = tokio::spawn(async move {
        client
            .start("#timeout-then-complete Summarize the top 5 stories on Hacker News")
            .await
    });
    mock.handle
        .journal()
        .wait_for_within(Duration::from_secs(5), |e| {
            e.path == MCP && e.status == 0 && e.seq >= since
        })
        .await
        .expect("the call is in flight");
    mock.get("/_mock/clock").await;
    assert!(
        body.frame().now_or_never().is_none(),
        "nothing has finished on the MCP path yet"
    );
    mock.advance(Duration::from_secs(121));
    let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
        .await
        .expect("the call finishes")
        .expect("a frame")
        .expect("data");
    let sent = lines(&frame.into_data().expect("data"));
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["path"], MCP);
    assert_eq!(sent[0]["status"], 200);
    assert_eq!(sent[0]["request_body"]["method"], "tools/call");
    call.await.expect("call");
    // The limit was one exchange: the stream ends.
    assert!(body.frame().await.is_none());
}

#[tokio::test(start_paused = true)]
async fn every_surface_records_the_content_length_its_answer_is_sent_with() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    client.call("models_list", json!({})).await;
    client
        .post(json!({"jsonrpc": "2.0", "id": 9, "method": "nope"}))
        .await;
    mock.get("/_mock/clock").await;
    mock.get("/.well-known/oauth-authorization-server").await;
    mock.get("/v1/models").await;
    let exchanges = mock.journal_lines().await;
    let mcp = exchanges
        .iter()
        .filter(|e| e["path"] == MCP && e["response_body_length"].as_u64() > Some(0))
        .count();
    assert!(
        mcp >= 3,
        "initialize, the call and the error: {exchanges:?}"
    );
    for path in [
        "/_mock/clock",
        "/.well-known/oauth-authorization-server",
        "/v1/models",
    ] {
        assert!(exchanges.iter().any(|e| e["path"] == path), "{path}");
    }
    for exchange in &exchanges {
        let length = exchange["response_headers"]["content-length"].as_str();
        assert_eq!(
            length.and_then(|l| l.parse::<u64>().ok()),
            exchange["response_body_length"].as_u64(),
            "{} {}: {exchange}",
            exchange["method"],
            exchange["path"],
        );
    }
}
