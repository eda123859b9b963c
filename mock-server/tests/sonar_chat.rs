//! `POST /chat/completions`: a whole answer with its citations, sources, usage and cost, and
//! every request option that changes the answer honoured in it (search filters, context size,
//! images, related questions, a JSON schema, disable_search, reasoning effort, max_tokens,
//! stop), on the virtual clock.

use std::time::Duration;

use chrono::NaiveDate;
use mock_server::MockServer;
use serde_json::{Value, json};

use crate::common::Mock;
use crate::common::sonar::{ask, content, with};

fn dates(completion: &Value, field: &str) -> Vec<NaiveDate> {
    completion["search_results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .filter_map(|r| NaiveDate::parse_from_str(r[field].as_str()?, "%Y-%m-%d").ok())
                .collect()
        })
        .unwrap_or_default()
}

fn urls(completion: &Value) -> Vec<String> {
    completion["citations"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|u| u.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn a_question_is_answered_with_citations_search_results_usage_and_cost() {
    let mock = Mock::new();
    let reply = mock.chat(ask("sonar", "What is new in solar power?")).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let body = &reply.body;
    assert_eq!(body["object"], "chat.completion");
    assert_eq!(body["model"], "sonar");
    assert!(body["id"].as_str().is_some_and(|id| id.len() == 36));
    assert!(body["created"].as_i64().is_some());
    let choice = &body["choices"][0];
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["delta"], json!({"role": "assistant", "content": ""}));
    let text = content(body);
    assert!(text.contains("solar power[1]"), "{text}");
    let results = body["search_results"].as_array().expect("search_results");
    assert_eq!(
        results.len(),
        3,
        "sonar reads three sources at the low context size"
    );
    for result in results {
        let keys: Vec<&str> = result
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            keys,
            ["title", "url", "date", "last_updated", "snippet", "source"]
        );
        assert_eq!(result["source"], "web");
    }
    let cited: Vec<&str> = results.iter().filter_map(|r| r["url"].as_str()).collect();
    assert_eq!(urls(body), cited, "citations list the sources in order");
    let usage = &body["usage"];
    assert_eq!(usage["search_context_size"], "low");
    assert_eq!(usage["num_search_queries"], 1);
    let (prompt, completion) = (
        usage["prompt_tokens"].as_u64(),
        usage["completion_tokens"].as_u64(),
    );
    assert_eq!(
        usage["total_tokens"].as_u64(),
        prompt.zip(completion).map(|(p, c)| p + c)
    );
    assert_eq!(
        usage["cost"]["request_cost"], 0.005,
        "$5 per thousand requests"
    );
    assert_eq!(usage["cost"]["total_cost"], 0.005);
}

#[tokio::test(start_paused = true)]
async fn the_same_route_answers_at_v1_chat_completions_and_v1_sonar() {
    let mock = Mock::new();
    for path in ["/v1/chat/completions", "/v1/sonar"] {
        let reply = mock
            .sonar_post(path, "bob-dev-token", ask("sonar-pro", "hello"))
            .await;
        assert_eq!(reply.status, 200, "{path}: {:?}", reply.body);
        assert_eq!(reply.body["model"], "sonar-pro");
    }
}

#[tokio::test(start_paused = true)]
async fn domain_filters_and_the_search_mode_choose_the_sites_and_the_answer_says_which() {
    let mock = Mock::new();
    let body = with(
        ask("sonar", "battery recycling"),
        "search_domain_filter",
        json!(["nature.com", "science.org", "-reddit.com"]),
    );
    let reply = mock.chat(body).await;
    let cited = urls(&reply.body);
    assert_eq!(cited.len(), 3);
    assert!(
        cited
            .iter()
            .all(|u| u.starts_with("https://nature.com/") || u.starts_with("https://science.org/")),
        "{cited:?}"
    );
    assert!(
        content(&reply.body)
            .contains("web search of nature.com, science.org, leaving out reddit.com")
    );

    let denied = with(
        ask("sonar", "battery recycling"),
        "search_domain_filter",
        json!(["-wikipedia.org", "-reuters.com"]),
    );
    let cited = urls(&mock.chat(denied).await.body);
    assert!(
        cited
            .iter()
            .all(|u| !u.contains("wikipedia") && !u.contains("reuters")),
        "{cited:?}"
    );

    let academic = with(
        ask("sonar", "protein folding"),
        "search_mode",
        json!("academic"),
    );
    let reply = mock.chat(academic).await;
    let hosts = ["arxiv.org", "www.nature.com", "pubmed.ncbi.nlm.nih.gov"];
    assert!(
        urls(&reply.body)
            .iter()
            .all(|u| hosts.iter().any(|h| u.contains(h))),
        "{:?}",
        urls(&reply.body)
    );
    assert!(content(&reply.body).contains("academic search"));

    let sec = with(ask("sonar", "Apple 10-K"), "search_mode", json!("sec"));
    assert!(
        urls(&mock.chat(sec).await.body)
            .iter()
            .all(|u| u.starts_with("https://www.sec.gov/"))
    );
}

#[tokio::test(start_paused = true)]
async fn recency_and_date_filters_keep_every_source_inside_their_window() {
    let mock = Mock::new();
    let today = mock.handle.clock().now().date_naive();
    let week = with(
        ask("sonar", "elections"),
        "search_recency_filter",
        json!("week"),
    );
    let reply = mock.chat(week).await;
    let published = dates(&reply.body, "date");
    assert_eq!(published.len(), 3);
    assert!(
        published
            .iter()
            .all(|d| *d <= today && *d >= today - chrono::TimeDelta::days(7)),
        "{published:?}"
    );
    assert!(content(&reply.body).contains("sources from the past week"));

    let mut windowed = ask("sonar", "elections");
    windowed["search_after_date_filter"] = json!("3/1/2025");
    windowed["search_before_date_filter"] = json!("3/31/2025");
    windowed["last_updated_after_filter"] = json!("3/15/2025");
    let reply = mock.chat(windowed).await;
    let (from, to) = (
        NaiveDate::from_ymd_opt(2025, 3, 1).expect("date"),
        NaiveDate::from_ymd_opt(2025, 3, 31).expect("date"),
    );
    let published = dates(&reply.body, "date");
    assert!(!published.is_empty());
    assert!(
        published.iter().all(|d| *d >= from && *d <= to),
        "{published:?}"
    );
    let updated = dates(&reply.body, "last_updated");
    let mid = NaiveDate::from_ymd_opt(2025, 3, 15).expect("date");
    assert!(updated.iter().all(|d| *d >= mid), "{updated:?}");

    let impossible = with(
        ask("sonar", "elections"),
        "search_after_date_filter",
        json!("1/1/2030"),
    );
    let reply = mock.chat(impossible).await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.get("search_results").is_none());
    assert!(content(&reply.body).starts_with("No source matched the search filters"));
}

#[tokio::test(start_paused = true)]
async fn the_search_context_size_and_pro_search_set_the_sources_and_the_request_fee() {
    let mock = Mock::new();
    let high = with(
        ask("sonar", "fusion"),
        "web_search_options",
        json!({"search_context_size": "high"}),
    );
    let reply = mock.chat(high).await;
    assert_eq!(urls(&reply.body).len(), 7);
    assert_eq!(reply.body["usage"]["search_context_size"], "high");
    assert_eq!(reply.body["usage"]["cost"]["request_cost"], 0.012);

    let pro = with(
        ask("sonar-pro", "fusion"),
        "web_search_options",
        json!({"search_context_size": "medium", "search_type": "pro"}),
    );
    let reply = mock.chat(pro).await;
    assert_eq!(
        urls(&reply.body).len(),
        10,
        "sonar-pro reads twice as many sources"
    );
    assert_eq!(
        reply.body["usage"]["cost"]["request_cost"], 0.018,
        "Pro Search fees"
    );
    assert_eq!(reply.body["usage"]["num_search_queries"], 3);

    let few = with(ask("sonar", "fusion"), "num_search_results", json!(2));
    assert_eq!(urls(&mock.chat(few).await.body).len(), 2);
}

#[tokio::test(start_paused = true)]
async fn images_and_related_questions_are_answered_only_when_asked() {
    let mock = Mock::new();
    let plain = mock.chat(ask("sonar", "tidal energy")).await;
    assert!(plain.body.get("images").is_none() && plain.body.get("related_questions").is_none());

    let mut asked = ask("sonar", "tidal energy");
    asked["return_images"] = json!(true);
    asked["return_related_questions"] = json!(true);
    asked["num_images"] = json!(2);
    asked["image_format_filter"] = json!(["png"]);
    asked["image_domain_filter"] = json!(["commons.wikimedia.org"]);
    let reply = mock.chat(asked).await;
    let images = reply.body["images"].as_array().expect("images");
    assert_eq!(images.len(), 2);
    for image in images {
        let url = image["image_url"].as_str().unwrap_or_default();
        assert!(
            url.starts_with("https://commons.wikimedia.org/") && url.ends_with(".png"),
            "{url}"
        );
        assert!(
            image["origin_url"].is_string() && image["width"].is_u64() && image["height"].is_u64()
        );
    }
    let related = reply.body["related_questions"].as_array().expect("related");
    assert_eq!(related.len(), 3);
    assert!(
        related
            .iter()
            .all(|q| q.as_str().is_some_and(|q| q.contains("tidal energy")))
    );
}

#[tokio::test(start_paused = true)]
async fn a_json_schema_response_format_is_answered_with_json_that_satisfies_it() {
    let mock = Mock::new();
    let schema = json!({"type": "object", "additionalProperties": false,
        "properties": {
            "headline": {"type": "string", "maxLength": 60},
            "summary": {"type": "string"},
            "sources": {"type": "array", "items": {"type": "string", "format": "uri"}, "minItems": 1},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "verdict": {"enum": ["true", "false", "unclear"]},
            "published": {"type": "string", "format": "date"}},
        "required": ["headline", "summary", "sources", "confidence", "verdict"]});
    for model in ["sonar", "sonar-pro"] {
        let body = with(
            ask(model, "Is the Great Wall visible from space?"),
            "response_format",
            json!({"type": "json_schema", "json_schema": {"name": "fact_check", "schema": schema}}),
        );
        let reply = mock.chat(body).await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        let answer: Value =
            serde_json::from_str(&content(&reply.body)).expect("the content is JSON");
        let validator = jsonschema::validator_for(&schema).expect("schema");
        assert!(validator.is_valid(&answer), "{answer}");
        assert_eq!(
            answer["sources"].as_array().and_then(|s| s.first()),
            urls(&reply.body)
                .first()
                .map(|u| Value::String(u.clone()))
                .as_ref(),
            "a list of sources is filled with the citations"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn disable_search_answers_from_the_model_alone() {
    let mock = Mock::new();
    let reply = mock
        .chat(with(
            ask("sonar", "a haiku about rain"),
            "disable_search",
            json!(true),
        ))
        .await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.get("citations").is_none() && reply.body.get("search_results").is_none());
    assert_eq!(reply.body["usage"]["num_search_queries"], 0);
    assert!(content(&reply.body).starts_with("Answering from the model's own knowledge"));
}

#[tokio::test(start_paused = true)]
async fn a_reasoning_model_thinks_first_and_reasoning_effort_sets_how_long() {
    let mock = Mock::new();
    let tokens = |reply: &crate::common::Reply| reply.body["usage"]["reasoning_tokens"].as_u64();
    let low = mock
        .chat(with(
            ask("sonar-reasoning-pro", "why is the sky blue"),
            "reasoning_effort",
            json!("low"),
        ))
        .await;
    let high = mock
        .chat(with(
            ask("sonar-reasoning-pro", "why is the sky blue"),
            "reasoning_effort",
            json!("high"),
        ))
        .await;
    for reply in [&low, &high] {
        let text = content(&reply.body);
        assert!(
            text.starts_with("<think>\n") && text.contains("\n</think>\n\n"),
            "{text}"
        );
    }
    assert!(
        tokens(&high) > tokens(&low),
        "{:?} vs {:?}",
        tokens(&high),
        tokens(&low)
    );
    let plain = mock.chat(ask("sonar", "why is the sky blue")).await;
    assert!(!content(&plain.body).contains("<think>"));
    assert_eq!(tokens(&plain), Some(0));
}

#[tokio::test(start_paused = true)]
async fn max_tokens_cuts_the_answer_with_length_and_stop_ends_it_before_the_sequence() {
    let mock = Mock::new();
    let cut = mock
        .chat(with(ask("sonar", "solar power"), "max_tokens", json!(5)))
        .await;
    assert_eq!(cut.body["choices"][0]["finish_reason"], "length");
    assert_eq!(content(&cut.body).chars().count(), 20);
    assert_eq!(cut.body["usage"]["completion_tokens"], 5);

    let stopped = mock
        .chat(with(ask("sonar", "solar power"), "stop", json!(["[1]"])))
        .await;
    assert_eq!(stopped.body["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        content(&stopped.body),
        "Here is a short answer about solar power"
    );
}

#[tokio::test(start_paused = true)]
async fn the_user_location_and_country_are_named_in_the_answer() {
    let mock = Mock::new();
    let located = with(
        ask("sonar", "best coffee nearby"),
        "web_search_options",
        json!({"user_location": {"city": "Lisbon", "country": "PT"}}),
    );
    let text = content(&mock.chat(located).await.body);
    assert!(
        text.ends_with("Answered for a reader in Lisbon, PT."),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn the_cited_answer_scenario_answers_its_script_with_its_sources() {
    let mock = Mock::new();
    let body = with(
        ask("sonar", "#cited-answer What did Webb find?"),
        "return_related_questions",
        json!(true),
    );
    let reply = mock.chat(body).await;
    let text = content(&reply.body);
    assert!(
        text.starts_with("The James Webb Space Telescope confirmed"),
        "{text}"
    );
    assert_eq!(urls(&reply.body).len(), 3);
    assert_eq!(
        reply.body["search_results"][2]["title"],
        "Water is not life: what K2-18 b's spectrum does and does not say"
    );
    assert_eq!(
        reply.body["related_questions"][1],
        "Is K2-18 b a habitable planet?"
    );
}

#[tokio::test(start_paused = true)]
async fn a_whole_answer_comes_once_its_writing_time_has_passed_on_the_virtual_clock() {
    let mock = Mock::with(MockServer::builder().manual_clock());
    let pending = {
        let mock = mock.clone();
        tokio::spawn(async move { mock.chat(ask("sonar", "#cited-answer hi")).await })
    };
    // One second before the first token, then 15 chunks 50 ms apart: 1.7 s in all.
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(
        !pending.is_finished(),
        "answered before any virtual time passed"
    );
    mock.advance(Duration::from_millis(1600));
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(!pending.is_finished(), "answered before its writing time");
    mock.advance(Duration::from_millis(200));
    let reply = pending.await.expect("the request ends");
    assert_eq!(reply.status, 200);
}
