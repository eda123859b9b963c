//! Snapshot tests of a client's traffic (`--snapshots DIR`): per scenario, a readable transcript
//! of what the client sent and what the mock answered, normalised so that two runs of the same
//! client write the same bytes on any machine, kept as `DIR/<scenario>.txt` and compared on
//! later runs.
//!
//! # Format `conformance-snapshot/1` (text)
//!
//! Two comment lines (`#`), then one block per item, blocks separated by a blank line, in the
//! order they happened. An HTTP exchange is written as on the wire, each request line prefixed
//! `> ` and each response line `< `:
//!
//! ```text
//! > POST /rest/computer/mcp
//! > accept: application/json, text/event-stream
//! > authorization: Bearer <token-1>
//! >
//! > {
//! >   "id": "<id-1>",
//! >   "jsonrpc": "2.0",
//! >   "method": "tools/call",
//! >   ...
//! > }
//! < 200
//! < content-type: application/json
//! <
//! < { ... }
//! ```
//!
//! A query is listed as `> ?name=value` lines and a form body as `> name=value` lines (both
//! decoded, names sorted); an event stream as `< event:` followed by each message; an HTML page
//! as `<html: its title>`. An exchange the runner's scripted person made (opening a page the
//! client sent them to) starts `> (the person) GET ...`. What the client did on the user
//! channel is a line `user: ask {...}` and its answer `user: -> {...}`. A run of identical
//! consecutive items (a poll the client repeated as often as its speed allowed) is written once,
//! followed by `(repeats: this item, again one or more times)`.
//!
//! A listening stream (a `GET` of the MCP endpoint, which a client opens alongside its `POST`s
//! to hear from the server) is written after everything else, under the comment line
//! `# listening streams (GET), opened alongside the requests above`: its place among the
//! requests depends on timing, not on the client.
//!
//! Values that differ between runs are numbered placeholders (`<id-1>`, `<token-2>`,
//! `<thread-1>`, `<time-3>`, `<port-1>`, ...), as `mock_server::journal::normalize` makes them,
//! numbered across the exchanges and the user channel together.

use std::path::{Path, PathBuf};

use mock_server::Exchange;
use mock_server::journal::Normalizer;
use serde_json::{Map, Value, json};

use crate::check::{Check, Doc, Level, Status};
use crate::error::Error;
use crate::rules::ids::SNAPSHOT_UNCHANGED;
use crate::transcript::{PERSON_USER_AGENT, UserRecord};

/// The rule id of the check a scenario gets for its snapshot.
pub const SNAPSHOT_CHECK: &str = SNAPSHOT_UNCHANGED;

/// The format the first line of every snapshot names.
pub const SNAPSHOT_FORMAT: &str = "conformance-snapshot/1";

/// The normalised transcript of one scenario, in the format above.
pub fn transcript(scenario: &str, exchanges: &[Exchange], user: &[UserRecord]) -> String {
    let normalizer = Normalizer::new();
    let mut items: Vec<Value> = Vec::with_capacity(exchanges.len() + user.len());
    let mut records = user.iter().peekable();
    let (streams, exchanges): (Vec<&Exchange>, Vec<&Exchange>) =
        exchanges.iter().partition(|e| is_listening_stream(e));
    for exchange in exchanges {
        while let Some(record) = records.next_if(|r| r.at <= exchange.seq) {
            items.push(user_item(record));
        }
        let mut item = normalizer.view(exchange);
        let by_person = exchange
            .request_headers
            .get("user-agent")
            .and_then(Value::as_str)
            == Some(PERSON_USER_AGENT);
        if by_person && let Some(map) = item.as_object_mut() {
            map.insert("by_person".into(), json!(true));
        }
        items.push(item);
    }
    items.extend(records.map(user_item));
    items.extend(streams.into_iter().map(|e| {
        let mut item = normalizer.view(e);
        if let Some(map) = item.as_object_mut() {
            map.insert("listening".into(), json!(true));
        }
        item
    }));
    let normalized = normalizer.normalize_items(items);
    let mut out = format!(
        "# {SNAPSHOT_FORMAT} · scenario {scenario}\n\
         # what the client sent (>) and the mock answered (<), normalised; see docs/conformance.md\n"
    );
    let mut listening = false;
    for item in normalized.as_array().into_iter().flatten() {
        if !listening && item.get("listening") == Some(&Value::Bool(true)) {
            listening = true;
            out.push_str("\n# listening streams (GET), opened alongside the requests above\n");
        }
        out.push('\n');
        render(&mut out, item);
    }
    out
}

/// A `GET` of the MCP endpoint: the stream a client keeps open to hear from the server.
fn is_listening_stream(exchange: &Exchange) -> bool {
    exchange.method == "GET" && exchange.path == mock_server::MCP_PATH
}

fn user_item(record: &UserRecord) -> Value {
    json!({"user": record.kind, "sent": record.request, "answer": record.response})
}

fn render(out: &mut String, item: &Value) {
    if let Some(kind) = item.get("user").and_then(Value::as_str) {
        // A `Value` prints as JSON without a way to fail (`{:#}` pretty).
        let compact = |v: &Value| v.to_string();
        let sent = item.get("sent").unwrap_or(&Value::Null);
        match sent {
            Value::Null => out.push_str(&format!("user: {kind}\n")),
            sent => out.push_str(&format!("user: {kind} {}\n", compact(sent))),
        }
        let answer = item.get("answer").unwrap_or(&Value::Null);
        if !answer.is_null() {
            out.push_str(&format!("user: -> {}\n", compact(answer)));
        }
    } else {
        render_exchange(out, item);
    }
    if let Some(repeats) = item.get("repeats").and_then(Value::as_str) {
        out.push_str(&format!("(repeats: {repeats})\n"));
    }
}

fn render_exchange(out: &mut String, item: &Value) {
    let empty = Map::new();
    let request = item
        .get("request")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let response = item
        .get("response")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
    let who = if item.get("by_person") == Some(&Value::Bool(true)) {
        "(the person) "
    } else {
        ""
    };
    out.push_str(&format!(
        "> {who}{} {}\n",
        text(request.get("method")),
        text(request.get("path"))
    ));
    for (name, value) in params(request.get("query")) {
        out.push_str(&format!("> ?{name}={value}\n"));
    }
    headers(out, "> ", request.get("headers"));
    if let Some(form) = request.get("form") {
        out.push_str(">\n");
        for (name, value) in params(Some(form)) {
            out.push_str(&format!("> {name}={value}\n"));
        }
    }
    if let Some(body) = request.get("body") {
        out.push_str(">\n");
        json_lines(out, "> ", body);
    }
    if request.get("body_truncated").is_some() {
        out.push_str("> (body cut at the journal's per-body cap)\n");
    }
    match response.get("status").and_then(Value::as_u64) {
        Some(0) | None => out.push_str("< (no answer: the client left first)\n"),
        Some(status) => out.push_str(&format!("< {status}\n")),
    }
    headers(out, "< ", response.get("headers"));
    if let Some(events) = response.get("events").and_then(Value::as_array) {
        for event in events {
            out.push_str("< event:\n");
            json_lines(out, "< ", event);
        }
    }
    if let Some(body) = response.get("body") {
        out.push_str("<\n");
        json_lines(out, "< ", body);
    }
    if response.get("body_truncated").is_some() || response.get("events_truncated").is_some() {
        out.push_str("< (body cut at the journal's per-body cap)\n");
    }
}

/// A decoded query or form as `(name, value)` pairs, a repeated name once per value.
fn params(value: Option<&Value>) -> Vec<(String, String)> {
    let Some(map) = value.and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    for (name, value) in map {
        match value {
            Value::Array(values) => {
                for v in values {
                    pairs.push((name.clone(), v.as_str().unwrap_or_default().to_owned()));
                }
            }
            other => pairs.push((name.clone(), other.as_str().unwrap_or_default().to_owned())),
        }
    }
    pairs
}

fn headers(out: &mut String, prefix: &str, value: Option<&Value>) {
    for (name, value) in value.and_then(Value::as_object).into_iter().flatten() {
        out.push_str(&format!(
            "{prefix}{name}: {}\n",
            value.as_str().unwrap_or_default()
        ));
    }
}

/// A body: a string as it is (one line per line), anything else as pretty JSON.
fn json_lines(out: &mut String, prefix: &str, value: &Value) {
    let text = match value {
        Value::String(text) => text.clone(),
        other => format!("{other:#}"),
    };
    for line in text.lines() {
        out.push_str(prefix);
        out.push_str(line);
        out.push('\n');
    }
}

/// What comparing a transcript with its snapshot found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotOutcome {
    /// The snapshot has the same bytes.
    Matched,
    /// There was no snapshot; this transcript is now one.
    Written,
    /// There was no snapshot and new ones are refused (in CI, or `--no-new-snapshots`), as
    /// insta refuses them: nothing was written.
    Missing,
    /// The snapshot differed and `--update-snapshots` rewrote it.
    Updated,
    /// The snapshot differs: a unified diff from the snapshot to this run.
    Differs {
        /// The unified diff.
        diff: String,
    },
}

/// Where snapshots live, whether differing ones are rewritten, and whether missing ones are
/// written or refused.
#[derive(Debug, Clone)]
pub struct Snapshots {
    dir: PathBuf,
    update: bool,
    refuse_new: bool,
}

/// Whether this runs in CI, as insta decides it: `CI` set to anything but empty, `0` or
/// `false` (or Azure Pipelines' `TF_BUILD` set).
pub fn in_ci() -> bool {
    match std::env::var("CI").ok().as_deref() {
        Some("" | "0" | "false") => false,
        Some(_) => true,
        None => std::env::var_os("TF_BUILD").is_some(),
    }
}

impl Snapshots {
    /// Snapshots under `dir`; with `update`, differing (and missing) ones are rewritten instead
    /// of failing. Missing ones are written unless [`Snapshots::refusing_new`] says otherwise.
    pub fn new(dir: impl Into<PathBuf>, update: bool) -> Self {
        Self {
            dir: dir.into(),
            update,
            refuse_new: false,
        }
    }

    /// With `refuse` (in CI, or `--no-new-snapshots`), a missing snapshot fails its check and
    /// is not written, unless `update` asked for it: a pipeline whose snapshots were never
    /// committed must not pass by writing them.
    pub fn refusing_new(mut self, refuse: bool) -> Self {
        self.refuse_new = refuse;
        self
    }

    /// The snapshot file of `scenario`.
    pub fn path(&self, scenario: &str) -> PathBuf {
        self.dir.join(format!("{scenario}.txt"))
    }

    /// Compares `transcript` with the snapshot of `scenario`, writing it when missing (or, with
    /// `update`, when different).
    pub fn compare(&self, scenario: &str, transcript: &str) -> Result<SnapshotOutcome, Error> {
        let path = self.path(scenario);
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| Error::File { path, source }
        };
        let existing = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => return Err(Error::File { path, source }),
        };
        let outcome = match existing {
            Some(old) if old == transcript => return Ok(SnapshotOutcome::Matched),
            Some(old) if !self.update => {
                return Ok(SnapshotOutcome::Differs {
                    diff: unified_diff(&old, transcript, &path),
                });
            }
            Some(_) => SnapshotOutcome::Updated,
            None if self.refuse_new && !self.update => return Ok(SnapshotOutcome::Missing),
            None => SnapshotOutcome::Written,
        };
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        std::fs::write(&path, transcript).map_err(io(&path))?;
        Ok(outcome)
    }

    /// The check a scenario gets for its snapshot: SUCCESS when it matched or was updated,
    /// INFO when it was written (so no format passes over it in silence), FAILURE with the diff
    /// when it differs, and FAILURE naming where it would be written when it is missing and new
    /// ones are refused. `kept` is where this run's transcript was kept (`--output`), if it was.
    pub fn check(&self, scenario: &str, outcome: &SnapshotOutcome, kept: Option<&Path>) -> Check {
        let path = self.path(scenario);
        let shown = path.display();
        let (status, details) = match outcome {
            SnapshotOutcome::Matched => (
                Status::Success,
                format!("the traffic is the same as in the snapshot {shown}"),
            ),
            SnapshotOutcome::Written => (
                Status::Info,
                format!("no snapshot yet: wrote {shown} (commit it)"),
            ),
            SnapshotOutcome::Missing => (
                Status::Failure,
                format!(
                    "no snapshot {shown}: new snapshots are refused here ({}), so nothing was \
                     written; the new one would be written to {shown}{}. Run without CI=true \
                     (or with --update-snapshots) to write it, then commit it",
                    if in_ci() {
                        "CI is set"
                    } else {
                        "--no-new-snapshots"
                    },
                    kept.map(|k| format!(" (this run's transcript is in {})", k.display()))
                        .unwrap_or_default()
                ),
            ),
            SnapshotOutcome::Updated => (
                Status::Success,
                format!("the traffic changed and --update-snapshots rewrote {shown}"),
            ),
            SnapshotOutcome::Differs { diff } => (
                Status::Failure,
                format!(
                    "the traffic differs from the snapshot {shown} (if the change is intended, \
                     run again with --update-snapshots):\n{diff}"
                ),
            ),
        };
        Check {
            id: format!("{scenario}:{SNAPSHOT_UNCHANGED}"),
            rule: SNAPSHOT_UNCHANGED.to_owned(),
            level: Level::Must,
            status,
            scenario: scenario.to_owned(),
            doc: Doc {
                document: "docs/conformance.md".to_owned(),
                section: "Snapshot tests of a client's traffic".to_owned(),
                quote: "a difference fails the run and prints a unified diff; missing snapshots \
                        are written, except in CI; --update-snapshots rewrites them"
                    .to_owned(),
            },
            details,
            evidence: Vec::new(),
        }
    }
}

/// A unified diff from the snapshot `old` (at `path`) to this run's `new`.
pub fn unified_diff(old: &str, new: &str, path: &Path) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&path.display().to_string(), "this run")
        .to_string()
}

#[cfg(test)]
mod tests {
    use mock_server::Clock;
    use serde_json::json;

    use super::*;

    fn exchange(seq: usize, path: &str, body: Value, answer: Value) -> Exchange {
        let mut e = Exchange::new(seq, "POST", path, 200, Clock::fixed_epoch());
        e.request_headers
            .insert("content-type".into(), json!("application/json"));
        e.request_headers
            .insert("user-agent".into(), json!("my-client/1.2.3"));
        e.request_body = body;
        e.response_body = answer;
        e
    }

    #[test]
    fn a_listening_stream_is_written_last_wherever_it_landed_among_the_requests() {
        let call = |seq: usize, method: &str| {
            exchange(
                seq,
                mock_server::MCP_PATH,
                json!({"jsonrpc": "2.0", "id": seq, "method": method}),
                json!({"jsonrpc": "2.0", "id": seq, "result": {}}),
            )
        };
        let stream = |seq: usize| {
            let mut e = Exchange::new(seq, "GET", mock_server::MCP_PATH, 200, Clock::fixed_epoch());
            e.request_headers
                .insert("accept".into(), json!("text/event-stream"));
            e
        };
        let user = |at: usize| {
            vec![UserRecord {
                at,
                kind: "next-message".into(),
                request: Value::Null,
                response: json!({"message": "hi"}),
            }]
        };
        // The stream opened before the first call, then after it; the person's message came
        // between the two calls both times.
        let early = vec![call(0, "initialize"), stream(1), call(2, "tools/list")];
        let late = vec![call(0, "initialize"), call(1, "tools/list"), stream(2)];
        let a = transcript("demo", &early, &user(2));
        let b = transcript("demo", &late, &user(1));
        assert_eq!(a, b);
        let (before, after) = a
            .split_once("# listening streams (GET), opened alongside the requests above\n")
            .expect("the section");
        assert!(before.contains("tools/list") && before.contains("user: next-message"));
        assert!(after.contains("> GET /rest/computer/mcp"), "{after}");
        assert!(!before.contains("> GET"), "{before}");
    }

    #[test]
    fn a_transcript_shows_the_wire_the_user_channel_and_the_person_in_order() {
        let call = |id: u64| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "read_thread", "arguments": {"thread_id": "0b6f7a7e-0000-4000-8000-00000000abcd"}}})
        };
        let answer = |id: u64| json!({"jsonrpc": "2.0", "id": id, "result": {}});
        let mut page = Exchange::new(3, "GET", "/_mock/connect/x", 200, Clock::fixed_epoch());
        page.request_headers
            .insert("user-agent".into(), json!(PERSON_USER_AGENT));
        page.query = Some("t=0b6f7a7e-0000-4000-8000-00000000abcd".into());
        page.response_body = json!("<!doctype html><title>Sign in to Slack</title>");
        let exchanges = vec![
            exchange(0, "/rest/computer/mcp", call(1), answer(1)),
            exchange(1, "/rest/computer/mcp", call(2), answer(2)),
            exchange(2, "/rest/computer/mcp", call(3), answer(3)),
            page,
        ];
        let user = vec![UserRecord {
            at: 3,
            kind: "ask".into(),
            request: json!({"kind": "url", "url": "http://127.0.0.1:45678/_mock/connect/x"}),
            response: json!({"action": "accept"}),
        }];
        let text = transcript("demo", &exchanges, &user);
        let expected = r#"# conformance-snapshot/1 · scenario demo
# what the client sent (>) and the mock answered (<), normalised; see docs/conformance.md

> POST /rest/computer/mcp
> content-type: application/json
>
> {
>   "id": "<id-1>",
>   "jsonrpc": "2.0",
>   "method": "tools/call",
>   "params": {
>     "arguments": {
>       "thread_id": "<thread-1>"
>     },
>     "name": "read_thread"
>   }
> }
< 200
<
< {
<   "id": "<id-1>",
<   "jsonrpc": "2.0",
<   "result": {}
< }
(repeats: this item, again one or more times)

user: ask {"kind":"url","url":"http://127.0.0.1:<port-1>/_mock/connect/x"}
user: -> {"action":"accept"}

> (the person) GET /_mock/connect/x
> ?t=<thread-1>
< 200
<
< <html: Sign in to Slack>
"#;
        assert_eq!(text, expected);
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "conformance-snapshot-unit-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_snapshot_is_written_matched_refused_with_a_diff_and_updated() {
        let dir = scratch("cycle");
        let strict = Snapshots::new(&dir, false);
        assert_eq!(
            strict.compare("s", "a\nb\nc\n").ok(),
            Some(SnapshotOutcome::Written)
        );
        assert_eq!(
            strict.compare("s", "a\nb\nc\n").ok(),
            Some(SnapshotOutcome::Matched)
        );
        let Ok(SnapshotOutcome::Differs { diff }) = strict.compare("s", "a\nB\nc\n") else {
            panic!("a changed transcript must differ");
        };
        assert!(diff.contains("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"), "{diff}");
        assert!(diff.contains("+++ this run"), "{diff}");
        assert_eq!(
            strict
                .check("s", &SnapshotOutcome::Differs { diff }, None)
                .status,
            Status::Failure
        );
        // The refused run left the snapshot alone.
        assert_eq!(
            std::fs::read_to_string(strict.path("s")).ok().as_deref(),
            Some("a\nb\nc\n")
        );
        let update = Snapshots::new(&dir, true);
        assert_eq!(
            update.compare("s", "a\nB\nc\n").ok(),
            Some(SnapshotOutcome::Updated)
        );
        assert_eq!(
            strict.compare("s", "a\nB\nc\n").ok(),
            Some(SnapshotOutcome::Matched)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_missing_snapshot_is_refused_without_writing_and_says_where_it_would_go() {
        let dir = scratch("refused");
        let refusing = Snapshots::new(&dir, false).refusing_new(true);
        assert_eq!(
            refusing.compare("s", "a\n").ok(),
            Some(SnapshotOutcome::Missing)
        );
        assert!(!refusing.path("s").exists(), "nothing written");
        let check = refusing.check(
            "s",
            &SnapshotOutcome::Missing,
            Some(Path::new("out/s/transcript.txt")),
        );
        assert_eq!(check.status, Status::Failure);
        let shown = refusing.path("s").display().to_string();
        assert!(
            check.details.contains(&format!(
                "nothing was written; the new one would be written to {shown} (this run's \
                 transcript is in out/s/transcript.txt)"
            )),
            "{}",
            check.details
        );
        // --update-snapshots writes it even so.
        let updating = Snapshots::new(&dir, true).refusing_new(true);
        assert_eq!(
            updating.compare("s", "a\n").ok(),
            Some(SnapshotOutcome::Written)
        );
        assert!(updating.path("s").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
