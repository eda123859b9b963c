//! GitHub Actions annotations (`--format github`): one workflow command per check that fails
//! the run (`::error`), per warning that does not (`::warning`), and per stale
//! expected-failures entry (`::error`), then the pretty report. GitHub shows the annotations on
//! the run's summary page; the rest of the output is the log.

use std::fmt::Write as _;

use crate::check::{Check, RunResult, Status};

use super::baseline::Verdict;
use super::pretty::pretty;

/// The annotations of a run judged by `verdict`, followed by the pretty report.
pub fn github(run: &RunResult, verdict: &Verdict) -> String {
    let mut out = String::new();
    for c in run.checks() {
        let command = if verdict.fails(c) {
            "error"
        } else if c.status == Status::Warning && verdict.expected_by(&c.id).is_none() {
            "warning"
        } else {
            continue;
        };
        let _ = writeln!(
            out,
            "::{command} title={}::{}",
            property(&format!("{} {}", c.status, c.id)),
            data(&message(c))
        );
    }
    for entry in &verdict.stale_entries {
        let _ = writeln!(
            out,
            "::error title={}::{}",
            property(&format!("stale expected failure {entry}")),
            data("this entry of the expected-failures file no longer fails; remove it")
        );
    }
    out.push_str(&pretty(run, verdict));
    out
}

fn message(c: &Check) -> String {
    let mut text = format!(
        "{}\n{} § {}: \"{}\"",
        c.details, c.doc.document, c.doc.section, c.doc.quote
    );
    for e in &c.evidence {
        text.push_str("\n> ");
        text.push_str(&e.exchange);
    }
    text
}

/// A workflow command's message: `%`, CR and LF escaped, as the runner's toolkit does.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: the message escapes plus `:` and `,`.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_text_is_escaped_as_workflow_commands_need() {
        assert_eq!(data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(
            property("FAILURE follow-up:computer.thread.reuse, again"),
            "FAILURE follow-up%3Acomputer.thread.reuse%2C again"
        );
    }
}
