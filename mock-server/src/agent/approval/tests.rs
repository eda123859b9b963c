use serde_json::json;

use super::*;
use crate::agent::validate::read_input;
use crate::agent::wire::approval::ApprovalPolicy;

/// A request's `input`, read as validation reads it.
fn typed_input(value: Value) -> Input {
    read_input(&value).expect("a valid input").0
}

fn decisions(value: Value) -> Vec<ApprovalDecision> {
    decisions_in_input(&typed_input(value))
        .into_iter()
        .map(|(_, decision)| decision.clone())
        .collect()
}

fn policy(value: Value) -> ApprovalPolicy {
    ApprovalPolicy::from_request(Some(&value)).expect("valid policy")
}

fn pending(id: &str, name: &str) -> PendingApproval {
    PendingApproval {
        id: id.to_owned(),
        server_label: "deepwiki".to_owned(),
        name: name.to_owned(),
        arguments: "{}".to_owned(),
        connector_id: None,
    }
}

fn decision(id: &str, approve: bool) -> ApprovalDecision {
    ApprovalDecision {
        approval_request_id: id.to_owned(),
        approve,
        reason: None,
    }
}

#[test]
fn omitted_and_null_policies_run_every_call_without_approval() {
    for value in [None, Some(&Value::Null)] {
        let p = ApprovalPolicy::from_request(value).expect("valid");
        assert_eq!(p, ApprovalPolicy::Never);
        assert!(!p.requires_approval("ask_question", Some(false)));
    }
}

#[test]
fn always_and_never_strings_cover_every_tool() {
    assert!(policy(json!("always")).requires_approval("read_wiki_structure", Some(true)));
    assert!(policy(json!("always")).requires_approval("delete_repo", None));
    assert!(!policy(json!("never")).requires_approval("delete_repo", Some(false)));
}

#[test]
fn an_always_filter_by_name_selects_only_those_tools() {
    let p = policy(json!({"always": {"tool_names": ["ask_question"]}}));
    assert!(p.requires_approval("ask_question", Some(true)));
    assert!(!p.requires_approval("read_wiki_contents", Some(true)));
}

#[test]
fn tools_outside_a_never_filter_still_require_approval() {
    let p = policy(json!({"never": {"tool_names": ["read_wiki_structure"]}}));
    assert!(!p.requires_approval("read_wiki_structure", None));
    assert!(p.requires_approval("ask_question", None));
}

#[test]
fn an_empty_never_list_lets_every_call_run() {
    let p = policy(json!({"never": {"tool_names": []}}));
    assert!(!p.requires_approval("anything", Some(false)));
    assert!(!p.requires_approval("else", None));
}

#[test]
fn an_empty_filter_matches_every_tool() {
    assert!(policy(json!({"always": {}})).requires_approval("x", Some(true)));
    assert!(!policy(json!({"never": {}})).requires_approval("x", Some(false)));
    // A null `tool_names` does not check the name either.
    assert!(policy(json!({"always": {"tool_names": null}})).requires_approval("y", None));
}

#[test]
fn read_only_filters_use_the_annotation_and_treat_a_missing_one_as_not_read_only() {
    let p = policy(json!({"always": {"read_only": false}}));
    assert!(p.requires_approval("write", Some(false)));
    assert!(p.requires_approval("unannotated", None));
    assert!(!p.requires_approval("read", Some(true)));

    let p = policy(json!({"never": {"read_only": true}}));
    assert!(!p.requires_approval("read", Some(true)));
    assert!(p.requires_approval("write", Some(false)));
}

#[test]
fn a_filter_with_names_and_read_only_needs_both_to_match() {
    let p = policy(json!({"always": {"tool_names": ["ask_question"], "read_only": false}}));
    assert!(p.requires_approval("ask_question", Some(false)));
    assert!(!p.requires_approval("ask_question", Some(true)));
    assert!(!p.requires_approval("other", Some(false)));
}

#[test]
fn always_wins_over_never_when_both_select_a_tool() {
    let p = policy(json!({"always": {"read_only": false}, "never": {"tool_names": ["post"]}}));
    assert!(p.requires_approval("post", Some(false)));
    assert!(!p.requires_approval("post", Some(true)));
    // Selected by neither, with a never filter present: approval.
    assert!(p.requires_approval("read", Some(true)));
}

#[test]
fn an_empty_object_policy_selects_nothing_and_runs_calls() {
    let p = policy(json!({}));
    assert!(!p.requires_approval("x", None));
}

#[test]
fn bad_policies_are_refused_with_the_field_named() {
    let cases = [
        (json!("sometimes"), "\"sometimes\""),
        (json!(true), "a boolean"),
        (json!({"allways": {}}), "unknown field `allways`"),
        (
            json!({"always": "all"}),
            "`require_approval.always` must be an object",
        ),
        (
            json!({"never": {"tool_names": "x"}}),
            "`require_approval.never.tool_names` must be an array",
        ),
        (
            json!({"never": {"tool_names": [1]}}),
            "`require_approval.never.tool_names[0]`",
        ),
        (
            json!({"always": {"read_only": "yes"}}),
            "`require_approval.always.read_only` must be true or false",
        ),
        (
            json!({"always": {"names": []}}),
            "`require_approval.always` has an unknown field `names`",
        ),
    ];
    for (value, expected) in cases {
        let error = ApprovalPolicy::from_request(Some(&value)).expect_err("invalid policy");
        assert!(error.contains(expected), "{value}: {error}");
    }
}

#[test]
fn decisions_are_read_from_input_with_their_reasons() {
    let input = json!([
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": false, "reason": "no"},
        {"type": "message", "role": "user", "content": "Move on"},
        {"role": "user", "content": "still a message"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_2", "approve": true},
    ]);
    assert_eq!(
        decisions(input),
        vec![
            ApprovalDecision {
                approval_request_id: "mcpr_1".into(),
                approve: false,
                reason: Some("no".into())
            },
            decision("mcpr_2", true),
        ]
    );
    assert!(decisions(json!("hello")).is_empty());
}

#[test]
fn malformed_decisions_are_errors_naming_the_item() {
    let cases = [
        (
            json!({"type": "mcp_approval_response", "approve": true}),
            "`approval_request_id` is required",
        ),
        (
            json!({"type": "mcp_approval_response", "approval_request_id": "a"}),
            "`approve` (true or false) is required",
        ),
        (
            json!({"type": "mcp_approval_response", "approval_request_id": "a", "approve": "yes"}),
            "`approve` must be true or false",
        ),
        (
            json!({"type": "mcp_approval_response", "approval_request_id": 7, "approve": true}),
            "must be a string",
        ),
        (
            json!({"type": "mcp_approval_response", "approval_request_id": "a", "approve": true, "reason": 1}),
            "`reason` must be a string",
        ),
    ];
    for (item, expected) in cases {
        let input = json!([{"role": "user", "content": "hi"}, item]);
        let (_, error) = read_input(&input).expect("the rest of the input is valid");
        let error = error.expect("malformed");
        assert!(
            matches!(error, ApprovalError::Malformed { index: 1, .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains(expected), "{error}");
        assert_eq!(error.param(), "input[1]");
    }
}

#[test]
fn pending_requests_come_from_history_items_in_order() {
    let output = json!([
        {"type": "mcp_list_tools", "id": "mcpl_1", "server_label": "deepwiki", "tools": []},
        {"type": "mcp_approval_request", "id": "mcpr_a", "name": "ask_question", "server_label": "deepwiki", "arguments": "{\"q\":1}"},
        {"type": "mcp_approval_request", "id": "mcpr_b", "name": "slack_send_message", "server_label": "slack", "arguments": "{}", "connector_id": "connector_slack"},
    ]);
    let pending = pending_in_history(&typed_input(output));
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].id, "mcpr_a");
    assert_eq!(pending[0].arguments, "{\"q\":1}");
    assert_eq!(pending[1].connector_id.as_deref(), Some("connector_slack"));
}

#[test]
fn zdr_history_keeps_calls_that_already_ran_out_of_pending_and_decisions() {
    // Turn 3 of a ZDR conversation: request a ran (its mcp_call is sent back), b is new.
    let input = json!([
        {"role": "user", "content": "Explain the repo"},
        {"type": "mcp_approval_request", "id": "mcpr_a", "name": "ask_question", "server_label": "deepwiki", "arguments": "{}"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_a", "approve": true},
        {"type": "mcp_call", "id": "call_1", "name": "ask_question", "server_label": "deepwiki", "arguments": "{}", "approval_request_id": "mcpr_a", "output": "ok"},
        {"type": "mcp_approval_request", "id": "mcpr_b", "name": "read_wiki_contents", "server_label": "deepwiki", "arguments": "{}"},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_b", "approve": false, "reason": "enough"},
    ]);
    let input = typed_input(input);
    let pending = pending_in_history(&input);
    assert_eq!(
        pending.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["mcpr_b"]
    );
    let matched = match_input(&pending, &input).expect("one decision per pending request");
    assert_eq!(matched.len(), 1);
    assert_eq!(matched[0].1.reason.as_deref(), Some("enough"));
    assert!(!matched[0].1.approve);
}

#[test]
fn every_pending_request_is_paired_with_its_decision() {
    let pending = [pending("a", "t1"), pending("b", "t2")];
    let matched =
        match_decisions(&pending, &[decision("b", false), decision("a", true)]).expect("match");
    assert_eq!(matched[0].0.id, "a");
    assert!(matched[0].1.approve);
    assert_eq!(matched[1].0.id, "b");
    assert!(!matched[1].1.approve);
}

#[test]
fn a_missing_decision_names_the_pending_request() {
    let error = match_decisions(
        &[pending("a", "t1"), pending("b", "t2")],
        &[decision("a", true)],
    )
    .expect_err("b has no decision");
    assert_eq!(
        error,
        ApprovalError::Missing {
            id: "b".into(),
            name: "t2".into(),
            server_label: "deepwiki".into()
        }
    );
    assert!(
        error.to_string().contains("approval_request_id `b`"),
        "{error}"
    );
    assert_eq!(error.param(), "input");
}

#[test]
fn a_decision_for_an_unknown_request_is_refused() {
    let error = match_decisions(
        &[pending("a", "t1")],
        &[decision("a", true), decision("zzz", true)],
    )
    .expect_err("unknown id");
    assert!(
        matches!(&error, ApprovalError::Unknown { id, .. } if id == "zzz"),
        "{error:?}"
    );
    assert!(error.to_string().contains("(pending: a)"), "{error}");

    let input =
        json!([{"type": "mcp_approval_response", "approval_request_id": "zzz", "approve": true}]);
    let error = match_input(&[], &typed_input(input)).expect_err("nothing is pending");
    assert!(
        error
            .to_string()
            .starts_with("input[0] answers approval request `zzz`"),
        "{error}"
    );
    assert!(error.to_string().contains("(none is pending)"), "{error}");
    assert_eq!(error.param(), "input[0].approval_request_id");
}

#[test]
fn two_decisions_for_one_request_are_refused() {
    let input = json!([
        {"type": "mcp_approval_response", "approval_request_id": "a", "approve": true},
        {"type": "mcp_approval_response", "approval_request_id": "a", "approve": false},
    ]);
    let error = match_input(&[pending("a", "t1")], &typed_input(input)).expect_err("duplicate");
    assert_eq!(
        error,
        ApprovalError::Duplicate {
            at: "input[1]".into(),
            id: "a".into()
        }
    );
    let error = match_decisions(
        &[pending("a", "t1")],
        &[decision("a", true), decision("a", true)],
    )
    .expect_err("duplicate");
    assert!(matches!(error, ApprovalError::Duplicate { .. }));
}
