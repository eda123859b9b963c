//! The scenarios of issue 26: transport faults the runner stages on the mock. On the MCP
//! endpoint, a session the server forgot and a call whose stream drops before its answer; on
//! the Agent API, a 429 with `Retry-After`, 503s that pass, 500s that do not, a stream that
//! ends early, and a response with two approval requests pending at once.
//!
//! A fault is written in the mock's fault grammar (see `docs/faults.md`). The MCP ones are
//! scoped to the first `call_perplexity_computer`; the Agent API ones to `POST`: in those
//! scenarios the client's only POSTs to the mock are its creates, whichever create path it uses
//! (`/v1/responses`, `/v1/agent`, `/responses`).

use super::spec::{ScenarioSpec, agent, spec};

/// The first `call_perplexity_computer` finds its session forgotten: 404, as for a session
/// that ended on the server's side.
const SESSION_FORGOTTEN: &str = "forget-session,times=1,tool=call_perplexity_computer";
/// The first `call_perplexity_computer`'s stream ends cleanly after its first two events
/// (progress notifications, with their ids), before the response.
const CALL_STREAM_DROPS: &str =
    "end-after-events=2,event-ids=keep,times=1,tool=call_perplexity_computer";
/// The message of both MCP scenarios: the `follow-up` fixture's first, a task that reports
/// three steps and completes within the call.
const SUMMARY: &str = "Summarize the top 5 stories on Hacker News right now.";

/// The first create gets 429 with `Retry-After: 1` (and `retry-after-ms: 1000`).
const ONE_429: &str = "status=429,retry-after=1s,times=1,method=POST";
/// The first two creates get 503.
const TWO_503S: &str = "status=503,times=2,method=POST";
/// Every create gets 500.
const EVERY_500: &str = "status=500,method=POST";
/// The first streamed create ends cleanly after three events, their ids kept.
const ENDS_AFTER_3: &str = "end-after-events=3,event-ids=keep,times=1,method=POST";

/// The scenarios, in the order reports list them (after the duty scenarios).
pub(super) const SCENARIOS: &[ScenarioSpec] = &[
    ScenarioSpec {
        fixture: "follow-up",
        faults: &[SESSION_FORGOTTEN],
        ..spec(
            "mcp-session-forgotten",
            "the server forgets the session at the first call (404): the client initializes a new session and sends the call again there",
            &[SUMMARY],
        )
    },
    ScenarioSpec {
        fixture: "follow-up",
        faults: &[CALL_STREAM_DROPS],
        ..spec(
            "mcp-stream-dropped",
            "the first call's stream ends after two progress events, before its answer: the client resumes it after the last with Last-Event-ID",
            &[SUMMARY],
        )
    },
    ScenarioSpec {
        faults: &[ONE_429],
        ..agent(
            "agent-rate-limited",
            "the first create gets 429 with Retry-After: 1 (retry-after-ms: 1000): sent again after that second, it is answered, and only once",
            &["What can the Agent API do?"],
            r#"[{"message": "What can the Agent API do?",
                 "agent": {"model": "openai/gpt-5.6-terra"}}]"#,
        )
    },
    ScenarioSpec {
        faults: &[TWO_503S],
        ..agent(
            "agent-server-error-transient",
            "the first two creates get 503: each retried after a backoff, the third is answered, and only once",
            &["What can the Agent API do?"],
            r#"[{"message": "What can the Agent API do?",
                 "agent": {"model": "openai/gpt-5.6-terra"}}]"#,
        )
    },
    ScenarioSpec {
        faults: &[EVERY_500],
        ..agent(
            "agent-server-error",
            "every create gets 500: the client backs off, gives up after a few tries and shows the error",
            &["What can the Agent API do?"],
            r#"[{"message": "What can the Agent API do?",
                 "agent": {"model": "openai/gpt-5.6-terra"}}]"#,
        )
    },
    ScenarioSpec {
        faults: &[ENDS_AFTER_3],
        ..agent(
            "agent-stream-ended",
            "a streamed background run whose stream ends cleanly after three events, before its terminal event",
            &["What can the Agent API do?"],
            r#"[{"message": "What can the Agent API do?",
                 "agent": {"model": "openai/gpt-5.6-terra", "background": true, "stream": true,
                           "tools": [{"type": "web_search"}]}}]"#,
        )
    },
    agent(
        "agent-approval-parallel",
        "the model proposes two MCP calls at once: both approval requests are pending in one response, and the continuation decides each",
        &["#mcp-approval-parallel List my Computer models twice, at once."],
        r##"[{"message": "#mcp-approval-parallel List my Computer models twice, at once.",
             "agent": {"model": "openai/gpt-5.6-terra", "tools": [{"type": "mcp",
               "server_label": "computer", "server_url": "{mcp_url}",
               "authorization": "alice-dev-token", "allowed_tools": ["models_list"],
               "require_approval": "always"}]}}]"##,
    ),
];
