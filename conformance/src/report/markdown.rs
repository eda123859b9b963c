//! The Markdown summary (`--format markdown`), for `$GITHUB_STEP_SUMMARY` or a pull request
//! comment: the verdict, a table of scenarios, then each check that did not pass.

use std::fmt::Write as _;

use crate::check::{Check, RunResult, Status};

use super::baseline::Verdict;

/// The Markdown summary of a run judged by `verdict`.
pub fn markdown(run: &RunResult, verdict: &Verdict) -> String {
    let mut out = String::new();
    let s = run.summary();
    let _ = writeln!(
        out,
        "## Conformance: {}\n",
        if verdict.passed() { "passed" } else { "FAILED" }
    );
    let _ = writeln!(
        out,
        "{} scenarios, {} checks: {} passed, {} failed, {} warnings ({:.1} s){}\n",
        s.scenarios,
        s.checks,
        s.success,
        s.failure,
        s.warning,
        run.duration_ms as f64 / 1000.0,
        if verdict.strict {
            "; --strict: warnings fail"
        } else {
            ""
        }
    );
    out.push_str("| scenario | result | checks | failed | warnings | time |\n");
    out.push_str("|---|---|---:|---:|---:|---:|\n");
    for scenario in &run.scenarios {
        let count = |status| {
            scenario
                .checks
                .iter()
                .filter(|c| c.status == status)
                .count()
        };
        let result = if scenario.checks.iter().any(|c| verdict.fails(c)) {
            "❌ failed"
        } else if scenario
            .checks
            .iter()
            .any(|c| verdict.expected_by(&c.id).is_some())
        {
            "⚠️ expected failure"
        } else if count(Status::Warning) > 0 {
            "⚠️ warning"
        } else {
            "✅ passed"
        };
        let _ = writeln!(
            out,
            "| `{}` | {result} | {} | {} | {} | {:.2} s |",
            scenario.name,
            scenario.checks.len(),
            count(Status::Failure),
            count(Status::Warning),
            scenario.duration_ms as f64 / 1000.0
        );
    }
    let not_passed: Vec<&Check> = run
        .checks()
        .filter(|c| c.status != Status::Success)
        .collect();
    if !not_passed.is_empty() {
        out.push_str("\n### Checks that did not pass\n");
    }
    for c in not_passed {
        let how = if verdict.fails(c) {
            "fails the run".to_owned()
        } else if let Some(entry) = verdict.expected_by(&c.id) {
            format!("expected (entry `{entry}`)")
        } else {
            "does not fail the run".to_owned()
        };
        let _ = writeln!(
            out,
            "\n**{}** `{}` ({}, {how})\n\n{}\n\n> {} § {}: \"{}\"",
            c.status,
            c.id,
            c.level.word(),
            cell(&c.details),
            c.doc.document,
            c.doc.section,
            c.doc.quote
        );
        for e in &c.evidence {
            let _ = writeln!(out, "- `{}`", e.exchange.replace('`', "'"));
        }
    }
    if let Some(supports) = &run.claims.supports {
        let claims = &run.claims;
        let _ = writeln!(
            out,
            "\n### Left out by the client's claims\n\nThe client supports {} (`--client-supports`).\n",
            if supports.is_empty() {
                "none of the optional features".to_owned()
            } else {
                supports
                    .iter()
                    .map(|f| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
        for (needs, scenarios) in super::claims::by_needs(&claims.left_out) {
            let _ = writeln!(
                out,
                "- needs `{needs}`: {}",
                scenarios
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let _ = writeln!(
            out,
            "\nDuties judged: {} of the {} the suite judges{}.",
            claims.duties_judged,
            claims.duties_judgeable,
            if claims.unjudged.is_empty() {
                String::new()
            } else {
                format!(
                    "; only in left-out scenarios{}: {}",
                    if verdict.strict_coverage {
                        " (fails the run: `--strict-coverage`)"
                    } else {
                        ""
                    },
                    super::claims::unjudged_list(claims)
                )
            }
        );
    }
    for (title, entries) in [
        (
            "Stale expected-failures entries (now passing)",
            &verdict.stale_entries,
        ),
        (
            "Expected-failures entries whose scenario did not run",
            &verdict.not_run,
        ),
    ] {
        if !entries.is_empty() {
            let _ = writeln!(out, "\n### {title}\n");
            for e in entries {
                let _ = writeln!(out, "- `{e}`");
            }
        }
    }
    out
}

/// Text that stays one paragraph in Markdown.
fn cell(text: &str) -> String {
    text.replace('\n', " ")
}
