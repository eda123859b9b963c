//! The sandbox, and the GitHub credentials its `git` and `gh` get: "It uses the git and gh
//! CLIs in the sandbox with the GitHub credentials from the connector" (Agent API, Connectors),
//! so a command that talks to GitHub works only when the request brings the GitHub connector
//! and it is connected. Without it, or with its authorization lapsed, the command fails the
//! way `git` and `gh` fail without credentials, in the `sandbox_results` item ("failures appear
//! as git or gh output").

use serde_json::Value;

use super::engine::Engine;
use super::honesty::Failure;
use crate::agent::tools::Server;
use crate::agent::wire::events::Event;
use crate::agent::wire::ids::call_token;
use crate::agent::wire::items::{ItemStatus, Language, OutputItem, SandboxResults, SandboxRun};
use crate::world::ConnectorState;

/// One command run in the sandbox, as scripted.
pub(super) struct Command<'a> {
    /// The program or shell line.
    pub(super) code: &'a str,
    /// `python` or `bash`.
    pub(super) language: &'a str,
    /// What it prints when it works.
    pub(super) stdout: &'a str,
    /// What it prints on stderr when it works.
    pub(super) stderr: &'a str,
    /// Its exit code when it works.
    pub(super) exit_code: i64,
    /// Whether it talks to GitHub (`None`: it does when it runs `gh`, or `git` clone, push,
    /// pull, fetch or ls-remote).
    pub(super) github: Option<bool>,
}

/// The GitHub credentials a run's sandbox has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Credentials {
    /// The GitHub connector is in the request and connected.
    Valid,
    /// No GitHub connector in the request, or it is not connected.
    Missing,
    /// The connector's authorization lapsed or was revoked.
    Revoked,
}

impl Engine {
    /// Runs a sandbox command: a `sandbox_results` item, failing as `git` or `gh` would when
    /// the command needs GitHub credentials the run does not have.
    pub(super) fn sandbox(&mut self, command: &Command<'_>, servers: &[Server]) {
        *self.billing.entry("sandbox").or_default() += 1;
        let needs_github = command
            .github
            .unwrap_or_else(|| github_line(command.code).is_some());
        let credentials = credentials(servers);
        let (stdout, stderr, exit_code) = if needs_github && credentials != Credentials::Valid {
            let (stderr, exit_code) = refusal(command.code, credentials);
            self.failures.push(Failure::GitHub {
                why: match credentials {
                    Credentials::Revoked => "the GitHub connector's authorization has lapsed \
                                             (AUTH_REQUIRED), so git and gh were refused"
                        .to_owned(),
                    _ => "git and gh have no GitHub credentials in this run: they come from the \
                          GitHub connector, which the request does not bring connected"
                        .to_owned(),
                },
            });
            (String::new(), stderr, exit_code)
        } else {
            (
                command.stdout.to_owned(),
                command.stderr.to_owned(),
                command.exit_code,
            )
        };
        self.record_output("sandbox", Some(&stdout));
        let status = if exit_code == 0 {
            ItemStatus::Completed
        } else {
            ItemStatus::Failed
        };
        let call_id = format!("call_{}", call_token());
        let results = vec![SandboxRun {
            stdout,
            stderr,
            exit_code,
            duration_ms: 1200,
            status,
        }];
        // The stream says what the command printed as it finishes, before the item.
        self.run.emit(Event::SandboxResults {
            call_id: call_id.clone(),
            results: results.clone(),
        });
        self.add_item(OutputItem::SandboxResults(SandboxResults {
            call_id,
            code: command.code.to_owned(),
            language: if command.language == "bash" {
                Language::Bash
            } else {
                Language::Python
            },
            status,
            results,
        }));
    }
}

fn credentials(servers: &[Server]) -> Credentials {
    let github = servers
        .iter()
        .find(|s| s.connector_id.as_deref() == Some("connector_github"));
    match github {
        Some(s) if s.state == ConnectorState::Lapsed => Credentials::Revoked,
        Some(s) if s.failure.as_deref() == Some("AUTH_REQUIRED") => Credentials::Revoked,
        Some(s) if s.state == ConnectorState::Connected && s.failure.is_none() => {
            Credentials::Valid
        }
        _ => Credentials::Missing,
    }
}

/// The `gh` command line that does what a GitHub connector tool would: the model "uses the git
/// and gh CLIs in the sandbox" when GitHub runs through them, so each tool becomes the real `gh`
/// subcommand (`list_pull_requests` is `gh pr list --repo OWNER/REPO --state open`), and a tool
/// with no subcommand of its own reads the REST API with `gh api`.
pub(super) fn gh_command(tool: &str, arguments: &Value) -> String {
    let text = |key: &str| match arguments.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let repo = match (text("owner"), text("repo")) {
        (Some(owner), Some(repo)) => Some(format!("{owner}/{repo}")),
        (None, Some(repo)) if repo.contains('/') => Some(repo),
        _ => None,
    };
    let on_repo = |command: &str| match &repo {
        Some(repo) => format!("{command} --repo {repo}"),
        None => command.to_owned(),
    };
    let state = text("state")
        .map(|s| format!(" --state {s}"))
        .unwrap_or_default();
    let number = text("pull_number")
        .or_else(|| text("issue_number"))
        .or_else(|| text("number"))
        .unwrap_or_else(|| "1".to_owned());
    let fields = "--json number,title,state";
    match tool {
        "list_pull_requests" => format!("{}{state} {fields}", on_repo("gh pr list")),
        "get_pull_request" => format!("{} {fields}", on_repo(&format!("gh pr view {number}"))),
        "list_issues" => format!("{}{state} {fields}", on_repo("gh issue list")),
        "get_issue" => format!("{} {fields}", on_repo(&format!("gh issue view {number}"))),
        "search_repositories" => format!(
            "gh search repos {} --json fullName,description",
            shell_word(&text("query").unwrap_or_default())
        ),
        "get_file_contents" => {
            let path = text("path").unwrap_or_default();
            let repo = repo.unwrap_or_else(|| "OWNER/REPO".to_owned());
            format!("gh api repos/{repo}/contents/{path}")
        }
        _ => match repo {
            Some(repo) => format!("gh api repos/{repo}"),
            None => "gh api user".to_owned(),
        },
    }
}

/// A shell word: quoted unless it is plain.
fn shell_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// The first command of `code` that talks to GitHub: `gh ...`, or `git` clone, push, pull,
/// fetch or ls-remote.
fn github_line(code: &str) -> Option<&str> {
    code.split(['\n', ';', '|'])
        .flat_map(|part| part.split("&&"))
        .map(str::trim)
        .find(|command| {
            let mut words = command.split_whitespace();
            match words.next() {
                Some("gh") => true,
                Some("git") => {
                    words.any(|w| matches!(w, "clone" | "push" | "pull" | "fetch" | "ls-remote"))
                }
                _ => false,
            }
        })
}

/// What `git` or `gh` print, and their exit code, without working credentials.
fn refusal(code: &str, credentials: Credentials) -> (String, i64) {
    let line = github_line(code).unwrap_or("gh");
    let repo = line
        .split_whitespace()
        .find_map(|w| {
            let w = w.trim_end_matches(".git");
            let path = w.strip_prefix("https://github.com/").unwrap_or(w);
            (path.split('/').count() == 2 && !path.starts_with('-')).then(|| path.to_owned())
        })
        .unwrap_or_else(|| "OWNER/REPO".to_owned());
    let is_gh = line.starts_with("gh");
    match (credentials, is_gh) {
        (Credentials::Revoked, true) => (
            "HTTP 401: Bad credentials (https://api.github.com/graphql)\n\
             Try authenticating with:  gh auth login\n"
                .to_owned(),
            1,
        ),
        (Credentials::Revoked, false) => (
            format!(
                "remote: Invalid username or token. Password authentication is not supported \
                 for Git operations.\nfatal: Authentication failed for \
                 'https://github.com/{repo}.git/'\n"
            ),
            128,
        ),
        (_, true) => (
            "To get started with GitHub CLI, please run:  gh auth login\n\
             Alternatively, populate the GH_TOKEN environment variable with a GitHub API \
             authentication token.\n"
                .to_owned(),
            4,
        ),
        (_, false) => (
            format!(
                "Cloning into '{}'...\nfatal: could not read Username for \
                 'https://github.com': No such device or address\n",
                repo.rsplit('/').next().unwrap_or("repository")
            ),
            128,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connector_tools_become_real_gh_subcommands() {
        let arguments = serde_json::json!({"owner": "acme", "repo": "widgets", "state": "open"});
        assert_eq!(
            gh_command("list_pull_requests", &arguments),
            "gh pr list --repo acme/widgets --state open --json number,title,state"
        );
        assert_eq!(
            gh_command(
                "get_file_contents",
                &serde_json::json!({"owner": "acme", "repo": "widgets", "path": "README.md"})
            ),
            "gh api repos/acme/widgets/contents/README.md"
        );
        assert_eq!(
            gh_command("anything_else", &serde_json::json!({})),
            "gh api user"
        );
        assert_eq!(
            gh_command(
                "search_repositories",
                &serde_json::json!({"query": "mcp server"})
            ),
            "gh search repos 'mcp server' --json fullName,description"
        );
    }

    #[test]
    fn commands_that_talk_to_github_are_recognised() {
        assert_eq!(
            github_line("cd x && gh repo clone acme/widgets && ls"),
            Some("gh repo clone acme/widgets")
        );
        assert_eq!(
            github_line("git status\ngit push origin main"),
            Some("git push origin main")
        );
        assert_eq!(github_line("git log --oneline -3"), None);
        assert_eq!(github_line("print('hi')"), None);
    }

    #[test]
    fn without_credentials_gh_asks_for_a_login_and_git_for_a_username() {
        let (stderr, code) = refusal("gh repo clone acme/widgets", Credentials::Missing);
        assert!(stderr.contains("gh auth login"), "{stderr}");
        assert_eq!(code, 4);
        let (stderr, code) = refusal(
            "git clone https://github.com/acme/widgets.git",
            Credentials::Missing,
        );
        assert!(
            stderr.contains("Cloning into 'widgets'") && stderr.contains("could not read Username"),
            "{stderr}"
        );
        assert_eq!(code, 128);
    }

    #[test]
    fn with_a_revoked_token_both_report_bad_credentials() {
        let (stderr, code) = refusal("gh pr create --fill", Credentials::Revoked);
        assert!(stderr.starts_with("HTTP 401: Bad credentials"), "{stderr}");
        assert_eq!(code, 1);
        let (stderr, _) = refusal(
            "git push https://github.com/acme/widgets",
            Credentials::Revoked,
        );
        assert!(
            stderr.contains("Authentication failed for 'https://github.com/acme/widgets.git/'"),
            "{stderr}"
        );
    }
}
