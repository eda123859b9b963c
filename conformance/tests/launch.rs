//! The launch contract: `sh -c`, the MCP URL as the last argument, the documented environment,
//! and what `--output DIR` keeps.

use crate::common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_target_gets_the_url_last_and_the_documented_environment() {
    let dir = std::env::temp_dir().join(format!("conformance-launch-{}", std::process::id()));
    let target =
        "env | grep -E '^(MCP_CONFORMANCE|CONFORMANCE|PERPLEXITY)_' | sort; echo 'first-arg'";
    let mut options = common::options(target, &["waiting"]);
    options.output = Some(dir.clone());
    common::run(&options).await;
    let scenario = dir.join("waiting");
    let stdout = std::fs::read_to_string(scenario.join("stdout.txt")).expect("stdout kept");
    let lines: Vec<&str> = stdout.lines().collect();
    let last = lines.last().expect("output");
    assert!(
        last.starts_with("first-arg http://127.0.0.1:") && last.ends_with("/rest/computer/mcp"),
        "{last}"
    );
    let var = |name: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("{name} missing: {stdout}"))
            .to_owned()
    };
    assert_eq!(var("MCP_CONFORMANCE_SCENARIO"), "waiting");
    assert_eq!(var("MCP_CONFORMANCE_PROTOCOL_VERSION"), "2025-11-25");
    assert_eq!(var("CONFORMANCE_BEARER_TOKEN"), "alice-dev-token");
    assert_eq!(var("PERPLEXITY_API_KEY"), "alice-dev-token");
    let base = var("PERPLEXITY_BASE_URL");
    assert_eq!(
        var("CONFORMANCE_USER_URL"),
        format!("{base}/_conformance/user")
    );
    let context: serde_json::Value =
        serde_json::from_str(&var("MCP_CONFORMANCE_CONTEXT")).expect("context is JSON");
    assert_eq!(context["name"], "waiting");
    assert_eq!(
        context["user"]["messages"].as_array().map(Vec::len),
        Some(2)
    );
    for file in ["journal.jsonl", "user.jsonl", "stderr.txt", "checks.json"] {
        assert!(scenario.join(file).is_file(), "{file} not kept");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_scenario_announces_2026_07_28_and_how_to_follow_the_request() {
    let dir =
        std::env::temp_dir().join(format!("conformance-launch-modern-{}", std::process::id()));
    let target = "printenv MCP_CONFORMANCE_PROTOCOL_VERSION MCP_CONFORMANCE_CONTEXT; true";
    let mut options = common::options(target, &["task-cancel", "elicitation-sign-in"]);
    options.output = Some(dir.clone());
    common::run(&options).await;
    for (scenario, flow) in [
        ("task-cancel", "tasks"),
        ("elicitation-sign-in", "elicitation"),
    ] {
        let stdout =
            std::fs::read_to_string(dir.join(scenario).join("stdout.txt")).expect("stdout kept");
        let mut lines = stdout.lines();
        assert_eq!(lines.next(), Some("2026-07-28"), "{stdout}");
        let context: serde_json::Value =
            serde_json::from_str(lines.next().expect("context")).expect("context is JSON");
        assert_eq!(context["era"], "modern");
        assert_eq!(context["protocol_version"], "2026-07-28");
        assert_eq!(context["flow"], flow);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_scenarios_announce_poll_intervals_short_in_real_time_and_all_different() {
    use conformance::runner::{Stage, TASK_POLL_INTERVALS_MS, suite};
    let mut first_intervals = Vec::new();
    let mut changing = 0;
    for spec in conformance::runner::SCENARIOS {
        let stage = Stage::start(spec, 5000.0).await.expect("stage");
        let announced = stage
            .mock
            .catalog()
            .get(spec.name)
            .map(|s| s.scenario.settings.poll_intervals_ms.clone())
            .unwrap_or_default();
        if spec.flow != suite::Flow::Tasks {
            assert!(announced.is_empty(), "{}: {announced:?}", spec.name);
            continue;
        }
        let expected = TASK_POLL_INTERVALS_MS
            .iter()
            .find(|(name, _)| *name == spec.name)
            .map(|(_, intervals)| intervals.to_vec());
        assert_eq!(Some(&announced), expected.as_ref(), "{}", spec.name);
        assert!(announced.iter().all(|ms| *ms <= 600), "{}", spec.name);
        first_intervals.push(announced[0]);
        changing += usize::from(announced.windows(2).any(|w| w[0] != w[1]));
    }
    first_intervals.sort_unstable();
    first_intervals.dedup();
    assert!(first_intervals.len() >= 3, "{first_intervals:?}");
    assert!(
        changing >= 1,
        "no task changes its interval on a later tasks/get"
    );
}
