//! Server-sent events (the WHATWG `text/event-stream` format): one encoder for every stream the
//! mock sends, one incremental parser for every stream it reads.
//!
//! The encoder writes the fields in the order given (`event:`, `id:`, then one `data:` line per
//! line of data) and ends each event with a blank line; [`response`] adds an empty comment
//! (`:`) after each idle `keep_alive` interval, as proxies need, and ends when the events end.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::{Stream, StreamExt};
use http::{HeaderValue, header};

/// The keep-alive comment sent when a stream has been idle for its interval.
const KEEP_ALIVE: &[u8] = b":\n\n";

/// How long every stream of the mock sits idle before it sends a keep-alive comment (`:`,
/// which the official SDKs skip): well inside the 30 to 60 s after which proxies close a
/// silent connection.
pub(crate) const KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(15);

/// One event to send.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Event<'a> {
    /// The `event:` name (`None`: the default `message`, no line written).
    pub(crate) name: Option<&'a str>,
    /// The `id:` a reconnecting client sends back as `Last-Event-ID`.
    pub(crate) id: Option<&'a str>,
    /// The payload; each of its lines becomes a `data:` line.
    pub(crate) data: &'a str,
}

impl Event<'_> {
    /// The event's bytes on the wire.
    pub(crate) fn encode(&self) -> Bytes {
        let mut out = String::with_capacity(self.data.len() + 32);
        for (field, value) in [("event", self.name), ("id", self.id)] {
            if let Some(value) = value {
                // A field value cannot span lines; a stray line break would start a new field.
                push_field(&mut out, field, &value.replace(['\r', '\n'], " "));
            }
        }
        for line in self.data.split('\n') {
            push_field(&mut out, "data", line.strip_suffix('\r').unwrap_or(line));
        }
        out.push('\n');
        Bytes::from(out)
    }
}

fn push_field(out: &mut String, field: &str, value: &str) {
    out.push_str(field);
    out.push_str(": ");
    out.push_str(value);
    out.push('\n');
}

/// A `text/event-stream` response that sends `events` (already encoded) as they come, a
/// keep-alive comment after every idle `keep_alive`, and ends when `events` ends.
pub(crate) fn response<S>(events: S, keep_alive: Duration) -> Response
where
    S: Stream<Item = Bytes> + Send + 'static,
{
    let frames = futures::stream::unfold(Box::pin(events), move |mut events| async move {
        match tokio::time::timeout(keep_alive, events.next()).await {
            Ok(Some(bytes)) => Some((Ok::<_, Infallible>(bytes), events)),
            Ok(None) => None,
            Err(_idle) => Some((Ok(Bytes::from_static(KEEP_ALIVE)), events)),
        }
    });
    let mut response = Body::from_stream(frames).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// One event read from a stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Received {
    /// The `event:` name, if the event had one.
    pub(crate) name: Option<String>,
    /// The `id:`, if the event had one.
    pub(crate) id: Option<String>,
    /// The `data:` lines joined with `\n`; `None` when the event had no `data:` line (a comment
    /// or a priming event).
    pub(crate) data: Option<String>,
}

/// An event that carries a message: what a reader of JSON-RPC over SSE dispatches (an event
/// whose data is missing or blank, such as a priming event or a keep-alive, is none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Message {
    /// The `event:` name, if the event had one.
    pub(crate) name: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub(crate) data: String,
}

/// Splits a byte stream into events as the bytes arrive; an event is complete at its blank line
/// (`\n\n`, `\r\r` or `\r\n\r\n`), and comment lines (`:`) are skipped.
#[derive(Debug, Default)]
pub(crate) struct Parser {
    buffer: Vec<u8>,
}

impl Parser {
    /// Adds bytes; returns every event they complete, in order.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<Received> {
        self.buffer.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some((end, separator)) = event_end(&self.buffer) {
            events.push(parse_event(&self.buffer[..end]));
            self.buffer.drain(..end + separator);
        }
        events
    }

    /// Adds bytes; returns the messages among the events they complete, in order.
    pub(crate) fn push_messages(&mut self, bytes: &[u8]) -> Vec<Message> {
        self.push(bytes)
            .into_iter()
            .filter_map(|event| {
                let data = event.data.filter(|data| !data.trim().is_empty())?;
                Some(Message {
                    name: event.name,
                    data,
                })
            })
            .collect()
    }
}

/// Where the first complete event in `buffer` ends, and the length of the blank line ending it.
pub(crate) fn event_end(buffer: &[u8]) -> Option<(usize, usize)> {
    (0..buffer.len()).find_map(|i| {
        let rest = &buffer[i..];
        if rest.starts_with(b"\r\n\r\n") {
            Some((i, 4))
        } else if rest.starts_with(b"\n\n") || rest.starts_with(b"\r\r") {
            Some((i, 2))
        } else {
            None
        }
    })
}

/// The lines of one event that are fields, comments skipped: `(field, value)`, the value
/// without the one space that may follow the colon.
fn fields(raw: &str) -> impl Iterator<Item = (&str, &str)> {
    raw.split(['\n', '\r'])
        .filter(|line| !line.is_empty() && !line.starts_with(':'))
        .map(|line| {
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            (field, value.strip_prefix(' ').unwrap_or(value))
        })
}

/// Reads one event: the bytes before the blank line that ended it.
pub(crate) fn parse_event(raw: &[u8]) -> Received {
    let text = String::from_utf8_lossy(raw);
    let mut event = Received::default();
    let mut data: Vec<&str> = Vec::new();
    for (field, value) in fields(&text) {
        match field {
            "event" => event.name = Some(value.to_owned()),
            "id" => event.id = Some(value.to_owned()),
            "data" => data.push(value),
            _ => {}
        }
    }
    if !data.is_empty() {
        event.data = Some(data.join("\n"));
    }
    event
}

/// Whether one event (the bytes before its blank line) has a `data` field, without reading
/// it: comments and keep-alives have none.
pub(crate) fn has_data(raw: &[u8]) -> bool {
    raw.split(|&b| b == b'\n' || b == b'\r')
        .any(|line| line == b"data" || line.starts_with(b"data:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_written_field_by_field_and_ends_with_a_blank_line() {
        let event = Event {
            name: Some("message"),
            id: Some("1"),
            data: r#"{"jsonrpc":"2.0"}"#,
        };
        assert_eq!(
            event.encode(),
            "event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\"}\n\n"
        );
        let bare = Event {
            data: "a\nb",
            ..Event::default()
        };
        assert_eq!(bare.encode(), "data: a\ndata: b\n\n");
    }

    #[test]
    fn the_parser_reads_what_the_encoder_writes_in_any_chunking() {
        let wire = [
            Event {
                name: Some("message"),
                id: Some("7"),
                data: "one\ntwo",
            }
            .encode(),
            Bytes::from_static(KEEP_ALIVE),
            Event {
                data: "{}",
                ..Event::default()
            }
            .encode(),
        ]
        .concat();
        for split in 0..wire.len() {
            let mut parser = Parser::default();
            let mut events = parser.push(&wire[..split]);
            events.extend(parser.push(&wire[split..]));
            let data: Vec<Option<&str>> = events.iter().map(|e| e.data.as_deref()).collect();
            assert_eq!(
                data,
                [Some("one\ntwo"), None, Some("{}")],
                "split at {split}"
            );
            assert_eq!(events[0].name.as_deref(), Some("message"));
            assert_eq!(events[0].id.as_deref(), Some("7"));
        }
    }

    #[test]
    fn crlf_streams_and_fields_without_a_space_are_read() {
        let mut parser = Parser::default();
        let events = parser.push(b"event:ping\r\ndata:x\r\n\r\n: comment\r\n\r\n");
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].name.as_deref(), Some("ping"));
        assert_eq!(events[0].data.as_deref(), Some("x"));
        assert_eq!(events[1].data, None);
    }

    #[test]
    fn messages_are_the_events_with_data_that_is_not_blank() {
        let mut parser = Parser::default();
        assert!(
            parser
                .push_messages(b"event: message\ndata: {\"a\":")
                .is_empty()
        );
        assert_eq!(
            parser.push_messages(b"1}\n\nid: 2\ndata: \n\n:\n\ndata: x\ndata: y\n\n"),
            [
                Message {
                    name: Some("message".into()),
                    data: "{\"a\":1}".into()
                },
                Message {
                    name: None,
                    data: "x\ny".into()
                }
            ]
        );
    }

    #[test]
    fn only_events_with_a_data_field_have_data() {
        assert!(has_data(b"data: {}"));
        assert!(has_data(b"event: message\r\ndata"));
        assert!(!has_data(b": keep-alive"));
        assert!(!has_data(b"id: 1\nevent: database"));
        assert_eq!(event_end(b"data: 1\n\ndata: 2"), Some((7, 2)));
        assert_eq!(event_end(b"data: 1\r\n\r\n"), Some((7, 4)));
    }

    #[tokio::test(start_paused = true)]
    async fn an_idle_stream_sends_keep_alive_comments_and_ends_with_its_events() {
        use http_body_util::BodyExt;
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
        let events = tokio_stream::wrappers::UnboundedReceiverStream::new(receiver);
        let response = response(events, Duration::from_secs(15));
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/event-stream"
        );
        let mut body = response.into_body();
        let first = body.frame().await.and_then(|f| f.ok()?.into_data().ok());
        assert_eq!(first.as_deref(), Some(KEEP_ALIVE));
        let _ = sender.send(Bytes::from_static(b"data: x\n\n"));
        drop(sender);
        let second = body.frame().await.and_then(|f| f.ok()?.into_data().ok());
        assert_eq!(second.as_deref(), Some(&b"data: x\n\n"[..]));
        assert!(body.frame().await.is_none());
    }
}
