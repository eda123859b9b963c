//! `POST /search` (the Search API): `{id, results, server_time}`, one list of results for one
//! query and one per query for several, `max_results`, the filters, the country and the token
//! budgets honoured, a scenario's own results when the query names one.

use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::common::Mock;

fn results(reply: &Value) -> Vec<Value> {
    reply["results"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(start_paused = true)]
async fn a_query_gets_ten_results_with_title_url_snippet_date_and_last_updated() {
    let mock = Mock::new();
    let reply = mock.search(json!({"query": "solar power"})).await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    let keys: Vec<&str> = reply
        .body
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(keys, ["id", "results", "server_time"]);
    assert!(reply.body["server_time"].is_null());
    let found = results(&reply.body);
    assert_eq!(found.len(), 10, "max_results defaults to 10");
    for page in &found {
        let keys: Vec<&str> = page
            .as_object()
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(keys, ["title", "url", "snippet", "date", "last_updated"]);
        assert!(
            page["snippet"]
                .as_str()
                .is_some_and(|s| s.contains("solar power"))
        );
    }
    let urls: Vec<&str> = found.iter().filter_map(|p| p["url"].as_str()).collect();
    let mut unique = urls.clone();
    unique.dedup();
    assert_eq!(unique.len(), urls.len(), "no page twice: {urls:?}");
}

#[tokio::test(start_paused = true)]
async fn a_list_of_queries_gets_one_list_of_results_per_query_in_order() {
    let mock = Mock::new();
    let reply = mock
        .search(json!({"query": ["wind energy", "tidal energy"], "max_results": 2}))
        .await;
    let groups = results(&reply.body);
    assert_eq!(groups.len(), 2);
    for (group, topic) in groups.iter().zip(["wind energy", "tidal energy"]) {
        let pages = group.as_array().expect("a list per query");
        assert_eq!(pages.len(), 2);
        assert!(
            pages
                .iter()
                .all(|p| p["snippet"].as_str().is_some_and(|s| s.contains(topic)))
        );
    }
}

#[tokio::test(start_paused = true)]
async fn max_results_the_filters_and_the_country_are_honoured() {
    let mock = Mock::new();
    let reply = mock
        .search(json!({
            "query": "heat pumps", "max_results": 4,
            "search_domain_filter": ["theguardian.com", "bbc.com"],
            "search_before_date_filter": "9/30/2026", "search_after_date_filter": "9/1/2026",
            "country": "gb"
        }))
        .await;
    let found = results(&reply.body);
    assert_eq!(found.len(), 4);
    let (from, to) = (
        NaiveDate::from_ymd_opt(2026, 9, 1).expect("date"),
        NaiveDate::from_ymd_opt(2026, 9, 30).expect("date"),
    );
    for page in &found {
        let url = page["url"].as_str().unwrap_or_default();
        assert!(
            url.starts_with("https://theguardian.com/") || url.starts_with("https://bbc.com/"),
            "{url}"
        );
        let date = NaiveDate::parse_from_str(page["date"].as_str().unwrap_or(""), "%Y-%m-%d")
            .expect("date");
        assert!(date >= from && date <= to, "{date}");
        assert!(
            page["snippet"]
                .as_str()
                .is_some_and(|s| s.ends_with("Coverage for readers in GB."))
        );
    }
    let fast = mock
        .search(json!({"query": "heat pumps", "max_results": 12, "search_type": "fast"}))
        .await;
    assert_eq!(
        results(&fast.body).len(),
        5,
        "fast search returns at most five"
    );
}

#[tokio::test(start_paused = true)]
async fn the_token_budgets_shorten_the_snippets() {
    let mock = Mock::new();
    let reply = mock
        .search(
            json!({"query": "heat pumps", "max_tokens_per_page": 3, "search_context_size": "high"}),
        )
        .await;
    assert!(results(&reply.body).iter().all(|p| {
        p["snippet"]
            .as_str()
            .is_some_and(|s| s.chars().count() <= 12)
    }));
    let budget = mock
        .search(json!({"query": "heat pumps", "max_tokens": 20, "max_results": 5}))
        .await;
    let shown: usize = results(&budget.body)
        .iter()
        .map(|p| p["snippet"].as_str().map_or(0, |s| s.chars().count()))
        .sum();
    assert!(shown <= 80, "{shown} characters for a budget of 20 tokens");
}

#[tokio::test(start_paused = true)]
async fn display_server_time_answers_the_virtual_time() {
    let mock = Mock::new();
    let reply = mock
        .search(json!({"query": "time", "display_server_time": true}))
        .await;
    let now = mock.handle.clock().now();
    assert_eq!(
        reply.body["server_time"],
        now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
}

#[tokio::test(start_paused = true)]
async fn a_scenario_named_in_the_query_scripts_the_results_and_spends_like_the_rest() {
    let mock = Mock::new();
    let before = mock.handle.world().credits("alice");
    let reply = mock.search(json!({"query": "#cited-answer Webb"})).await;
    let found = results(&reply.body);
    assert_eq!(found.len(), 3);
    assert_eq!(
        found[0]["url"],
        "https://science.nasa.gov/missions/webb/k2-18b-water-vapour"
    );
    assert_eq!(
        mock.handle.world().credits("alice"),
        before - 1,
        "$5 per thousand: a credit"
    );
    let limited = mock
        .search(json!({"query": "#server-error anything"}))
        .await;
    assert_eq!(limited.status, 500);
    assert_eq!(
        mock.handle.world().credits("alice"),
        before - 1,
        "a refusal spends nothing"
    );
}
