//! The README a newcomer reads first: at most 300 lines, its two-command start, the faster
//! clock in its quick start, and no figure that goes stale unnoticed: the versions it names are
//! the pinned ones, and it states no counts of scenarios, checks or crates.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repository().join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The version `name` is pinned at in .ci/requirements.txt (`name==X`).
fn pip_pin(name: &str) -> String {
    read(".ci/requirements.txt")
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}==")))
        .unwrap_or_else(|| panic!("{name} is not pinned in .ci/requirements.txt"))
        .trim()
        .to_owned()
}

/// The version `name` is pinned at in .ci/package.json.
fn npm_pin(name: &str) -> String {
    let package: serde_json::Value =
        serde_json::from_str(&read(".ci/package.json")).expect(".ci/package.json is JSON");
    package["dependencies"][name]
        .as_str()
        .unwrap_or_else(|| panic!("{name} is not in .ci/package.json"))
        .to_owned()
}

#[test]
fn the_readme_is_short_and_starts_with_two_commands_and_the_faster_clock() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines; at most 300");
    let quick_start = readme
        .split("## Quick start")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a Quick start section");
    assert!(quick_start.contains("```sh background\ncargo run -p mock-server\n```"));
    assert!(quick_start.contains("```sh\ncargo test --workspace\n```"));
    assert!(
        quick_start.contains("`cargo run -p mock-server --\n--time-scale 10`")
            || quick_start.contains("cargo run -p mock-server -- --time-scale 10"),
        "the quick start shows the faster clock"
    );
}

#[test]
fn the_versions_the_readme_and_examples_name_are_the_pinned_ones() {
    let readme = read("README.md");
    let rust = read("Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .map(|v| v.trim_matches('"').to_owned())
        .expect("rust-version");
    assert!(
        readme.contains(&format!("Rust {rust} or later")),
        "README names another Rust than rust-version {rust}"
    );
    for (text, pinned) in [
        (format!("`mcp` {}", pip_pin("mcp")), "mcp"),
        (
            format!("`perplexityai`\n{}", pip_pin("perplexityai")),
            "perplexityai",
        ),
        (
            format!(
                "@perplexity-ai/perplexity_ai@{}",
                npm_pin("@perplexity-ai/perplexity_ai")
            ),
            "@perplexity-ai/perplexity_ai",
        ),
    ] {
        assert!(
            readme.contains(&text) || readme.contains(&text.replace('\n', " ")),
            "README.md does not name {pinned} at its pinned version (`{text}`)"
        );
    }
    let examples = read("examples/README.md");
    let sdk = npm_pin("@modelcontextprotocol/sdk");
    assert!(examples.contains(&format!("@modelcontextprotocol/sdk@{sdk}")));
    assert!(read("examples/tools_flow.mts").contains(&format!("@modelcontextprotocol/sdk {sdk}")));
    assert!(read("examples/tools_flow.py").contains(&format!("(mcp {})", pip_pin("mcp"))));
}

#[test]
fn the_readme_states_no_count_that_goes_stale() {
    let readme = read("README.md");
    let words: Vec<&str> = readme.split_whitespace().collect();
    for pair in words.windows(2) {
        let counted = pair[0]
            .trim_start_matches('(')
            .chars()
            .all(|c| c.is_ascii_digit())
            && !pair[0].trim_start_matches('(').is_empty();
        let noun = pair[1].trim_end_matches([',', ')', '.', ';']);
        assert!(
            !(counted
                && [
                    "scenarios",
                    "checks",
                    "crates",
                    "tests",
                    "rules",
                    "tools",
                    "duties"
                ]
                .contains(&noun)),
            "README.md states `{} {}`: a count that goes stale; say it without the number or generate it",
            pair[0],
            pair[1]
        );
    }
}
