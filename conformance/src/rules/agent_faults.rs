//! The Agent API client's duties when the transport fails (suite `agent`, issue 26): a 429's
//! announced wait waited out, a 5xx retried only after a backoff, a create the service keeps
//! failing given up after a bounded number of tries with an error the person sees, an answered
//! create (it spent credits) never sent again, and a stream that ends before its terminal
//! event resumed with `starting_after`, not taken for the answer nor created again.
//!
//! The faults are staged by the runner (the scenario's `faults`, in the mock's fault grammar);
//! everything is read from the journal and the user channel's log. Waits are judged in real
//! time from the mock's answer (see [`super::retries`]).

use mock_server::Exchange;

use crate::check::{DocRef, Level, Outcome};
use crate::transcript::Transcript;

use super::agent::stream_resumed;
use super::agent_observe::{creates, response_id};
use super::documents::{AGENT_BACKGROUND_DOC, HTTP_SEMANTICS, PYTHON_SDK_DOC};
use super::ids;
use super::retries;
use super::rule::Rule;

/// The Agent API scenarios whose creates fail with a 5xx.
const SERVER_ERRORS: &[&str] = &["agent-server-error-transient", "agent-server-error"];

pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule {
            id: ids::AGENT_RATE_LIMIT_RETRY_AFTER,
            summary: "after a 429 with retry-after-ms / Retry-After, the next create waits at least that long (real time from the answer), then goes again",
            level: Level::Must,
            doc: DocRef {
                document: HTTP_SEMANTICS,
                section: "10.2.3. Retry-After",
                quote: "Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request.",
            },
            scenarios: &["agent-rate-limited"],
            check: retry_after,
        },
        Rule {
            id: ids::AGENT_SERVER_ERROR_BACKOFF,
            summary: "after a 5xx, a create is sent again only after a backoff (at least 0.25 s of real time from the answer), never at once",
            level: Level::Should,
            doc: DocRef {
                document: PYTHON_SDK_DOC,
                section: "Retries",
                quote: "Certain errors are automatically retried 2 times by default, with a short exponential backoff.",
            },
            scenarios: SERVER_ERRORS,
            check: backoff,
        },
        Rule {
            id: ids::AGENT_SERVER_ERROR_GIVE_UP,
            summary: "a create the service keeps failing (5xx) is tried at most 6 times, then the client stops and shows the person an error",
            level: Level::Must,
            doc: DocRef {
                document: PYTHON_SDK_DOC,
                section: "Handling errors",
                quote: "When the API returns a non-success status code (that is, 4xx or 5xx response), a subclass of perplexity.APIStatusError is raised",
            },
            scenarios: &["agent-server-error"],
            check: give_up,
        },
        Rule {
            id: ids::AGENT_ANSWERED_NO_RESEND,
            summary: "a create that was answered (200 with a response id: it ran, and spent credits) is not sent again unchanged, even by a retry loop",
            level: Level::Should,
            doc: DocRef {
                document: HTTP_SEMANTICS,
                section: "9.2.2. Idempotent Methods",
                quote: "A client SHOULD NOT automatically retry a request with a non-idempotent method unless it has some means to know that the request semantics are actually idempotent",
            },
            scenarios: &["agent-rate-limited", "agent-server-error-transient"],
            check: answered_no_resend,
        },
        Rule {
            id: ids::AGENT_STREAM_UNFINISHED_RESUME,
            summary: "a stream that ends cleanly before its terminal event (response.completed, failed, incomplete, cancelled) is resumed with GET ?stream=true&starting_after=<last sequence_number>, not taken for the answer nor created again",
            level: Level::Must,
            doc: DocRef {
                document: AGENT_BACKGROUND_DOC,
                section: "Resuming a stream",
                quote: "Save the response id, and keep a cursor from the sequence_number on each streamed event. If the connection drops, reconnect with GET /v1/responses/{id}?stream=true&starting_after=N to resume after sequence number N.",
            },
            scenarios: &["agent-stream-ended"],
            check: unfinished_resume,
        },
    ]
}

fn all_creates(t: &Transcript) -> Vec<&Exchange> {
    creates(t).collect()
}

fn retry_after(t: &Transcript) -> Outcome {
    retries::retry_after_waited(&all_creates(t), "create")
}

fn backoff(t: &Transcript) -> Outcome {
    retries::backed_off(&all_creates(t), "create")
}

fn give_up(t: &Transcript) -> Outcome {
    retries::gave_up(t, &all_creates(t), "create")
}

fn answered_no_resend(t: &Transcript) -> Outcome {
    retries::answered_not_resent(
        &all_creates(t),
        |e| e.status == 200 && response_id(e).is_some(),
        "create",
    )
}

fn unfinished_resume(t: &Transcript) -> Outcome {
    stream_resumed(t, "ended before its terminal event")
}
