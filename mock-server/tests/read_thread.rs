//! `read_thread`: the transcript, the thread status and the web state, without sending anything.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{self, Mock, keys, mock_with_scenario, text, thread_id};

#[tokio::test(start_paused = true)]
async fn read_thread_answers_exactly_the_documented_fields() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#complete Summarize the top 5 stories").await;
    let thread = thread_id(&done);

    let raw = client
        .call("read_thread", json!({"thread_id": thread}))
        .await;
    let read = common::text_json(&raw);

    assert_eq!(raw["isError"], false);
    assert_eq!(raw["structuredContent"], read);
    assert_eq!(
        keys(&read),
        ["event", "status", "text", "thread_id", "web_state"]
    );
    assert_eq!(read["thread_id"], thread);
    assert_eq!(read["event"], "transcript");
    assert_eq!(read["status"], "idle");
    let transcript = text(&read);
    let user_at = transcript
        .find("Summarize the top 5 stories")
        .expect("the user message");
    let answer_at = transcript
        .find("Here are today's top stories")
        .expect("the answer");
    assert!(user_at < answer_at, "in order: {transcript}");
}

#[tokio::test(start_paused = true)]
async fn web_state_has_thread_status_wake_at_task_status_and_entries() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#complete Summarize the top 5 stories").await;

    let read = client.read(&thread_id(&done)).await;
    let state = &read["web_state"];

    assert_eq!(
        keys(state),
        ["entries", "task_status", "thread_status", "wake_at"]
    );
    assert_eq!(state["thread_status"], "idle");
    assert_eq!(state["wake_at"], Value::Null);
    assert_eq!(state["task_status"], "completed");
    let entries = state["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1);
    assert_eq!(
        keys(&entries[0]),
        [
            "auth_requests",
            "created_at",
            "entry_id",
            "form_links",
            "interactions",
            "status",
            "steps"
        ]
    );
    assert_eq!(entries[0]["status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn only_the_latest_entry_lists_its_steps_with_the_documented_fields() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = client
        .start("Summarize the top 5 stories on Hacker News right now")
        .await;
    let thread = thread_id(&first);
    client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Turn that into a PDF report", "thread_id": thread}),
        )
        .await;

    let read = client.read(&thread).await;
    let entries = read["web_state"]["entries"].as_array().expect("entries");

    assert_eq!(entries.len(), 2);
    assert!(entries[0].get("steps").is_none(), "{}", entries[0]);
    let steps = entries[1]["steps"].as_array().expect("steps");
    let titles: Vec<&str> = steps.iter().filter_map(|s| s["title"].as_str()).collect();
    assert_eq!(
        titles,
        ["Drafting the report layout", "Rendering report.pdf"]
    );
    for step in steps {
        assert_eq!(
            keys(step),
            [
                "completed_at",
                "id",
                "sources",
                "started_at",
                "status",
                "title",
                "type"
            ]
        );
        assert_eq!(step["status"], "completed");
        assert!(step["started_at"].is_string() && step["completed_at"].is_string());
    }
    assert_eq!(steps[0]["type"], "write");
    assert_eq!(steps[1]["type"], "create_file");
    assert_ne!(steps[0]["id"], steps[1]["id"]);
}

fn many_sources_per_step() -> Value {
    let sources: Vec<Value> = (0..7)
        .map(|i| {
            json!({"url": format!("https://example.org/{i}"), "title": format!("Source {i}"), "snippet": "s"})
        })
        .collect();
    json!({
        "name": "step-sources",
        "description": "One step with seven sources.",
        "turns": [{
            "steps": [{"title": "Reading seven pages", "type": "browse", "duration": "10s", "sources": sources}],
            "outcome": {"event": "complete", "text": "Read them all."}
        }]
    })
}

#[tokio::test(start_paused = true)]
async fn a_step_lists_at_most_five_sources_with_url_and_title() {
    let mock = mock_with_scenario(&many_sources_per_step());
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#step-sources read these").await;
    assert_eq!(done["sources"].as_array().map(Vec::len), Some(7));

    let read = client.read(&thread_id(&done)).await;
    let sources = read["web_state"]["entries"][0]["steps"][0]["sources"]
        .as_array()
        .expect("sources")
        .clone();

    assert_eq!(sources.len(), 5);
    for source in &sources {
        assert_eq!(keys(source), ["title", "url"]);
    }
    assert_eq!(
        sources[0],
        json!({"url": "https://example.org/0", "title": "Source 0"})
    );
}

#[tokio::test(start_paused = true)]
async fn a_running_task_reads_running_and_working_with_its_open_step() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel Build the product catalog").await;
    assert_eq!(started["event"], "timeout");

    let read = client.read(&thread_id(&started)).await;

    assert_eq!(read["status"], "running");
    assert_eq!(read["web_state"]["thread_status"], "running");
    assert_eq!(read["web_state"]["task_status"], "working");
    let step = &read["web_state"]["entries"][0]["steps"][0];
    assert_eq!(step["status"], "working");
    assert_eq!(step["completed_at"], Value::Null);
}

#[tokio::test(start_paused = true)]
async fn a_message_sent_while_computer_is_busy_reads_queued() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let started = client.start("#cancel Build the product catalog").await;
    let thread = thread_id(&started);
    let pending = common::follow_up_in_background(&mock, &thread, "Also add prices").await;

    let read = client.read(&thread).await;
    assert_eq!(read["status"], "queued", "{read}");
    assert_eq!(read["web_state"]["thread_status"], "queued");
    pending.abort();
}

#[tokio::test(start_paused = true)]
async fn a_long_transcript_keeps_the_recent_turns_and_says_truncated() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client
        .start("#long-transcript Summarize what we changed")
        .await;

    let read = client.read(&thread_id(&done)).await;

    assert_eq!(read["truncated"], true);
    assert_eq!(
        keys(&read),
        [
            "event",
            "status",
            "text",
            "thread_id",
            "truncated",
            "web_state"
        ]
    );
    let transcript = text(&read);
    assert!(transcript.contains("Summarize what we changed"));
    assert!(transcript.contains("Summary of our last 30 changes"));
    assert!(transcript.contains("Turn 30:"), "recent turns are kept");
    assert!(
        !transcript.contains("Turn 1:"),
        "the oldest turns are left out"
    );
}

#[tokio::test(start_paused = true)]
async fn a_short_transcript_has_no_truncated_field() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#complete Summarize the top 5 stories").await;

    let read = client.read(&thread_id(&done)).await;

    assert!(read.get("truncated").is_none());
}

#[tokio::test(start_paused = true)]
async fn when_the_web_state_cannot_be_loaded_it_is_null_with_web_state_error_and_a_retry_works() {
    let scenario = json!({
        "name": "flaky-web-state",
        "description": "The first read_thread cannot load the web state.",
        "settings": {"web_state_error": true},
        "turns": [{"steps": [{"title": "Working", "duration": "5s"}],
                   "outcome": {"event": "complete", "text": "Done."}}]
    });
    let mock = mock_with_scenario(&scenario);
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#flaky-web-state do it").await;
    let thread = thread_id(&done);

    let read = client.read(&thread).await;

    assert_eq!(
        keys(&read),
        [
            "event",
            "status",
            "text",
            "thread_id",
            "web_state",
            "web_state_error"
        ]
    );
    assert_eq!(read["web_state"], Value::Null);
    assert!(
        read["web_state_error"]
            .as_str()
            .unwrap_or("")
            .contains("Retry read_thread")
    );
    assert!(text(&read).contains("Done."), "the transcript still loads");

    let retry = client.read(&thread).await;
    assert!(retry.get("web_state_error").is_none());
    assert_eq!(retry["web_state"]["task_status"], "completed");
}

#[tokio::test(start_paused = true)]
async fn reading_a_thread_does_not_resume_or_change_it() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = client
        .start("#ask-user-question Build the sales report")
        .await;
    let thread = thread_id(&asked);

    let first = client.read(&thread).await;
    mock.advance(Duration::from_secs(600));
    let second = client.read(&thread).await;

    assert_eq!(first, second);
    assert_eq!(second["web_state"]["task_status"], "input_required");
}

#[tokio::test(start_paused = true)]
async fn the_latest_entry_lists_only_its_last_twenty_steps_oldest_first() {
    let steps: Vec<Value> = (1..=25)
        .map(|i| json!({"title": format!("Step {i}"), "duration": "1s"}))
        .collect();
    let scenario = json!({
        "name": "many-steps",
        "description": "Twenty-five steps.",
        "turns": [{"steps": steps, "outcome": {"event": "complete", "text": "All done."}}]
    });
    let mock = mock_with_scenario(&scenario);
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#many-steps go").await;

    let read = client.read(&thread_id(&done)).await;
    let titles: Vec<&str> = read["web_state"]["entries"][0]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["title"].as_str())
        .collect();

    let expected: Vec<String> = (6..=25).map(|i| format!("Step {i}")).collect();
    assert_eq!(titles, expected);
}

/// "Perplexity Computer MCP Server, read_thread": `text` is "The user and assistant messages in
/// order, as Markdown"; the assistant's message linked its files, so the transcript does too,
/// with the links the result showed.
#[tokio::test(start_paused = true)]
async fn the_transcript_keeps_the_file_links_of_the_answer() {
    let mock = common::Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let done = client.start("#files Analyze the survey").await;
    let thread = common::thread_id(&done);
    let url = done["files"][0]["url"]
        .as_str()
        .expect("a file url")
        .to_owned();

    let read = client.read(&thread).await;
    let text = common::text(&read);
    assert!(!text.contains("](attached)"), "{text}");
    assert!(
        text.contains(&format!("[survey-report.pdf]({url})")),
        "{text}"
    );
}
