//! Reading a record: its bytes parsed into the public [`Exchange`], credentials fingerprinted.
//! This is the only place the journal parses a body, and it runs only when someone reads.

use serde_json::{Map, Value, json};

use super::exchange::{Exchange, SseRecord};
use super::redact::{self, Secrets};
use super::stored::{Record, StoredBody, StoredHeaders};
use crate::http::sse;

/// Which side of the exchange a body is on (they are redacted differently).
#[derive(Clone, Copy)]
enum Side {
    Request,
    Response,
}

/// The public view of a record.
pub(crate) fn exchange(record: &Record) -> Exchange {
    let secrets = record.secrets;
    let (request_body, request_body_length, request_body_truncated) =
        body(secrets, &record.request_body, Side::Request);
    let (mut response_body, mut response_body_length, response_body_truncated) =
        body(secrets, &record.response_body, Side::Response);
    let sse_events: Vec<SseRecord> = record
        .events
        .iter()
        .map(|event| SseRecord {
            data: event_data(secrets, &event.frame),
            virtual_time: event.virtual_time,
        })
        .collect();
    if record.stream_length > 0 {
        response_body = Value::Null;
        response_body_length = record.stream_length;
    }
    Exchange {
        seq: record.seq,
        method: record.method.to_string(),
        path: record.path.clone(),
        query: record.query.as_deref().map(|q| redact::query(secrets, q)),
        request_headers: headers(secrets, &record.request_headers),
        request_body,
        request_body_length,
        request_body_truncated,
        status: record.status,
        response_headers: headers(secrets, &record.response_headers),
        response_body,
        response_body_length,
        response_body_truncated,
        sse_events,
        sse_events_dropped: record.events_dropped,
        virtual_time: record.virtual_time,
        real_time: record.real_time,
        virtual_responded_at: record.virtual_responded_at,
        real_responded_at: record.real_responded_at,
        fault: record.fault.clone(),
    }
}

/// Headers as a JSON object; a repeated header keeps its last value, as before.
fn headers(secrets: Secrets, stored: &StoredHeaders) -> Map<String, Value> {
    stored
        .iter()
        .map(|(name, value)| {
            (
                name.to_owned(),
                Value::String(redact::header(secrets, name, value)),
            )
        })
        .collect()
}

/// A body's value, full length and whether it was cut.
fn body(secrets: Secrets, stored: &StoredBody, side: Side) -> (Value, u64, bool) {
    match stored {
        StoredBody::Empty => (Value::Null, 0, false),
        StoredBody::Upload { declared } => (
            json!({"multipart_bytes": declared}),
            declared.unwrap_or(0),
            false,
        ),
        StoredBody::Bytes { kept, length } => {
            let truncated = u64::try_from(kept.len()).unwrap_or(u64::MAX) < *length;
            (parsed(secrets, kept, side), *length, truncated)
        }
    }
}

/// JSON when the bytes parse, else the text; redacted either way.
fn parsed(secrets: Secrets, bytes: &[u8], side: Side) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    match (serde_json::from_slice::<Value>(bytes), side) {
        (Ok(mut value), Side::Request) => {
            redact::request_json(secrets, &mut value);
            value
        }
        (Ok(mut value), Side::Response) => {
            redact::response_json(secrets, &mut value);
            value
        }
        (Err(_), Side::Request) => Value::String(redact::request_text(
            secrets,
            &String::from_utf8_lossy(bytes),
        )),
        (Err(_), Side::Response) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
    }
}

/// The `data:` lines of an SSE frame, joined and parsed.
fn event_data(secrets: Secrets, frame: &[u8]) -> Value {
    match sse::parse_event(frame).data {
        Some(data) => parsed(secrets, data.as_bytes(), Side::Response),
        None => Value::Null,
    }
}
