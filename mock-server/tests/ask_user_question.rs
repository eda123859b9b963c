//! `ask_user_question`: the interactive object, and `answer_question` with its `followup_uuid`.

use serde_json::{Value, json};

use crate::common::{Client, Mock, keys, mock_with_scenario, text, text_json, thread_id};

async fn asked(client: &mut Client) -> Value {
    client
        .start("#ask-user-question Build the sales report for last quarter")
        .await
}

#[tokio::test(start_paused = true)]
async fn a_question_answers_the_interactive_object_and_input_required() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = asked(&mut client).await;
    let thread = thread_id(&result);

    assert_eq!(result["event"], "ask_user_question");
    assert_eq!(result["task_status"], "input_required");
    assert_eq!(
        result["text"],
        "Which format should I use?\n1. PDF\n2. DOCX"
    );
    let interactive = &result["interactive"];
    assert_eq!(
        keys(interactive),
        ["followup_uuid", "respond_with_tool", "thread_id", "type"]
    );
    assert_eq!(interactive["type"], "ask_user_question");
    assert_eq!(interactive["thread_id"], thread);
    assert_eq!(interactive["respond_with_tool"], "answer_question");
    assert!(
        !interactive["followup_uuid"]
            .as_str()
            .unwrap_or("")
            .is_empty()
    );
    assert!(
        result.get("pending_interactions").is_none(),
        "only one question waits"
    );
}

#[tokio::test(start_paused = true)]
async fn answer_question_with_the_followup_uuid_continues_the_same_request() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;
    let thread = thread_id(&asked);

    let result = client
        .call_json(
            "answer_question",
            json!({
                "thread_id": thread,
                "answers": {"q1": "PDF"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(result["thread_id"], thread);
    assert_eq!(result["event"], "complete");
    assert_eq!(result["task_status"], "completed");
    assert_eq!(result["files"][0]["filename"], "sales-report.pdf");
    let read = client.read(&thread).await;
    assert!(
        text(&read).contains("PDF"),
        "the answer is in the transcript"
    );
    assert_eq!(
        read["web_state"]["entries"].as_array().map(Vec::len),
        Some(1),
        "the answer continued the same request rather than starting a turn"
    );
}

#[tokio::test(start_paused = true)]
async fn answers_may_be_keyed_by_the_question_text() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;

    let result = client
        .call_json(
            "answer_question",
            json!({
                "thread_id": thread_id(&asked),
                "answers": {"Which format should I use?": "DOCX"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(result["event"], "complete");
    assert!(text(&client.read(&thread_id(&asked)).await).contains("DOCX"));
}

#[tokio::test(start_paused = true)]
async fn an_unknown_answer_key_is_an_error_naming_the_key_and_the_question_stays_open() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;
    let thread = thread_id(&asked);

    let raw = client
        .call(
            "answer_question",
            json!({
                "thread_id": thread,
                "answers": {"q1": "PDF", "colour": "blue"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(raw["isError"], true);
    let result = text_json(&raw);
    assert!(text(&result).contains("`colour`"), "{result}");
    assert!(result.get("task_status").is_none());
    let read = client.read(&thread).await;
    assert_eq!(read["web_state"]["task_status"], "input_required");
}

fn two_questions() -> Value {
    json!({
        "name": "two-questions",
        "description": "Asks two questions at once.",
        "turns": [{
            "steps": [{"title": "Planning the trip", "duration": "5s"}],
            "outcome": {
                "event": "ask_user_question",
                "text": "Two questions:\n1. Where to?\n2. How many nights?",
                "interactions": [{"kind": "question", "questions": [
                    {"id": "city", "question": "Where to?"},
                    {"id": "nights", "question": "How many nights?"}
                ]}],
                "then": {"outcome": {"event": "complete", "text": "Trip planned."}}
            }
        }]
    })
}

#[tokio::test(start_paused = true)]
async fn a_missing_answer_is_an_error_naming_the_question_key() {
    let mock = mock_with_scenario(&two_questions());
    let mut client = mock.session("alice-dev-token").await;
    let asked = client.start("#two-questions plan a trip").await;

    let raw = client
        .call(
            "answer_question",
            json!({
                "thread_id": thread_id(&asked),
                "answers": {"city": "Rome"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(raw["isError"], true);
    let result = text_json(&raw);
    assert!(text(&result).contains("nights"), "{result}");

    let done = client
        .call_json(
            "answer_question",
            json!({
                "thread_id": thread_id(&asked),
                "answers": {"city": "Rome", "How many nights?": "3"},
                "followup_uuid": asked["interactive"]["followup_uuid"],
            }),
        )
        .await;
    assert_eq!(done["event"], "complete");
    assert_eq!(done["text"], "Trip planned.");
}

#[tokio::test(start_paused = true)]
async fn an_unknown_followup_uuid_is_an_error_with_a_sentence() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;

    let raw = client
        .call(
            "answer_question",
            json!({
                "thread_id": thread_id(&asked),
                "answers": {"q1": "PDF"},
                "followup_uuid": "00000000-0000-4000-8000-000000000000",
            }),
        )
        .await;

    assert_eq!(raw["isError"], true);
    let result = text_json(&raw);
    let message = text(&result);
    assert!(
        message.contains("00000000-0000-4000-8000-000000000000"),
        "{message}"
    );
    assert!(message.ends_with('.'), "a sentence: {message}");
    assert!(
        message.contains("read_thread"),
        "says what to do: {message}"
    );
}

#[tokio::test(start_paused = true)]
async fn an_already_answered_followup_uuid_is_an_error_saying_so() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;
    let args = json!({
        "thread_id": thread_id(&asked),
        "answers": {"q1": "PDF"},
        "followup_uuid": asked["interactive"]["followup_uuid"],
    });
    let first = client.call_json("answer_question", args.clone()).await;
    assert_eq!(first["event"], "complete");

    let raw = client.call("answer_question", args).await;

    assert_eq!(raw["isError"], true);
    let result = text_json(&raw);
    assert!(text(&result).contains("already answered"), "{result}");
    assert!(result.get("task_status").is_none());
}

#[tokio::test(start_paused = true)]
async fn read_thread_shows_the_question_with_an_answer_submission_uuid_that_works_as_followup_uuid()
{
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let asked = asked(&mut client).await;
    let thread = thread_id(&asked);

    let read = client.read(&thread).await;
    let entry = &read["web_state"]["entries"][0];
    let interactions = entry["interactions"].as_array().expect("interactions");
    assert_eq!(interactions.len(), 1);
    let interaction = &interactions[0];
    assert_eq!(interaction["type"], "ask_user_question");
    let submission = interaction["request"]["answer_submission_uuid"]
        .as_str()
        .expect("answer_submission_uuid");
    assert_eq!(submission, asked["interactive"]["followup_uuid"]);
    assert_eq!(
        interaction["request"]["questions"][0]["question"],
        "Which format should I use?"
    );
    assert_eq!(
        interaction["request"]["questions"][0]["options"],
        json!(["PDF", "DOCX"])
    );

    let result = client
        .call_json(
            "answer_question",
            json!({"thread_id": thread, "answers": {"q1": "PDF"}, "followup_uuid": submission}),
        )
        .await;
    assert_eq!(result["event"], "complete");
}
