//! Every rule id, as a constant: the registry's rules, the reports and the reference client's
//! `--break` all name rules through these, so a renamed id is a compile error, not a silent miss.
//!
//! A constant's name is its id in capitals with `.` and `-` as `_`
//! (`computer.thread.reuse` is [`COMPUTER_THREAD_REUSE`]).

/// The check the runner makes on the target process itself: it must start, finish in time and
/// exit 0. Not a rule of the registry: it judges the launch, not the client's traffic.
pub const TARGET_EXIT: &str = "target.exit";

/// The check `--snapshots` adds per scenario: the client's normalised traffic is the same as its
/// snapshot. Not a rule of the registry either: it compares a run with an earlier one.
pub const SNAPSHOT_UNCHANGED: &str = "snapshot.unchanged";

// ---- The MCP wire (handshake era) and progress tokens (`wire.rs`). ----
/// `mcp.lifecycle.initialized`
pub const MCP_LIFECYCLE_INITIALIZED: &str = "mcp.lifecycle.initialized";
/// `mcp.transport.protocol-version-header`
pub const MCP_TRANSPORT_PROTOCOL_VERSION_HEADER: &str = "mcp.transport.protocol-version-header";
/// `mcp.transport.session-id`
pub const MCP_TRANSPORT_SESSION_ID: &str = "mcp.transport.session-id";
/// `computer.progress.token`
pub const COMPUTER_PROGRESS_TOKEN: &str = "computer.progress.token";

// ---- Threads: reuse, timeout, task status, sleep, waiting, cancel (`thread.rs`). ----
/// `computer.thread.reuse`
pub const COMPUTER_THREAD_REUSE: &str = "computer.thread.reuse";
/// `computer.timeout.read-thread`
pub const COMPUTER_TIMEOUT_READ_THREAD: &str = "computer.timeout.read-thread";
/// `computer.status.task-status`
pub const COMPUTER_STATUS_TASK_STATUS: &str = "computer.status.task-status";
/// `computer.sleep.no-resend`
pub const COMPUTER_SLEEP_NO_RESEND: &str = "computer.sleep.no-resend";
/// `computer.waiting.same-thread`
pub const COMPUTER_WAITING_SAME_THREAD: &str = "computer.waiting.same-thread";
/// `computer.cancel.confirm`
pub const COMPUTER_CANCEL_CONFIRM: &str = "computer.cancel.confirm";

// ---- Questions, confirmations, pending interactions (`interactive.rs`). ----
/// `computer.question.answer`
pub const COMPUTER_QUESTION_ANSWER: &str = "computer.question.answer";
/// `computer.confirm.decide`
pub const COMPUTER_CONFIRM_DECIDE: &str = "computer.confirm.decide";
/// `computer.pending.each`
pub const COMPUTER_PENDING_EACH: &str = "computer.pending.each";

// ---- Sign-ins (`auth.rs`). ----
/// `computer.auth.open-then-notify`
pub const COMPUTER_AUTH_OPEN_THEN_NOTIFY: &str = "computer.auth.open-then-notify";
/// `computer.auth.connector-when-several`
pub const COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL: &str = "computer.auth.connector-when-several";
/// `computer.auth.optional-ignored`
pub const COMPUTER_AUTH_OPTIONAL_IGNORED: &str = "computer.auth.optional-ignored";
/// `computer.auth.notify-after-sign-in`
pub const COMPUTER_AUTH_NOTIFY_AFTER_SIGN_IN: &str = "computer.auth.notify-after-sign-in";

// ---- Running out of credits (`credits.rs`). ----
/// `computer.credits.before-send`
pub const COMPUTER_CREDITS_BEFORE_SEND: &str = "computer.credits.before-send";
/// `computer.credits.during-task`
pub const COMPUTER_CREDITS_DURING_TASK: &str = "computer.credits.during-task";
/// `computer.credits.no-billing-url`
pub const COMPUTER_CREDITS_NO_BILLING_URL: &str = "computer.credits.no-billing-url";

// ---- MCP Tasks (`tasks.rs`). ----
/// `tasks.extension.every-request`
pub const TASKS_EXTENSION_EVERY_REQUEST: &str = "tasks.extension.every-request";
/// `tasks.task-id.exact`
pub const TASKS_TASK_ID_EXACT: &str = "tasks.task-id.exact";
/// `tasks.poll.far-too-early`
pub const TASKS_POLL_FAR_TOO_EARLY: &str = "tasks.poll.far-too-early";
/// `tasks.poll.interval`
pub const TASKS_POLL_INTERVAL: &str = "tasks.poll.interval";
/// `tasks.mcp-name`
pub const TASKS_MCP_NAME: &str = "tasks.mcp-name";
/// `tasks.update.input-responses`
pub const TASKS_UPDATE_INPUT_RESPONSES: &str = "tasks.update.input-responses";
/// `tasks.poll.after-ack`
pub const TASKS_POLL_AFTER_ACK: &str = "tasks.poll.after-ack";
/// `tasks.thread-id.from-meta`
pub const TASKS_THREAD_ID_FROM_META: &str = "tasks.thread-id.from-meta";
/// `tasks.cancel.cancel-task`
pub const TASKS_CANCEL_CANCEL_TASK: &str = "tasks.cancel.cancel-task";
/// `tasks.no-result-or-list`
pub const TASKS_NO_RESULT_OR_LIST: &str = "tasks.no-result-or-list";

// ---- In-call elicitation, MRTR (`elicitation.rs`). ----
/// `elicitation.modes.declared`
pub const ELICITATION_MODES_DECLARED: &str = "elicitation.modes.declared";
/// `elicitation.content.schema`
pub const ELICITATION_CONTENT_SCHEMA: &str = "elicitation.content.schema";
/// `elicitation.mrtr.request-state`
pub const ELICITATION_MRTR_REQUEST_STATE: &str = "elicitation.mrtr.request-state";

// ---- Uploads, Projects, settings, paging, downloads (`account.rs`). ----
/// `computer.paging.next-cursor`
pub const COMPUTER_PAGING_NEXT_CURSOR: &str = "computer.paging.next-cursor";
/// `computer.settings.mode-or-model`
pub const COMPUTER_SETTINGS_MODE_OR_MODEL: &str = "computer.settings.mode-or-model";
/// `computer.project.new-conversation`
pub const COMPUTER_PROJECT_NEW_CONVERSATION: &str = "computer.project.new-conversation";
/// `computer.upload.envelope`
pub const COMPUTER_UPLOAD_ENVELOPE: &str = "computer.upload.envelope";
/// `computer.upload.attachment-url`
pub const COMPUTER_UPLOAD_ATTACHMENT_URL: &str = "computer.upload.attachment-url";
/// `computer.assets.refresh-download`
pub const COMPUTER_ASSETS_REFRESH_DOWNLOAD: &str = "computer.assets.refresh-download";

// ---- The Agent API (`agent.rs`). ----
/// `agent.approval.respond-each`
pub const AGENT_APPROVAL_RESPOND_EACH: &str = "agent.approval.respond-each";
/// `agent.approval.resend-tools`
pub const AGENT_APPROVAL_RESEND_TOOLS: &str = "agent.approval.resend-tools";
/// `agent.approval.user-decision`
pub const AGENT_APPROVAL_USER_DECISION: &str = "agent.approval.user-decision";
/// `agent.zdr.history`
pub const AGENT_ZDR_HISTORY: &str = "agent.zdr.history";
/// `agent.background.poll`
pub const AGENT_BACKGROUND_POLL: &str = "agent.background.poll";
/// `agent.cancel.confirm`
pub const AGENT_CANCEL_CONFIRM: &str = "agent.cancel.confirm";
/// `agent.stream.resume`
pub const AGENT_STREAM_RESUME: &str = "agent.stream.resume";
/// `agent.connector.auth-required-shown`
pub const AGENT_CONNECTOR_AUTH_REQUIRED_SHOWN: &str = "agent.connector.auth-required-shown";

// ---- Agent API duties (issue 10): approvals over rounds, Always allow, connectors. ----
/// `agent.approval.later-rounds`
pub const AGENT_APPROVAL_LATER_ROUNDS: &str = "agent.approval.later-rounds";
/// `agent.approval.stop-by-deny`
pub const AGENT_APPROVAL_STOP_BY_DENY: &str = "agent.approval.stop-by-deny";
/// `agent.approval.deny-on-move-on`
pub const AGENT_APPROVAL_DENY_ON_MOVE_ON: &str = "agent.approval.deny-on-move-on";
/// `agent.zdr.mcp-call-unchanged`
pub const AGENT_ZDR_MCP_CALL_UNCHANGED: &str = "agent.zdr.mcp-call-unchanged";
/// `agent.always-allow.never-filter`
pub const AGENT_ALWAYS_ALLOW_NEVER_FILTER: &str = "agent.always-allow.never-filter";
/// `agent.always-allow.by-server-url`
pub const AGENT_ALWAYS_ALLOW_BY_SERVER_URL: &str = "agent.always-allow.by-server-url";
/// `agent.approval.every-pending`
pub const AGENT_APPROVAL_EVERY_PENDING: &str = "agent.approval.every-pending";
/// `agent.deferred.max-steps`
pub const AGENT_DEFERRED_MAX_STEPS: &str = "agent.deferred.max-steps";
/// `agent.discovery-failure.shown`
pub const AGENT_DISCOVERY_FAILURE_SHOWN: &str = "agent.discovery-failure.shown";
/// `agent.connector.policy-denied-not-retried`
pub const AGENT_CONNECTOR_POLICY_DENIED_NOT_RETRIED: &str =
    "agent.connector.policy-denied-not-retried";
/// `agent.connector.transient-retried-later`
pub const AGENT_CONNECTOR_TRANSIENT_RETRIED_LATER: &str = "agent.connector.transient-retried-later";
/// `agent.connector.error-is-failure`
pub const AGENT_CONNECTOR_ERROR_IS_FAILURE: &str = "agent.connector.error-is-failure";
/// `agent.connector.empty-tools-noticed`
pub const AGENT_CONNECTOR_EMPTY_TOOLS_NOTICED: &str = "agent.connector.empty-tools-noticed";

// ---- Outcomes only the user can act on (`outcomes.rs`; issue 10, duties). ----
/// `computer.progress.shown`
pub const COMPUTER_PROGRESS_SHOWN: &str = "computer.progress.shown";
/// `computer.error.shown`
pub const COMPUTER_ERROR_SHOWN: &str = "computer.error.shown";
/// `computer.access-denied.shown`
pub const COMPUTER_ACCESS_DENIED_SHOWN: &str = "computer.access-denied.shown";
/// `computer.credits.quota-reset`
pub const COMPUTER_CREDITS_QUOTA_RESET: &str = "computer.credits.quota-reset";
/// `computer.interaction.open-url`
pub const COMPUTER_INTERACTION_OPEN_URL: &str = "computer.interaction.open-url";
/// `computer.two-factor.instructions-shown`
pub const COMPUTER_TWO_FACTOR_INSTRUCTIONS_SHOWN: &str = "computer.two-factor.instructions-shown";
/// `tasks.url.open`
pub const TASKS_URL_OPEN: &str = "tasks.url.open";

// ---- The approval policy a client sends (`approval_policy.rs`; issue 10, duties). ----
/// `agent.always-allow.no-empty-never`
pub const AGENT_ALWAYS_ALLOW_NO_EMPTY_NEVER: &str = "agent.always-allow.no-empty-never";
// ---- Signing in with OAuth (`oauth.rs`). ----
/// `oauth.pkce-s256`
pub const OAUTH_PKCE_S256: &str = "oauth.pkce-s256";
/// `oauth.resource-parameter`
pub const OAUTH_RESOURCE_PARAMETER: &str = "oauth.resource-parameter";
/// `oauth.token-audience`
pub const OAUTH_TOKEN_AUDIENCE: &str = "oauth.token-audience";
/// `oauth.refresh-newest`
pub const OAUTH_REFRESH_NEWEST: &str = "oauth.refresh-newest";
/// `oauth.no-token-in-query`
pub const OAUTH_NO_TOKEN_IN_QUERY: &str = "oauth.no-token-in-query";
/// `oauth.bearer-every-request`
pub const OAUTH_BEARER_EVERY_REQUEST: &str = "oauth.bearer-every-request";

// ---- Following a request through (`follow_through.rs`; issue 10, Computer duties). ----
/// `tasks.regular-result.shown`
pub const TASKS_REGULAR_RESULT_SHOWN: &str = "tasks.regular-result.shown";
/// `tasks.status.final-after-terminal`
pub const TASKS_STATUS_FINAL_AFTER_TERMINAL: &str = "tasks.status.final-after-terminal";
/// `elicitation.working.read-thread`
pub const ELICITATION_WORKING_READ_THREAD: &str = "elicitation.working.read-thread";
/// `computer.read-thread.retry-state-error`
pub const COMPUTER_READ_THREAD_RETRY_STATE_ERROR: &str = "computer.read-thread.retry-state-error";
/// `tasks.disconnect.poll-same-id`
pub const TASKS_DISCONNECT_POLL_SAME_ID: &str = "tasks.disconnect.poll-same-id";
/// `computer.auth.input-required-read-thread`
pub const COMPUTER_AUTH_INPUT_REQUIRED_READ_THREAD: &str =
    "computer.auth.input-required-read-thread";

// ---- Answers and choices (`answers.rs`; issue 10, Computer duties). ----
/// `computer.approval.user-decision`
pub const COMPUTER_APPROVAL_USER_DECISION: &str = "computer.approval.user-decision";
/// `elicitation.declined.follow-up-tools`
pub const ELICITATION_DECLINED_FOLLOW_UP_TOOLS: &str = "elicitation.declined.follow-up-tools";
/// `computer.read-thread.answer-form`
pub const COMPUTER_READ_THREAD_ANSWER_FORM: &str = "computer.read-thread.answer-form";
/// `computer.settings.listed`
pub const COMPUTER_SETTINGS_LISTED: &str = "computer.settings.listed";

// ---- The account's limits (`limits.rs`; issue 10, Computer duties). ----
/// `computer.upload.size-bytes`
pub const COMPUTER_UPLOAD_SIZE_BYTES: &str = "computer.upload.size-bytes";
/// `computer.upload.refusal-shown`
pub const COMPUTER_UPLOAD_REFUSAL_SHOWN: &str = "computer.upload.refusal-shown";
/// `computer.projects.page-on`
pub const COMPUTER_PROJECTS_PAGE_ON: &str = "computer.projects.page-on";

// ---- Sonar chat completions (`sonar.rs`; issue 25). ----
/// `sonar.rate-limit.retry-after`
pub const SONAR_RATE_LIMIT_RETRY_AFTER: &str = "sonar.rate-limit.retry-after";
/// `sonar.citations.shown`
pub const SONAR_CITATIONS_SHOWN: &str = "sonar.citations.shown";
/// `sonar.answered.no-resend`
pub const SONAR_ANSWERED_NO_RESEND: &str = "sonar.answered.no-resend";
/// `sonar.server-error.backoff`
pub const SONAR_SERVER_ERROR_BACKOFF: &str = "sonar.server-error.backoff";
/// `sonar.server-error.give-up`
pub const SONAR_SERVER_ERROR_GIVE_UP: &str = "sonar.server-error.give-up";

// ---- Agent API transport faults: retries and unfinished streams (`agent_faults.rs`; issue 26). ----
/// `agent.rate-limit.retry-after`
pub const AGENT_RATE_LIMIT_RETRY_AFTER: &str = "agent.rate-limit.retry-after";
/// `agent.server-error.backoff`
pub const AGENT_SERVER_ERROR_BACKOFF: &str = "agent.server-error.backoff";
/// `agent.server-error.give-up`
pub const AGENT_SERVER_ERROR_GIVE_UP: &str = "agent.server-error.give-up";
/// `agent.answered.no-resend`
pub const AGENT_ANSWERED_NO_RESEND: &str = "agent.answered.no-resend";
/// `agent.stream.unfinished-resume`
pub const AGENT_STREAM_UNFINISHED_RESUME: &str = "agent.stream.unfinished-resume";

// ---- The MCP transport when it fails: forgotten sessions, dropped streams (`transport.rs`). ----
/// `mcp.transport.session-not-found-reinitialize`
pub const MCP_TRANSPORT_SESSION_NOT_FOUND_REINITIALIZE: &str =
    "mcp.transport.session-not-found-reinitialize";
/// `mcp.transport.resume-dropped-stream`
pub const MCP_TRANSPORT_RESUME_DROPPED_STREAM: &str = "mcp.transport.resume-dropped-stream";
/// `computer.disconnect.no-resend`
pub const COMPUTER_DISCONNECT_NO_RESEND: &str = "computer.disconnect.no-resend";

/// Every rule id of the registry, in its order (without [`TARGET_EXIT`]).
pub const ALL: &[&str] = &[
    MCP_LIFECYCLE_INITIALIZED,
    MCP_TRANSPORT_PROTOCOL_VERSION_HEADER,
    MCP_TRANSPORT_SESSION_ID,
    COMPUTER_PROGRESS_TOKEN,
    COMPUTER_THREAD_REUSE,
    COMPUTER_TIMEOUT_READ_THREAD,
    COMPUTER_STATUS_TASK_STATUS,
    COMPUTER_SLEEP_NO_RESEND,
    COMPUTER_WAITING_SAME_THREAD,
    COMPUTER_CANCEL_CONFIRM,
    COMPUTER_QUESTION_ANSWER,
    COMPUTER_CONFIRM_DECIDE,
    COMPUTER_PENDING_EACH,
    COMPUTER_AUTH_OPEN_THEN_NOTIFY,
    COMPUTER_AUTH_CONNECTOR_WHEN_SEVERAL,
    COMPUTER_AUTH_OPTIONAL_IGNORED,
    COMPUTER_AUTH_NOTIFY_AFTER_SIGN_IN,
    COMPUTER_CREDITS_BEFORE_SEND,
    COMPUTER_CREDITS_DURING_TASK,
    COMPUTER_CREDITS_NO_BILLING_URL,
    TASKS_EXTENSION_EVERY_REQUEST,
    TASKS_TASK_ID_EXACT,
    TASKS_POLL_FAR_TOO_EARLY,
    TASKS_POLL_INTERVAL,
    TASKS_MCP_NAME,
    TASKS_UPDATE_INPUT_RESPONSES,
    TASKS_POLL_AFTER_ACK,
    TASKS_THREAD_ID_FROM_META,
    TASKS_CANCEL_CANCEL_TASK,
    TASKS_NO_RESULT_OR_LIST,
    ELICITATION_MODES_DECLARED,
    ELICITATION_CONTENT_SCHEMA,
    ELICITATION_MRTR_REQUEST_STATE,
    COMPUTER_PAGING_NEXT_CURSOR,
    COMPUTER_SETTINGS_MODE_OR_MODEL,
    COMPUTER_PROJECT_NEW_CONVERSATION,
    COMPUTER_UPLOAD_ENVELOPE,
    COMPUTER_UPLOAD_ATTACHMENT_URL,
    COMPUTER_ASSETS_REFRESH_DOWNLOAD,
    AGENT_APPROVAL_RESPOND_EACH,
    AGENT_APPROVAL_RESEND_TOOLS,
    AGENT_APPROVAL_USER_DECISION,
    AGENT_ZDR_HISTORY,
    AGENT_BACKGROUND_POLL,
    AGENT_CANCEL_CONFIRM,
    AGENT_STREAM_RESUME,
    AGENT_CONNECTOR_AUTH_REQUIRED_SHOWN,
    // Agent API duties (issue 10)
    AGENT_APPROVAL_LATER_ROUNDS,
    AGENT_APPROVAL_STOP_BY_DENY,
    AGENT_APPROVAL_DENY_ON_MOVE_ON,
    AGENT_ZDR_MCP_CALL_UNCHANGED,
    AGENT_ALWAYS_ALLOW_NEVER_FILTER,
    AGENT_ALWAYS_ALLOW_BY_SERVER_URL,
    AGENT_APPROVAL_EVERY_PENDING,
    AGENT_DEFERRED_MAX_STEPS,
    AGENT_DISCOVERY_FAILURE_SHOWN,
    AGENT_CONNECTOR_POLICY_DENIED_NOT_RETRIED,
    AGENT_CONNECTOR_TRANSIENT_RETRIED_LATER,
    AGENT_CONNECTOR_ERROR_IS_FAILURE,
    AGENT_CONNECTOR_EMPTY_TOOLS_NOTICED,
    // outcomes (duties)
    COMPUTER_PROGRESS_SHOWN,
    COMPUTER_ERROR_SHOWN,
    COMPUTER_ACCESS_DENIED_SHOWN,
    COMPUTER_CREDITS_QUOTA_RESET,
    COMPUTER_INTERACTION_OPEN_URL,
    COMPUTER_TWO_FACTOR_INSTRUCTIONS_SHOWN,
    TASKS_URL_OPEN,
    // approval policy (duties)
    AGENT_ALWAYS_ALLOW_NO_EMPTY_NEVER,
    OAUTH_PKCE_S256,
    OAUTH_RESOURCE_PARAMETER,
    OAUTH_TOKEN_AUDIENCE,
    OAUTH_REFRESH_NEWEST,
    OAUTH_NO_TOKEN_IN_QUERY,
    OAUTH_BEARER_EVERY_REQUEST,
    // Computer duties: following a request through, answers and choices
    TASKS_REGULAR_RESULT_SHOWN,
    TASKS_STATUS_FINAL_AFTER_TERMINAL,
    ELICITATION_WORKING_READ_THREAD,
    COMPUTER_READ_THREAD_RETRY_STATE_ERROR,
    COMPUTER_AUTH_INPUT_REQUIRED_READ_THREAD,
    TASKS_DISCONNECT_POLL_SAME_ID,
    COMPUTER_APPROVAL_USER_DECISION,
    ELICITATION_DECLINED_FOLLOW_UP_TOOLS,
    COMPUTER_READ_THREAD_ANSWER_FORM,
    COMPUTER_SETTINGS_LISTED,
    COMPUTER_UPLOAD_SIZE_BYTES,
    COMPUTER_UPLOAD_REFUSAL_SHOWN,
    COMPUTER_PROJECTS_PAGE_ON,
    // Sonar chat completions
    SONAR_RATE_LIMIT_RETRY_AFTER,
    SONAR_SERVER_ERROR_BACKOFF,
    SONAR_SERVER_ERROR_GIVE_UP,
    SONAR_CITATIONS_SHOWN,
    SONAR_ANSWERED_NO_RESEND,
    // Agent API transport faults
    AGENT_RATE_LIMIT_RETRY_AFTER,
    AGENT_SERVER_ERROR_BACKOFF,
    AGENT_SERVER_ERROR_GIVE_UP,
    AGENT_ANSWERED_NO_RESEND,
    AGENT_STREAM_UNFINISHED_RESUME,
    // The MCP transport when it fails
    MCP_TRANSPORT_SESSION_NOT_FOUND_REINITIALIZE,
    MCP_TRANSPORT_RESUME_DROPPED_STREAM,
    COMPUTER_DISCONNECT_NO_RESEND,
];
