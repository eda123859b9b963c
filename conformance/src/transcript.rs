//! The observations every check reads: one scenario's journal and user-channel log, in the shapes
//! the rules need (JSON-RPC requests with their answers, tool calls with their task JSON).
//!
//! A [`Transcript`] is built once, after the target has finished, so every rule is a pure
//! function of recorded data.

use std::collections::BTreeSet;

use mock_server::Exchange;
use serde::Serialize;
use serde_json::Value;

/// The User-Agent the runner's scripted person sends when they open a page (a sign-in, a
/// consent, a billing page): their exchanges in the journal are the person's, not the client's.
pub const PERSON_USER_AGENT: &str = "conformance-user/1";

/// One thing the client did on the user channel, and when (relative to the journal).
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct UserRecord {
    /// Number of journal exchanges recorded when this happened: everything with a smaller
    /// sequence number came before it.
    pub at: usize,
    /// `next-message`, `ask`, `interrupt`, `show` or `done`.
    pub kind: String,
    /// What the client sent.
    pub request: Value,
    /// What the runner answered (null for 204).
    pub response: Value,
}

/// A JSON-RPC request the client POSTed to the MCP endpoint, with its answer.
#[derive(Debug, Clone)]
pub struct Rpc {
    /// Journal sequence number.
    pub seq: usize,
    /// Method (None for a response or garbage).
    pub method: Option<String>,
    /// Params.
    pub params: Value,
    /// The JSON-RPC id (null for a notification).
    pub id: Value,
    /// Request headers (lower-cased).
    pub headers: serde_json::Map<String, Value>,
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub response_headers: serde_json::Map<String, Value>,
    /// The JSON-RPC response to this request (from the body or the SSE stream), or null.
    pub response: Value,
    /// Wall-clock time the request arrived.
    pub real_time: chrono::DateTime<chrono::Utc>,
    /// Wall-clock time the mock's answer was ready (a client can only start waiting after it).
    pub real_responded_at: chrono::DateTime<chrono::Utc>,
}

impl Rpc {
    /// A request header, as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(Value::as_str)
    }
}

/// A `tools/call` and the task JSON it returned.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// Journal sequence number.
    pub seq: usize,
    /// Tool name.
    pub name: String,
    /// Arguments.
    pub args: Value,
    /// The task JSON (structuredContent, else the first text block parsed), or null.
    pub result: Value,
    /// Virtual time the call arrived.
    pub virtual_time: chrono::DateTime<chrono::Utc>,
}

impl ToolCall {
    /// `arguments.thread_id`.
    pub fn thread_arg(&self) -> Option<&str> {
        self.args.get("thread_id").and_then(Value::as_str)
    }
    /// `thread_id` of the result.
    pub fn result_thread(&self) -> Option<&str> {
        self.result.get("thread_id").and_then(Value::as_str)
    }
    /// `event` of the result.
    pub fn event(&self) -> Option<&str> {
        self.result.get("event").and_then(Value::as_str)
    }
    /// `task_status` of the result, or `web_state.task_status` of a read_thread.
    pub fn task_status(&self) -> Option<&str> {
        self.result
            .get("task_status")
            .and_then(Value::as_str)
            .or_else(|| self.result.pointer("/web_state/task_status")?.as_str())
    }
    /// The thread this call is about: the argument, else the result's.
    pub fn thread(&self) -> Option<&str> {
        self.thread_arg().or_else(|| self.result_thread())
    }
    /// A short description for evidence lines.
    pub fn describe(&self) -> String {
        format!(
            "#{} {}({}) -> {}",
            self.seq,
            self.name,
            self.args,
            match (self.event(), self.task_status()) {
                (Some(e), Some(s)) => format!("event {e}, task_status {s}"),
                (Some(e), None) => format!("event {e}"),
                _ => "no task result".to_owned(),
            }
        )
    }
}

/// Everything recorded in one scenario run, in the shapes the checks need.
#[derive(Debug, Clone)]
pub struct Transcript {
    /// The scenario.
    pub scenario: String,
    /// Every exchange, as the journal recorded it.
    pub exchanges: Vec<Exchange>,
    /// JSON-RPC requests to the MCP endpoint.
    pub rpcs: Vec<Rpc>,
    /// Tool calls.
    pub calls: Vec<ToolCall>,
    /// The user channel's log.
    pub user: Vec<UserRecord>,
    /// Whether a user channel was there to record what the client showed its user; `false`
    /// for a journal judged alone ([`Transcript::journal_only`]).
    pub user_channel: bool,
}

impl Transcript {
    /// Builds the observations from a journal and a user-channel log.
    pub fn new(scenario: &str, exchanges: Vec<Exchange>, user: Vec<UserRecord>) -> Self {
        let mut rpcs = Vec::new();
        let mut calls = Vec::new();
        for e in &exchanges {
            if e.method != "POST" || e.path != mock_server::MCP_PATH {
                continue;
            }
            let body = &e.request_body;
            let method = body
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let id = body.get("id").cloned();
            let response = response_for(e, id.as_ref())
                .or_else(|| resumed_response(&exchanges, e, id.as_ref()))
                .unwrap_or(Value::Null);
            let params = body.get("params").cloned().unwrap_or(Value::Null);
            if method.as_deref() == Some("tools/call") {
                calls.push(ToolCall {
                    seq: e.seq,
                    name: params
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    args: params.get("arguments").cloned().unwrap_or(Value::Null),
                    result: task_json(&response),
                    virtual_time: e.virtual_time,
                });
            }
            rpcs.push(Rpc {
                seq: e.seq,
                method,
                id: id.unwrap_or(Value::Null),
                params,
                headers: e.request_headers.clone(),
                status: e.status,
                response_headers: e.response_headers.clone(),
                response,
                real_time: e.real_time,
                real_responded_at: e.real_responded_at,
            });
        }
        Self {
            scenario: scenario.to_owned(),
            exchanges,
            rpcs,
            calls,
            user,
            user_channel: true,
        }
    }

    /// Builds the observations from a journal alone, with no user channel: the rules about
    /// what the client showed its user are then not judged.
    pub fn journal_only(scenario: &str, exchanges: Vec<Exchange>) -> Self {
        Self {
            user_channel: false,
            ..Self::new(scenario, exchanges, Vec::new())
        }
    }

    /// Tool calls of one tool.
    pub fn calls_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a ToolCall> + 'a {
        self.calls.iter().filter(move |c| c.name == name)
    }

    /// Whether the URL (one the mock handed out) was fetched with GET before `before`.
    pub fn opened_before(&self, url: &str, before: usize) -> Option<usize> {
        let target = path_of(url);
        self.exchanges
            .iter()
            .filter(|e| e.seq < before && e.method == "GET")
            .find(|e| {
                let full = match &e.query {
                    Some(q) => format!("{}?{q}", e.path),
                    None => e.path.clone(),
                };
                full == target || e.path == target
            })
            .map(|e| e.seq)
    }

    /// Sequence numbers of credit top-ups (the billing page's button or the control API).
    pub fn top_ups(&self) -> Vec<usize> {
        self.exchanges
            .iter()
            .filter(|e| e.method == "POST" && e.path.ends_with("/top-up") && e.status < 400)
            .map(|e| e.seq)
            .collect()
    }

    /// Thread ids the mock handed out in results.
    pub fn issued_threads(&self) -> BTreeSet<String> {
        self.calls
            .iter()
            .filter_map(|c| c.result_thread().map(str::to_owned))
            .collect()
    }

    /// Whether the user channel delivered a new message between two journal positions.
    pub fn user_message_between(&self, after: usize, before: usize) -> bool {
        self.user.iter().any(|u| {
            u.kind == "next-message"
                && u.at > after
                && u.at <= before
                && u.response.get("message").is_some()
        })
    }
}

/// The path (and query) of a URL the mock handed out.
pub(crate) fn path_of(url: &str) -> String {
    match url.find("://") {
        Some(scheme) => {
            let rest = &url[scheme + 3..];
            rest.find('/')
                .map_or("/".to_owned(), |i| rest[i..].to_owned())
        }
        None => url.to_owned(),
    }
}

/// The JSON-RPC response to request `id`: the body, or the SSE event carrying that id.
fn response_for(e: &Exchange, id: Option<&Value>) -> Option<Value> {
    let id = id?;
    if e.response_body.get("id") == Some(id) {
        return Some(e.response_body.clone());
    }
    e.sse_events
        .iter()
        .rev()
        .find(|s| s.data.get("id") == Some(id))
        .map(|s| s.data.clone())
}

/// The `GET`s with `Last-Event-ID` after exchange `seq` in `session`: the resumptions of the
/// streams that were open in it then.
fn resume_gets<'a>(
    exchanges: &'a [Exchange],
    seq: usize,
    session: Option<&'a Value>,
) -> impl Iterator<Item = &'a Exchange> {
    exchanges.iter().filter(move |e| {
        e.seq > seq
            && e.method == "GET"
            && e.path == mock_server::MCP_PATH
            && e.request_headers.contains_key("last-event-id")
            && e.request_headers.get("mcp-session-id") == session
    })
}

/// The response to request `id` of `post` that came on a later `GET` with `Last-Event-ID` in
/// the same session: the stream that `post` opened, resumed after it dropped.
fn resumed_response(exchanges: &[Exchange], post: &Exchange, id: Option<&Value>) -> Option<Value> {
    let session = post.request_headers.get("mcp-session-id")?;
    resume_gets(exchanges, post.seq, Some(session)).find_map(|e| response_for(e, id))
}

/// The `GET`s with `Last-Event-ID` that resumed the stream of request `rpc`: those whose
/// events carry its response (a resume that replayed nothing more is not one of them).
pub(crate) fn resumes_of<'a>(t: &'a Transcript, rpc: &'a Rpc) -> Vec<&'a Exchange> {
    resume_gets(&t.exchanges, rpc.seq, rpc.headers.get("mcp-session-id"))
        .filter(|e| {
            e.sse_events
                .iter()
                .any(|s| s.data.get("id") == Some(&rpc.id))
        })
        .collect()
}

/// The task JSON of a `tools/call` response.
fn task_json(response: &Value) -> Value {
    let Some(result) = response.get("result") else {
        return Value::Null;
    };
    if let Some(structured) = result.get("structuredContent") {
        return structured.clone();
    }
    result
        .pointer("/content/0/text")
        .and_then(Value::as_str)
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

/// Whether a task status is final.
pub(crate) fn terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// A one-line description of an exchange, for evidence.
pub fn describe_exchange(t: &Transcript, seq: usize) -> String {
    if let Some(c) = t.calls.iter().find(|c| c.seq == seq) {
        return c.describe();
    }
    let Some(e) = t.exchanges.iter().find(|e| e.seq == seq) else {
        return format!("#{seq}");
    };
    let what = e
        .request_body
        .get("method")
        .and_then(Value::as_str)
        .map(|m| format!(" {m}"))
        .unwrap_or_default();
    let query = e
        .query
        .as_ref()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    format!(
        "#{seq} {} {}{query}{what} -> {}",
        e.method, e.path, e.status
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_of_keeps_path_and_query() {
        assert_eq!(path_of("http://127.0.0.1:1/_mock/a?b=c"), "/_mock/a?b=c");
    }
}
