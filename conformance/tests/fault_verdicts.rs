//! The transport-fault scenarios (issue 26) judge waits in real time, from the mock's answer to
//! the client's next request: their verdicts must not depend on how many scenarios share the
//! machine. The reference client, and one that breaks the Retry-After rule, get the same
//! verdicts one scenario at a time (`--jobs 1`) and all at once (`--jobs 16`).

use conformance::report::Status;
use conformance::rules::ids;
use conformance::runner::RunResult;

use crate::common;

/// The scenarios whose faults the runner stages, and the one with two approvals pending.
const FAULT_SCENARIOS: &[&str] = &[
    "mcp-session-forgotten",
    "mcp-stream-dropped",
    "agent-rate-limited",
    "agent-server-error-transient",
    "agent-server-error",
    "agent-stream-ended",
    "agent-approval-parallel",
    "sonar-server-error-transient",
    "sonar-server-error",
];

/// The verdict on every check of a run, by scenario and check id.
fn verdicts(run: &RunResult) -> Vec<(String, String, Status)> {
    let mut verdicts: Vec<_> = run
        .scenarios
        .iter()
        .flat_map(|s| {
            s.checks
                .iter()
                .map(|c| (s.name.clone(), c.id.clone(), c.status))
        })
        .collect();
    verdicts.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    verdicts
}

async fn at(target: &str, jobs: usize) -> RunResult {
    let mut options = common::options(target, FAULT_SCENARIOS);
    options.jobs = jobs;
    common::run(&options).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_verdicts_are_the_same_at_one_job_and_at_sixteen() {
    let reference = common::reference(None);
    let impatient = common::reference(Some(ids::AGENT_RATE_LIMIT_RETRY_AFTER));
    // All four runs at once: the sixteen-job runs load the machine while the one-job runs go.
    let (one, sixteen, impatient_one, impatient_sixteen) = tokio::join!(
        at(&reference, 1),
        at(&reference, 16),
        at(&impatient, 1),
        at(&impatient, 16),
    );
    assert_eq!(one.scenarios.len(), FAULT_SCENARIOS.len());
    let failing: Vec<_> = one
        .checks()
        .filter(|c| c.status != Status::Success)
        .map(|c| format!("{} {:?}: {}", c.id, c.status, c.details))
        .collect();
    assert!(failing.is_empty(), "{failing:#?}");
    assert_eq!(verdicts(&one), verdicts(&sixteen));

    let broken: Vec<_> = impatient_one
        .checks()
        .filter(|c| c.status != Status::Success)
        .map(|c| (c.scenario.as_str(), c.rule.as_str()))
        .collect();
    assert_eq!(
        broken,
        [("agent-rate-limited", ids::AGENT_RATE_LIMIT_RETRY_AFTER)]
    );
    assert_eq!(verdicts(&impatient_one), verdicts(&impatient_sixteen));
}
