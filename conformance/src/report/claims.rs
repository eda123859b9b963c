//! What the client's claims left out, as every report says it: the scenarios not run (by the
//! features they need), the duties only those scenarios judge, and, with `--strict-coverage`,
//! that those fail the run.

use crate::check::{Claims, LeftOut};

use super::baseline::Verdict;

/// The lines the text reports print after their totals (none when the client claimed
/// everything and nothing was left out).
pub(super) fn lines(claims: &Claims, verdict: &Verdict) -> Vec<String> {
    let Some(supports) = &claims.supports else {
        return Vec::new();
    };
    let mut out = vec![format!(
        "client supports: {} (--client-supports); {} scenario(s) left out",
        if supports.is_empty() {
            "none of the optional features".to_owned()
        } else {
            supports.join(", ")
        },
        claims.left_out.len()
    )];
    for (needs, scenarios) in by_needs(&claims.left_out) {
        out.push(format!(
            "  left out, needs {needs} (not claimed): {}",
            scenarios.join(", ")
        ));
    }
    out.push(format!(
        "duties judged: {} of the {} the suite judges in these suites{}",
        claims.duties_judged,
        claims.duties_judgeable,
        if claims.unjudged.is_empty() {
            String::new()
        } else {
            format!(
                "; {} only in left-out scenarios: {}",
                claims.unjudged.len(),
                unjudged_list(claims)
            )
        }
    ));
    if verdict.strict_coverage && !verdict.unjudged_duties.is_empty() {
        out.push(format!(
            "FAILED (--strict-coverage): the claims leave {} documented duties unjudged; claim \
             the features they need, or drop --strict-coverage",
            verdict.unjudged_duties.len()
        ));
    }
    out
}

/// `C41 (tasks), C55 (oauth)`: each unjudged duty and what it needs.
pub(super) fn unjudged_list(claims: &Claims) -> String {
    claims
        .unjudged
        .iter()
        .map(|d| format!("{} ({})", d.id, d.needs.join(" or ")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Left-out scenarios grouped by what they need, in first-seen order.
pub(super) fn by_needs(left_out: &[LeftOut]) -> Vec<(String, Vec<&str>)> {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for l in left_out {
        let needs = l.needs.join(" and ");
        match groups.iter_mut().find(|(n, _)| *n == needs) {
            Some((_, scenarios)) => scenarios.push(&l.scenario),
            None => groups.push((needs, vec![&l.scenario])),
        }
    }
    groups
}
