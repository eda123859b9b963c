//! `complete`: a task that finishes inside the call window, with the sources it found.

use serde_json::{Value, json};

use crate::common::{Mock, keys, mock_with_scenario, text, text_json};

#[tokio::test(start_paused = true)]
async fn a_finished_task_answers_complete_with_task_status_completed() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize the top 5 stories"}),
        )
        .await;
    let result = text_json(&raw);

    assert_eq!(raw["isError"], false);
    assert_eq!(
        keys(&result),
        ["event", "sources", "task_status", "text", "thread_id"]
    );
    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    assert!(
        text(&result).starts_with("Here are today's top stories on Hacker News"),
        "{result}"
    );
    assert_eq!(raw["content"].as_array().map(Vec::len), Some(1));
}

#[tokio::test(start_paused = true)]
async fn structured_content_is_the_same_object_as_the_text_block() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let raw = client
        .call(
            "call_perplexity_computer",
            json!({"message": "#complete Summarize the top 5 stories"}),
        )
        .await;

    assert_eq!(raw["content"][0]["type"], "text");
    assert_eq!(raw["structuredContent"], text_json(&raw));
}

#[tokio::test(start_paused = true)]
async fn sources_carry_title_url_domain_and_snippet_in_the_order_found() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client.start("#complete Summarize the top 5 stories").await;
    let sources = result["sources"].as_array().expect("sources");

    assert_eq!(sources.len(), 3);
    for source in sources {
        assert_eq!(keys(source), ["domain", "snippet", "title", "url"]);
        assert_eq!(source["domain"], "news.ycombinator.com");
    }
    assert_eq!(
        sources[0],
        json!({
            "title": "Hacker News",
            "url": "https://news.ycombinator.com/",
            "domain": "news.ycombinator.com",
            "snippet": "Top stories on Hacker News right now.",
        })
    );
    assert_eq!(
        sources[1]["url"],
        "https://news.ycombinator.com/item?id=41000001"
    );
    assert_eq!(
        sources[2]["url"],
        "https://news.ycombinator.com/item?id=41000002"
    );
    assert_eq!(
        sources[2]["snippet"],
        Value::Null,
        "an unknown snippet is null"
    );
}

fn many_sources_scenario() -> Value {
    let source = |i: usize| json!({"url": format!("https://site{i}.example.org/page"), "title": format!("Page {i}")});
    let first: Vec<Value> = (0..30).map(source).collect();
    // Overlaps the first step (20..30), then brings 30 new URLs: 60 distinct in all.
    let second: Vec<Value> = (20..60).map(source).collect();
    json!({
        "name": "many-sources",
        "description": "Two steps finding 70 sources, 60 distinct URLs.",
        "turns": [{
            "steps": [
                {"title": "Searching", "type": "search_web", "duration": "5s", "sources": first},
                {"title": "Searching more", "type": "search_web", "duration": "5s", "sources": second}
            ],
            "outcome": {"event": "complete", "text": "Found a lot.", "sources": [source(0), {"url": "https://untitled.example.net/x"}]}
        }]
    })
}

#[tokio::test(start_paused = true)]
async fn sources_are_one_per_url_and_at_most_fifty() {
    let mock = mock_with_scenario(&many_sources_scenario());
    let mut client = mock.session("alice-dev-token").await;

    let result = client.start("#many-sources research everything").await;
    let sources = result["sources"].as_array().expect("sources");

    assert_eq!(sources.len(), 50);
    let urls: Vec<&str> = sources.iter().filter_map(|s| s["url"].as_str()).collect();
    let expected: Vec<String> = (0..50)
        .map(|i| format!("https://site{i}.example.org/page"))
        .collect();
    assert_eq!(urls, expected, "one per URL, in the order found");
    assert_eq!(sources[7]["domain"], "site7.example.org");
    assert_eq!(sources[7]["title"], "Page 7");
}

#[tokio::test(start_paused = true)]
async fn a_result_without_sources_leaves_the_field_out() {
    let scenario = json!({
        "name": "no-sources",
        "description": "Finishes without sources.",
        "turns": [{"steps": [{"title": "Thinking", "duration": "3s"}],
                   "outcome": {"event": "complete", "text": "42."}}]
    });
    let mock = mock_with_scenario(&scenario);
    let mut client = mock.session("alice-dev-token").await;

    let result = client.start("#no-sources what is the answer").await;

    assert_eq!(keys(&result), ["event", "task_status", "text", "thread_id"]);
    assert_eq!(result["text"], "42.");
}

#[tokio::test(start_paused = true)]
async fn a_complete_answer_that_waits_on_the_user_reports_input_required() {
    let scenario = json!({
        "name": "answer-waits-on-user",
        "description": "The answer itself asks the user to pick.",
        "turns": [{"steps": [{"title": "Comparing plans", "duration": "5s"}],
                   "outcome": {"event": "complete", "text": "Plan A or plan B? Tell me which to book.", "waiting_on_user": true}}]
    });
    let mock = mock_with_scenario(&scenario);
    let mut client = mock.session("alice-dev-token").await;

    let result = client
        .start("#answer-waits-on-user compare the plans")
        .await;

    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "input_required");
    assert!(result.get("interactive").is_none(), "{result}");
}
