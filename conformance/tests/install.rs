//! Installing without a Rust build of your own: the Dockerfile and the composite action.yml at
//! the repository root. No Docker engine runs where these tests run, so the Dockerfile is
//! linted for its structure (the checks hadolint and a reviewer would make); .ci/run runs the
//! action's steps as the GitHub runner does.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repository().join(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
}

/// The Dockerfile's instructions, continuation lines joined, comments dropped.
fn instructions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') || (line.is_empty() && pending.is_empty()) {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                pending.push_str(head);
                pending.push(' ');
            }
            None => {
                pending.push_str(line);
                out.push(std::mem::take(&mut pending).trim().to_owned());
            }
        }
    }
    out
}

fn workspace_rust_version() -> String {
    read("Cargo.toml")
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .map(|v| v.trim_matches('"').to_owned())
        .expect("rust-version in Cargo.toml")
}

#[test]
fn the_dockerfile_builds_both_binaries_in_one_stage_and_ships_them_in_a_small_one() {
    let steps = instructions(&read("Dockerfile"));
    let froms: Vec<&String> = steps.iter().filter(|s| s.starts_with("FROM ")).collect();
    assert_eq!(
        froms.len(),
        2,
        "a build stage and a runtime stage: {froms:?}"
    );
    // The builder is the Rust version the workspace declares, so the image proves it builds.
    let arg = format!("ARG RUST_VERSION={}", workspace_rust_version());
    assert!(
        steps.contains(&arg),
        "the Dockerfile pins {arg}: {steps:#?}"
    );
    assert!(
        froms[0].starts_with("FROM rust:${RUST_VERSION}-slim") && froms[0].ends_with(" AS build")
    );
    // The runtime is a slim distribution image, never the toolchain, and never `latest`.
    assert!(
        froms[1].starts_with("FROM debian:") && froms[1].contains("-slim"),
        "{}",
        froms[1]
    );
    assert!(
        !steps.iter().any(|s| s.contains(":latest")),
        "pin every image"
    );
    let build = steps
        .iter()
        .find(|s| s.starts_with("RUN cargo build"))
        .expect("the build stage compiles");
    for part in ["--release", "--locked", "-p mock-server", "-p conformance"] {
        assert!(build.contains(part), "`{build}` lacks {part}");
    }
    let runtime: Vec<&String> = steps
        .iter()
        .skip_while(|s| !std::ptr::eq(*s, froms[1]))
        .collect();
    let copy = runtime
        .iter()
        .find(|s| s.starts_with("COPY --from=build"))
        .expect("the runtime copies from the build stage");
    assert!(
        copy.contains("mock-server") && copy.contains("conformance"),
        "{copy}"
    );
    // Nothing else of the build stage comes along, and the server does not run as root.
    assert_eq!(
        runtime.iter().filter(|s| s.starts_with("COPY")).count(),
        1,
        "{runtime:#?}"
    );
    let user = runtime
        .iter()
        .find(|s| s.starts_with("USER "))
        .expect("a USER in the runtime stage");
    assert!(!user.ends_with(" root") && !user.ends_with(" 0"), "{user}");
    assert!(runtime.iter().any(|s| *s == "EXPOSE 8080"));
    let cmd = runtime
        .iter()
        .find(|s| s.starts_with("CMD ["))
        .expect("an exec-form CMD");
    // Reachable from outside the container: not the default 127.0.0.1.
    assert!(
        cmd.contains(r#""mock-server", "--listen", "0.0.0.0:8080""#),
        "{cmd}"
    );
    assert!(
        !runtime.iter().any(|s| s.starts_with("ENTRYPOINT")),
        "`docker run IMAGE conformance ...` must work"
    );
    // The build context leaves out what would make it slow or leak local state.
    let ignore = read(".dockerignore");
    for entry in ["target/", ".git/", ".venv/", "node_modules/"] {
        assert!(
            ignore.lines().any(|l| l == entry),
            ".dockerignore lacks {entry}"
        );
    }
}

/// The composite action's inputs and outputs, as `action.yml` declares them at two spaces.
fn declared(section: &str) -> Vec<String> {
    let text = read("action.yml");
    let mut inside = false;
    let mut names = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            inside = line == format!("{section}:");
            continue;
        }
        if inside
            && let Some(name) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':'))
            && !name.starts_with(' ')
        {
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn the_action_takes_the_documented_inputs_and_gives_the_junit_path_and_a_summary() {
    let inputs = declared("inputs");
    for input in [
        "target",
        "suite",
        "partition",
        "expected-failures",
        "snapshots",
    ] {
        assert!(
            inputs.contains(&input.to_owned()),
            "action.yml lacks input {input}: {inputs:?}"
        );
    }
    let outputs = declared("outputs");
    for output in ["junit", "summary"] {
        assert!(
            outputs.contains(&output.to_owned()),
            "action.yml lacks output {output}"
        );
    }
    let text = read("action.yml");
    assert!(text.contains("  using: composite\n"));
    // Every input is used, through a step's env (an input pasted into a script could run code).
    for input in &inputs {
        assert!(
            text.contains(&format!(": ${{{{ inputs.{input} }}}}\n")),
            "input {input} is passed to no step's env"
        );
    }
    let mut in_run = false;
    for line in text.lines() {
        if line.trim_start().starts_with("run: |") {
            in_run = true;
        } else if in_run && !line.is_empty() && !line.starts_with("        ") {
            in_run = false;
        }
        assert!(
            !(in_run && line.contains("${{")),
            "an expression inside a run script: {line}"
        );
    }
    // Each output comes from what the `run` step writes to GITHUB_OUTPUT.
    for output in &outputs {
        assert!(text.contains(&format!("value: ${{{{ steps.run.outputs.{output} }}}}")));
        assert!(
            text.contains(&format!("echo \"{output}=")),
            "the run step never writes {output}"
        );
    }
}

#[test]
fn the_docs_say_how_to_install_each_way() {
    let docs = read("docs/conformance.md");
    for line in [
        "cargo install --locked --path mock-server",
        "cargo install --locked --path conformance",
        "docker build -t perplexity-computer-mock .",
        "uses: OWNER/REPO@",
    ] {
        assert!(
            docs.contains(line),
            "docs/conformance.md does not show `{line}`"
        );
    }
    assert!(
        docs.contains("cargo install --locked --git") && docs.contains("mock-server conformance"),
        "docs/conformance.md has no `cargo install --git` line for both binaries"
    );
    assert!(
        docs.contains("**Prebuilt binaries** are not published yet")
            && docs.contains("GitHub Releases"),
        "docs/conformance.md does not say where prebuilt binaries would come from"
    );
}
