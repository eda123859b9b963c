//! Expectations verified on drop, as wiremock-rs does: an unmet one panics with the journal in
//! the message, a met one stays quiet, `after_event` counts only what follows the event on its
//! thread, and a test that already fails is not buried under a second panic.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use mock_server::{Expectation, MockServer};

/// What a test that uses `?` on the mock's errors returns.
type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A mock whose time follows its client, so every call here answers at once.
async fn driven_mock() -> Result<MockServer, mock_server::Error> {
    MockServer::builder()
        .driven_clock(Duration::from_secs(60))
        .start()
        .await
}

#[tokio::test]
#[should_panic(expected = "The mock's expectations failed (1 of 2):
- `read_thread` called after a `timeout` result: wanted at least 1 time, seen 0 times
The journal (3 exchanges):
  #0 POST /rest/computer/mcp initialize -> 200
  #1 POST /rest/computer/mcp notifications/initialized -> 202
  #2 POST /rest/computer/mcp tools/call call_perplexity_computer -> 200 (complete)
")]
async fn an_unmet_expectation_panics_on_drop_with_the_journal_in_the_message() {
    let mock = driven_mock().await.expect("mock starts");
    mock.expect(Expectation::tool_call("read_thread").after_event("timeout"));
    mock.expect(Expectation::tool_call("call_perplexity_computer").times(1));
    let session = mock.mcp_session().await.expect("session");
    let done = session.call_computer("#complete Go").await.expect("call");
    assert_eq!(done["event"], "complete");
}

#[tokio::test]
async fn met_expectations_do_not_panic_on_drop() -> TestResult {
    let mock = driven_mock().await?;
    mock.expect(
        Expectation::tool_call("read_thread")
            .after_event("timeout")
            .times(1),
    );
    mock.expect(Expectation::tool_call("cancel_task").times(0));
    mock.expect(Expectation::request("post", "/rest/computer/mcp").times(4));
    let session = mock.mcp_session().await?;
    let started = session.call_computer("#timeout-then-complete Go").await?;
    session
        .read_thread(started["thread_id"].as_str().ok_or("a thread")?)
        .await?;
    Ok(())
}

#[tokio::test]
async fn after_event_counts_only_calls_after_the_event_on_the_thread_it_was_about() -> TestResult {
    let mock = driven_mock().await?;
    mock.expect(
        Expectation::tool_call("read_thread")
            .after_event("timeout")
            .times(1),
    );
    let session = mock.mcp_session().await?;
    let other = session.call_computer("#complete Go").await?;
    let other = other["thread_id"].as_str().ok_or("a thread")?.to_owned();
    // Before any timeout: does not count.
    session.read_thread(&other).await?;
    let started = session.call_computer("#timeout-then-complete Go").await?;
    assert_eq!(started["event"], "timeout");
    // After the timeout, but of another thread: does not count either.
    session.read_thread(&other).await?;
    // The read the expectation is about: exactly one.
    session
        .read_thread(started["thread_id"].as_str().ok_or("a thread")?)
        .await?;
    mock.verify();
    Ok(())
}

#[tokio::test]
async fn verify_reports_in_the_middle_of_a_test_and_the_drop_sees_the_later_call() -> TestResult {
    let mock = driven_mock().await?;
    mock.expect(Expectation::matching("a models_list call", |e| {
        e.request_body["params"]["name"] == "models_list"
    }));
    let session = mock.mcp_session().await?;
    let unmet = catch_unwind(AssertUnwindSafe(|| mock.verify())).expect_err("not called yet");
    let message = unmet.downcast_ref::<String>().ok_or("a message")?;
    assert!(
        message.contains("- a models_list call: wanted at least 1 time, seen 0 times"),
        "{message}"
    );
    assert!(message.contains("The journal (2 exchanges):"), "{message}");
    session
        .call_tool("models_list", serde_json::json!({}))
        .await?;
    mock.verify();
    Ok(())
}

#[tokio::test]
#[should_panic(expected = "the test's own assertion")]
async fn a_test_that_already_panics_is_not_buried_under_the_report() {
    let mock = driven_mock().await.expect("mock starts");
    mock.expect(Expectation::tool_call("read_thread"));
    // The mock drops while this panic unwinds: a second panic would abort the test binary.
    panic!("the test's own assertion");
}

#[test]
fn a_handle_without_a_socket_verifies_only_when_asked() {
    let (_router, mock) = MockServer::builder()
        .router("http://mock.test")
        .expect("mock");
    mock.expect(Expectation::request("GET", "/_mock/journal").times(1..=2));
    let unmet = catch_unwind(AssertUnwindSafe(|| mock.verify())).expect_err("nothing sent");
    let message = unmet.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("- `GET /_mock/journal` requested: wanted 1 to 2 times, seen 0 times"),
        "{message}"
    );
    assert!(
        message.ends_with("The journal (0 exchanges):\n"),
        "{message}"
    );
    // Dropping the handle checks nothing: only a running MockServer verifies on drop.
}
