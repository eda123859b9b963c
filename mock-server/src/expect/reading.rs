//! What an expectation reads from a journal exchange: the JSON-RPC method and tool of an MCP
//! request, the event of a Computer tool result, and the short line a failure report shows.

use serde_json::Value;

use crate::journal::Exchange;
use crate::oauth::MCP_PATH;

/// The JSON-RPC method of a request to the MCP endpoint (`tools/call`, `initialize`).
pub(super) fn rpc_method(exchange: &Exchange) -> Option<&str> {
    if exchange.path != MCP_PATH {
        return None;
    }
    exchange.request_body.get("method")?.as_str()
}

/// The tool a `tools/call` request names.
pub(super) fn tool_name(exchange: &Exchange) -> Option<&str> {
    if rpc_method(exchange)? != "tools/call" {
        return None;
    }
    exchange.request_body.pointer("/params/name")?.as_str()
}

/// The `thread_id` argument of a `tools/call` request, when it has one.
pub(super) fn thread_argument(exchange: &Exchange) -> Option<&str> {
    tool_name(exchange)?;
    exchange
        .request_body
        .pointer("/params/arguments/thread_id")?
        .as_str()
}

/// What a Computer tool result said: its `event` and the thread it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ResultEvent {
    /// `complete`, `timeout`, `ask_user_question`, ...
    pub(super) event: String,
    /// The result's `thread_id`, when it has one.
    pub(super) thread_id: Option<String>,
}

/// The event of the tool result the mock answered a `tools/call` with: from its
/// `structuredContent`, or the JSON of its first text block; in a JSON body or in the answer
/// carried by an event stream.
pub(super) fn result_event(exchange: &Exchange) -> Option<ResultEvent> {
    tool_name(exchange)?;
    let id = exchange.request_body.get("id")?;
    let answer = std::iter::once(&exchange.response_body)
        .chain(exchange.sse_events.iter().map(|event| &event.data))
        .find(|message| message.get("id") == Some(id) && message.get("result").is_some())?;
    let result = &answer["result"];
    let structured = match result.get("structuredContent") {
        Some(structured) => structured.clone(),
        None => {
            let text = result.pointer("/content/0/text")?.as_str()?;
            serde_json::from_str::<Value>(text).ok()?
        }
    };
    Some(ResultEvent {
        event: structured.get("event")?.as_str()?.to_owned(),
        thread_id: structured
            .get("thread_id")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// One short line for a failure report: `#3 POST /rest/computer/mcp tools/call read_thread ->
/// 200 (working)`.
pub(super) fn describe(exchange: &Exchange) -> String {
    let mut line = format!("#{} {} {}", exchange.seq, exchange.method, exchange.path);
    if let Some(method) = rpc_method(exchange) {
        line.push(' ');
        line.push_str(method);
    }
    if let Some(tool) = tool_name(exchange) {
        line.push(' ');
        line.push_str(tool);
    }
    match exchange.status {
        0 => line.push_str(" -> (no answer yet)"),
        status => line.push_str(&format!(" -> {status}")),
    }
    if let Some(result) = result_event(exchange) {
        line.push_str(&format!(" ({})", result.event));
    }
    line
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::clock::Clock;
    use crate::journal::SseRecord;

    fn call(tool: &str, arguments: Value) -> Exchange {
        let mut exchange = Exchange::new(4, "POST", MCP_PATH, 200, Clock::fixed_epoch());
        exchange.request_body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                       "params": {"name": tool, "arguments": arguments}});
        exchange
    }

    #[test]
    fn a_tool_call_is_read_from_its_request_and_its_event_from_the_structured_result() {
        let mut exchange = call("read_thread", json!({"thread_id": "t-1"}));
        exchange.response_body = json!({"jsonrpc": "2.0", "id": 7, "result": {
            "content": [{"type": "text", "text": "{}"}],
            "structuredContent": {"event": "timeout", "thread_id": "t-1"}}});
        assert_eq!(tool_name(&exchange), Some("read_thread"));
        assert_eq!(thread_argument(&exchange), Some("t-1"));
        assert_eq!(
            result_event(&exchange),
            Some(ResultEvent {
                event: "timeout".to_owned(),
                thread_id: Some("t-1".to_owned())
            })
        );
        assert_eq!(
            describe(&exchange),
            "#4 POST /rest/computer/mcp tools/call read_thread -> 200 (timeout)"
        );
    }

    #[test]
    fn a_streamed_answer_and_a_text_only_result_are_read_too() {
        let mut exchange = call("call_perplexity_computer", json!({"message": "Go"}));
        let data = json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [
            {"type": "text", "text": r#"{"event":"complete","thread_id":"t-2"}"#}]}});
        exchange.sse_events = vec![
            SseRecord {
                data: json!({"jsonrpc": "2.0", "method": "notifications/progress"}),
                virtual_time: Clock::fixed_epoch(),
            },
            SseRecord {
                data,
                virtual_time: Clock::fixed_epoch(),
            },
        ];
        let read = result_event(&exchange).map(|r| r.event);
        assert_eq!(read.as_deref(), Some("complete"));
        assert_eq!(thread_argument(&exchange), None);
    }

    #[test]
    fn other_requests_are_described_by_method_path_and_status() {
        let exchange = Exchange::new(0, "GET", "/v1/agent/resp_1", 404, Clock::fixed_epoch());
        assert_eq!(tool_name(&exchange), None);
        assert_eq!(describe(&exchange), "#0 GET /v1/agent/resp_1 -> 404");
        let pending = Exchange::new(1, "POST", MCP_PATH, 0, Clock::fixed_epoch());
        assert_eq!(
            describe(&pending),
            "#1 POST /rest/computer/mcp -> (no answer yet)"
        );
    }
}
