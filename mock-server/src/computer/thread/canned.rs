//! What Computer does when the script has nothing to say: a message past the scripted turns,
//! and a task whose sign-in the user dismissed.

use std::time::Duration;

use super::entry::{Request, RequestKind, RequestState};
use crate::fixtures::{Outcome, Segment, Step, StepEnd};

/// A short segment that ends with `text`.
fn brief(title: String, text: String) -> Segment {
    Segment {
        steps: vec![Step {
            title,
            kind: "agent".to_owned(),
            duration: Duration::from_secs(10),
            sources: Vec::new(),
            status: StepEnd::Completed,
            credits: 0,
        }],
        outcome: Outcome::Complete {
            text,
            sources: Vec::new(),
            files: Vec::new(),
            optional_auth_requests: Vec::new(),
            waiting_on_user: false,
        },
    }
}

/// The rest of a task whose sign-ins to `names` were dismissed: it goes on without them, and
/// the answer says what it could not do.
pub(super) fn without(names: &str) -> Segment {
    brief(
        format!("Continuing without {names}"),
        format!(
            "I couldn't use {names}: the sign-in was dismissed, so I went on without it and \
             could not do the parts of this task that need it. Connect it and ask again if you \
             want them done."
        ),
    )
}

/// The names of the dismissed sign-ins among `requests`, if any ("Slack and GitHub").
pub(super) fn dismissed_sign_ins(requests: &[Request]) -> Option<String> {
    let names: Vec<&str> = requests
        .iter()
        .filter(|r| r.state == RequestState::Dismissed)
        .filter_map(|r| match &r.kind {
            RequestKind::SignIn(spec) => Some(spec.display_name.as_str()),
            _ => None,
        })
        .collect();
    (!names.is_empty()).then(|| names.join(" and "))
}

/// What Computer says to a message the scenario has no turn left for.
pub(super) fn unscripted_reply(message: &str) -> Segment {
    let excerpt: String = message.chars().take(120).collect();
    Segment {
        steps: vec![Step {
            title: "Reading your message".to_owned(),
            kind: "agent".to_owned(),
            duration: Duration::from_secs(5),
            sources: Vec::new(),
            status: StepEnd::Completed,
            credits: 0,
        }],
        outcome: Outcome::Complete {
            text: format!(
                "Noted: \"{excerpt}\". (This scenario has no more scripted turns, so Computer \
                 acknowledges follow-ups without doing new work.)"
            ),
            sources: Vec::new(),
            files: Vec::new(),
            optional_auth_requests: Vec::new(),
            waiting_on_user: false,
        },
    }
}
