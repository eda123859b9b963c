//! Scenario fixtures: refusals that say where and what, extra directories, and routing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use mock_server::{Catalog, MockServer};

use crate::common::{self, Mock};

/// A scratch directory under the target dir, emptied first (tests never share one).
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fixtures-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(dir: &Path, file: &str, text: &str) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(&path, text).expect("write fixture");
    path
}

/// A one-turn scenario whose outcome is `outcome` (JSON text).
fn scenario(name: &str, extra: &str, outcome: &str) -> String {
    format!(
        r#"{{"name":"{name}","description":"A test scenario.",{extra}"turns":[{{"steps":[{{"title":"Working","duration":"5s"}}],"outcome":{outcome}}}]}}"#
    )
}

const COMPLETE: &str = r#"{"event":"complete","text":"Done from the extra fixture."}"#;

/// The refusal for `text`, loaded from a file `extra/bad.json`, as shown to a person.
fn refusal(text: &str) -> String {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = scratch(&format!(
        "refusal-{}",
        CALLS.fetch_add(1, Ordering::Relaxed)
    ))
    .join("extra");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let file = write(&dir, "bad.json", text);
    let refused = Catalog::load(&[file], None).expect_err("refused");
    refused.to_string()
}

fn assert_says(shown: &str, parts: &[&str]) {
    for part in parts {
        assert!(shown.contains(part), "`{part}` in: {shown}");
    }
}

#[test]
fn a_bad_duration_is_refused_with_path_pointer_and_expectation() {
    let text = r#"{"name":"x","description":"d","turns":[{"steps":[{"title":"t","duration":"soon"}],"outcome":{"event":"complete","text":"ok"}}]}"#;
    assert_says(
        &refusal(text),
        &["extra/bad.json", "/turns/0/steps/0/duration", "soon"],
    );
}

#[test]
fn an_unknown_event_is_refused_naming_the_choices() {
    let text = scenario("x", "", r#"{"event":"finished","text":"ok"}"#);
    assert_says(
        &refusal(&text),
        &[
            "extra/bad.json",
            "/turns/0/outcome",
            "unknown variant `finished`",
            "complete",
        ],
    );
}

#[test]
fn a_checkpoint_without_then_is_refused() {
    let text = scenario(
        "x",
        "",
        r#"{"event":"ask_user_question","text":"Which?","interactions":[{"kind":"question","questions":[{"id":"q1","question":"Which?"}]}]}"#,
    );
    assert_says(
        &refusal(&text),
        &["extra/bad.json", "/turns/0/outcome", "then"],
    );
}

#[test]
fn a_bad_match_pattern_is_refused() {
    let text = scenario("x", r#""match":"(unclosed","#, COMPLETE);
    assert_says(
        &refusal(&text),
        &["extra/bad.json", "/match", "not a valid regular expression"],
    );
}

#[test]
fn a_sign_in_listed_twice_is_refused() {
    let text = scenario(
        "x",
        "",
        r#"{"event":"auth_required","text":"Sign in.","sign_ins":[{"connector":"slack","display_name":"Slack"},{"connector":"slack","display_name":"Slack again"}],"then":{"outcome":{"event":"complete","text":"ok"}}}"#,
    );
    assert_says(
        &refusal(&text),
        &[
            "extra/bad.json",
            "/turns/0/outcome/sign_ins/1/connector",
            "connector `slack` is listed twice",
        ],
    );
}

#[test]
fn the_builder_refuses_an_invalid_fixture_file() {
    let dir = scratch("invalid");
    let file = write(
        &dir,
        "broken.json",
        &scenario("broken", "", r#"{"event":"finished","text":"ok"}"#),
    );
    let Err(error) = MockServer::builder().fixtures(&dir).router(common::BASE) else {
        panic!("an invalid fixture must stop the mock");
    };
    assert_says(
        &error.to_string(),
        &[&file.display().to_string(), "/turns/0/outcome"],
    );
}

#[tokio::test(start_paused = true)]
async fn an_extra_fixture_directory_adds_a_scenario_and_overrides_an_embedded_one() {
    let dir = scratch("extra");
    write(&dir, "fresh.json", &scenario("fresh", "", COMPLETE));
    write(
        &dir,
        "complete.json",
        &scenario(
            "complete",
            "",
            r#"{"event":"complete","text":"Overridden complete."}"#,
        ),
    );
    let embedded = Catalog::load(&[], None)
        .expect("embedded catalog")
        .iter()
        .count();
    let mock = Mock::with(MockServer::builder().fixtures(&dir));
    let catalog = mock.handle.catalog();
    // One added, one replaced.
    assert_eq!(catalog.iter().count(), embedded + 1);
    assert!(catalog.get("fresh").is_some());
    assert_eq!(
        catalog.get("complete").expect("complete").source,
        dir.join("complete.json")
    );

    let mut client = mock.session("alice-dev-token").await;
    let fresh = client.start("#fresh Go").await;
    assert_eq!(fresh["text"], "Done from the extra fixture.", "{fresh}");
    let overridden = client.start("#complete Go").await;
    assert_eq!(overridden["text"], "Overridden complete.", "{overridden}");
}

#[tokio::test(start_paused = true)]
async fn a_hashtag_wins_over_match_and_match_over_the_fallback() {
    let dir = scratch("routing");
    write(
        &dir,
        "matched.json",
        &scenario(
            "matched",
            r#""match":"(?i)quarterly report","#,
            r#"{"event":"complete","text":"Matched by pattern."}"#,
        ),
    );
    write(
        &dir,
        "fallback.json",
        &scenario(
            "my-fallback",
            "",
            r#"{"event":"complete","text":"The fallback answered."}"#,
        ),
    );
    let mock = Mock::with(MockServer::builder().fixtures(&dir).scenario("my-fallback"));
    let mut client = mock.session("alice-dev-token").await;

    let tagged = client
        .start("#computer-error Write the quarterly report")
        .await;
    assert_eq!(tagged["event"], "error", "{tagged}");

    let matched = client.start("Write the Quarterly Report").await;
    assert_eq!(matched["text"], "Matched by pattern.", "{matched}");

    let fallback = client.start("Something else entirely").await;
    assert_eq!(fallback["text"], "The fallback answered.", "{fallback}");
}

#[test]
fn an_unknown_fallback_scenario_is_refused() {
    let Err(error) = MockServer::builder()
        .scenario("no-such-scenario")
        .router(common::BASE)
    else {
        panic!("an unknown --scenario must stop the mock");
    };
    assert_says(
        &error.to_string(),
        &[
            "--scenario",
            "no scenario is named `no-such-scenario`",
            "complete",
        ],
    );
}

#[test]
fn every_file_in_fixtures_scenarios_validates() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/scenarios");
    // Loading the directory validates every file in it, as `--fixtures` does; each file then
    // replaces its embedded copy, so each scenario's source names the file it came from.
    let catalog = Catalog::load(std::slice::from_ref(&dir), None).unwrap_or_else(|e| panic!("{e}"));
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/scenarios") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if let Some(loaded) = catalog.iter().find(|s| s.source == path) {
            assert_eq!(
                loaded.scenario.name, stem,
                "file name matches scenario name"
            );
            count += 1;
        } else if let Some(loaded) = catalog.agent_iter().find(|s| s.source == path) {
            // Agent API scenarios (`agent-NAME.json`, named NAME) have their own definition.
            let expected = stem.strip_prefix("agent-").filter(|n| *n != "default");
            assert_eq!(
                loaded.name,
                expected.unwrap_or(stem),
                "agent-NAME.json holds scenario NAME"
            );
        } else if let Some(loaded) = catalog.sonar_iter().find(|s| s.source == path) {
            // So do Sonar scenarios (`sonar-NAME.json`, named NAME).
            let expected = stem.strip_prefix("sonar-").filter(|n| *n != "default");
            assert_eq!(
                loaded.name,
                expected.unwrap_or(stem),
                "sonar-NAME.json holds scenario NAME"
            );
        } else {
            panic!("{} was not loaded as a scenario", path.display());
        }
    }
    assert!(count >= 21, "{count} scenario files");
}

#[test]
fn the_embedded_catalog_has_the_issues_twenty_one_scenarios() {
    let catalog = Catalog::load(&[], None).expect("embedded catalog");
    for name in [
        "complete",
        "follow-up",
        "timeout-then-complete",
        "ask-user-question",
        "confirm-action",
        "auth-required",
        "multiple-sign-ins",
        "optional-auth",
        "sleep",
        "waiting",
        "pending-interactions",
        "insufficient-credits-before-send",
        "insufficient-credits-during-task",
        "quota-exhausted",
        "access-denied",
        "computer-error",
        "cancel",
        "two-factor-required",
        "interaction-required",
        "files",
        "long-transcript",
    ] {
        assert!(catalog.get(name).is_some(), "{name} is embedded");
    }
}
