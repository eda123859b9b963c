//! The JSON the control API and the dashboard read: the clock, the accounts with their balance
//! and quota, the Agent API responses, and the overview that puts them together with Computer's
//! threads, MCP tasks and the faults in force in one answer (what the dashboard polls).

use serde_json::{Value, json};

use super::state::ControlState;

/// The clock: virtual now and how it runs.
pub(super) fn clock(app: &ControlState) -> Value {
    let clock = app.clock();
    let mode = match clock.mode() {
        crate::clock::ClockMode::Scaled { factor } => json!({"scaled": factor}),
        crate::clock::ClockMode::Manual => json!("manual"),
        crate::clock::ClockMode::Driven { look_step } => json!({
            "driven": {"look_step_ms": u64::try_from(look_step.as_millis()).unwrap_or(u64::MAX)}
        }),
    };
    json!({"now": crate::clock::iso(clock.now()), "mode": mode})
}

/// Every account: plan, balance, what it spent, its quota and limits, connectors, Projects.
pub(super) fn accounts(app: &ControlState) -> Value {
    let world = app.world();
    let list: Vec<Value> = world
        .accounts()
        .iter()
        .map(|a| {
            let limits = world.plan(a.plan);
            let now = app.clock().now();
            let quota_until = world.quota_exhausted_until(&a.id).filter(|t| *t > now);
            json!({
                "id": a.id,
                "name": a.name,
                "email": a.email,
                "plan": a.plan,
                "plan_label": limits.label,
                "credits": world.credits(&a.id),
                "top_up_credits": a.top_up_credits,
                "spent_since_top_up": world.spent(&a.id),
                "spending_limit": a.spending_limit,
                "quota_exhausted_until": quota_until.map(crate::clock::iso),
                "refused_before_send": world.check_before_send(&a.id, now).map(|r| refusal(&r)),
                "attachment_max_bytes": limits.attachment_max_bytes,
                "attachments_per_day": limits.attachments_per_day,
                "attachments_per_week": limits.attachments_per_week,
                "blocked_models": a.organization_policy.blocked_models,
                "connectors": a.connectors,
                "projects": a.projects.iter().map(|p| json!({
                    "project_uuid": p.project_uuid, "name": p.name, "role": p.role,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "accounts": list })
}

/// Why the account's next message would be refused before it is sent, as its `event` names it.
fn refusal(refusal: &crate::world::CreditRefusal) -> &'static str {
    match refusal {
        crate::world::CreditRefusal::InsufficientCredits => "insufficient_credits",
        crate::world::CreditRefusal::SpendingLimit { .. } => "spending_limit",
        crate::world::CreditRefusal::QuotaExhausted { .. } => "quota_exhausted",
    }
}

/// Every Agent API response, newest first: id, owner, scenario, status and output items.
pub(super) fn responses(app: &ControlState) -> Value {
    json!({ "responses": app.agent().summaries() })
}

/// Computer's threads.
pub(super) fn threads(app: &ControlState) -> Value {
    json!({ "threads": app.computer().threads() })
}

/// The MCP tasks.
pub(super) fn tasks(app: &ControlState) -> Value {
    json!({ "tasks": app.computer().tasks() })
}

/// Everything the dashboard shows but the journal, in one answer.
pub(super) fn overview(app: &ControlState) -> Value {
    let stats = app.journal().stats();
    json!({
        "base_url": app.base_url(),
        "mcp_url": format!("{}{}", app.base_url(), crate::oauth::MCP_PATH),
        "clock": clock(app),
        "accounts": accounts(app)["accounts"],
        "threads": threads(app)["threads"],
        "tasks": tasks(app)["tasks"],
        "responses": responses(app)["responses"],
        "faults": app.faults().list(),
        "journal": {
            "kept": stats.kept,
            "dropped": stats.dropped,
            "next_seq": stats.next_seq,
        },
        "kept": kept(app),
    })
}

/// What the capped stores hold, their caps, and how many entries each evicted (oldest first)
/// since the start or the last reset.
pub(super) fn kept(app: &ControlState) -> Value {
    json!({
        "threads": app.computer().kept_threads(),
        "responses": app.agent().kept(),
        "uploads": app.world().uploads_kept(),
    })
}
