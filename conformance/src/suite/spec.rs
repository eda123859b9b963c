//! The vocabulary of the suite's scenarios: what a scenario is ([`ScenarioSpec`], its era, flow
//! and sign-in), the groups rules name, and the constructors the scenario lists are written with.

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
    /// The scenario's name; also the mock scenario it plays (a name from `fixtures/scenarios`)
    /// unless `fixture` names another.
    pub name: &'static str,
    /// The mock scenario it plays when that is not `name` (`""`): one fixture, several users
    /// (one who approves, one who denies).
    pub fixture: &'static str,
    /// A change to the fixture for this scenario (a setting such as `web_state_error`, a
    /// source on an outcome).
    pub patch: Option<fn(&mut Value)>,
    /// A change to the built-in world for this scenario (a plan's limit, more Projects).
    pub world: Option<fn(&mut Value)>,
    /// `computer`, `agent` or `sonar`.
    pub suite: &'static str,
    /// What the person wants, in a sentence.
    pub description: &'static str,
    /// The user's messages, in order.
    pub messages: &'static [&'static str],
    /// Form answers by question id (`{}` when no question is expected).
    pub answers: &'static str,
    /// How the person answers confirmations: `approve`, `deny`, `always` (approve, and "Always
    /// allow" this tool) or `dismiss` (closes the prompt without deciding, and moves on).
    pub confirm: &'static str,
    /// Whether the user asks to stop the running task (answered on `interrupt`).
    pub cancel: bool,
    /// `later`: the user declines the first question form, and answers when asked again
    /// (`""`: answers at once).
    pub question: &'static str,
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
    /// Computer tasks: the runner drops the connection of the client's first `tasks/get`
    /// before its answer arrives, as a network drop would.
    pub drop_first_poll: bool,
    /// Faults the stage puts in force before the client starts, in the mock's fault grammar
    /// (`status=429,retry-after=1s,times=1,method=POST`; see the fault vocabulary in
    /// `docs/faults.md`): the transport failures a scenario judges the client's answer to.
    pub faults: &'static [&'static str],
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
    /// The mock scenario this one plays (`fixtures/scenarios/{fixture}.json`).
    pub fn fixture(&self) -> &'static str {
        if self.fixture.is_empty() {
            self.name
        } else {
            self.fixture
        }
    }

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
            "question": if self.question.is_empty() { "answer" } else { self.question },
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

pub(super) const fn spec(
    name: &'static str,
    description: &'static str,
    messages: &'static [&'static str],
) -> ScenarioSpec {
    ScenarioSpec {
        name,
        fixture: "",
        patch: None,
        world: None,
        question: "",
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
        drop_first_poll: false,
        faults: &[],
    }
}

/// An Agent API scenario: `turns` carry each message's `agent` request settings (see the
/// README's user channel table); `{mcp_url}` in them becomes the mock's own MCP endpoint.
pub(super) const fn agent(
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

/// A Sonar scenario (suite `sonar`): `turns` carry each message's `sonar` request settings
/// (`model`, `stream`; see the README's user channel table).
pub(super) const fn sonar(
    name: &'static str,
    description: &'static str,
    messages: &'static [&'static str],
    turns: &'static str,
) -> ScenarioSpec {
    ScenarioSpec {
        suite: "sonar",
        turns,
        ..spec(name, description, messages)
    }
}

/// A 2026-07-28 scenario followed with `flow`.
pub(super) const fn modern(
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
