//! Every built-in Sonar scenario, asked whole, streamed and as an async job, snapshotted under
//! `snapshots/sonar-*.snap` with ids and timestamps redacted; and one snapshot of the Search
//! API and of each embeddings route.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::ALICE;
use crate::common::sonar::{ask, redact, with};

/// A stream chunk cut down to what changes from chunk to chunk, except the last one (which
/// carries the whole answer).
fn compact(chunk: &Value) -> Value {
    let choice = &chunk["choices"][0];
    json!({
        "object": chunk["object"],
        "finish_reason": choice["finish_reason"],
        "delta": choice["delta"]["content"],
        "completion_tokens": chunk["usage"]["completion_tokens"],
    })
}

fn settings(description: String) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(description);
    settings
}

#[tokio::test(start_paused = true)]
async fn every_sonar_scenario_whole_streamed_and_as_an_async_job() {
    let names: Vec<String> = Mock::new()
        .handle
        .catalog()
        .sonar_iter()
        .map(|s| s.name.clone())
        .collect();
    assert!(names.len() >= 7, "{names:?}");
    for name in names {
        // A mock of its own, so one scenario's credits or faults do not reach the next.
        let mock = Mock::new();
        let model = if name == "deep-research" {
            "sonar-deep-research"
        } else {
            "sonar"
        };
        let body = ask(model, &format!("#{name} What is new in solar power?"));
        let whole = mock.chat(body.clone()).await;
        let streamed = mock.chat(with(body.clone(), "stream", json!(true))).await;
        let (last, rest) = match streamed.events.split_last() {
            Some((last, rest)) => (redact(last), rest.iter().map(compact).collect()),
            None => (Value::Null, Vec::new()),
        };
        let submitted = mock
            .sonar_post("/async/chat/completions", ALICE, json!({"request": body}))
            .await;
        let finished = match submitted.body["id"].as_str() {
            Some(id) => {
                mock.advance(Duration::from_secs(3600));
                mock.agent_get(ALICE, &format!("/async/chat/completions/{id}"))
                    .await
                    .body
            }
            None => Value::Null,
        };
        // The same question once Retry-After (and any backoff) would have passed.
        mock.advance(Duration::from_secs(2));
        let later = mock.chat(body.clone()).await;
        let record = json!({
            "request": body,
            "whole": {"status": whole.status.as_u16(), "body": redact(&whole.body)},
            "stream": {
                "status": streamed.status.as_u16(),
                "body": redact(&streamed.body),
                "chunks": rest,
                "last": last,
            },
            "async": {
                "status": submitted.status.as_u16(),
                "submitted": redact(&submitted.body),
                "finished": redact(&finished),
            },
            "sent_again_later": {
                "status": later.status.as_u16(),
                "error": later.body.get("error"),
            },
        });
        let snapshot = if name.starts_with("sonar-") {
            name.clone()
        } else {
            format!("sonar-{name}")
        };
        settings(format!(
            "Sonar scenario `{name}`: whole, streamed and async"
        ))
        .bind(|| insta::assert_json_snapshot!(snapshot, record));
    }
}

#[tokio::test(start_paused = true)]
async fn the_search_api_and_both_embeddings_routes() {
    let mock = Mock::new();
    let search = mock
        .search(
            json!({"query": ["wind energy", "tidal energy"], "max_results": 2,
                       "search_recency_filter": "month"}),
        )
        .await;
    let embeddings = mock
        .sonar_post(
            "/v1/embeddings",
            ALICE,
            json!({"model": "pplx-embed-v1-0.6b", "input": ["wind", "tide"], "dimensions": 128}),
        )
        .await;
    let contextualized = mock
        .sonar_post(
            "/v1/contextualizedembeddings",
            ALICE,
            json!({"model": "pplx-embed-context-v1-0.6b", "input": [["wind", "tide"]],
                   "dimensions": 128, "encoding_format": "base64_binary"}),
        )
        .await;
    let record = json!({
        "search": redact(&search.body),
        "embeddings": embeddings.body,
        "contextualized_embeddings": contextualized.body,
    });
    settings("The Search API and the embeddings routes".to_owned())
        .bind(|| insta::assert_json_snapshot!("sonar-search-and-embeddings", record));
}
