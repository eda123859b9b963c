//! The scenarios of the suite: which mock scenario runs, what the scripted user says, and the
//! groups rules name to apply to many scenarios at once.

mod duties;
mod faults;
mod sonar;
mod spec;

pub use spec::{
    BEARER_TOKEN, ELICITATION, EVERY_COMPUTER, Era, Flow, HANDSHAKE, MODERN, PROTOCOL_VERSION,
    SIGN_IN, ScenarioSpec, SignIn, TASKS, ZDR_API_KEY,
};
use spec::{agent, modern, spec};

/// The turns of an approval scenario, one per message, each offering the `mcp` tool every
/// approval scenario offers: the mock's own Computer MCP endpoint (a real remote MCP server to
/// the Agent API's MCP client), limited to the harmless `models_list`, with every call needing
/// approval.
macro_rules! approval_turns {
    ($first:literal $(, $message:literal)*) => {
        concat!(
            "[",
            approval_turns!(@turn $first),
            $(", ", approval_turns!(@turn $message),)*
            "]"
        )
    };
    (@turn $message:literal) => {
        concat!(
            r#"{"message": ""#,
            $message,
            r#"", "agent": {"model": "openai/gpt-5.6-terra", "tools": [{"type": "mcp",
                "server_label": "computer", "server_url": "{mcp_url}",
                "authorization": "alice-dev-token", "allowed_tools": ["models_list"],
                "require_approval": "always"}]}}"#
        )
    };
}

/// Every scenario, in the order reports list them.
pub const SCENARIOS: &[ScenarioSpec] = &concat::<
    { COMPUTER_AND_AGENT.len() + sonar::SCENARIOS.len() },
>(COMPUTER_AND_AGENT, sonar::SCENARIOS);

/// The Computer and Agent API scenarios: the first ones, the duty scenarios, then the fault
/// scenarios.
const COMPUTER_AND_AGENT: &[ScenarioSpec] =
    &concat::<{ WITH_DUTIES.len() + faults::SCENARIOS.len() }>(WITH_DUTIES, faults::SCENARIOS);

/// The first scenarios, then the duty scenarios.
const WITH_DUTIES: &[ScenarioSpec] =
    &concat::<{ BASE.len() + duties::SCENARIOS.len() }>(BASE, duties::SCENARIOS);

/// `a` then `b`, as one array (a `const` cannot chain slices otherwise).
const fn concat<const N: usize>(a: &[ScenarioSpec], b: &[ScenarioSpec]) -> [ScenarioSpec; N] {
    let mut out = [a[0]; N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// The scenarios written before the duty scenarios of [`duties`].
const BASE: &[ScenarioSpec] = &[
    spec(
        "follow-up",
        "a summary, then a follow-up on the same thread",
        &[
            "Summarize the top 5 stories on Hacker News right now.",
            "Turn that into a PDF report.",
        ],
    ),
    ScenarioSpec {
        // The task ends 60 virtual seconds after the call window: at this speed that is 120 ms
        // of real time, so a loaded machine still sees the call answer `timeout` first.
        max_time_scale: 500.0,
        ..spec(
            "timeout-then-complete",
            "a task that outlasts the two-minute call window",
            // No "Hacker News" here: that phrase routes to the `follow-up` fixture (its `match`).
            &["Summarize the five top stories on the tech news front page right now."],
        )
    },
    ScenarioSpec {
        answers: r#"{"q1": "PDF"}"#,
        ..spec(
            "ask-user-question",
            "Computer asks which format to use",
            &["Write last quarter's sales report."],
        )
    },
    spec(
        "confirm-action",
        "Computer asks before sending an email",
        &["Email me a summary of my unread messages."],
    ),
    ScenarioSpec {
        // The task resumes on the client's notify_connected (after the person finished the
        // sign-in page) and runs 60 virtual seconds more: at this speed that outlasts the
        // client's round trip back to read_thread, so a client that takes the `complete` answer
        // for finished is caught while the task still works.
        max_time_scale: 500.0,
        ..spec(
            "auth-required",
            "a Slack sign-in in the middle of a task",
            &["Email me a summary of my unread Slack messages."],
        )
    },
    spec(
        "multiple-sign-ins",
        "GitHub and Linear sign-ins waiting at once",
        &["File a Linear bug for the failing GitHub workflow."],
    ),
    spec(
        "optional-auth",
        "a finished task that suggests reconnecting Google Drive",
        &["Find venues for a 20-person team offsite in Lisbon in March."],
    ),
    spec(
        "sleep",
        "Computer schedules itself to resume in an hour",
        &["Watch the flight price to Rome and tell me if it drops."],
    ),
    spec(
        "waiting",
        "Computer waits on the vendor; the user comes back later",
        &[
            "Get me a refund for the broken headphones.",
            "The vendor replied by email; please check the ticket.",
        ],
    ),
    spec(
        "insufficient-credits-before-send",
        "the credit check refuses the message before it is sent",
        &["Research the history of the Kyoto tram."],
    ),
    spec(
        "insufficient-credits-during-task",
        "credits run out in the middle of a task",
        &["Build a pricing table of our 40 competitors."],
    ),
    ScenarioSpec {
        answers: r#"{"day": "Thursday"}"#,
        ..spec(
            "pending-interactions",
            "a question and a confirmation wait at the same time",
            &["Schedule the team offsite invite."],
        )
    },
    ScenarioSpec {
        cancel: true,
        ..spec(
            "cancel",
            "the user stops a long task",
            &["Build a catalog of 500 product pages."],
        )
    },
    // ---- Runs that fail, refusals, and checkpoints only Perplexity or the user can clear ----
    spec(
        "computer-error",
        "the Computer run fails: the error is shown as a failure",
        &["Map the flood zones of Rotterdam with geopandas."],
    ),
    spec(
        "access-denied",
        "Computer is not available for the account: the refusal is shown, not retried",
        &["Research the history of the Kyoto tram."],
    ),
    spec(
        "quota-exhausted",
        "the plan's quota is used up: the user is told when it comes back",
        &["Research the history of the Kyoto tram."],
    ),
    spec(
        "interaction-required",
        "a payment form only Perplexity can show: the user completes it there, then the thread goes on",
        &["Book Hotel Artemide in Rome for 3 nights from March 12."],
    ),
    spec(
        "two-factor-required",
        "a site asks for a two-factor code: the instructions are shown and the code continues the thread",
        &[
            "Download my boarding pass for tomorrow's flight.",
            "The code is 481516.",
        ],
    ),
    // ---- 2026-07-28: MCP Tasks ----
    ScenarioSpec {
        answers: r#"{"q1": "PDF"}"#,
        ..modern(
            "task-question",
            Flow::Tasks,
            "a task asks which format to use; the answer goes back with tasks/update",
            &["Write last quarter's sales report."],
        )
    },
    modern(
        "task-approval",
        Flow::Tasks,
        "a task asks before sending an email; the approval goes back with tasks/update",
        &["Email me a summary of my unread messages."],
    ),
    modern(
        "task-sign-in",
        Flow::Tasks,
        "a task needs a sign-in: a URL input request the user finishes on the page",
        &["Email me a summary of my unread team chat messages."],
    ),
    modern(
        "task-follow-up",
        Flow::Tasks,
        "a task, then a follow-up on the thread named in ai.perplexity/threadId",
        &[
            "Summarize the top 5 stories on the tech news front page right now.",
            "Turn that into a PDF report.",
        ],
    ),
    ScenarioSpec {
        cancel: true,
        ..modern(
            "task-cancel",
            Flow::Tasks,
            "the user stops a long task: tasks/cancel only acknowledges, cancel_task stops it",
            &["Build a catalog of 500 product pages."],
        )
    },
    modern(
        "task-failure",
        Flow::Tasks,
        "a task whose Computer run fails: completed with result.isError, shown as a failure",
        &["Map the flood zones of Rotterdam with geopandas."],
    ),
    modern(
        "task-credits",
        Flow::Tasks,
        "credits run out in a task: a URL input request to the billing page, then the task goes on",
        &["Build a pricing table of our 40 competitors."],
    ),
    // ---- 2026-07-28: in-call elicitation (MRTR) ----
    ScenarioSpec {
        answers: r#"{"q1": "PDF"}"#,
        ..modern(
            "elicitation-question",
            Flow::Elicitation,
            "the format question comes back in the call as a form; the call is retried with the answer",
            &["Write last quarter's sales report."],
        )
    },
    modern(
        "elicitation-confirm",
        Flow::Elicitation,
        "the email approval comes back in the call as a form without fields",
        &["Email me a summary of my unread messages."],
    ),
    modern(
        "elicitation-sign-in",
        Flow::Elicitation,
        "the sign-in comes back in the call as a URL the user finishes on",
        &["Email me a summary of my unread team chat messages."],
    ),
    // ---- account world: uploads, Projects and settings, thread assets ----
    ScenarioSpec {
        turns: r#"[{"message": "Summarize the attached sales figures.",
                    "attachments": [{"filename": "q3-sales.csv", "mime_type": "text/csv",
                                     "content": "region,revenue\nEMEA,1200\nAmericas,2450\nAPAC,980\n"}]}]"#,
        ..spec(
            "attachments",
            "the user attaches a CSV file to their message",
            &["Summarize the attached sales figures."],
        )
    },
    ScenarioSpec {
        turns: r#"[{"message": "Draft the competitor pricing summary.",
                    "project": {"name": "Competitor research", "visibility": "project"},
                    "settings": {"mode": "ultra"}},
                   {"message": "Now go deeper on the two cheapest.",
                    "settings": {"model": "claude-opus-4-5", "effort": "high"}},
                   {"message": "Thanks. A short recap, please."}]"#,
        ..spec(
            "project-settings",
            "a conversation in a Project on the ultra mode, then a switch to a model and effort",
            &[
                "Draft the competitor pricing summary.",
                "Now go deeper on the two cheapest.",
                "Thanks. A short recap, please.",
            ],
        )
    },
    ScenarioSpec {
        turns: r#"[{"message": "Collect product photos for all 41 catalog items."},
                   {"message": "Now write the catalog from them."},
                   {"message": "Show me every file from your latest answer.",
                    "request": {"kind": "files", "of": "latest"}},
                   {"message": "I'm back: download catalog.pdf for me again.",
                    "request": {"kind": "download", "filename": "catalog.pdf"},
                    "after_seconds": 7200}]"#,
        ..spec(
            "thread-assets",
            "the user lists the latest answer's files (two empty filtered pages), then downloads one after its link expired",
            &[
                "Collect product photos for all 41 catalog items.",
                "Now write the catalog from them.",
                "Show me every file from your latest answer.",
                "I'm back: download catalog.pdf for me again.",
            ],
        )
    },
    // ---- signing in: only the MCP URL, OAuth with the person on the consent page ----
    ScenarioSpec {
        sign_in: SignIn::OAuth,
        // A virtual hour lasts 36 s: access tokens (an hour) expire only when the person is away.
        max_time_scale: SIGN_IN_MAX_TIME_SCALE,
        ..spec(
            "sign-in",
            "the client has only the MCP URL: 401, discovery, registration, PKCE S256 with resource, the consent page, the token, then the call",
            &["What is on the team calendar this week?"],
        )
    },
    ScenarioSpec {
        sign_in: SignIn::OAuth,
        max_time_scale: SIGN_IN_MAX_TIME_SCALE,
        turns: r#"[{"message": "What is on the team calendar this week?"},
                   {"message": "And next week?", "after_seconds": 7200},
                   {"message": "Thanks. A one-line recap, please.", "after_seconds": 7200}]"#,
        ..spec(
            "sign-in-refresh",
            "the access token expires twice while the person is away: each follow-up first refreshes it with the newest (rotated) refresh token",
            &[
                "What is on the team calendar this week?",
                "And next week?",
                "Thanks. A one-line recap, please.",
            ],
        )
    },
    ScenarioSpec {
        sign_in: SignIn::OAuth,
        max_time_scale: SIGN_IN_MAX_TIME_SCALE,
        turns: r#"[{"message": "What is on the team calendar this week?"},
                   {"message": "And next week?", "after_seconds": 600, "revoke_sign_in": true}]"#,
        ..spec(
            "sign-in-revoked",
            "the sign-in is revoked while the person is away: the follow-up gets 401, the refresh token is refused, and the client signs in again",
            &["What is on the team calendar this week?", "And next week?"],
        )
    },
    // ---- Agent API (suite `agent`) ----
    agent(
        "agent-approval",
        "an MCP call needs approval; the user approves it and the response is continued",
        &["Get my approval first, then list my Computer models."],
        approval_turns!("Get my approval first, then list my Computer models."),
    ),
    ScenarioSpec {
        confirm: "deny",
        ..agent(
            "agent-approval-deny",
            "an MCP call needs approval; the user denies it",
            &["Get my approval first, then list my Computer models."],
            approval_turns!("Get my approval first, then list my Computer models."),
        )
    },
    ScenarioSpec {
        zero_data_retention: true,
        ..agent(
            "agent-approval-zdr",
            "a Zero Data Retention account approves an MCP call: the history goes back in input",
            &["Get my approval first, then list my Computer models."],
            approval_turns!("Get my approval first, then list my Computer models."),
        )
    },
    agent(
        "agent-background",
        "a long research run in the background, polled until it ends",
        &["Research the solid-state battery market in the background."],
        r#"[{"message": "Research the solid-state battery market in the background.",
             "agent": {"preset": "medium", "background": true}}]"#,
    ),
    ScenarioSpec {
        cancel: true,
        // Four virtual minutes last 2.4 s: time for any client to cancel.
        max_time_scale: 100.0,
        ..agent(
            "agent-cancel",
            "the user stops a background research run",
            &["Research the solid-state battery market in the background."],
            r#"[{"message": "Research the solid-state battery market in the background.",
                 "agent": {"preset": "medium", "background": true}}]"#,
        )
    },
    ScenarioSpec {
        drop_stream_after: 3,
        ..agent(
            "agent-stream-resume",
            "a streamed background run whose connection drops after three events",
            &["What can the Agent API do?"],
            r#"[{"message": "What can the Agent API do?",
                 "agent": {"model": "openai/gpt-5.6-terra", "background": true, "stream": true,
                           "tools": [{"type": "web_search"}]}}]"#,
        )
    },
    agent(
        "agent-connector-auth-lapsed",
        "the Slack connector's authorization has lapsed: the call fails in-band with AUTH_REQUIRED",
        &["#connector-auth-lapsed Summarize recent messages about AI in my Slack workspace."],
        r##"[{"message": "#connector-auth-lapsed Summarize recent messages about AI in my Slack workspace.",
             "agent": {"model": "openai/gpt-5.6-terra", "max_steps": 6,
                       "tools": [{"type": "connector", "id": "connector_slack", "server_label": "slack"}]}}]"##,
    ),
    // ---- Agent API duties (issue 10): approvals over rounds, Always allow, moving on ----
    agent(
        "agent-approval-rounds",
        "two MCP calls in one turn, each needing approval: the second request comes in the continuation's response",
        &["#mcp-approval-rounds List my Computer models, then list them once more."],
        approval_turns!("#mcp-approval-rounds List my Computer models, then list them once more."),
    ),
    ScenarioSpec {
        zero_data_retention: true,
        ..agent(
            "agent-approval-rounds-zdr",
            "a Zero Data Retention account approves two rounds of MCP calls: the history, with the first mcp_call, goes back in input",
            &["#mcp-approval-rounds List my Computer models, then list them once more."],
            approval_turns!(
                "#mcp-approval-rounds List my Computer models, then list them once more."
            ),
        )
    },
    ScenarioSpec {
        cancel: true,
        ..agent(
            "agent-approval-stop",
            "an MCP call waits for approval, and the user asks to stop it",
            &["#mcp-approval List my Computer models."],
            approval_turns!("#mcp-approval List my Computer models."),
        )
    },
    ScenarioSpec {
        confirm: "dismiss",
        ..agent(
            "agent-approval-move-on",
            "an MCP call waits for approval; the user closes the prompt without deciding and asks something else",
            &[
                "#mcp-approval List my Computer models.",
                "Never mind that. What can you do?",
            ],
            approval_turns!(
                "#mcp-approval List my Computer models.",
                "Never mind that. What can you do?"
            ),
        )
    },
    ScenarioSpec {
        confirm: "always",
        ..agent(
            "agent-always-allow",
            "the user chooses Always allow for an MCP tool; the next message calls it again",
            &[
                "#mcp-approval-always-allow List my Computer models.",
                "List them again, please.",
            ],
            approval_turns!(
                "#mcp-approval-always-allow List my Computer models.",
                "List them again, please."
            ),
        )
    },
    ScenarioSpec {
        confirm: "always",
        ..agent(
            "agent-always-allow-relabelled",
            "the user chooses Always allow for an MCP tool; the next request gives its label to another server_url, and another label to the chosen server",
            &[
                "#mcp-approval-always-allow List my Computer models.",
                "List them again, please.",
            ],
            r##"[{"message": "#mcp-approval-always-allow List my Computer models.",
                  "agent": {"model": "openai/gpt-5.6-terra", "tools": [{"type": "mcp",
                    "server_label": "computer", "server_url": "{mcp_url}",
                    "authorization": "alice-dev-token", "allowed_tools": ["models_list"],
                    "require_approval": "always"}]}},
                 {"message": "List them again, please.",
                  "agent": {"model": "openai/gpt-5.6-terra", "tools": [{"type": "mcp",
                    "server_label": "computer", "server_url": "{mcp_url}?workspace=other",
                    "authorization": "alice-dev-token", "allowed_tools": ["models_list"],
                    "require_approval": "always"}, {"type": "mcp",
                    "server_label": "models", "server_url": "{mcp_url}",
                    "authorization": "alice-dev-token", "allowed_tools": ["models_list"],
                    "require_approval": "always"}]}}]"##,
        )
    },
    // ---- Agent API duties (issue 10): discovery and connector errors ----
    agent(
        "agent-discovery-failure",
        "the MCP server cannot be reached when the run starts: the whole run fails with external_connector_error",
        &["#discovery-failure List my Computer models."],
        r##"[{"message": "#discovery-failure List my Computer models.",
             "agent": {"model": "openai/gpt-5.6-terra", "tools": [{"type": "mcp",
               "server_label": "computer", "server_url": "{mcp_url}",
               "authorization": "alice-dev-token", "allowed_tools": ["models_list"]}]}}]"##,
    ),
    agent(
        "agent-connector-errors",
        "every documented connector error comes back in-band on one mcp_call each; the run completes",
        &["#connector-errors Search my Slack workspace for messages about AI."],
        r##"[{"message": "#connector-errors Search my Slack workspace for messages about AI.",
             "agent": {"model": "openai/gpt-5.6-terra", "max_steps": 8,
                       "tools": [{"type": "connector", "id": "connector_slack", "server_label": "slack"}]}}]"##,
    ),
    agent(
        "agent-connector-transient",
        "the Slack connector is unreachable for the first request (CONNECTOR_UNAVAILABLE, transient); the person asks again and the retry works",
        &[
            "#connector-transient Search my Slack workspace for messages about AI.",
            "Please try Slack again.",
        ],
        r##"[{"message": "#connector-transient Search my Slack workspace for messages about AI.",
             "agent": {"model": "openai/gpt-5.6-terra", "max_steps": 6,
                       "tools": [{"type": "connector", "id": "connector_slack", "server_label": "slack"}]}},
            {"message": "Please try Slack again.",
             "agent": {"model": "openai/gpt-5.6-terra", "max_steps": 6,
                       "tools": [{"type": "connector", "id": "connector_slack", "server_label": "slack"}]}}]"##,
    ),
    agent(
        "agent-connector-empty",
        "the Notion connector is not connected: it lists no tools and reports no error",
        &["#slack-summary Find my Notion pages about the AI roadmap."],
        r##"[{"message": "#slack-summary Find my Notion pages about the AI roadmap.",
             "agent": {"model": "openai/gpt-5.6-terra", "max_steps": 6,
                       "tools": [{"type": "connector", "id": "connector_notion", "server_label": "notion"}]}}]"##,
    ),
    agent(
        "agent-deferred-discovery",
        "a connector's tools are discovered on demand: the client chooses max_steps",
        &["#slack-summary Summarize recent messages about AI in my Slack workspace."],
        r##"[{"message": "#slack-summary Summarize recent messages about AI in my Slack workspace.",
             "agent": {"model": "openai/gpt-5.6-terra",
                       "tools": [{"type": "connector", "id": "connector_slack", "server_label": "slack"}]}}]"##,
    ),
];

/// The clock's ceiling in the sign-in scenarios: access tokens live an hour of virtual time,
/// which at this speed is 36 s of real time, longer than any scenario's timeout, so a token
/// expires only when the script says the person was away.
pub const SIGN_IN_MAX_TIME_SCALE: f64 = 100.0;

/// The scenario with this name.
pub fn find(name: &str) -> Option<&'static ScenarioSpec> {
    SCENARIOS.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scripted_turn_is_an_object_whose_text_is_the_matching_message() {
        for spec in SCENARIOS {
            let script = spec.script();
            let turns = script["turns"].as_array().cloned().unwrap_or_default();
            let texts: Vec<&str> = turns.iter().filter_map(|t| t["message"].as_str()).collect();
            assert_eq!(
                texts, spec.messages,
                "{}: turns and messages differ",
                spec.name
            );
        }
    }
}
