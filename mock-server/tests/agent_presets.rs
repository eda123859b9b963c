//! Presets do research. A request no scenario selects is played by the default scripted model:
//! a preset brings its own tools ("Request fields override preset fields"), and the run shows
//! `search_results` and `fetch_url_results` items while it is in progress (as recorded preset
//! runs do), takes minutes of virtual time for the deeper presets, bills its searches and reads,
//! and answers with citations. A plain model request is no longer a bare "Hello world".

use std::time::Duration;

use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::agent::{ALICE, item_types};

/// Lets spawned runs catch up with a manual clock advance.
async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}

fn answer(response: &Value) -> Value {
    response["output"]
        .as_array()
        .and_then(|o| o.iter().rev().find(|i| i["type"] == "message"))
        .map(|m| m["content"][0].clone())
        .unwrap_or(Value::Null)
}

/// Submits a background preset run (the README's research example) on a manual clock.
async fn research(preset: &str) -> (Mock, String) {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let request = json!({"preset": preset, "input": "What changed in solar panel efficiency this year?",
                         "background": true, "store": true});
    let reply = mock.agent_create(ALICE, request).await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    assert_eq!(reply.body["status"], "queued");
    let path = format!("/v1/agent/{}", reply.body["id"].as_str().expect("id"));
    (mock, path)
}

/// Advances the manual clock a second at a time until the run is terminal; the seconds it took.
async fn run_to_end(mock: &Mock, path: &str) -> (Value, u64) {
    for second in 1..=3600 {
        mock.advance(Duration::from_secs(1));
        settle().await;
        let reply = mock.agent_get(ALICE, path).await;
        if !matches!(
            reply.body["status"].as_str(),
            Some("queued" | "in_progress")
        ) {
            return (reply.body, second);
        }
    }
    panic!("the run did not end within an hour");
}

#[tokio::test(start_paused = true)]
async fn a_medium_preset_run_shows_its_sources_while_in_progress_and_ends_cited() {
    let (mock, path) = research("medium").await;
    mock.advance(Duration::from_secs(40));
    settle().await;
    let polled = mock.agent_get(ALICE, &path).await.body;
    assert_eq!(polled["status"], "in_progress");
    assert_eq!(
        polled["model"], "medium",
        "the preset name until it completes"
    );
    assert_eq!(polled["usage"], Value::Null);
    assert!(
        item_types(&polled).contains(&"search_results".to_owned()),
        "{polled:#}"
    );
    let (done, _) = run_to_end(&mock, &path).await;
    assert_eq!(done["status"], "completed");
    assert_ne!(done["model"], "medium", "the served model once completed");
    assert_eq!(
        item_types(&done),
        [
            "search_results",
            "fetch_url_results",
            "search_results",
            "fetch_url_results",
            "message"
        ]
    );
    // Result ids go on across the run, and every [n] of the answer cites one of them.
    let ids: Vec<Value> = done["output"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["type"] == "search_results")
        .flat_map(|i| i["results"].as_array().cloned().unwrap_or_default())
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, [json!(1), json!(2), json!(3), json!(4)]);
    let content = answer(&done);
    let text = content["text"].as_str().unwrap_or_default();
    assert!(text.contains("solar panel efficiency"), "{text}");
    let annotations = content["annotations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(annotations.len(), 4, "{content:#}");
    for a in &annotations {
        assert_eq!(a["type"], "url_citation");
        let start = a["start_index"].as_u64().unwrap_or_default() as usize;
        let end = a["end_index"].as_u64().unwrap_or_default() as usize;
        let marker: String = text.chars().skip(start).take(end - start).collect();
        assert!(marker.starts_with('[') && marker.ends_with(']'), "{marker}");
        assert!(a["url"].as_str().is_some_and(|u| u.starts_with("https://")));
    }
    // Searches and reads are billed.
    let cost = &done["usage"]["cost"];
    assert!(
        cost["tool_calls_cost"].as_f64().unwrap_or_default() > 0.0,
        "{cost:#}"
    );
    assert_eq!(
        done["usage"]["tool_calls_details"]["search_web"]["invocation"],
        2
    );
    assert_eq!(
        done["usage"]["tool_calls_details"]["fetch_url"]["invocation"],
        2
    );
}

#[tokio::test(start_paused = true)]
async fn deeper_presets_take_longer_and_read_more() {
    let mut seconds = Vec::new();
    let mut items = Vec::new();
    for preset in ["fast", "medium", "high"] {
        let (mock, path) = research(preset).await;
        let (done, took) = run_to_end(&mock, &path).await;
        assert_eq!(done["status"], "completed", "{preset}");
        seconds.push(took);
        items.push(done["output"].as_array().map_or(0, Vec::len));
    }
    assert!(seconds[0] < 15, "fast takes seconds: {seconds:?}");
    assert!(seconds[1] >= 60, "medium takes minutes: {seconds:?}");
    assert!(seconds[2] > seconds[1], "{seconds:?}");
    assert!(items[0] < items[1] && items[1] < items[2], "{items:?}");
}

#[tokio::test(start_paused = true)]
async fn a_preset_with_its_own_tools_uses_only_those() {
    // "Request fields override preset fields": tools sent replace the preset's.
    let mock = Mock::new();
    let reply = mock
        .agent_create(
            ALICE,
            json!({"preset": "low", "input": "heat pumps", "tools": [{"type": "web_search"}]}),
        )
        .await;
    assert_eq!(item_types(&reply.body), ["search_results", "message"]);
    let none = mock
        .agent_create(
            ALICE,
            json!({"preset": "low", "input": "heat pumps", "tools": []}),
        )
        .await;
    assert_eq!(item_types(&none.body), ["message"]);
}

#[tokio::test(start_paused = true)]
async fn a_model_request_with_no_scenario_answers_about_its_input() {
    let mock = Mock::new();
    let searched = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "tidal power",
                                    "tools": [{"type": "web_search"}]}),
        )
        .await;
    assert_eq!(item_types(&searched.body), ["search_results", "message"]);
    let content = answer(&searched.body);
    let text = content["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("“tidal power”") && text.contains("[1]"),
        "{text}"
    );
    assert_eq!(content["annotations"].as_array().map_or(0, Vec::len), 2);
    let plain = mock
        .agent_create(
            ALICE,
            json!({"model": "openai/gpt-5.6-terra", "input": "tidal power"}),
        )
        .await;
    let text = answer(&plain.body)["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        text.contains("“tidal power”") && text.contains("without looking anything up"),
        "{text}"
    );
}

/// The keys of a JSON object, sorted.
fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

/// Whether every key of `value` is one of `allowed`.
fn keys_within(value: &Value, allowed: &[&str]) -> bool {
    keys(value).iter().all(|k| allowed.contains(&k.as_str()))
}

#[tokio::test(start_paused = true)]
async fn a_research_run_has_the_recorded_shapes_field_by_field() {
    // The recorded background submit of a `medium` research run: "background":true,
    // "completed_at":null, "error":null, "model":"medium", "object":"response", "output":[],
    // "status":"queued", "store":true, "tools":[], "usage":null.
    let mock = Mock::with(MockServer::builder().manual_clock());
    let request = json!({"preset": "medium", "input": "heat pump efficiency",
                         "background": true, "store": true});
    let submitted = mock.agent_create(ALICE, request).await.body;
    for (field, recorded) in [
        ("background", json!(true)),
        ("completed_at", Value::Null),
        ("error", Value::Null),
        ("model", json!("medium")),
        ("object", json!("response")),
        ("output", json!([])),
        ("status", json!("queued")),
        ("store", json!(true)),
        ("tools", json!([])),
        ("usage", Value::Null),
    ] {
        assert_eq!(submitted[field], recorded, "{field}: {submitted:#}");
    }
    assert!(
        submitted["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("resp_"))
    );
    let path = format!("/v1/agent/{}", submitted["id"].as_str().unwrap_or_default());
    let (done, _) = run_to_end(&mock, &path).await;
    let output = done["output"].as_array().cloned().unwrap_or_default();
    for item in &output {
        match item["type"].as_str() {
            // search_results: {type, results: [{id:int, title, url, snippet, date?,
            // last_updated?, source?:"web"}], queries?: [str]}
            Some("search_results") => {
                assert!(
                    keys_within(item, &["type", "results", "queries"]),
                    "{item:#}"
                );
                for result in item["results"].as_array().into_iter().flatten() {
                    assert!(
                        keys_within(
                            result,
                            &[
                                "id",
                                "title",
                                "url",
                                "snippet",
                                "date",
                                "last_updated",
                                "source"
                            ]
                        ),
                        "{result:#}"
                    );
                    assert!(result["id"].is_u64() && result["snippet"].is_string());
                    assert_eq!(result["source"], "web");
                }
                assert!(
                    item["queries"]
                        .as_array()
                        .is_some_and(|q| q.iter().all(|q| q
                            .as_str()
                            .is_some_and(|q| q.starts_with("heat pump efficiency"))))
                );
            }
            // fetch_url_results: {type, contents: [{url, title, snippet}]}
            Some("fetch_url_results") => {
                assert_eq!(keys(item), ["contents", "type"]);
                for content in item["contents"].as_array().into_iter().flatten() {
                    assert_eq!(keys(content), ["snippet", "title", "url"]);
                }
            }
            // message: {type, id, role:"assistant", status, content: [{type:"output_text",
            // text, annotations?: [{type?, url?, title?, start_index?, end_index?}]}]}
            Some("message") => {
                assert_eq!(keys(item), ["content", "id", "role", "status", "type"]);
                assert_eq!(item["role"], "assistant");
                assert_eq!(item["status"], "completed");
                let part = &item["content"][0];
                assert_eq!(keys(part), ["annotations", "text", "type"]);
                for annotation in part["annotations"].as_array().into_iter().flatten() {
                    assert_eq!(
                        keys(annotation),
                        ["end_index", "start_index", "title", "type", "url"]
                    );
                }
            }
            other => panic!("a research run writes no {other:?} item: {item:#}"),
        }
    }
    // The usage object has the keys of the recorded fast-preset example.
    assert_eq!(
        keys(&done["usage"]),
        [
            "cost",
            "input_tokens",
            "input_tokens_details",
            "output_tokens",
            "output_tokens_details",
            "tool_calls_details",
            "total_tokens"
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_fast_preset_answer_bills_one_search_as_recorded() {
    // Recorded (fast preset): "tool_calls_cost":0.001, "tool_calls_cost_details":{"search_web":0.001},
    // "tool_calls_details":{"search_web":{"cost_usd":0.001,"invocation":1}}, and the served model
    // `openai/gpt-6-luna` in `model`.
    let mock = Mock::new();
    let reply = mock
        .agent_create(ALICE, json!({"preset": "fast", "input": "hi"}))
        .await;
    assert_eq!(reply.status, 200, "{:#}", reply.body);
    let done = reply.body;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["model"], "openai/gpt-6-luna");
    assert_eq!(item_types(&done), ["search_results", "message"]);
    let usage = &done["usage"];
    assert_eq!(
        usage["tool_calls_details"],
        json!({"search_web": {"cost_usd": 0.001, "invocation": 1}})
    );
    assert_eq!(
        usage["cost"]["tool_calls_cost_details"],
        json!({"search_web": 0.001})
    );
    assert_eq!(usage["cost"]["tool_calls_cost"], json!(0.001));
}
