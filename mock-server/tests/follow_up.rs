//! Conversation threading: the same `thread_id` continues a thread; leaving it out starts one.

use serde_json::json;

use crate::common::{self, Mock, keys, text, thread_id};

#[tokio::test(start_paused = true)]
async fn a_follow_up_with_the_same_thread_id_continues_the_thread() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let first = client
        .start("Summarize the top 5 stories on Hacker News right now")
        .await;
    let thread = thread_id(&first);
    assert_eq!(first["event"], "complete");
    assert!(first.get("files").is_none());

    let second = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Turn that into a PDF report", "thread_id": thread}),
        )
        .await;

    assert_eq!(second["thread_id"], thread);
    assert_eq!(second["event"], "complete");
    assert_eq!(second["task_status"], "completed");
    assert!(text(&second).starts_with("Here's the report."), "{second}");
    let transcript = client.read(&thread).await;
    let transcript = text(&transcript);
    let first_at = transcript
        .find("Summarize the top 5 stories")
        .expect("first message in the transcript");
    let second_at = transcript
        .find("Turn that into a PDF report")
        .expect("second message in the transcript");
    assert!(first_at < second_at);
}

#[tokio::test(start_paused = true)]
async fn the_second_turn_returns_the_pdf_file() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = client
        .start("Summarize the top 5 stories on Hacker News right now")
        .await;

    let second = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Turn that into a PDF report", "thread_id": thread_id(&first)}),
        )
        .await;

    let files = second["files"].as_array().expect("files");
    assert_eq!(files.len(), 1);
    let file = &files[0];
    assert_eq!(keys(file), ["filename", "media_type", "size_bytes", "url"]);
    assert_eq!(file["filename"], "report.pdf");
    assert_eq!(file["media_type"], "application/pdf");
    let url = file["url"].as_str().expect("url");
    // The scenario's comment line is the real PDF's text; size_bytes is what is served.
    let served = mock.get(url).await;
    let pdf = served.body.as_str().expect("a PDF of ASCII text");
    assert!(
        pdf.starts_with("%PDF-1.4\n") && pdf.contains("(Hacker News top 5 report \\(mock\\)) Tj"),
        "{pdf}"
    );
    assert_eq!(file["size_bytes"], pdf.len());
    assert!(
        text(&second).contains(&format!("[report.pdf]({url})")),
        "the file is linked in text: {second}"
    );
    assert!(url.starts_with(common::BASE), "{url}");
    assert_eq!(served.status, 200);
    assert_eq!(served.headers["content-type"], "application/pdf");
}

#[tokio::test(start_paused = true)]
async fn leaving_out_the_thread_id_starts_a_new_thread() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = client
        .start("Summarize the top 5 stories on Hacker News right now")
        .await;

    let other = client
        .start("Summarize the top 5 stories on Hacker News right now")
        .await;

    assert_ne!(thread_id(&other), thread_id(&first));
    assert_eq!(other["event"], "complete");
    assert!(
        other.get("files").is_none(),
        "a new thread starts at the first turn: {other}"
    );
    let transcript = client.read(&thread_id(&other)).await;
    assert_eq!(
        text(&transcript)
            .matches("Summarize the top 5 stories")
            .count(),
        1
    );
}

#[tokio::test(start_paused = true)]
async fn a_follow_up_sent_while_computer_is_busy_runs_after_the_current_request() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let first = client
        .start("#timeout-then-complete Summarize the top 5 stories")
        .await;
    assert_eq!(first["event"], "timeout");
    let thread = thread_id(&first);

    let second = client
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Also list the comment counts", "thread_id": thread}),
        )
        .await;

    assert_eq!(second["thread_id"], thread);
    assert_eq!(second["event"], "complete");
    assert!(
        text(&second).contains("Also list the comment counts"),
        "the result is the follow-up's own answer: {second}"
    );
    let read = client.read(&thread).await;
    let transcript = text(&read);
    let finished = transcript
        .find("Finished the report")
        .expect("the first request finished");
    let follow_up = transcript
        .find("Also list the comment counts")
        .expect("the follow-up ran");
    assert!(finished < follow_up, "{transcript}");
}
