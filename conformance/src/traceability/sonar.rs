//! The duties of a Sonar (chat completions) client, in the order the suite judges them: what
//! HTTP Semantics asks after a 429 and of a request that is not idempotent, what the official
//! SDK documents doing about 5xx answers, and what Perplexity's cookbook says a client does with
//! an answer's sources.

use super::duty::Coverage::Rules;
use super::duty::Duty;
use crate::rules::ids::*;

const HTTP: &str = "RFC 9110, HTTP Semantics";
const CITATIONS: &str = "Perplexity API cookbook, Streaming citations";
const SDK: &str = "perplexityai Python SDK README";

/// The Sonar client duties.
pub(super) const DUTIES: &[Duty] = &[
    Duty {
        id: "S01",
        document: HTTP,
        section: "10.2.3. Retry-After",
        quote: "Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request.",
        coverage: Rules(&[SONAR_RATE_LIMIT_RETRY_AFTER]),
    },
    Duty {
        id: "S04",
        document: SDK,
        section: "Retries",
        quote: "Certain errors are automatically retried 2 times by default, with a short exponential backoff.",
        coverage: Rules(&[SONAR_SERVER_ERROR_BACKOFF]),
    },
    Duty {
        id: "S05",
        document: SDK,
        section: "Handling errors",
        quote: "When the API returns a non-success status code (that is, 4xx or 5xx response), a subclass of perplexity.APIStatusError is raised",
        coverage: Rules(&[SONAR_SERVER_ERROR_GIVE_UP]),
    },
    Duty {
        id: "S02",
        document: CITATIONS,
        section: "Streaming citations",
        quote: "you can display text and sources progressively instead of waiting for the full response.",
        coverage: Rules(&[SONAR_CITATIONS_SHOWN]),
    },
    Duty {
        id: "S03",
        document: HTTP,
        section: "9.2.2. Idempotent Methods",
        quote: "A client SHOULD NOT automatically retry a request with a non-idempotent method unless it has some means to know that the request semantics are [...] idempotent",
        coverage: Rules(&[SONAR_ANSWERED_NO_RESEND]),
    },
];
