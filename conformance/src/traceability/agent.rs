//! The duties of "Agent API, MCP tool" and "Agent API, Connectors", in document order, then
//! those of an Agent API client whose transport fails, from HTTP Semantics and the official
//! SDK's documented retries.

use super::duty::Coverage::{Excluded, Rules};
use super::duty::Duty;
use crate::rules::ids::*;

const MCP: &str = "Agent API, MCP tool";
const CONNECTORS: &str = "Agent API, Connectors";
const HTTP: &str = "RFC 9110, HTTP Semantics";
const SDK: &str = "perplexityai Python SDK README";

const fn duty(
    id: &'static str,
    document: &'static str,
    section: &'static str,
    quote: &'static str,
    coverage: super::duty::Coverage,
) -> Duty {
    Duty {
        id,
        document,
        section,
        quote,
        coverage,
    }
}

/// The Agent API documents' client duties.
pub(super) const DUTIES: &[Duty] = &[
    duty(
        "A01",
        MCP,
        "Defer tool definitions",
        "Set max_steps high enough that the model can search the catalog and still call the tools it finds.",
        Rules(&[AGENT_DEFERRED_MAX_STEPS]),
    ),
    duty(
        "A02",
        MCP,
        "Approvals: Approve or deny the call",
        "To continue, send previous_response_id and an mcp_approval_response for each approval request.",
        Rules(&[AGENT_APPROVAL_RESPOND_EACH, AGENT_APPROVAL_EVERY_PENDING]),
    ),
    duty(
        "A03",
        MCP,
        "Approvals: Approve or deny the call",
        "Send the same tools again, unchanged: Agent API does not reuse tool definitions from the previous response.",
        Rules(&[AGENT_APPROVAL_RESEND_TOOLS]),
    ),
    duty(
        "A04",
        MCP,
        "Approvals: Approve or deny the call",
        "A later response can contain new approval requests, so handle each one in the same way.",
        Rules(&[AGENT_APPROVAL_LATER_ROUNDS]),
    ),
    duty(
        "A05",
        MCP,
        "Approvals: Approve or deny the call",
        "To stop a pending call, deny it: removing the tool from allowed_tools does not cancel it.",
        Rules(&[AGENT_APPROVAL_STOP_BY_DENY]),
    ),
    duty(
        "A06",
        MCP,
        "Approvals: Approve or deny the call (Zero Data Retention)",
        "Instead, send the conversation history in input: the original user message, the mcp_approval_request item, and your mcp_approval_response.",
        Rules(&[AGENT_ZDR_HISTORY]),
    ),
    duty(
        "A07",
        MCP,
        "Approvals: Approve or deny the call (Zero Data Retention)",
        "Send each mcp_call item back unchanged, including its approval_request_id",
        Rules(&[AGENT_ZDR_MCP_CALL_UNCHANGED]),
    ),
    duty(
        "A08",
        MCP,
        "Allow a tool for later calls",
        "Store the choice with the server’s server_url and the tool name. Do not rely on server_label alone",
        Rules(&[AGENT_ALWAYS_ALLOW_BY_SERVER_URL]),
    ),
    duty(
        "A09",
        MCP,
        "Allow a tool for later calls",
        "In later requests, add the tool to the never filter",
        Rules(&[AGENT_ALWAYS_ALLOW_NEVER_FILTER]),
    ),
    duty(
        "A10",
        MCP,
        "Allow a tool for later calls",
        "If the user has not chosen Always allow for any tool, do not send the never filter.",
        Rules(&[AGENT_ALWAYS_ALLOW_NO_EMPTY_NEVER]),
    ),
    duty(
        "A11",
        MCP,
        "Handle approval errors",
        "If the user moves on without deciding, deny the pending call.",
        Rules(&[AGENT_APPROVAL_DENY_ON_MOVE_ON]),
    ),
    duty(
        "A12",
        MCP,
        "Review calls safely",
        "Before you approve, show the user the server_label, name, and parsed arguments.",
        Rules(&[AGENT_APPROVAL_USER_DECISION]),
    ),
    duty(
        "A13",
        MCP,
        "Review calls safely",
        "Make the approval decision in your backend. Do not forward approval items from a browser or another untrusted client.",
        Excluded(
            "where the decision is made is not visible on the wire: a backend and a forwarding browser send the same request",
        ),
    ),
    duty(
        "A14",
        MCP,
        "Error handling",
        "Because discovery runs before the model, the whole run fails with external_connector_error.",
        Rules(&[AGENT_DISCOVERY_FAILURE_SHOWN]),
    ),
    duty(
        "A15",
        CONNECTORS,
        "Error handling",
        "Detect it in your harness and send it to your logging or alerting so an operator can reconnect the connector",
        Rules(&[AGENT_CONNECTOR_AUTH_REQUIRED_SHOWN]),
    ),
    duty(
        "A16",
        CONNECTORS,
        "Error handling",
        "`POLICY_DENIED` | A policy blocked the tool call. | Do not retry. The call is not allowed.",
        Rules(&[AGENT_CONNECTOR_POLICY_DENIED_NOT_RETRIED]),
    ),
    duty(
        "A17",
        CONNECTORS,
        "Error handling",
        "`CONNECTOR_UNAVAILABLE` | The connector service could not be reached. | Transient. Retry later.",
        Rules(&[AGENT_CONNECTOR_TRANSIENT_RETRIED_LATER]),
    ),
    duty(
        "A18",
        CONNECTORS,
        "Error handling",
        "The error field is a free-form string, so treat any other value as a tool failure.",
        Rules(&[AGENT_CONNECTOR_ERROR_IS_FAILURE]),
    ),
    duty(
        "A19",
        CONNECTORS,
        "Error handling",
        "A connector that is not connected lists no tools (\"tools\": []) and produces no error, so also watch for an empty tool list.",
        Rules(&[AGENT_CONNECTOR_EMPTY_TOOLS_NOTICED]),
    ),
];

/// The duties of an Agent API client whose transport fails (issue 26): what HTTP Semantics asks
/// after a 429 and of a request that is not idempotent, and what the official SDK documents
/// doing about 5xx answers.
pub(super) const TRANSPORT_DUTIES: &[Duty] = &[
    duty(
        "A20",
        HTTP,
        "10.2.3. Retry-After",
        "Servers send the \"Retry-After\" header field to indicate how long the user agent ought to wait before making a follow-up request.",
        Rules(&[AGENT_RATE_LIMIT_RETRY_AFTER]),
    ),
    duty(
        "A21",
        SDK,
        "Retries",
        "Certain errors are automatically retried 2 times by default, with a short exponential backoff.",
        Rules(&[AGENT_SERVER_ERROR_BACKOFF]),
    ),
    duty(
        "A22",
        SDK,
        "Handling errors",
        "When the API returns a non-success status code (that is, 4xx or 5xx response), a subclass of perplexity.APIStatusError is raised",
        Rules(&[AGENT_SERVER_ERROR_GIVE_UP]),
    ),
    duty(
        "A23",
        HTTP,
        "9.2.2. Idempotent Methods",
        "A client SHOULD NOT automatically retry a request with a non-idempotent method unless it has some means to know that the request semantics are [...] idempotent",
        Rules(&[AGENT_ANSWERED_NO_RESEND]),
    ),
];
