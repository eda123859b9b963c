//! `mock-server record` with a second mock as the upstream: the reference client plays a
//! built-in scenario (Computer or Agent API) through the recording proxy, the recording becomes
//! a fixture, and the reference client plays the scenario again against a mock playing only
//! that fixture. Both runs must show the client the same events, statuses and results.
//!
//! The client is the `conformance reference-client` process with the environment the runner
//! gives a target, so each scenario is followed as its era and flow say (plain tool calls,
//! MCP Tasks, in-call elicitation), and a scenario that hands out no token signs in with
//! OAuth through the proxy. With `RECORD_REPLAY_TARGET` set to a target command the scenarios
//! are played by that client instead: `.ci/run` sets it to the official Python SDKs' adapters
//! (`python_sdk.py` for the Computer test, `agent_python_sdk.py` for the Agent API one).

use std::time::Duration;

use conformance::runner::{RunClock, Stage, StageOptions};
use conformance::suite::{self, ScenarioSpec};
use mock_server::record::{Proxy, UserRedactions, write_fixture};
use serde_json::Value;

/// The wall-clock wait between a client's task polls in both runs, in milliseconds. Both
/// mocks run on the driven clock, where each look moves virtual time on and the wall-clock gap
/// before it counts for nothing: waiting out pollIntervalMs for real would only make the test
/// slow. Both runs poll the same way, so they stay comparable.
const POLL_GAP_MS: &str = "5";

/// How many scenarios are recorded and replayed at once (each run mostly waits on sockets).
const AT_ONCE: usize = 6;

/// Scenarios whose progress lines the replay cannot give the client, and why; their results,
/// events and statuses must still be the same.
const PROGRESS_UNSEEN: &[(&str, &str)] = &[(
    "elicitation-sign-in",
    "a step runs while the person is on the sign-in page, between two calls: the client never \
     sees it, so the script cannot hold it, and the replay finishes before the retried call",
)];

/// The longest one client run may take before the scenario counts as stuck.
const CLIENT_LIMIT: Duration = Duration::from_secs(120);

/// The client to play the scenarios with instead of the reference client: a command, run
/// through `sh -c` with the MCP URL appended, as `conformance --target` runs one.
const TARGET_VARIABLE: &str = "RECORD_REPLAY_TARGET";

/// Runs the client (the reference client, or [`TARGET_VARIABLE`]'s) through `spec` against
/// `base` (the MCP endpoint under it), with the environment `stage` gives a target; `Err` says
/// why it did not finish.
async fn client(stage: &Stage, spec: &ScenarioSpec, base: &str) -> Result<(), String> {
    let url = format!("{base}{}", mock_server::MCP_PATH);
    let mut command = match std::env::var(TARGET_VARIABLE) {
        Ok(target) => {
            let mut command = tokio::process::Command::new("sh");
            command.args(["-c", &format!("{target} '{url}'")]);
            command
        }
        Err(_) => {
            let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_conformance"));
            command.args(["reference-client", "--fixed-poll-ms", POLL_GAP_MS, &url]);
            command
        }
    };
    command
        .envs(stage.env(spec))
        .env("PERPLEXITY_BASE_URL", base)
        .kill_on_drop(true);
    let run = tokio::time::timeout(CLIENT_LIMIT, command.output())
        .await
        .map_err(|_| format!("the client did not finish within {CLIENT_LIMIT:?}"))?
        .map_err(|e| format!("the client did not start: {e}"))?;
    if run.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the client failed ({}): {}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        ))
    }
}

fn stage_options() -> StageOptions {
    StageOptions {
        clock: RunClock::Driven,
        auto_consent: false,
    }
}

/// What the client was told, call by call: the method, the tool, the progress lines on the
/// call's stream, and the result's event and statuses (ids, times and texts apart).
fn seen(stage: &Stage) -> Vec<String> {
    let normalized = mock_server::journal::normalize(&stage.mock.journal().exchanges());
    let mut out = Vec::new();
    for exchange in normalized.as_array().into_iter().flatten() {
        let request = &exchange["request"]["body"];
        let Some(method) = request["method"].as_str() else {
            continue;
        };
        if method.starts_with("notifications/") || method == "initialize" {
            continue;
        }
        let response = &exchange["response"];
        let answer = response["events"]
            .as_array()
            .and_then(|events| events.last())
            .unwrap_or(&response["body"]);
        let result = &answer["result"];
        let payload = result
            .get("structuredContent")
            .filter(|v| v.is_object())
            .unwrap_or(result);
        let inner = payload
            .get("result")
            .and_then(|r| r.get("structuredContent"))
            .unwrap_or(payload);
        let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("-").to_owned();
        let progress: Vec<&str> = response["events"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["method"] == "notifications/progress")
            .filter_map(|e| e.pointer("/params/message").and_then(Value::as_str))
            .collect();
        out.push(format!(
            "{method} {} -> progress={progress:?} event={} task_status={} status={} web_state={}",
            request["params"]["name"].as_str().unwrap_or(""),
            field(inner, "event"),
            field(inner, "task_status"),
            field(payload, "status"),
            inner
                .pointer("/web_state/task_status")
                .and_then(Value::as_str)
                .unwrap_or("-"),
        ));
    }
    out
}

/// Records `spec` through a proxy and replays it; returns both runs' views as `seen` reads
/// them, or why not.
async fn record_and_replay(
    spec: &ScenarioSpec,
    seen: fn(&Stage) -> Vec<String>,
) -> Result<(Vec<String>, Vec<String>), String> {
    let upstream = Stage::start_with(spec, stage_options())
        .await
        .map_err(|e| e.to_string())?;
    let proxy = Proxy::start(&upstream.base_url, "127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    client(&upstream, spec, proxy.uri())
        .await
        .map_err(|e| format!("recording: {e}"))?;
    let captures = proxy.stop().await;
    let dir = std::env::temp_dir().join(format!("conformance-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = dir.join(format!("{}.json", spec.name));
    write_fixture(
        &captures,
        &upstream.base_url,
        &out,
        Some(spec.name),
        &UserRedactions::default(),
    )
    .map_err(|e| e.to_string())?;
    let fixture = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let replay = Stage::start_playing(spec, stage_options(), Some(&fixture))
        .await
        .map_err(|e| format!("the fixture did not load: {e}\n{fixture}"))?;
    client(&replay, spec, &replay.base_url)
        .await
        .map_err(|e| format!("replay: {e}"))?;
    Ok((seen(&upstream), seen(&replay)))
}

/// What an Agent API client was told, request by request: the route, the status, the run's
/// `status`, its output items' types and a stream's event types.
fn seen_agent(stage: &Stage) -> Vec<String> {
    let normalized = mock_server::journal::normalize(&stage.mock.journal().exchanges());
    let types = |items: &Value| -> Vec<String> {
        items
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| i["type"].as_str().unwrap_or("-").to_owned())
            .collect()
    };
    let mut out = Vec::new();
    for exchange in normalized.as_array().into_iter().flatten() {
        let request = &exchange["request"];
        let path = request["path"].as_str().unwrap_or("");
        if !path.starts_with("/v1/") {
            continue;
        }
        let response = &exchange["response"];
        let body = &response["body"];
        out.push(format!(
            "{} {path} -> {} status={} output={:?} events={:?}",
            request["method"].as_str().unwrap_or(""),
            response["status"],
            body["status"].as_str().unwrap_or("-"),
            types(&body["output"]),
            types(&response["events"]),
        ));
    }
    out
}

/// `seen` lines without their progress lines.
fn without_progress(seen: Vec<String>) -> Vec<String> {
    seen.into_iter()
        .map(
            |line| match (line.find(" progress=["), line.find("] event=")) {
                (Some(start), Some(end)) => format!("{}{}", &line[..start], &line[end + 1..]),
                _ => line,
            },
        )
        .collect()
}

/// Records and replays every built-in scenario of `suite`, comparing what `seen` reads of
/// each run; panics naming every scenario that differs, or when fewer than `at_least` ran.
async fn round_trip(suite: &str, seen: fn(&Stage) -> Vec<String>, at_least: usize) {
    use futures::StreamExt;
    let specs = suite::SCENARIOS
        .iter()
        .filter(|s| s.suite == suite && s.fixture.is_empty());
    let outcomes: Vec<_> = futures::stream::iter(specs)
        .map(|spec| async move { (spec.name, record_and_replay(spec, seen).await) })
        .buffer_unordered(AT_ONCE)
        .collect()
        .await;
    let mut problems = Vec::new();
    let mut replayed = 0;
    for (name, outcome) in outcomes {
        let outcome = match outcome {
            Ok((recorded, replay)) if PROGRESS_UNSEEN.iter().any(|(n, _)| *n == name) => {
                Ok((without_progress(recorded), without_progress(replay)))
            }
            other => other,
        };
        match outcome {
            Ok((recorded, replay)) if recorded == replay => replayed += 1,
            Ok((recorded, replay)) => problems.push(format!(
                "{name}:\n  recorded: {recorded:#?}\n  replayed: {replay:#?}"
            )),
            Err(problem) => problems.push(format!("{name}: {problem}")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} replayed the same; not:\n{}",
        replayed,
        problems.join("\n")
    );
    assert!(
        replayed >= at_least,
        "only {replayed} {suite} scenarios were checked"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_built_in_computer_scenario_recorded_and_replayed_tells_the_client_the_same() {
    round_trip("computer", seen, 30).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_built_in_agent_api_scenario_recorded_and_replayed_tells_the_client_the_same() {
    round_trip("agent", seen_agent, 15).await;
}
