//! A checkpoint a recorded request reached, and how the user moved it on: one checkpoint can
//! wait on several prompts at once (a question and a confirmation, two sign-ins), each
//! answered by a call of its own, and it moves on only when the last is answered.

use serde_json::Value;

/// How the user moved a checkpoint on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// Answered its questions.
    Answer,
    /// Approved its confirmation.
    Approve,
    /// Denied its confirmation.
    Deny,
    /// Said a sign-in is done.
    Connected,
    /// Wrote another message on the thread (after a page, a wait or a top-up).
    Message,
}

/// A checkpoint an entry reached.
#[derive(Debug, Clone, Default)]
pub(crate) struct Point {
    /// The Computer result that reported it.
    pub(crate) result: Value,
    /// What the user did next, once every prompt is answered.
    pub(crate) resumed: Option<Resume>,
    /// How many prompts it waits on at once (a question and a confirmation, several
    /// sign-ins), each answered by a call of its own; 0 counts as 1.
    pub(crate) prompts: usize,
    /// The answers given so far while some prompts are still open.
    pub(crate) handled: Vec<Resume>,
    /// The questions' forms, when an answer showed them (`read_thread`, an elicitation).
    pub(crate) questions: Vec<Value>,
    /// What a confirmation asks to do, when an answer showed it.
    pub(crate) action: Option<String>,
    /// The answers the user gave (`answers` of `answer_question`).
    pub(crate) answers: Option<Value>,
    /// Sign-ins `read_thread` listed for it.
    pub(crate) sign_ins: Vec<Value>,
}

impl Point {
    /// The result's `event`.
    pub(crate) fn event(&self) -> &str {
        self.result
            .get("event")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// A checkpoint its result says waits on `prompts` at once.
    pub(crate) fn waiting_on(result: Value) -> Self {
        let listed = result
            .get("pending_interactions")
            .and_then(Value::as_array)
            .map_or(1, Vec::len);
        Self {
            result,
            prompts: listed,
            ..Self::default()
        }
    }

    /// Notes one answer; the checkpoint moves on once every prompt has one (denied if any
    /// was a denial, as the upstream takes the `denied` branch then).
    pub(crate) fn answered(&mut self, how: Resume) {
        self.handled.push(how);
        if self.handled.len() >= self.prompts.max(1) {
            let denied = self.handled.contains(&Resume::Deny);
            self.resumed = Some(if denied { Resume::Deny } else { how });
        }
    }

    /// Whether `payload` restates this checkpoint while some of its prompts are still open
    /// (the answer to one of them lists the others again).
    pub(crate) fn restated_by(&self, payload: &Value) -> bool {
        self.resumed.is_none()
            && !self.handled.is_empty()
            && self.result.get("text") == payload.get("text")
            && matches!(
                payload.get("event").and_then(Value::as_str),
                Some("ask_user_question" | "confirm_action" | "auth_required")
            )
    }

    /// Adds a sign-in it waits on, unless one for the same connector is known.
    pub(crate) fn add_sign_in(&mut self, sign_in: Value) {
        let connector = sign_in.get("connector");
        let known = self
            .sign_ins
            .iter()
            .chain(self.result.get("interactive"))
            .any(|s| s.get("connector") == connector);
        if !known {
            self.sign_ins.push(sign_in);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Point, Resume};

    const TEXT: &str = "Two things before I send the invite";

    fn question_and_confirmation() -> Point {
        Point::waiting_on(json!({"event": "ask_user_question", "text": TEXT,
            "pending_interactions": [{"type": "ask_user_question"}, {"type": "confirm_action"}]}))
    }

    #[test]
    fn a_checkpoint_waiting_on_two_prompts_moves_on_at_the_second_answer() {
        let mut point = question_and_confirmation();
        point.answered(Resume::Answer);
        assert_eq!(point.resumed, None, "the confirmation is still open");
        let rest = json!({"event": "confirm_action", "text": TEXT});
        assert!(point.restated_by(&rest));
        point.answered(Resume::Approve);
        assert_eq!(point.resumed, Some(Resume::Approve));
        assert!(
            !point.restated_by(&rest),
            "a settled checkpoint is restated by nothing"
        );
    }

    #[test]
    fn a_denial_of_either_prompt_takes_the_denied_branch() {
        let mut point = question_and_confirmation();
        point.answered(Resume::Deny);
        point.answered(Resume::Answer);
        assert_eq!(point.resumed, Some(Resume::Deny));
    }

    #[test]
    fn a_single_prompt_moves_on_at_once_and_another_text_is_no_restatement() {
        let mut point = Point::waiting_on(json!({"event": "confirm_action", "text": TEXT}));
        assert!(!point.restated_by(&json!({"event": "confirm_action", "text": TEXT})));
        point.answered(Resume::Approve);
        assert_eq!(point.resumed, Some(Resume::Approve));
        let mut two = question_and_confirmation();
        two.answered(Resume::Answer);
        assert!(!two.restated_by(&json!({"event": "confirm_action", "text": "Something else"})));
    }

    #[test]
    fn a_sign_in_is_kept_once_per_connector() {
        let mut point = Point::waiting_on(json!({"event": "auth_required", "text": TEXT,
            "interactive": {"connector": "github", "display_name": "GitHub"}}));
        point.add_sign_in(json!({"connector": "github", "display_name": "GitHub"}));
        point.add_sign_in(json!({"connector": "linear", "display_name": "Linear"}));
        point.add_sign_in(json!({"connector": "linear", "display_name": "Linear"}));
        assert_eq!(
            point.sign_ins,
            vec![json!({"connector": "linear", "display_name": "Linear"})]
        );
    }
}
