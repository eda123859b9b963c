//! The journal is bounded: by exchanges, by bytes and per body, the oldest dropped first and
//! counted wherever the journal is read; a refused body is never kept whole; the journal can
//! be turned off and can write every exchange to a file.

use std::time::Duration;

use axum::body::Body;
use http::{Request, StatusCode};
use mock_server::{JournalConfig, JournalGap, MockServer, WaitError};
use serde_json::{Value, json};

use crate::common::{self, MCP, Mock};

fn capped(config: JournalConfig) -> Mock {
    Mock::with(MockServer::builder().journal(config))
}

/// The raw answer of `GET /_mock/journal?{query}`: headers and lines.
async fn read_journal(mock: &Mock, query: &str) -> (http::HeaderMap, Vec<Value>) {
    let reply = mock.get(&format!("/_mock/journal?{query}")).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let text = match &reply.body {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        // A single line parses as JSON on its own.
        one => one.to_string(),
    };
    let lines = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    (reply.headers, lines)
}

#[tokio::test(start_paused = true)]
async fn past_its_exchange_cap_the_journal_drops_the_oldest_and_counts_them() {
    let mock = capped(JournalConfig {
        max_exchanges: 5,
        ..JournalConfig::default()
    });
    for _ in 0..12 {
        assert_eq!(mock.get("/_mock/clock").await.status, StatusCode::OK);
    }
    let journal = mock.handle.journal();
    let seqs: Vec<usize> = journal.exchanges().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [7, 8, 9, 10, 11]);
    let stats = journal.stats();
    assert_eq!((stats.kept, stats.dropped, stats.next_seq), (5, 7, 12));

    let (headers, lines) = read_journal(&mock, "").await;
    assert_eq!(headers["x-journal-dropped"], "7");
    assert_eq!(headers["x-journal-kept"], "5");
    assert_eq!(lines[0], json!({"dropped": 7, "before_seq": 7}));
    let shown: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l["seq"].as_u64().expect("seq"))
        .collect();
    assert_eq!(shown, [7, 8, 9, 10, 11]);
    // Asking only for what is still kept shows no gap.
    let (_, lines) = read_journal(&mock, "since=9").await;
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines.iter().all(|l| l.get("dropped").is_none()));
}

#[tokio::test(start_paused = true)]
async fn the_byte_cap_holds_and_each_body_is_cut_at_the_per_body_cap() {
    let mock = capped(JournalConfig {
        max_bytes: 64 * 1024,
        max_body_bytes: 8 * 1024,
        ..JournalConfig::default()
    });
    // A 10 KiB body the control API refuses (it is no `{"ms": N}`) with a short answer.
    let body = format!("{{\"pad\":\"{}\"}}", "x".repeat(10 * 1024 - 10));
    for _ in 0..50 {
        let request = Request::post("/_mock/clock/advance")
            .header("content-type", "application/json")
            .body(Body::from(body.clone()))
            .expect("request");
        assert_eq!(mock.send(request).await.status, StatusCode::BAD_REQUEST);
    }
    let journal = mock.handle.journal();
    let stats = journal.stats();
    assert!(stats.bytes <= 64 * 1024, "{stats:?}");
    assert!(
        stats.kept >= 4,
        "8 KiB bodies leave room for several: {stats:?}"
    );
    assert_eq!(stats.dropped, 50 - stats.kept as u64);
    for exchange in journal.exchanges() {
        assert_eq!(exchange.request_body_length, 10 * 1024);
        assert!(exchange.request_body_truncated);
        let kept = exchange.request_body.as_str().expect("cut JSON is text");
        assert_eq!(kept.len(), 8 * 1024);
        assert!(!exchange.response_body_truncated, "{exchange:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_response_body_longer_than_the_cap_keeps_its_start_and_its_full_length() {
    let mock = capped(JournalConfig {
        max_body_bytes: 1024,
        ..JournalConfig::default()
    });
    let reply = mock.get("/_mock/scenarios").await;
    let full = reply.body.to_string().len() as u64;
    assert!(full > 1024, "the catalog is longer than the cap");
    let exchange = mock.handle.journal().exchanges().remove(0);
    assert!(exchange.response_body_truncated);
    assert_eq!(exchange.response_body_length, full);
    assert_eq!(exchange.response_body.as_str().map(str::len), Some(1024));
    let line = serde_json::to_value(&exchange).expect("serializes");
    assert_eq!(line["response_body_truncated"], true);
    assert!(line.get("request_body_truncated").is_none());
}

#[tokio::test(start_paused = true)]
async fn an_event_stream_keeps_its_first_events_within_the_cap_and_counts_the_rest() {
    let mock = capped(JournalConfig {
        max_body_bytes: 400,
        ..JournalConfig::default()
    });
    let mut client = mock.session("alice-dev-token").await;
    let (progress, result) = client
        .call_with_progress(
            "call_perplexity_computer",
            json!({"message": "#complete What is the capital of France?"}),
        )
        .await;
    assert!(!result.is_null());
    let call = mock
        .handle
        .journal()
        .exchanges()
        .into_iter()
        .find(|e| e.request_body["method"] == "tools/call")
        .expect("the call is journaled");
    let kept = call.sse_events.len() as u64;
    assert!(call.sse_events_dropped > 0, "{call:?}");
    assert_eq!(kept + call.sse_events_dropped, progress.len() as u64 + 1);
    assert!(call.response_body_length > 400);
    for event in &call.sse_events {
        assert_eq!(event.data["method"], "notifications/progress");
    }
}

#[tokio::test(start_paused = true)]
async fn a_refused_body_is_kept_only_up_to_the_per_body_cap() {
    let mock = Mock::new();
    let big = format!("{{\"input\":[{}0]}}", "0,".repeat(17 * 1024 * 1024));
    let request = Request::post("/v1/responses")
        .header("authorization", "Bearer alice-dev-token")
        .header("content-type", "application/json")
        .body(Body::from(big))
        .expect("request");
    let reply = mock.send(request).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.body["error"]["type"], "payload_too_large");
    let journal = mock.handle.journal();
    assert!(journal.stats().bytes < 128 * 1024, "{:?}", journal.stats());
    let refused = journal.exchanges().remove(0);
    assert_eq!(refused.status, 413);
    assert!(refused.request_body_truncated);
    assert!(refused.request_body_length > 32 * 1024 * 1024);
    assert_eq!(refused.request_body.as_str().map(str::len), Some(64 * 1024));

    // Declared too large up front: refused before a byte of it is read.
    let request = Request::post(MCP)
        .header("content-length", (64 * 1024 * 1024).to_string())
        .header("content-type", "application/json")
        .body(Body::empty())
        .expect("request");
    let reply = mock.send(request).await;
    assert_eq!(reply.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(reply.body["error"]["code"], -32600);
}

#[tokio::test(start_paused = true)]
async fn a_body_cut_short_is_answered_400_saying_so_in_each_surfaces_shape() {
    let mock = Mock::new();
    let cut = |path: &str| {
        let chunks: Vec<Result<&'static str, std::io::Error>> = vec![
            Ok("{\"jsonrpc\":"),
            Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the client went away",
            )),
        ];
        Request::post(path)
            .header("authorization", "Bearer alice-dev-token")
            .header("content-type", "application/json")
            .header("content-length", "100")
            .body(Body::from_stream(futures::stream::iter(chunks)))
            .expect("request")
    };
    let reply = mock.send(cut(MCP)).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert_eq!(reply.body["error"]["code"], -32700);
    let message = reply.body["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("ended after 11 of the 100 bytes its Content-Length declared"),
        "{message}"
    );
    let reply = mock.send(cut("/v1/responses")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert_eq!(reply.body["error"]["type"], "invalid_request");
    assert_eq!(reply.body["error"]["code"], 400);
    let reply = mock.send(cut("/oauth/token")).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    assert_eq!(reply.body["error"], "invalid_request");
    // Each is journaled with what was read.
    let exchanges = mock.handle.journal().exchanges();
    assert_eq!(exchanges.len(), 3);
    assert!(exchanges.iter().all(|e| e.request_body_length == 11));
}

#[tokio::test(start_paused = true)]
async fn a_wait_that_needed_a_dropped_exchange_says_how_many_were_dropped() {
    let mock = capped(JournalConfig {
        max_exchanges: 2,
        ..JournalConfig::default()
    });
    for _ in 0..5 {
        mock.get("/_mock/clock").await;
    }
    let journal = mock.handle.journal();
    let gap = journal
        .wait_for(|e| e.path == "/_mock/scenarios")
        .await
        .expect_err("the exchanges before seq 3 are gone");
    assert_eq!((gap.missed, gap.first_kept), (3, 3));
    assert!(gap.to_string().contains("3 exchange(s)"), "{gap}");
    let bounded = journal
        .wait_for_within(Duration::from_secs(1), |e| e.path == "/_mock/scenarios")
        .await;
    assert!(matches!(
        bounded,
        Err(WaitError::Gap(JournalGap { missed: 3, .. }))
    ));

    // A wait from the next seq on needs nothing that was dropped.
    let since = journal.stats().next_seq;
    let waiting = tokio::spawn({
        let journal = journal.clone();
        async move {
            journal
                .wait_for_since(since, |e| e.path == "/_mock/scenarios" && e.status == 200)
                .await
        }
    });
    mock.get("/_mock/scenarios").await;
    let found = waiting.await.expect("task").expect("found");
    assert_eq!(found.seq, 5);
}

#[tokio::test(start_paused = true)]
async fn a_wait_running_while_exchanges_are_dropped_reports_those_it_never_saw() {
    let mock = capped(JournalConfig {
        max_exchanges: 1,
        ..JournalConfig::default()
    });
    let journal = mock.handle.journal();
    let since = journal.stats().next_seq;
    let waiting = tokio::spawn({
        let journal = journal.clone();
        async move { journal.wait_for_since(since, |e| e.path == "/never").await }
    });
    tokio::task::yield_now().await;
    // The waiter sees each exchange finish before the next one pushes it out...
    mock.get("/_mock/clock").await;
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished());
    // ...but not two that arrive together while it is not looking.
    let both = futures::future::join(mock.get("/_mock/clock"), mock.get("/_mock/clock"));
    both.await;
    let gap = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the wait ends")
        .expect("task")
        .expect_err("one exchange went unseen");
    assert_eq!(gap.missed, 1, "{gap:?}");
}

#[tokio::test(start_paused = true)]
async fn with_the_journal_off_nothing_is_kept_and_everything_is_counted() {
    let mock = capped(JournalConfig::off());
    for _ in 0..3 {
        mock.get("/_mock/clock").await;
    }
    let journal = mock.handle.journal();
    assert!(journal.exchanges().is_empty());
    assert_eq!(journal.stats().dropped, 3);
    let (headers, lines) = read_journal(&mock, "").await;
    assert_eq!(headers["x-journal-kept"], "0");
    assert_eq!(lines, [json!({"dropped": 3, "before_seq": 3})]);
}

#[tokio::test(start_paused = true)]
async fn the_journal_file_gets_every_finished_exchange_whatever_memory_keeps() {
    let path = std::env::temp_dir().join(format!("journal-file-{}.jsonl", uuid_like()));
    let mock = capped(JournalConfig {
        max_exchanges: 1,
        file: Some(path.clone()),
        ..JournalConfig::default()
    });
    let mut client = mock.session("alice-dev-token").await;
    client.call("models_list", json!({})).await;
    mock.post_json("/_mock/reset", json!({})).await;
    mock.get("/_mock/clock").await;
    mock.handle.journal().flush();
    let text = std::fs::read_to_string(&path).expect("the file exists");
    let _ = std::fs::remove_file(&path);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let paths: Vec<&str> = lines.iter().filter_map(|l| l["path"].as_str()).collect();
    assert_eq!(
        paths,
        [MCP, MCP, MCP, "/_mock/reset", "/_mock/clock"],
        "initialize, initialized, the call, the reset, the clock"
    );
    // The reset starts numbering again; the file keeps going.
    let seqs: Vec<u64> = lines.iter().filter_map(|l| l["seq"].as_u64()).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 0]);
    assert_eq!(
        lines[0]["request_headers"]["authorization"],
        format!("Bearer {}", mock_server::fingerprint("alice-dev-token"))
    );
    assert!(!text.contains("alice-dev-token"));
    assert_eq!(mock.handle.journal().exchanges().len(), 1);
}

/// A name no other test run uses.
fn uuid_like() -> String {
    format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    )
}

#[tokio::test(start_paused = true)]
async fn a_journal_file_that_cannot_be_opened_stops_the_mock_from_starting() {
    let builder = MockServer::builder().journal(JournalConfig {
        file: Some("/nonexistent-dir/journal.jsonl".into()),
        ..JournalConfig::default()
    });
    let error = builder.router(common::BASE).err().expect("refused");
    assert!(
        error
            .to_string()
            .starts_with("cannot open the journal file /nonexistent-dir/journal.jsonl"),
        "{error}"
    );
}
