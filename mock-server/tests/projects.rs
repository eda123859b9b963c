//! Conversations inside a Project: its instructions in the transcript, and
//! `project_visibility` deciding which members may view the session.

use serde_json::json;

use crate::common::{self, Mock, text};

const BOARD: &str = "9b2f4c1e-6a7d-4e0b-8c3f-2d5e7a9b1c40";
/// Shared by alice (editor) and bob (viewer).
const RESEARCH: &str = "3e8a7d2c-1f4b-4a6e-9d0c-7b5a2e8f6c13";

async fn start_in(client: &mut common::Client, project: &str, visibility: Option<&str>) -> String {
    let mut args = json!({"message": "#complete Draft the summary", "project_uuid": project});
    if let Some(visibility) = visibility {
        args["project_visibility"] = visibility.into();
    }
    let done = client.call_json("call_perplexity_computer", args).await;
    assert_eq!(done["event"], "complete", "{done}");
    common::thread_id(&done)
}

#[tokio::test(start_paused = true)]
async fn a_conversation_started_in_a_project_shows_its_instructions_first() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let thread = start_in(&mut alice, BOARD, None).await;
    let read = alice.read(&thread).await;
    let transcript = text(&read);
    assert!(
        transcript.starts_with("**Project:** Quarterly board report (private session)"),
        "{transcript}"
    );
    assert!(
        transcript.contains("**Project instructions:** Use the finance team's numbers"),
        "{transcript}"
    );
    let user_at = transcript.find("Draft the summary").expect("the message");
    let project_at = transcript.find("**Project:**").expect("the project");
    assert!(project_at < user_at);
}

#[tokio::test(start_paused = true)]
async fn project_members_can_view_a_project_session_but_not_write_to_it() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let mut bob = mock.session("bob-dev-token").await;
    let thread = start_in(&mut alice, RESEARCH, Some("project")).await;

    let read = bob.read(&thread).await;
    assert_eq!(read["thread_id"], thread.as_str(), "{read}");
    assert!(text(&read).contains("(project session)"), "{read}");

    let write = bob
        .call(
            "call_perplexity_computer",
            json!({"message": "Add a slide", "thread_id": thread}),
        )
        .await;
    assert_eq!(write["isError"], true, "only the owner writes: {write}");
    assert!(!text(&alice.read(&thread).await).contains("Add a slide"));
}

#[tokio::test(start_paused = true)]
async fn a_private_project_session_is_hidden_from_other_members() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let mut bob = mock.session("bob-dev-token").await;
    let thread = start_in(&mut alice, RESEARCH, Some("private")).await;
    let read = bob.call("read_thread", json!({"thread_id": thread})).await;
    assert_eq!(read["isError"], true, "{read}");
}

#[tokio::test(start_paused = true)]
async fn a_project_session_is_hidden_from_accounts_outside_the_project() {
    let mock = Mock::new();
    let mut alice = mock.session("alice-dev-token").await;
    let mut bob = mock.session("bob-dev-token").await;
    let thread = start_in(&mut alice, BOARD, Some("project")).await;
    let read = bob.call("read_thread", json!({"thread_id": thread})).await;
    assert_eq!(
        read["isError"], true,
        "bob is not in the board project: {read}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_project_uuid_the_caller_cannot_access_is_refused() {
    let mock = Mock::new();
    let mut bob = mock.session("bob-dev-token").await;
    let refused = bob
        .call(
            "call_perplexity_computer",
            json!({"message": "Peek", "project_uuid": BOARD}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text(&common::text_json(&refused)).contains("projects_list"));
}

#[tokio::test(start_paused = true)]
async fn an_editor_of_the_project_can_write_to_a_project_session_and_pays_for_it() {
    let mut world: serde_json::Value =
        serde_json::from_str(mock_server::world::WORLD_FIXTURE).expect("world");
    world["projects"][1]["members"][1]["role"] = json!("editor");
    let dir = std::env::temp_dir().join(format!(
        "mock-server-projects-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("world.json");
    std::fs::write(&path, world.to_string()).expect("written");
    let mock = Mock::with(mock_server::MockServer::builder().world(path));
    let mut alice = mock.session("alice-dev-token").await;
    let mut bob = mock.session("bob-dev-token").await;
    let thread = start_in(&mut alice, RESEARCH, Some("project")).await;

    let bob_before = mock.handle.world().credits("bob");
    let follow_up = bob
        .call_json(
            "call_perplexity_computer",
            json!({"message": "Add the pricing table", "thread_id": thread}),
        )
        .await;
    assert_eq!(follow_up["thread_id"], thread.as_str(), "{follow_up}");
    assert!(
        mock.handle.world().credits("bob") < bob_before,
        "the caller pays"
    );
    assert!(text(&alice.read(&thread).await).contains("Add the pricing table"));

    let assets = bob
        .call_json("list_thread_assets", json!({"thread_id": thread}))
        .await;
    assert!(assets["assets"].is_array(), "{assets}");
}
