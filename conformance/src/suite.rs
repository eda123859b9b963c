//! The scenarios of the suite: which mock scenario runs, what the scripted user says, and the
//! groups rules name to apply to many scenarios at once.

use serde_json::{Value, json};

/// Protocol version the handshake-era scenarios announce.
pub const PROTOCOL_VERSION: &str = "2025-11-25";
/// The bearer token the runner hands the target (the built-in `alice` account).
pub const BEARER_TOKEN: &str = "alice-dev-token";

/// Every handshake-era scenario (`initialize`, a session).
pub const HANDSHAKE: &str = "@handshake";
/// Every 2026-07-28 scenario.
pub const MODERN: &str = "@modern";
/// Every scenario the client follows with MCP Tasks.
pub const TASKS: &str = "@tasks";
/// Every scenario the client follows with in-call elicitation (MRTR).
pub const ELICITATION: &str = "@elicitation";
/// Every scenario of the computer suite (rules about the MCP wire say nothing of an Agent API
/// client).
pub const EVERY_COMPUTER: &str = "*";
/// Every scenario in which the client starts with only the MCP URL and signs in with OAuth.
pub const SIGN_IN: &str = "@sign-in";

/// One scenario of the suite.
#[derive(Debug, Clone, Copy)]
pub struct ScenarioSpec {
    /// The mock scenario (a name from `fixtures/scenarios`).
    pub name: &'static str,
    /// `computer` or `agent`.
    pub suite: &'static str,
    /// What the person wants, in a sentence.
    pub description: &'static str,
    /// The user's messages, in order.
    pub messages: &'static [&'static str],
    /// Form answers by question id (`{}` when no question is expected).
    pub answers: &'static str,
    /// `approve` or `deny` for confirmations.
    pub confirm: &'static str,
    /// Whether the user asks to stop the running task (answered on `interrupt`).
    pub cancel: bool,
    /// The user's turns as a JSON array of objects (`""`: one `{"message"}` per message), for
    /// turns that carry more than text: attachments, a Project, a mode or model, a host request
    /// or a pause (see the README's user channel table).
    pub turns: &'static str,
    /// The protocol era the client speaks in this scenario.
    pub era: Era,
    /// How the client follows a request: plain tool calls, MCP Tasks, or in-call elicitation.
    pub flow: Flow,
    /// Agent suite: the run is for the built-in Zero Data Retention account (`bob`), whose key
    /// the runner hands out and which cannot use `previous_response_id`.
    pub zero_data_retention: bool,
    /// Agent suite: a ceiling on the clock's speed (0: none), so a background run lasts long
    /// enough in real time for a client to cancel it.
    pub max_time_scale: f64,
    /// Agent suite: the runner cuts the first streamed answer after this many events (0: never),
    /// as a dropped connection would.
    pub drop_stream_after: usize,
    /// How the client gets its token: handed one, or signing in with OAuth.
    pub sign_in: SignIn,
}

/// How the client of a scenario gets its bearer token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignIn {
    /// The runner hands it one (`CONFORMANCE_BEARER_TOKEN`, the built-in `alice`'s).
    Token,
    /// It gets only the MCP URL and signs in with OAuth; the person approves on the consent page.
    OAuth,
}

impl SignIn {
    /// `token` or `oauth`, as `MCP_CONFORMANCE_CONTEXT` names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Token => "token",
            Self::OAuth => "oauth",
        }
    }
}

/// The MCP protocol era a scenario runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// `initialize`, a session, `MCP-Protocol-Version` 2025-11-25.
    Handshake,
    /// Stateless 2026-07-28: `_meta` envelope on every request, no session.
    Modern,
}

impl Era {
    /// The protocol version the runner announces in `MCP_CONFORMANCE_PROTOCOL_VERSION`.
    pub fn protocol_version(self) -> &'static str {
        match self {
            Self::Handshake => PROTOCOL_VERSION,
            Self::Modern => mock_server::MODERN_VERSION,
        }
    }

    /// `handshake` or `modern`, as `MCP_CONFORMANCE_CONTEXT` names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Handshake => "handshake",
            Self::Modern => "modern",
        }
    }
}

/// How the client is expected to follow a request in a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Blocking tool calls, then the follow-up tools (`read_thread`, `answer_question`, ...).
    Tools,
    /// Declare `io.modelcontextprotocol/tasks`: the request becomes a task polled with `tasks/get`.
    Tasks,
    /// Declare `elicitation` (form and url) without the tasks extension: questions, approvals and
    /// sign-ins come back in the call as `input_required` (MRTR) and the call is retried.
    Elicitation,
}

impl Flow {
    /// `tools`, `tasks` or `elicitation`, as `MCP_CONFORMANCE_CONTEXT` names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Tasks => "tasks",
            Self::Elicitation => "elicitation",
        }
    }
}

impl ScenarioSpec {
    /// Whether this scenario belongs to a rule's scenario group (`@handshake`, `@modern`,
    /// `@tasks`, `@elicitation`, `@sign-in`).
    pub fn in_group(&self, group: &str) -> bool {
        // The groups are the computer suite's eras and flows; agent scenarios belong to none.
        if self.suite != "computer" {
            return false;
        }
        match group {
            HANDSHAKE => self.era == Era::Handshake,
            MODERN => self.era == Era::Modern,
            TASKS => self.flow == Flow::Tasks,
            ELICITATION => self.flow == Flow::Elicitation,
            SIGN_IN => self.sign_in == SignIn::OAuth,
            _ => false,
        }
    }

    /// The user's script, as the runner exposes it in `MCP_CONFORMANCE_CONTEXT`.
    pub fn script(&self) -> Value {
        let turns: Vec<Value> = serde_json::from_str(self.turns).unwrap_or_else(|_| {
            self.messages
                .iter()
                .map(|m| json!({"message": m}))
                .collect()
        });
        json!({
            "messages": self.messages,
            "turns": turns,
            "answers": serde_json::from_str::<Value>(self.answers).unwrap_or_else(|_| json!({})),
            "confirm": self.confirm,
            "signin": "complete",
            "topup": "complete",
            "interrupt": if self.cancel { json!("cancel") } else { Value::Null },
            "account": "alice",
            "zero_data_retention": self.zero_data_retention,
        })
    }

    /// The API key the runner hands the target: the built-in ZDR account's (`bob`) in a ZDR
    /// scenario, else `alice`'s.
    pub fn api_key(&self) -> &'static str {
        if self.zero_data_retention {
            ZDR_API_KEY
        } else {
            BEARER_TOKEN
        }
    }
}

/// The key of the built-in Zero Data Retention account (`bob` in `fixtures/world.json`).
pub const ZDR_API_KEY: &str = "bob-dev-token";

const fn spec(
    name: &'static str,
    description: &'static str,
    messages: &'static [&'static str],
) -> ScenarioSpec {
    ScenarioSpec {
        name,
        suite: "computer",
        description,
        messages,
        answers: "{}",
        confirm: "approve",
        cancel: false,
        turns: "",
        era: Era::Handshake,
        flow: Flow::Tools,
        zero_data_retention: false,
        max_time_scale: 0.0,
        drop_stream_after: 0,
        sign_in: SignIn::Token,
    }
}

/// An Agent API scenario: `turns` carry each message's `agent` request settings (see the
/// README's user channel table); `{mcp_url}` in them becomes the mock's own MCP endpoint.
const fn agent(
    name: &'static str,
    description: &'static str,
    messages: &'static [&'static str],
    turns: &'static str,
) -> ScenarioSpec {
    ScenarioSpec {
        suite: "agent",
        turns,
        ..spec(name, description, messages)
    }
}

/// The `mcp` tool every approval scenario offers: the mock's own Computer MCP endpoint (a real
/// remote MCP server to the Agent API's MCP client), limited to the harmless `models_list`,
/// with every call needing approval.
macro_rules! approval_turn {
    ($message:literal) => {
        concat!(
            r#"[{"message": ""#,
            $message,
            r#"", "agent": {"model": "openai/gpt-5.6-terra", "tools": [{"type": "mcp",
                "server_label": "computer", "server_url": "{mcp_url}",
                "authorization": "alice-dev-token", "allowed_tools": ["models_list"],
                "require_approval": "always"}]}}]"#
        )
    };
}

/// A 2026-07-28 scenario followed with `flow`.
const fn modern(
    name: &'static str,
    flow: Flow,
    description: &'static str,
    messages: &'static [&'static str],
) -> ScenarioSpec {
    ScenarioSpec {
        era: Era::Modern,
        flow,
        ..spec(name, description, messages)
    }
}

/// Every scenario, in the order reports list them.
pub const SCENARIOS: &[ScenarioSpec] = &[
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
        // The task resumes when the person finishes the sign-in page and runs 60 virtual seconds
        // more: at this speed that outlasts the client's notify_connected round trip, so a client
        // that takes the `complete` answer for finished is caught while the task still works.
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
        approval_turn!("Get my approval first, then list my Computer models."),
    ),
    ScenarioSpec {
        confirm: "deny",
        ..agent(
            "agent-approval-deny",
            "an MCP call needs approval; the user denies it",
            &["Get my approval first, then list my Computer models."],
            approval_turn!("Get my approval first, then list my Computer models."),
        )
    },
    ScenarioSpec {
        zero_data_retention: true,
        ..agent(
            "agent-approval-zdr",
            "a Zero Data Retention account approves an MCP call: the history goes back in input",
            &["Get my approval first, then list my Computer models."],
            approval_turn!("Get my approval first, then list my Computer models."),
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
