//! `GET /_mock/journal`: the journal as JSON lines, streamed a page at a time (never built
//! whole), selected by [`JournalQuery`], and with `follow=true` kept open to send each new
//! exchange as it finishes.
//!
//! Each line is one exchange, except a line `{"dropped": N, "before_seq": S}`: the N
//! exchanges just before `seq` S that the selection covers were dropped from the full journal.
//! The headers tell how full the journal is (`x-journal-kept`, `x-journal-bytes`,
//! `x-journal-dropped`, `x-journal-next-seq`).
//!
//! With `normalize=true` the selection is answered at once as one JSON array, normalised for
//! snapshot tests (see [`super::normalize`]).

use std::collections::BTreeSet;
use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::query::JournalQuery;
use super::store::Journal;
use super::stored::Record;
use super::view;

/// Where the journal is served.
pub(crate) const JOURNAL_PATH: &str = "/_mock/journal";

/// Records rendered per chunk of the answer.
const PAGE: usize = 64;

/// A query string the journal cannot answer, with the sentence that says why; the control
/// API answers it in its own shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct BadQuery(String);

/// The answer to `GET /_mock/journal` with the query string `raw`.
pub(crate) fn serve(journal: Journal, raw: Option<&str>) -> Result<Response, BadQuery> {
    // No query string selects everything, as an empty one does.
    let (raw, normalized) = take_normalize(raw.unwrap_or_default()).map_err(BadQuery)?;
    let (query, follow) = JournalQuery::parse(&raw).map_err(BadQuery)?;
    if normalized {
        if follow {
            return Err(BadQuery(
                "normalize=true numbers its placeholders over the whole selection, so it cannot \
                 follow new exchanges; drop follow=true (or normalize=true)"
                    .into(),
            ));
        }
        return Ok(normalized_answer(&journal, &query));
    }
    let stats = journal.stats();
    let body = if follow {
        Body::from_stream(following(journal, query))
    } else {
        Body::from_stream(reading(journal, query, stats.next_seq))
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/x-ndjson"),
    );
    for (name, value) in [
        ("x-journal-kept", stats.kept.to_string()),
        ("x-journal-bytes", stats.bytes.to_string()),
        ("x-journal-dropped", stats.dropped.to_string()),
        ("x-journal-next-seq", stats.next_seq.to_string()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
    Ok(response)
}

/// The query string without its `normalize` parameter, and whether it asked for the normalised
/// view.
fn take_normalize(raw: &str) -> Result<(String, bool), String> {
    let mut normalized = false;
    let mut rest = Vec::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=').unwrap_or((pair, "")) {
            ("normalize", "" | "true" | "1") => normalized = true,
            ("normalize", "false" | "0") => normalized = false,
            ("normalize", other) => {
                return Err(format!("normalize must be true or false, not `{other}`"));
            }
            _ => rest.push(pair),
        }
    }
    Ok((rest.join("&"), normalized))
}

/// The selection normalised (see [`super::normalize`]): one pretty-printed JSON array.
fn normalized_answer(journal: &Journal, query: &JournalQuery) -> Response {
    let exchanges = journal.query(query);
    let document = super::normalize::normalize(&exchanges);
    // A JSON tree always prints (`{:#}` is `to_string_pretty` without its `Result`).
    let text = format!("{document:#}\n");
    let mut response = text.into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// One exchange as a line.
fn line(out: &mut Vec<u8>, record: &Record) {
    if serde_json::to_writer(&mut *out, &view::exchange(record)).is_ok() {
        out.push(b'\n');
    }
}

/// The line saying `missed` exchanges before `before_seq` are gone.
fn gap(out: &mut Vec<u8>, missed: usize, before_seq: usize) {
    if missed > 0 {
        out.extend_from_slice(
            json!({"dropped": missed, "before_seq": before_seq})
                .to_string()
                .as_bytes(),
        );
        out.push(b'\n');
    }
}

/// The selection as it stands, up to the `seq` the journal had reached when asked.
fn reading(
    journal: Journal,
    query: JournalQuery,
    end: usize,
) -> impl futures::Stream<Item = Result<Bytes, Infallible>> {
    struct Read {
        cursor: usize,
        remaining: usize,
        generation: Option<u64>,
        done: bool,
    }
    let start = Read {
        cursor: query.first(),
        remaining: query.limit.unwrap_or(usize::MAX),
        generation: None,
        done: false,
    };
    futures::stream::unfold(start, move |mut read| {
        let (journal, query) = (journal.clone(), query.clone());
        async move {
            let mut out = Vec::new();
            while !read.done && out.is_empty() {
                let page = journal.page(read.cursor, PAGE.min(read.remaining), &query);
                // A reset in the middle ends the answer: what follows is another journal.
                if *read.generation.get_or_insert(page.generation) != page.generation {
                    break;
                }
                gap(
                    &mut out,
                    page.first_seq
                        .saturating_sub(read.cursor)
                        .min(end.saturating_sub(read.cursor)),
                    page.first_seq,
                );
                for record in page.records.iter().filter(|r| r.seq < end) {
                    line(&mut out, record);
                    read.remaining -= 1;
                }
                read.cursor = page.scanned_to;
                read.done = read.remaining == 0 || read.cursor >= end.min(page.next_seq);
            }
            (!out.is_empty()).then(|| (Ok(Bytes::from(out)), read))
        }
    })
}

/// The selection, then each new exchange that matches as it finishes (in the order they
/// finish), until `limit` or the reader leaves.
fn following(
    journal: Journal,
    query: JournalQuery,
) -> impl futures::Stream<Item = Result<Bytes, Infallible>> {
    struct Follow {
        next: usize,
        /// Exchanges that matched so far but had not finished when last seen.
        pending: BTreeSet<usize>,
        remaining: usize,
        generation: Option<u64>,
    }
    let start = Follow {
        next: query.first(),
        pending: BTreeSet::new(),
        remaining: query.limit.unwrap_or(usize::MAX),
        generation: None,
    };
    // The status is known only once an exchange finishes; the other filters right away.
    let unfinished = JournalQuery {
        status: None,
        ..query.clone()
    };
    futures::stream::unfold(start, move |mut follow| {
        let (journal, query, unfinished) = (journal.clone(), query.clone(), unfinished.clone());
        async move {
            loop {
                if follow.remaining == 0 {
                    return None;
                }
                let notified = journal.changed();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let mut out = Vec::new();
                let waiting: Vec<usize> = follow.pending.iter().copied().collect();
                let (now, first_seq, generation) = journal.records(&waiting);
                if *follow.generation.get_or_insert(generation) != generation {
                    // After a reset, follow the new journal from its start.
                    follow.generation = Some(generation);
                    follow.next = 0;
                    follow.pending.clear();
                    continue;
                }
                let lost = follow
                    .pending
                    .iter()
                    .filter(|seq| **seq < first_seq)
                    .count();
                follow.pending.retain(|seq| *seq >= first_seq);
                gap(&mut out, lost, first_seq);
                let mut finished: Vec<Record> = now.into_iter().filter(|r| r.finished).collect();
                let page = journal.page(follow.next, PAGE, &unfinished);
                if page.generation == generation {
                    gap(
                        &mut out,
                        page.first_seq.saturating_sub(follow.next),
                        page.first_seq,
                    );
                    for record in page.records {
                        if record.finished {
                            finished.push(record);
                        } else {
                            follow.pending.insert(record.seq);
                        }
                    }
                    follow.next = page.scanned_to;
                }
                for record in finished {
                    follow.pending.remove(&record.seq);
                    if follow.remaining > 0 && query.matches(&record) {
                        line(&mut out, &record);
                        follow.remaining -= 1;
                    }
                }
                if !out.is_empty() {
                    return Some((Ok(Bytes::from(out)), follow));
                }
                if follow.next < page.next_seq {
                    continue;
                }
                notified.await;
            }
        }
    })
}
