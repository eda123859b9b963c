//! The pages generated from the code stay what the code generates: every rule of the registry
//! is in docs/conformance-rules.md, and no page names a rule the registry does not have.

use std::path::{Path, PathBuf};

use conformance::report::{RULES_PAGE_COMMAND, list_markdown};
use conformance::rules;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repository().join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

#[test]
fn the_rules_page_is_what_the_registry_generates() {
    let committed = read("docs/conformance-rules.md");
    let generated = list_markdown();
    if committed != generated {
        let diff = similar::TextDiff::from_lines(&committed, &generated)
            .unified_diff()
            .context_radius(2)
            .header("docs/conformance-rules.md", "the registry")
            .to_string();
        panic!(
            "docs/conformance-rules.md differs from the rule registry; regenerate it with\n  \
             {RULES_PAGE_COMMAND}\nand commit it:\n{diff}"
        );
    }
}

#[test]
fn every_rule_of_the_registry_has_its_section_in_the_docs() {
    let page = read("docs/conformance-rules.md");
    for rule in rules::registry() {
        assert!(
            page.contains(&format!("\n### `{}`\n", rule.id)),
            "{} has no section in docs/conformance-rules.md",
            rule.id
        );
    }
    // The guides link the page, so a reader of either finds every rule.
    for guide in ["docs/conformance-suite.md", "docs/conformance.md"] {
        assert!(
            read(guide).contains("(conformance-rules.md)"),
            "{guide} does not link conformance-rules.md"
        );
    }
}

/// A rule renamed in the registry leaves no page naming the old id.
#[test]
fn no_page_names_a_rule_the_registry_does_not_have() {
    let ids: Vec<&str> = rules::registry().iter().map(|r| r.id).collect();
    let families = [
        "mcp.",
        "computer.",
        "tasks.",
        "elicitation.",
        "oauth.",
        "agent.",
    ];
    // docs/conformance.md shows how a baseline with a misspelt rule is refused.
    let on_purpose = ["computer.thread.reuz"];
    let mut pages = vec![repository().join("README.md")];
    for entry in std::fs::read_dir(repository().join("docs")).expect("docs/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("a page");
        for quoted in text.split('`').skip(1).step_by(2) {
            let looks_like_a_rule = families.iter().any(|f| quoted.starts_with(f))
                && quoted
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-')
                && quoted.matches('.').count() >= 1;
            if looks_like_a_rule && !on_purpose.contains(&quoted) {
                assert!(
                    ids.contains(&quoted),
                    "{} names `{quoted}`, which is not a rule of the registry",
                    page.display()
                );
            }
        }
    }
}

/// The command the page names prints the page.
#[test]
fn list_format_markdown_prints_the_rules_page() {
    let out = std::process::Command::new(crate::common::bin())
        .args(["list", "--format", "markdown"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), list_markdown());
}
