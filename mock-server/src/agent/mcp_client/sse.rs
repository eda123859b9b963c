//! Splitting an SSE byte stream into events: the answers of a Streamable HTTP server that
//! streams, and the legacy transport's GET stream.

/// One server-sent event: its `event:` name, if any, and its `data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SseEvent {
    /// The `event:` name, if any.
    pub(super) event: Option<String>,
    /// The `data:` lines, joined by newlines.
    pub(super) data: String,
}

/// Splits an SSE byte stream into events.
#[derive(Default)]
pub(super) struct SseParser {
    buffer: Vec<u8>,
}

impl SseParser {
    /// Adds bytes; returns every event they complete (events without data, such as a priming
    /// event, are skipped).
    pub(super) fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some((end, separator)) = find_event_end(&self.buffer) {
            let raw: Vec<u8> = self.buffer.drain(..end + separator).take(end).collect();
            let text = String::from_utf8_lossy(&raw);
            let data: Vec<&str> = text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            let event = text
                .lines()
                .find_map(|line| line.strip_prefix("event:"))
                .map(|name| name.trim().to_owned());
            if !data.trim().is_empty() {
                events.push(SseEvent { event, data });
            }
        }
        events
    }
}

/// Where the first complete event ends, and the length of the blank line ending it.
fn find_event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    for (i, window) in buffer.windows(2).enumerate() {
        if window == b"\n\n" || window == b"\r\r" {
            return Some((i, 2));
        }
        if buffer[i..].starts_with(b"\r\n\r\n") {
            return Some((i, 4));
        }
    }
    None
}
