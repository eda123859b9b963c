//! `conformance list`: the scenarios and the rules, as text or as JSON.
//!
//! # JSON format (`list --format json`), version `conformance-list/1`
//!
//! ```json
//! {
//!   "format": "conformance-list/1",
//!   "scenarios": [{"name": "follow-up", "suite": "computer", "era": "handshake",
//!                  "protocol_version": "2025-11-25", "flow": "tools",
//!                  "description": "a summary, then a follow-up on the same thread"}],
//!   "rules": [{"id": "computer.thread.reuse", "level": "MUST", "summary": "...",
//!              "document": "Perplexity Computer MCP Server", "section": "Conversation Threading",
//!              "quote": "...", "scenarios": ["follow-up"]}],
//!   "unavailable": [{"family": "...", "reason": "..."}]
//! }
//! ```
//!
//! `era` is `handshake` or `modern`, `flow` is `tools`, `tasks` or `elicitation`, `level` is
//! `MUST` or `SHOULD`; scenarios and rules are in suite and registry order. Fields are only ever
//! added within a format version.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::rules::{self, UNAVAILABLE_FAMILIES};
use crate::suite::{Era, SCENARIOS};

/// The id of the list's JSON format.
pub const LIST_FORMAT: &str = "conformance-list/1";

/// The list as JSON (format [`LIST_FORMAT`]).
pub fn list_json() -> Value {
    json!({
        "format": LIST_FORMAT,
        "scenarios": SCENARIOS.iter().map(|s| json!({
            "name": s.name,
            "suite": s.suite,
            "era": s.era.name(),
            "protocol_version": s.era.protocol_version(),
            "flow": s.flow.name(),
            "description": s.description,
        })).collect::<Vec<_>>(),
        "rules": rules::registry().iter().map(|r| json!({
            "id": r.id,
            "level": r.level.word(),
            "summary": r.summary,
            "document": r.doc.document,
            "section": r.doc.section,
            "quote": r.doc.quote,
            "scenarios": r.scenario_names(),
        })).collect::<Vec<_>>(),
        "unavailable": UNAVAILABLE_FAMILIES
            .iter()
            .map(|(family, reason)| json!({"family": family, "reason": reason}))
            .collect::<Vec<_>>(),
    })
}

/// The list as text: scenarios by suite, then each rule with its document section and scenarios.
pub fn list_text() -> String {
    let mut out = String::new();
    for suite in ["computer", "agent"] {
        let _ = writeln!(out, "Scenarios (suite {suite}):");
        for s in SCENARIOS.iter().filter(|s| s.suite == suite) {
            let era = match (s.suite, s.era) {
                ("computer", Era::Modern) => " [2026-07-28]",
                _ => "",
            };
            let _ = writeln!(out, "  {:<34} {}{era}", s.name, s.description);
        }
        if suite == "computer" {
            out.push('\n');
        }
    }
    out.push_str("\nRules:\n");
    for r in rules::registry() {
        let _ = writeln!(out, "  {:<40} {:<6} {}", r.id, r.level.word(), r.summary);
        let _ = writeln!(out, "      from: {} § {}", r.doc.document, r.doc.section);
        let _ = writeln!(out, "      scenarios: {}", r.scenario_names().join(", "));
    }
    if !UNAVAILABLE_FAMILIES.is_empty() {
        out.push_str("\nNot yet available (not checked, never passed):\n");
        for (family, reason) in UNAVAILABLE_FAMILIES {
            let _ = writeln!(out, "  {family}: {reason}");
        }
    }
    out
}
