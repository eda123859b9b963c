//! Nothing in the repository may point at files that exist only beside it (the product documents
//! and the reference notes the mock was built from): users do not have them. Documents are cited
//! by public title and section instead ("Perplexity Computer MCP Server, MCP Tasks").

use std::path::{Path, PathBuf};

/// File names and paths of the documents beside the repository, split so this file does not
/// match itself.
fn outside_names() -> Vec<String> {
    [
        ("shared", "/spec"),
        ("shared", "/reference"),
        ("DESIGN", ".md"),
        ("mcp-wire", ".md"),
        ("agent-api-wire", ".md"),
        ("real-clients", ".md"),
        ("computer-mcp-server", ".txt"),
        ("agent-api-mcp-tool", ".txt"),
        ("agent-api-connectors", ".txt"),
        ("reference/", "anchors.md"),
    ]
    .iter()
    .map(|(a, b)| format!("{a}{b}"))
    .collect()
}

/// Directories that are not the repository's own text: build output, installed packages, git.
const SKIPPED_DIRS: &[&str] = &["target", ".git", ".venv", "node_modules", ".doc-blocks"];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                files_under(&path, out);
            }
        } else {
            out.push(path);
        }
    }
}

#[test]
fn no_file_refers_to_documents_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace root");
    let mut files = Vec::new();
    files_under(root, &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")),
        "the scan must see the README (root {})",
        root.display()
    );
    let names = outside_names();
    let mut found = Vec::new();
    for file in &files {
        // Binary files (images, PDFs) are not read as text; only text can cite a path.
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            for name in names.iter().filter(|name| line.contains(name.as_str())) {
                let shown = file.strip_prefix(root).unwrap_or(file).display();
                found.push(format!("{shown}:{}: `{name}`", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "these lines point at files outside the repository; cite the document by its public \
         title and section instead (e.g. \"Perplexity Computer MCP Server, MCP Tasks\"):\n{}",
        found.join("\n")
    );
}
