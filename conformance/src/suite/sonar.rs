//! The Sonar scenarios (suite `sonar`): a client of the chat completions route, on the mock's
//! built-in Sonar scenarios, named by `#name` in the user's message as the API's catalog says.
//! Each turn's `sonar` object holds the request settings the client sends with the message
//! (`model`, `stream`); the client sends the conversation so far as `messages`.

use super::spec::{ScenarioSpec, sonar};

/// The fault `sonar-server-error-transient` stages: the first two chat completions get 503.
const TWO_503S: &str = "status=503,times=2,method=POST";

/// The Sonar scenarios, in the order reports list them.
pub(super) const SCENARIOS: &[ScenarioSpec] = &[
    sonar(
        "sonar-cited-answer",
        "a cited answer: the client shows the sources its numbers refer to",
        &["#cited-answer What did Webb find on K2-18 b?"],
        r##"[{"message": "#cited-answer What did Webb find on K2-18 b?",
             "sonar": {"model": "sonar"}}]"##,
    ),
    sonar(
        "sonar-cited-stream",
        "the same cited answer streamed, then a follow-up on the conversation",
        &[
            "#cited-answer What did Webb find on K2-18 b?",
            "#cited-answer And what does that mean for life there?",
        ],
        r##"[{"message": "#cited-answer What did Webb find on K2-18 b?",
             "sonar": {"model": "sonar", "stream": true}},
            {"message": "#cited-answer And what does that mean for life there?",
             "sonar": {"model": "sonar", "stream": true}}]"##,
    ),
    sonar(
        "sonar-rate-limited",
        "the first request gets 429 with Retry-After: 1; sent again after that second, it is answered",
        &["#rate-limited What is new in solar power?"],
        r##"[{"message": "#rate-limited What is new in solar power?",
             "sonar": {"model": "sonar"}}]"##,
    ),
    ScenarioSpec {
        faults: &[TWO_503S],
        ..sonar(
            "sonar-server-error-transient",
            "the first two requests get 503 (a proxy's or a busy service's): retried after a backoff, the third is answered",
            &["What is new in solar power?"],
            r##"[{"message": "What is new in solar power?", "sonar": {"model": "sonar"}}]"##,
        )
    },
    sonar(
        "sonar-server-error",
        "every request gets 500: the client backs off, gives up after a few tries and shows the error",
        &["#server-error What is new in solar power?"],
        r##"[{"message": "#server-error What is new in solar power?",
             "sonar": {"model": "sonar"}}]"##,
    ),
];
