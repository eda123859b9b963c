//! Reading JSON-RPC answers, shared by both eras.

use serde_json::Value;

/// The JSON-RPC messages of a response body, JSON or SSE.
pub(super) fn jsonrpc_messages(text: &str, is_sse: bool) -> Vec<Value> {
    if !is_sse {
        return serde_json::from_str(text).ok().into_iter().collect();
    }
    text.split("\n\n")
        .filter_map(|frame| {
            let data: Vec<&str> = frame
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            (!data.is_empty())
                .then(|| serde_json::from_str(&data.join("\n")).ok())
                .flatten()
        })
        .collect()
}
