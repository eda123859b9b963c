//! Every relative link of the README and of docs/*.md names a file of the repository, so a page
//! that moves or is renamed cannot leave a dead link behind.

use std::path::Path;

/// The targets of the Markdown links `[text](target)` of a page, outside code blocks, that are
/// files of the repository (no scheme, no pure `#anchor`), without their `#anchor`.
fn relative_link_targets(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut out = Vec::new();
    let mut rest = prose.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = &rest[..end];
        let file = target.split('#').next().unwrap_or_default();
        if !file.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
            out.push(file.to_owned());
        }
    }
    out
}

#[test]
fn every_relative_link_of_the_readme_and_docs_names_a_file_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace root");
    let mut pages = vec![root.join("README.md")];
    let docs = std::fs::read_dir(root.join("docs")).expect("docs/ is part of the repository");
    pages.extend(
        docs.flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    assert!(pages.len() > 5, "README and the docs pages: {pages:?}");
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("a page of the repository is text");
        let dir = page.parent().unwrap_or(root);
        for target in relative_link_targets(&text) {
            if !dir.join(&target).exists() {
                let shown = page.strip_prefix(root).unwrap_or(page).display();
                broken.push(format!("{shown}: ({target})"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n{}",
        broken.join("\n")
    );
}
