//! Answers that do not pretend. The Connectors document warns that a connector failure "does
//! not fail the request", so "this is easy to miss": the model "still answers — it just cannot
//! use that connector". So when a run could not get what its script meant to read (a call came
//! back with an error, a connector lists no tools, the sandbox had no GitHub credentials, or
//! `max_steps` ran out before a tool could be called), its answer says so instead of reporting
//! data it never got: a message's `failed_text` if the script wrote one, else a sentence built
//! from what went wrong.

/// Something the run could not use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// A call to a connector or MCP server came back with this in-band error.
    Call {
        /// The server's label.
        server: String,
        /// The tool called.
        tool: String,
        /// The `mcp_call.error` value.
        error: String,
        /// The server is a connector (its errors are the documented values).
        connector: bool,
    },
    /// A connector that is not connected: it lists no tools, so nothing could be called.
    NotConnected {
        /// The connector's label.
        server: String,
    },
    /// A sandbox command that needs GitHub had no working credentials.
    GitHub {
        /// Why: the GitHub connector is missing, not connected, or lapsed.
        why: String,
    },
    /// A scripted step whose tool the request does not offer (no such tool, a connector or
    /// server that is not in `tools`, a tool `allowed_tools` leaves out): nothing ran.
    NotOffered {
        /// What could not be done (`call the get_weather function`).
        what: String,
        /// Why (`the request's tools do not include it`).
        why: String,
    },
    /// The step budget ran out before a tool could be used.
    OutOfSteps {
        /// What could not be done (`call slack_search_public on slack`).
        what: String,
        /// The request's `max_steps`, or `max_tool_calls` when that was the cap.
        cap: String,
    },
}

impl Failure {
    /// What went wrong, as the model would say it (a clause after "I could not").
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Call {
                server,
                tool,
                error,
                connector: true,
            } => match error.as_str() {
                "AUTH_REQUIRED" => format!(
                    "use the {server} connector: its authorization has lapsed or was revoked \
                     (AUTH_REQUIRED), so a Project administrator has to reconnect it in the API \
                     Console"
                ),
                "CONNECTOR_UNAVAILABLE" => format!(
                    "reach the {server} connector (CONNECTOR_UNAVAILABLE), which may work again later"
                ),
                "CONNECTOR_INTERNAL_ERROR" => format!(
                    "use the {server} connector: it returned a response I could not use \
                     (CONNECTOR_INTERNAL_ERROR)"
                ),
                "POLICY_DENIED" => {
                    format!("call {tool} on {server}: a policy does not allow it (POLICY_DENIED)")
                }
                "INVALID_ARGUMENTS" => {
                    format!("call {tool} on {server}: it rejected my arguments (INVALID_ARGUMENTS)")
                }
                "TOOL_ERROR" => format!("use {tool} on {server}: the tool failed (TOOL_ERROR)"),
                other => format!("use {tool} on {server}: the call failed ({other})"),
            },
            Self::Call {
                server,
                tool,
                error,
                connector: false,
            } => format!("use {tool} on the {server} MCP server: {error}"),
            Self::NotConnected { server } => format!(
                "use the {server} connector: it is not connected to this Project, so it lists no \
                 tools"
            ),
            Self::GitHub { why } => format!("work with GitHub in the sandbox: {why}"),
            Self::NotOffered { what, why } => format!("{what}: {why}"),
            Self::OutOfSteps { what, cap } => {
                format!("{what}: the run ran out of steps ({cap}) first")
            }
        }
    }
}

/// What went wrong, each thing once and in order: two commands refused for the same reason
/// make one clause, not a repeated sentence.
pub(crate) fn reasons(failures: &[Failure]) -> Vec<String> {
    let mut reasons: Vec<String> = Vec::new();
    for reason in failures.iter().map(Failure::describe) {
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    reasons
}

/// The answer of a run that could not get its data: what went wrong, and that nothing was made
/// up.
pub(crate) fn honest_answer(failures: &[Failure]) -> String {
    let reasons = reasons(failures);
    format!(
        "I could not {}. I did not get the data I needed, so I cannot give you an answer based \
         on it.",
        reasons.join("; nor ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_auth_required_answer_says_the_connector_needs_reconnecting() {
        let text = honest_answer(&[Failure::Call {
            server: "slack".into(),
            tool: "slack_search_public".into(),
            error: "AUTH_REQUIRED".into(),
            connector: true,
        }]);
        assert!(
            text.starts_with("I could not use the slack connector"),
            "{text}"
        );
        assert!(
            text.contains("AUTH_REQUIRED") && text.contains("reconnect"),
            "{text}"
        );
    }

    #[test]
    fn several_failures_are_each_named() {
        let text = honest_answer(&[
            Failure::NotConnected {
                server: "notion".into(),
            },
            Failure::OutOfSteps {
                what: "call get_issue on linear".into(),
                cap: "max_steps 1".into(),
            },
        ]);
        assert!(text.contains("notion connector"), "{text}");
        assert!(text.contains("max_steps 1"), "{text}");
    }

    #[test]
    fn the_same_failure_twice_is_said_once() {
        let refused = Failure::GitHub {
            why: "the GitHub connector's authorization has lapsed".into(),
        };
        let text = honest_answer(&[refused.clone(), refused]);
        assert_eq!(
            text.matches("authorization has lapsed").count(),
            1,
            "{text}"
        );
        assert!(!text.contains("nor"), "{text}");
    }
}
