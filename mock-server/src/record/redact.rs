//! Nothing secret leaves a recording. Captures become the journal's public [`Exchange`] view
//! through the journal's own redaction (`journal::redact`: `Authorization`, API keys, OAuth codes
//! and tokens, an `mcp` tool's `authorization` and `headers`), with the OAuth endpoints found
//! from the upstream's own metadata rather than from the mock's paths. A recording adds what a
//! real service carries and the mock's journal never sees: cookies, the presigned fields of an
//! upload envelope, upload bodies, and secret-named fields anywhere.
//!
//! Last, [`Secrets`] lists every credential value that went over the wire, and the written file
//! is scrubbed of each of them, whatever rule missed it: a test proves no recorded byte equals a
//! credential sent.

use std::collections::BTreeSet;

use http::HeaderMap;
use regex::Regex;
use serde_json::{Map, Value};

use super::capture::Captured;
use crate::journal::redact as journal;
use crate::journal::{Exchange, Secrets as Kind, SseRecord, fingerprint};

/// What replaces a value a `--redact` pattern or the final scrub matched.
pub const REDACTED: &str = "<redacted>";

/// Field names whose values are credentials wherever they appear (both sides).
const SECRET_FIELDS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "registration_access_token",
    "code_verifier",
    "api_key",
    "password",
    "assertion",
    "client_assertion",
];

/// Headers that are credentials beyond the journal's.
const SECRET_HEADERS: &[&str] = &["cookie", "set-cookie", "x-api-key", "proxy-authorization"];

/// The OAuth endpoints the upstream announced in its metadata (their paths).
#[derive(Debug, Default)]
struct Endpoints {
    token: BTreeSet<String>,
    register: BTreeSet<String>,
    authorize: BTreeSet<String>,
}

impl Endpoints {
    /// Reads `token_endpoint`, `registration_endpoint` and `authorization_endpoint` from every
    /// JSON answer (the authorization server metadata).
    fn discover(captures: &[Captured]) -> Self {
        let mut found = Self::default();
        for capture in captures {
            let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&capture.response_body)
            else {
                continue;
            };
            let path = |key: &str| {
                body.get(key)
                    .and_then(Value::as_str)
                    .map(|url| url_path(url).to_owned())
            };
            found.token.extend(path("token_endpoint"));
            found.register.extend(path("registration_endpoint"));
            found.authorize.extend(path("authorization_endpoint"));
        }
        found
    }

    /// Which of the journal's redaction rules apply to an exchange: the OAuth endpoints by the
    /// upstream's metadata (or a form grant), tool credentials on the Agent API's paths.
    fn role(&self, capture: &Captured) -> Kind {
        let path = capture.path.as_str();
        let form_grant = std::str::from_utf8(&capture.request_body)
            .is_ok_and(|b| b.starts_with("grant_type=") || b.contains("&grant_type="));
        if self.token.contains(path) || form_grant {
            Kind::TokenExchange
        } else if self.register.contains(path) {
            Kind::ClientRegistration
        } else if self.authorize.contains(path) {
            Kind::Authorization
        } else if crate::agent::is_agent_path(path) {
            Kind::ToolCredentials
        } else {
            Kind::Common
        }
    }
}

/// The path of an absolute URL (or the text itself when it is one).
fn url_path(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or(path)
}

/// The captures as the journal's public view, every credential a fingerprint.
pub(crate) fn exchanges(captures: &[Captured]) -> Vec<Exchange> {
    let endpoints = Endpoints::discover(captures);
    captures
        .iter()
        .enumerate()
        .map(|(seq, capture)| exchange(seq, capture, endpoints.role(capture)))
        .collect()
}

fn exchange(seq: usize, capture: &Captured, role: Kind) -> Exchange {
    let at = crate::Clock::fixed_epoch();
    let mut exchange = Exchange::new(
        seq,
        capture.method.as_str(),
        &capture.path,
        capture.status,
        at,
    );
    exchange.query = capture.query.as_deref().map(|q| journal::query(role, q));
    exchange.request_headers = headers(role, &capture.request_headers);
    exchange.response_headers = headers(role, &capture.response_headers);
    let multipart = header_text(&capture.request_headers, "content-type")
        .is_some_and(|t| t.starts_with("multipart/"));
    exchange.request_body = if multipart {
        // An upload's bytes are the user's file; its form carries the presigned fields.
        serde_json::json!({"multipart_bytes": capture.request_body.len()})
    } else {
        body(role, &capture.request_body, true)
    };
    exchange.request_body_length = u64::try_from(capture.request_body.len()).unwrap_or(u64::MAX);
    exchange.response_body = body(role, &capture.response_body, false);
    exchange.response_body_length = u64::try_from(capture.response_body.len()).unwrap_or(u64::MAX);
    exchange.sse_events = capture
        .events
        .iter()
        .filter_map(|event| {
            let data = crate::http::sse::parse_event(&event.frame).data?;
            Some(SseRecord {
                data: body(role, data.as_bytes(), false),
                virtual_time: at,
            })
        })
        .collect();
    exchange
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Headers as the journal shows them, plus the record-only secret headers fingerprinted.
fn headers(role: Kind, headers: &HeaderMap) -> Map<String, Value> {
    headers
        .iter()
        .map(|(name, value)| {
            let name = name.as_str();
            let shown = if SECRET_HEADERS.contains(&name) {
                fingerprint(&String::from_utf8_lossy(value.as_bytes()))
            } else if name == "location" {
                // The authorization code rides on the redirect, whatever the endpoint's path.
                journal::header(Kind::Authorization, name, value.as_bytes())
            } else {
                journal::header(role, name, value.as_bytes())
            };
            (name.to_owned(), Value::String(shown))
        })
        .collect()
}

/// A body as JSON when it parses (else text), through the journal's rules and then ours.
fn body(role: Kind, bytes: &[u8], request: bool) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(mut value) => {
            if request {
                journal::request_json(role, &mut value);
            } else {
                journal::response_json(role, &mut value);
            }
            secret_fields(&mut value);
            value
        }
        Err(_) => {
            let text = String::from_utf8_lossy(bytes);
            Value::String(if request {
                journal::request_text(role, &text)
            } else {
                text.into_owned()
            })
        }
    }
}

/// Fingerprints secret-named fields and upload envelopes' presigned fields anywhere, JSON
/// carried as text (a tool result's text block) included.
fn secret_fields(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let schema = is_object_schema(map);
            for (key, item) in map.iter_mut() {
                if schema && key == "properties" {
                    // A schema's property names describe fields; its values are schemas.
                    if let Value::Object(properties) = item {
                        properties.values_mut().for_each(secret_fields);
                    }
                } else if SECRET_FIELDS.contains(&key.as_str()) && !item.is_null() {
                    *item = Value::String(fingerprint(&plain(item)));
                } else if key == "upload_fields" {
                    if let Value::Object(fields) = item {
                        for field in fields.values_mut() {
                            *field = Value::String(fingerprint(&plain(field)));
                        }
                    }
                } else {
                    secret_fields(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(secret_fields),
        Value::String(text) if text.starts_with('{') => {
            if let Ok(mut inner) = serde_json::from_str::<Value>(text) {
                let before = inner.clone();
                secret_fields(&mut inner);
                if inner != before {
                    *text = inner.to_string();
                }
            }
        }
        _ => {}
    }
}

/// A JSON Schema of an object (`{"type": "object", "properties": {...}}`), as in a tool's
/// `inputSchema` or `outputSchema`: its `properties` keys name fields, they carry no values.
fn is_object_schema(map: &Map<String, Value>) -> bool {
    map.get("type").and_then(Value::as_str) == Some("object")
        && map.get("properties").is_some_and(Value::is_object)
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Every credential value that went over the wire in a recording, to scrub from what is written.
#[derive(Debug, Default, Clone)]
pub struct Secrets(BTreeSet<String>);

/// Shorter values are not scrubbed on their own (they would match ordinary words); a secret is
/// never that short.
const SHORTEST_SECRET: usize = 6;

impl Secrets {
    /// The credentials sent or received in `captures`.
    pub fn of(captures: &[Captured]) -> Self {
        let mut found = Self::default();
        for capture in captures {
            for headers in [&capture.request_headers, &capture.response_headers] {
                for (name, value) in headers {
                    let text = String::from_utf8_lossy(value.as_bytes());
                    match name.as_str() {
                        "authorization" | "proxy-authorization" => {
                            let credential = text.split_once(' ').map_or(&*text, |(_, c)| c);
                            found.add(credential.trim());
                        }
                        "cookie" => text
                            .split(';')
                            .filter_map(|c| c.split_once('=').map(|(_, v)| v.trim().to_owned()))
                            .for_each(|v| found.add(&v)),
                        "set-cookie" => {
                            let first = text.split(';').next().unwrap_or_default();
                            if let Some((_, v)) = first.split_once('=') {
                                found.add(v.trim());
                            }
                        }
                        "x-api-key" => found.add(&text),
                        "location" => found.params(&text, &["code"]),
                        _ => {}
                    }
                }
            }
            if let Some(query) = &capture.query {
                found.params(query, &["code", "access_token", "code_verifier"]);
            }
            for bytes in [&capture.request_body, &capture.response_body] {
                found.body(bytes);
            }
            for event in &capture.events {
                if let Some(data) = crate::http::sse::parse_event(&event.frame).data {
                    found.body(data.as_bytes());
                }
            }
        }
        found
    }

    /// Each credential found, in order.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    fn add(&mut self, value: &str) {
        if value.len() >= SHORTEST_SECRET {
            self.0.insert(value.to_owned());
        }
    }

    fn params(&mut self, text: &str, keys: &[&str]) {
        let query = text.split_once('?').map_or(text, |(_, q)| q);
        for pair in query.split('&') {
            if let Some((name, value)) = pair.split_once('=')
                && keys.contains(&crate::percent_decode(name).as_str())
            {
                self.add(&crate::percent_decode(value));
            }
        }
    }

    fn body(&mut self, bytes: &[u8]) {
        match serde_json::from_slice::<Value>(bytes) {
            Ok(value) => self.json(&value, false),
            Err(_) => {
                let text = String::from_utf8_lossy(bytes);
                if text.contains("grant_type=") {
                    self.params(
                        &text,
                        &[
                            "code",
                            "code_verifier",
                            "refresh_token",
                            "client_secret",
                            "assertion",
                            "password",
                        ],
                    );
                }
            }
        }
    }

    /// Secret-named fields, upload fields, and Agent API tools' `authorization` and `headers`.
    fn json(&mut self, value: &Value, in_tool: bool) {
        match value {
            Value::Object(map) => {
                let is_tool = map.contains_key("type")
                    && (map.contains_key("server_url") || map.contains_key("server_label"));
                let schema = is_object_schema(map);
                for (key, item) in map {
                    let tool = in_tool && is_tool;
                    if schema && key == "properties" {
                        // A tool's `outputSchema` names `upload_fields` with `{"type": "object"}`:
                        // schema property names are not fields, nor "object" a credential.
                        if let Value::Object(properties) = item {
                            properties.values().for_each(|v| self.json(v, false));
                        }
                        continue;
                    }
                    let secret_here = (SECRET_FIELDS.contains(&key.as_str()) && item.is_string())
                        || (tool && key == "authorization");
                    if secret_here {
                        self.add(&plain(item));
                    } else if key == "upload_fields" || (tool && key == "headers") {
                        if let Value::Object(fields) = item {
                            fields.values().for_each(|v| self.add(&plain(v)));
                        }
                    } else if key == "tools" {
                        if let Value::Array(tools) = item {
                            tools.iter().for_each(|t| self.json(t, true));
                        }
                    } else {
                        self.json(item, false);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| self.json(v, false)),
            Value::String(text) if text.starts_with('{') || text.starts_with('[') => {
                if let Ok(inner) = serde_json::from_str::<Value>(text) {
                    self.json(&inner, false);
                }
            }
            _ => {}
        }
    }

    /// `text` with every secret (as written, and as escaped inside a JSON string) replaced.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.0 {
            out = out.replace(secret.as_str(), REDACTED);
            // Display cannot fail (an empty "escaped" would have replaced between every char).
            let escaped = serde_json::Value::String(secret.clone()).to_string();
            let escaped = escaped.trim_matches('"');
            if escaped != secret {
                out = out.replace(escaped, REDACTED);
            }
        }
        out
    }
}

/// The user's `--redact` patterns, applied to every string of what is written.
#[derive(Debug, Default, Clone)]
pub struct UserRedactions(Vec<Regex>);

impl UserRedactions {
    /// Compiles the patterns.
    pub fn new(patterns: &[String]) -> Result<Self, super::error::RecordError> {
        patterns
            .iter()
            .map(|p| {
                Regex::new(p)
                    .map_err(|e| super::error::RecordError::Pattern(p.clone(), e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    /// Replaces every match in every string (keys included) of `value`.
    pub fn apply(&self, value: &mut Value) {
        if self.0.is_empty() {
            return;
        }
        match value {
            Value::String(text) => *text = self.text(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.apply(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.apply(&mut item);
                    map.insert(self.text(&key), item);
                }
            }
            _ => {}
        }
    }

    fn text(&self, text: &str) -> String {
        self.0.iter().fold(text.to_owned(), |text, pattern| {
            pattern.replace_all(&text, REDACTED).into_owned()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use serde_json::json;

    fn capture(path: &str, request: &str, response: &str) -> Captured {
        Captured {
            at: std::time::Duration::ZERO,
            ended: None,
            method: http::Method::POST,
            path: path.into(),
            query: None,
            request_headers: HeaderMap::new(),
            request_body: Bytes::from(request.to_owned()),
            status: 200,
            response_headers: HeaderMap::new(),
            response_body: Bytes::from(response.to_owned()),
            events: Vec::new(),
        }
    }

    #[test]
    fn a_token_endpoint_found_in_the_metadata_gets_the_journal_rules() {
        let metadata = capture(
            "/.well-known/oauth-authorization-server",
            "",
            r#"{"token_endpoint": "https://up.example/api/auth/token"}"#,
        );
        let token = capture(
            "/api/auth/token",
            "grant_type=authorization_code&code=c0de-1234&code_verifier=verifier-1",
            r#"{"access_token": "at-123456", "token_type": "Bearer"}"#,
        );
        let shown = exchanges(&[metadata, token.clone()]);
        let text = serde_json::to_string(&shown).unwrap_or_default();
        for secret in ["c0de-1234", "verifier-1", "at-123456"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        let secrets = Secrets::of(&[token]);
        let secrets: Vec<&str> = secrets.values().collect();
        assert_eq!(secrets, ["at-123456", "c0de-1234", "verifier-1"]);
    }

    #[test]
    fn upload_fields_and_tool_credentials_are_found_and_fingerprinted() {
        let envelope = json!({"result": {"content": [{"type": "text", "text":
            json!({"upload_url": "https://s3", "upload_fields": {"policy": "p0licy-xyz", "x-amz-signature": "s1gnature"}}).to_string()}]}});
        let upload = capture("/rest/computer/mcp", "{}", &envelope.to_string());
        let shown =
            serde_json::to_string(&exchanges(std::slice::from_ref(&upload))).unwrap_or_default();
        assert!(
            !shown.contains("p0licy-xyz") && !shown.contains("s1gnature"),
            "{shown}"
        );
        let secrets = Secrets::of(&[upload]);
        assert_eq!(
            secrets.values().collect::<Vec<_>>(),
            ["p0licy-xyz", "s1gnature"]
        );
        let request = json!({"input": "hi", "tools": [{"type": "mcp", "server_label": "gh",
            "server_url": "https://x", "authorization": "ghp_secret", "headers": {"X-Key": "hdr-secret"}}]});
        let agent = capture("/v1/responses", &request.to_string(), "{}");
        let secrets = Secrets::of(&[agent]);
        assert_eq!(
            secrets.values().collect::<Vec<_>>(),
            ["ghp_secret", "hdr-secret"]
        );
        assert_eq!(
            secrets.scrub(r#"{"a": "ghp_secret"}"#),
            r#"{"a": "<redacted>"}"#
        );
    }

    #[test]
    fn a_tool_schema_naming_secret_fields_is_neither_a_secret_nor_fingerprinted() {
        // `tools/list` describes the upload envelope: `upload_fields` is a property of the
        // output schema, `{"type": "object"}`; "object" was once scrubbed as a credential.
        let listing = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{
            "name": "upload_file",
            "inputSchema": {"type": "object", "properties": {"password": {"type": "string"}}},
            "outputSchema": {"type": "object", "properties": {
                "upload_url": {"type": "string"}, "upload_fields": {"type": "object"}}}}]}});
        let tools = capture("/rest/computer/mcp", "{}", &listing.to_string());
        let secrets = Secrets::of(std::slice::from_ref(&tools));
        assert_eq!(
            secrets.values().count(),
            0,
            "{:?}",
            secrets.values().collect::<Vec<_>>()
        );
        let shown = exchanges(&[tools]);
        let Some(shown) = shown.first() else {
            panic!("no exchange shown");
        };
        assert_eq!(shown.response_body, listing);
        // The envelope itself still counts.
        let envelope =
            json!({"upload_url": "https://s3", "upload_fields": {"policy": "p0licy-xyz"}});
        let upload = capture("/rest/computer/mcp", "{}", &envelope.to_string());
        assert_eq!(
            Secrets::of(&[upload]).values().collect::<Vec<_>>(),
            ["p0licy-xyz"]
        );
    }

    #[test]
    fn user_patterns_replace_every_match_in_keys_and_values() {
        let redactions = UserRedactions::new(&["alice@example\\.com".into()]).unwrap_or_default();
        let mut value = json!({"alice@example.com": ["write to alice@example.com"]});
        redactions.apply(&mut value);
        assert_eq!(value, json!({"<redacted>": ["write to <redacted>"]}));
        assert!(UserRedactions::new(&["(".into()]).is_err());
    }
}
