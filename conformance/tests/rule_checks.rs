//! Rule checks over hand-made journals, for the variants the reference client never plays:
//! an answer keyed by `answer_submission_uuid`, a cancellation left unconfirmed while active.

use conformance::rules::{self, Outcome, Transcript};
use mock_server::Exchange;
use serde_json::{Value, json};

/// A `tools/call` exchange whose result is `result` (as structuredContent).
fn call(seq: usize, tool: &str, args: Value, result: Value) -> Exchange {
    let mut headers = serde_json::Map::new();
    headers.insert("mcp-session-id".into(), json!("s"));
    headers.insert("mcp-protocol-version".into(), json!("2025-11-25"));
    Exchange {
        request_headers: headers,
        request_body: json!({"jsonrpc": "2.0", "id": seq, "method": "tools/call",
            "params": {"name": tool, "arguments": args, "_meta": {"progressToken": seq}}}),
        response_body: json!({"jsonrpc": "2.0", "id": seq, "result": {"content": [], "structuredContent": result}}),
        ..Exchange::new(seq, "POST", mock_server::MCP_PATH, 200, chrono::Utc::now())
    }
}

fn check(rule: &str, scenario: &str, exchanges: Vec<Exchange>) -> Outcome {
    let rule = rules::find(rule).expect("rule");
    (rule.check)(&Transcript::new(scenario, exchanges, Vec::new()))
}

#[test]
fn an_answer_may_carry_the_answer_submission_uuid_read_from_read_thread() {
    let asked = json!({"thread_id": "T", "event": "ask_user_question", "task_status": "input_required",
        "interactive": {"type": "ask_user_question", "followup_uuid": "F"}});
    let read = json!({"thread_id": "T", "event": "transcript", "web_state": {"task_status": "input_required",
        "entries": [{"interactions": [{"request": {"answer_submission_uuid": "A"}}]}]}});
    let journal = |uuid: &str| {
        vec![
            call(
                0,
                "call_perplexity_computer",
                json!({"message": "m"}),
                asked.clone(),
            ),
            call(1, "read_thread", json!({"thread_id": "T"}), read.clone()),
            call(
                2,
                "answer_question",
                json!({"thread_id": "T", "answers": {"q1": "PDF"}, "followup_uuid": uuid}),
                json!({"thread_id": "T", "event": "complete", "task_status": "completed"}),
            ),
        ]
    };
    assert!(matches!(
        check(
            "computer.question.answer",
            "ask-user-question",
            journal("A")
        ),
        Outcome::Pass(_)
    ));
    assert!(matches!(
        check(
            "computer.question.answer",
            "ask-user-question",
            journal("F")
        ),
        Outcome::Pass(_)
    ));
    assert!(matches!(
        check(
            "computer.question.answer",
            "ask-user-question",
            journal("made-up")
        ),
        Outcome::Violated { .. }
    ));
}

#[test]
fn a_cancellation_still_active_when_last_read_must_be_retried() {
    let working = json!({"thread_id": "T", "event": "timeout", "task_status": "working"});
    let cancelled = json!({"thread_id": "T", "event": "cancelled", "task_status": "cancelled"});
    let still = json!({"thread_id": "T", "event": "transcript", "web_state": {"task_status": "input_required"}});
    let done =
        json!({"thread_id": "T", "event": "transcript", "web_state": {"task_status": "cancelled"}});
    let mut journal = vec![
        call(
            0,
            "call_perplexity_computer",
            json!({"message": "m"}),
            working,
        ),
        call(
            1,
            "cancel_task",
            json!({"thread_id": "T"}),
            cancelled.clone(),
        ),
        call(2, "read_thread", json!({"thread_id": "T"}), still),
    ];
    assert!(matches!(
        check("computer.cancel.confirm", "cancel", journal.clone()),
        Outcome::Violated { .. }
    ));
    journal.push(call(3, "cancel_task", json!({"thread_id": "T"}), cancelled));
    journal.push(call(4, "read_thread", json!({"thread_id": "T"}), done));
    assert!(matches!(
        check("computer.cancel.confirm", "cancel", journal),
        Outcome::Pass(_)
    ));
}

#[test]
fn a_rule_with_nothing_to_observe_is_unobserved_not_passed() {
    for rule in rules::registry() {
        let outcome = (rule.check)(&Transcript::new("any", Vec::new(), Vec::new()));
        assert!(
            matches!(outcome, Outcome::Unobserved(_)),
            "{}: {outcome:?}",
            rule.id
        );
    }
}

#[test]
fn a_pending_question_answered_without_its_followup_uuid_fails_the_question_rule() {
    let pending = json!({"thread_id": "T", "event": "ask_user_question", "task_status": "input_required",
        "interactive": {"type": "ask_user_question", "followup_uuid": "Q"},
        "pending_interactions": [
            {"type": "ask_user_question", "followup_uuid": "Q"},
            {"type": "confirm_action", "followup_uuid": "C"}]});
    let journal = |question_uuid: Option<&str>| {
        let mut answer = json!({"thread_id": "T", "answers": {"day": "Thursday"}});
        if let Some(u) = question_uuid {
            answer["followup_uuid"] = json!(u);
        }
        vec![
            call(
                0,
                "call_perplexity_computer",
                json!({"message": "m"}),
                pending.clone(),
            ),
            call(
                1,
                "answer_question",
                answer,
                json!({"thread_id": "T", "event": "confirm_action",
                "task_status": "input_required",
                "interactive": {"type": "confirm_action", "followup_uuid": "C"}}),
            ),
            call(
                2,
                "confirm_action_approve",
                json!({"thread_id": "T", "result": "ok", "followup_uuid": "C"}),
                json!({"thread_id": "T", "event": "complete", "task_status": "completed"}),
            ),
        ]
    };
    match check(
        "computer.question.answer",
        "pending-interactions",
        journal(None),
    ) {
        Outcome::Violated { message, .. } => {
            assert!(
                message.contains("followup_uuid Q was present but not passed"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        check(
            "computer.question.answer",
            "pending-interactions",
            journal(Some("Q"))
        ),
        Outcome::Pass(_)
    ));
    assert!(matches!(
        check(
            "computer.confirm.decide",
            "pending-interactions",
            journal(None)
        ),
        Outcome::Pass(_)
    ));
}
