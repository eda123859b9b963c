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
//!   "duties": [{"id": "C01", "document": "Perplexity Computer MCP Server",
//!               "section": "Conversation Threading", "quote": "...", "status": "judged",
//!               "rules": ["computer.thread.reuse"], "reason": null}],
//!   "unavailable": [{"family": "...", "reason": "..."}]
//! }
//! ```
//!
//! `era` is `handshake` or `modern`, `flow` is `tools`, `tasks` or `elicitation`, `level` is
//! `MUST` or `SHOULD`; scenarios and rules are in suite and registry order. A duty's `status` is
//! `judged` (by `rules`), `excluded` (not observable, `reason` says why) or `not-judged` (`reason`
//! says what the suite lacks); duties are in document order. Fields are only ever
//! added within a format version.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::rules::{self, Rule, UNAVAILABLE_FAMILIES};
use crate::suite::{self, Era, SCENARIOS};
use crate::traceability;

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
        "duties": traceability::duties_json(),
        "unavailable": UNAVAILABLE_FAMILIES
            .iter()
            .map(|(family, reason)| json!({"family": family, "reason": reason}))
            .collect::<Vec<_>>(),
    })
}

/// The traceability table as text (`list --traceability`).
pub fn traceability_text() -> String {
    traceability::traceability_text()
}

/// The list as text: scenarios by suite, then each rule with its document section and scenarios.
pub fn list_text() -> String {
    let mut out = String::new();
    for suite in ["computer", "agent", "sonar"] {
        let _ = writeln!(out, "Scenarios (suite {suite}):");
        for s in SCENARIOS.iter().filter(|s| s.suite == suite) {
            let era = match (s.suite, s.era) {
                ("computer", Era::Modern) => " [2026-07-28]",
                _ => "",
            };
            let _ = writeln!(out, "  {:<34} {}{era}", s.name, s.description);
        }
        if suite != "sonar" {
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

/// The command that writes the rules page; the page names it, and the test that compares the
/// committed page with the registry prints it.
pub const RULES_PAGE_COMMAND: &str =
    "cargo run -q -p conformance -- list --format markdown > docs/conformance-rules.md";

/// The families of rules, by id prefix, in the order the rules page lists them.
const FAMILIES: &[(&str, &str)] = &[
    ("mcp", "The MCP wire (handshake era)"),
    ("computer", "Computer: follow-up rules"),
    ("tasks", "MCP Tasks (2026-07-28)"),
    ("elicitation", "In-call elicitation (2026-07-28)"),
    ("oauth", "Signing in with OAuth"),
    ("agent", "The Agent API"),
    ("sonar", "Sonar: chat completions"),
];

/// Where a rule is judged, in words: a group, or the scenarios by name.
fn scenarios_in_words(rule: &Rule) -> String {
    let group = |g: &str| match g {
        suite::EVERY_COMPUTER => Some("every Computer scenario"),
        suite::HANDSHAKE => Some("every handshake-era (2025-11-25) scenario"),
        suite::MODERN => Some("every 2026-07-28 scenario"),
        suite::TASKS => Some("every MCP Tasks scenario"),
        suite::ELICITATION => Some("every in-call elicitation scenario"),
        suite::SIGN_IN => Some("every sign-in scenario"),
        _ => None,
    };
    let groups: Vec<&str> = rule.scenarios.iter().filter_map(|g| group(g)).collect();
    let names = rule
        .scenario_names()
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let count = rule.scenario_names().len();
    // A group of a dozen scenarios or more reads better by its name than by its members.
    match (groups.is_empty(), count > 12) {
        (true, _) => names,
        (false, true) => format!("{} ({count} scenarios)", groups.join("; ")),
        (false, false) => format!("{} ({names})", groups.join("; ")),
    }
}

/// Every rule of the registry as a Markdown page (`list --format markdown`), committed as
/// docs/conformance-rules.md: an index, then per family each rule with its level, summary,
/// quoted passage, scenarios and the duties it judges.
pub fn list_markdown() -> String {
    let registry = rules::registry();
    let duties = traceability::duties();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Every rule of the conformance suite\n\n\
         <!-- Generated from the rule registry; do not edit. After changing a rule, run:\n     \
         {RULES_PAGE_COMMAND} -->\n\n\
         Every rule `conformance` judges, generated from its registry (`conformance list --format \
         markdown`; a test fails when this page and the registry differ). MUST rules fail, SHOULD \
         rules warn; each quotes the passage it comes from. Besides these, every scenario has the \
         check `target.exit` (the client must exit 0 within `--timeout`) and, with `--snapshots`, \
         `snapshot.unchanged` ([conformance in CI](conformance.md)). How each rule is launched, and \
         the user channel the rules read, are in [the conformance suite](conformance-suite.md); \
         the duties are the documents' (`conformance list --traceability`).\n\n\
         {} rules: {} MUST, {} SHOULD.",
        registry.len(),
        registry.iter().filter(|r| r.level.word() == "MUST").count(),
        registry
            .iter()
            .filter(|r| r.level.word() == "SHOULD")
            .count(),
    );
    for (prefix, title) in FAMILIES {
        let family: Vec<&Rule> = registry
            .iter()
            .filter(|r| r.id.split('.').next() == Some(*prefix))
            .collect();
        if family.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "\n## {title}\n\n| rule | level | what the client must do |\n|---|---|---|"
        );
        for r in &family {
            let _ = writeln!(
                out,
                "| [`{}`](#{}) | {} | {} |",
                r.id,
                r.id.replace('.', ""),
                r.level.word(),
                r.summary.replace('|', "\\|")
            );
        }
        for r in family {
            let judged: Vec<&str> = duties
                .iter()
                .filter(|d| d.rules().contains(&r.id))
                .map(|d| d.id)
                .collect();
            let _ = writeln!(out, "\n### `{}`\n", r.id);
            let _ = writeln!(
                out,
                "{}: {}.\n",
                r.level.word(),
                r.summary.trim_end_matches('.')
            );
            let _ = writeln!(
                out,
                "- from {} § {}: \"{}\"",
                r.doc.document, r.doc.section, r.doc.quote
            );
            let _ = writeln!(out, "- judged in {}", scenarios_in_words(r));
            if !judged.is_empty() {
                let _ = writeln!(out, "- duties: {}", judged.join(", "));
            }
        }
    }
    out
}
