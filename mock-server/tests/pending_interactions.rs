//! `pending_interactions`: several prompts waiting at once, each with its own `followup_uuid`.

use serde_json::json;

use crate::common::{Mock, keys, thread_id};

#[tokio::test(start_paused = true)]
async fn pending_interactions_lists_both_prompts_with_distinct_followup_uuids() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;

    let result = client
        .start("#pending-interactions Set up the meeting")
        .await;
    let thread = thread_id(&result);

    assert_eq!(result["event"], "ask_user_question");
    assert_eq!(result["task_status"], "input_required");
    let pending = result["pending_interactions"]
        .as_array()
        .expect("pending_interactions");
    assert_eq!(pending.len(), 2);
    for item in pending {
        assert_eq!(
            keys(item),
            ["followup_uuid", "respond_with_tool", "thread_id", "type"],
            "same shape as interactive"
        );
        assert_eq!(item["thread_id"], thread);
    }
    assert_eq!(pending[0]["type"], "ask_user_question");
    assert_eq!(pending[0]["respond_with_tool"], "answer_question");
    assert_eq!(pending[1]["type"], "confirm_action");
    assert_eq!(pending[1]["respond_with_tool"], "confirm_action_approve");
    assert_ne!(pending[0]["followup_uuid"], pending[1]["followup_uuid"]);
    assert_eq!(result["interactive"], pending[0]);
}

#[tokio::test(start_paused = true)]
async fn answering_one_returns_at_once_still_input_required_with_the_other_waiting() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#pending-interactions Set up the meeting")
        .await;
    let thread = thread_id(&result);
    let pending = result["pending_interactions"].clone();
    let before = mock.now();

    let after_answer = client
        .call_json(
            "answer_question",
            json!({
                "thread_id": thread,
                "answers": {"day": "Tuesday"},
                "followup_uuid": pending[0]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(mock.now(), before, "returned without waiting");
    assert_eq!(after_answer["thread_id"], thread);
    assert_eq!(after_answer["task_status"], "input_required");
    assert_eq!(after_answer["event"], "confirm_action");
    assert_eq!(after_answer["interactive"], pending[1]);
    assert!(
        after_answer.get("pending_interactions").is_none(),
        "only one prompt is left: {after_answer}"
    );
    let read = client.read(&thread).await;
    let waiting = read["web_state"]["entries"][0]["interactions"]
        .as_array()
        .expect("interactions")
        .clone();
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        waiting[0]["request"]["answer_submission_uuid"],
        pending[1]["followup_uuid"]
    );

    let done = client
        .call_json(
            "confirm_action_approve",
            json!({
                "thread_id": thread,
                "result": "Yes, email them.",
                "followup_uuid": pending[1]["followup_uuid"],
            }),
        )
        .await;

    assert_eq!(done["event"], "complete");
    assert_eq!(done["task_status"], "completed");
    assert_eq!(done["text"], "Invite sent to all 14 attendees.");
}

#[tokio::test(start_paused = true)]
async fn denying_the_confirmation_after_answering_takes_the_denied_branch() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#pending-interactions Set up the meeting")
        .await;
    let thread = thread_id(&result);
    let pending = result["pending_interactions"].clone();

    let first = client
        .call_json(
            "confirm_action_deny",
            json!({"thread_id": thread, "result": "No emails.", "followup_uuid": pending[1]["followup_uuid"]}),
        )
        .await;
    assert_eq!(first["event"], "ask_user_question");
    assert_eq!(first["task_status"], "input_required");

    let done = client
        .call_json(
            "answer_question",
            json!({"thread_id": thread, "answers": {"day": "Thursday"}, "followup_uuid": pending[0]["followup_uuid"]}),
        )
        .await;
    assert_eq!(
        done["text"],
        "Okay, I won't email the attendees. The invite is saved as a draft."
    );
}

#[tokio::test(start_paused = true)]
async fn read_thread_lists_both_prompts_with_their_answer_submission_uuids() {
    let mock = Mock::new();
    let mut client = mock.session("alice-dev-token").await;
    let result = client
        .start("#pending-interactions Set up the meeting")
        .await;

    let read = client.read(&thread_id(&result)).await;
    let interactions = read["web_state"]["entries"][0]["interactions"]
        .as_array()
        .expect("interactions")
        .clone();

    assert_eq!(interactions.len(), 2);
    let pending = result["pending_interactions"].as_array().expect("pending");
    for (interaction, item) in interactions.iter().zip(pending) {
        assert_eq!(interaction["type"], item["type"]);
        assert_eq!(interaction["status"], "WAITING_FOR_USER");
        assert_eq!(
            interaction["request"]["answer_submission_uuid"],
            item["followup_uuid"]
        );
    }
    assert_eq!(
        interactions[1]["request"]["action"],
        "Email the invite to 14 attendees"
    );
}
