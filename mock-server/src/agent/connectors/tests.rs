use std::collections::HashSet;

use super::*;

#[test]
fn every_managed_connector_has_a_catalog_a_name_and_a_description() {
    for id in MANAGED_CONNECTORS {
        let catalog = managed_catalog(id).expect("managed catalog");
        assert!(catalog.len() >= 5, "{id} has only {} tools", catalog.len());
        assert!(service_name(id).is_some(), "{id}");
        assert!(namespace_description(id).is_some(), "{id}");
        assert!(is_managed(id));
    }
    assert_eq!(
        managed_catalog("connector_custom_abc").expect_err("a custom connector"),
        CatalogError::NotManaged("connector_custom_abc".into())
    );
    assert!(!is_managed("connector_custom_abc"));
}

#[test]
fn catalogs_have_unique_names_object_schemas_and_read_only_hints() {
    for id in MANAGED_CONNECTORS {
        let catalog = managed_catalog(id).expect("catalog");
        let names: HashSet<&str> = catalog.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), catalog.len(), "{id} repeats a tool name");
        for tool in &catalog {
            assert_eq!(tool.input_schema["type"], "object", "{id}/{}", tool.name);
            assert!(
                tool.input_schema["properties"].is_object(),
                "{id}/{}",
                tool.name
            );
            for required in tool.input_schema["required"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let key = required.as_str().expect("string");
                assert!(
                    tool.input_schema["properties"].get(key).is_some(),
                    "{id}/{} requires undeclared `{key}`",
                    tool.name
                );
            }
            assert!(tool.read_only.is_some(), "{id}/{}", tool.name);
            assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
        }
        // Each service can both read and act, so approvals by read_only have something to do.
        assert!(catalog.iter().any(|t| t.read_only == Some(true)), "{id}");
        assert!(catalog.iter().any(|t| t.read_only == Some(false)), "{id}");
    }
}

#[test]
fn the_documents_tool_names_are_in_the_catalogs() {
    let names = |id| -> Vec<String> {
        managed_catalog(id)
            .expect("catalog")
            .into_iter()
            .map(|t| t.name)
            .collect()
    };
    let slack = names("connector_slack");
    assert!(slack.contains(&"slack_search_public".to_owned()));
    assert!(slack.contains(&"slack_send_message".to_owned()));
    let github = names("connector_github");
    assert!(github.contains(&"get_file_contents".to_owned()));
    // The Slack example's schemas, as the Connectors document shows them.
    let send = managed_catalog("connector_slack")
        .expect("catalog")
        .into_iter()
        .find(|t| t.name == "slack_send_message")
        .expect("slack_send_message");
    assert_eq!(
        send.input_schema["required"],
        serde_json::json!(["channel_id", "message"])
    );
    assert_eq!(send.read_only, Some(false));
}

#[test]
fn searching_slack_for_search_messages_finds_only_the_search_tool_as_the_document_shows() {
    // Agent API, Connectors, "Use a connector": the tool_search_output for
    // {"paths":["slack"],"queries":["search","messages"]} lists `slack_search_public` alone.
    let catalog = managed_catalog("connector_slack").expect("catalog");
    let found = search_catalog(&catalog, "search messages");
    let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["slack_search_public"]);
}

#[test]
fn searches_rank_name_words_over_descriptions_and_match_plurals() {
    let catalog = managed_catalog("connector_github").expect("catalog");
    let found = search_catalog(&catalog, "pull requests");
    assert!(!found.is_empty() && found.len() <= MAX_SEARCH_RESULTS);
    assert!(
        found.iter().all(|t| t.name.contains("pull_request")),
        "{:?}",
        found.iter().map(|t| &t.name).collect::<Vec<_>>()
    );
    // The tool whose name is exactly the words asked for beats one with extra words.
    assert!(found.iter().all(|t| t.name != "get_pull_request_files"));
    let found = search_catalog(&catalog, "file contents");
    let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["get_file_contents"]);
}

#[test]
fn a_search_returns_every_tool_that_matches_equally_well() {
    let catalog = managed_catalog("connector_linear").expect("catalog");
    let found = search_catalog(&catalog, "issue");
    let names: Vec<&str> = found.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["list_issues", "get_issue", "create_issue", "update_issue"]
    );
}

#[test]
fn a_search_without_a_match_finds_nothing() {
    let catalog = managed_catalog("connector_linear").expect("catalog");
    assert!(search_catalog(&catalog, "kubernetes").is_empty());
    assert!(search_catalog(&catalog, "").is_empty());
    assert!(search_catalog(&catalog, "a").is_empty());
}

#[test]
fn a_search_namespace_has_the_tool_search_output_shape() {
    let catalog = managed_catalog("connector_slack").expect("catalog");
    let found = search_catalog(&catalog, "search public");
    let namespace = serde_json::to_value(search_namespace("slack", "Slack workspace", &found[..1]))
        .expect("the namespace renders");
    assert_eq!(namespace["type"], "namespace");
    assert_eq!(namespace["name"], "slack");
    assert_eq!(namespace["description"], "Slack workspace");
    assert_eq!(namespace["tools"][0]["type"], "function");
    assert_eq!(namespace["tools"][0]["name"], "slack_search_public");
    assert_eq!(
        namespace["tools"][0]["parameters"]["required"],
        serde_json::json!(["query"])
    );
}

#[test]
fn the_embedded_catalogs_parse_and_name_exactly_the_managed_connectors() {
    let catalogs = MANAGED.as_ref().expect("managed.json parses");
    let ids: HashSet<&str> = catalogs.keys().map(String::as_str).collect();
    assert_eq!(ids, HashSet::from(MANAGED_CONNECTORS));
}
