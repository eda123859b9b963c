//! Scenarios for the Computer document's client duties that the first scenarios left unjudged
//! (issue 10, item 2): most are variants of a built-in fixture (another user, a setting, a
//! longer first step) or of the built-in world (a plan's limit, more Projects).

use serde_json::{Value, json};

use super::spec::{Flow, ScenarioSpec, modern, spec};

/// The duty scenarios, in the order reports list them (after the first ones).
pub(super) const SCENARIOS: &[ScenarioSpec] = &[
    ScenarioSpec {
        cancel: true,
        ..spec(
            "cancel-fails-once",
            "the user stops a long task; the first cancel_task fails, so the task is checked and cancelled again",
            &["Build a catalog of 500 product pages."],
        )
    },
    ScenarioSpec {
        fixture: "task-approval",
        confirm: "deny",
        ..modern(
            "task-approval-deny",
            Flow::Tasks,
            "a task asks before sending an email and the user says no: the approval goes back declined",
            &["Email me a summary of my unread messages."],
        )
    },
    ScenarioSpec {
        fixture: "elicitation-confirm",
        confirm: "deny",
        ..modern(
            "elicitation-confirm-deny",
            Flow::Elicitation,
            "the email approval comes back in the call as a form and the user declines it, which denies it",
            &["Email me a summary of my unread messages."],
        )
    },
    ScenarioSpec {
        fixture: "elicitation-question",
        answers: r#"{"q1": "PDF"}"#,
        question: "later",
        ..modern(
            "elicitation-question-later",
            Flow::Elicitation,
            "the user declines the in-call question form, so the call returns the event and the answer goes back with answer_question",
            &["Write last quarter's sales report."],
        )
    },
    ScenarioSpec {
        fixture: "elicitation-question",
        answers: r#"{"q1": "PDF"}"#,
        patch: Some(sources_before_the_question),
        ..modern(
            "elicitation-question-sources",
            Flow::Elicitation,
            "the in-call question comes after sources were found, so the answered call returns working and read_thread follows the rest",
            &["Write last quarter's sales report."],
        )
    },
    spec(
        "credit-check-outage",
        "the credit check fails in an outage: insufficient_credits without billing_url, so the client offers no billing page; the same message sent later goes through",
        &[
            "Research the history of the Kyoto tram.",
            "Research the history of the Kyoto tram.",
        ],
    ),
    ScenarioSpec {
        fixture: "insufficient-credits-before-send",
        ..modern(
            "task-credits-before-send",
            Flow::Tasks,
            "a task-flow request that cannot start (no credits): a regular tool result, then a task after the top-up",
            &["Research the history of the Kyoto tram."],
        )
    },
    ScenarioSpec {
        fixture: "timeout-then-complete",
        patch: Some(web_state_error_once),
        ..spec(
            "read-thread-retry",
            "after a timeout the first read_thread cannot load the thread state; the client reads again",
            &["Summarize the five top stories on the tech news front page right now."],
        )
    },
    ScenarioSpec {
        fixture: "ask-user-question",
        answers: r#"{"q1": "PDF"}"#,
        patch: Some(question_after_the_call_window),
        ..spec(
            "question-in-read-thread",
            "the format question comes after the two-minute window, so only read_thread shows it",
            &["Write last quarter's sales report."],
        )
    },
    ScenarioSpec {
        fixture: "project-settings",
        turns: r#"[{"message": "Draft the competitor pricing summary.",
                    "project": {"name": "Competitor research", "visibility": "private"}}]"#,
        world: Some(many_projects),
        ..spec(
            "project-on-page-two",
            "the user starts a conversation in a Project that projects_list shows only on its second page",
            &["Draft the competitor pricing summary."],
        )
    },
    ScenarioSpec {
        fixture: "attachments",
        turns: r#"[{"message": "Summarize the attached site walkthrough video.",
                    "attachments": [{"filename": "site-walkthrough.mp4", "mime_type": "video/mp4",
                                     "size_bytes": 31457280}]}]"#,
        world: Some(on_the_free_plan),
        ..spec(
            "attachment-over-limit",
            "a Free-plan user attaches a 30 MB video, over the plan's 25 MB: create_attachment_upload refuses it",
            &["Summarize the attached site walkthrough video."],
        )
    },
    ScenarioSpec {
        fixture: "task-complete",
        drop_first_poll: true,
        ..modern(
            "task-reconnect",
            Flow::Tasks,
            "the connection drops during the first tasks/get; the task goes on and the client polls the same task id again",
            &["Summarize the top 5 stories on the tech news front page right now."],
        )
    },
];

/// Fifty-five more Projects of alice's, listed before the built-in ones, so the second page of
/// `projects_list` holds "Competitor research".
fn many_projects(world: &mut Value) {
    let Some(projects) = world["projects"].as_array_mut() else {
        return;
    };
    let archive = (1..=55).map(|n| {
        json!({
            "project_uuid": format!("00000000-0000-4000-8000-{n:012}"),
            "name": format!("Archive {n:02}"),
            "description": "An old project, kept for reference.",
            "knowledge_enabled": false,
            "members": [{"account": "alice", "role": "owner", "landing_category": "archived"}],
        })
    });
    let kept = std::mem::take(projects);
    projects.extend(archive.chain(kept));
}

/// alice on the Free plan (25 MB per attachment).
fn on_the_free_plan(world: &mut Value) {
    for account in world["accounts"].as_array_mut().into_iter().flatten() {
        if account["id"] == "alice" {
            account["plan"] = json!("free");
        }
    }
}

/// The first `read_thread` of the thread cannot load its state (`web_state_error`).
fn web_state_error_once(fixture: &mut Value) {
    fixture["settings"]["web_state_error"] = json!(true);
}

/// The step before the question finds a source, so the asking result carries it.
fn sources_before_the_question(fixture: &mut Value) {
    fixture["turns"][0]["steps"][0]["sources"] = json!([
        {"url": "https://example.com/q3-sales", "title": "Q3 sales dashboard"}
    ]);
}

/// Three minutes of work before the question: the call answers `timeout` first.
fn question_after_the_call_window(fixture: &mut Value) {
    if let Some(steps) = fixture["turns"][0]["steps"].as_array_mut() {
        steps.insert(
            0,
            json!({"title": "Reading three years of sales exports", "type": "run_code", "duration": "3m"}),
        );
    }
}
