//! Accounts as the mock serves them: a world file's account with the Projects it is a member
//! of, each Project as that member sees it.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::fixtures::{AgentApiSettings, Connector, OrganizationPolicy, Plan, WorldFixture};

/// One account of the world, with the Projects it is a member of.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Account {
    /// Stable id (`alice`, `bob`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// E-mail address shown on pages.
    pub email: String,
    /// The plan.
    pub plan: Plan,
    /// The ready-made bearer token (`alice-dev-token`).
    pub token: String,
    /// Starting credit balance.
    pub(crate) credits: i64,
    /// Credits a top-up on the billing page adds.
    pub(crate) top_up_credits: i64,
    /// Credits the account may spend before messages are refused; `None` is no limit.
    pub(crate) spending_limit: Option<i64>,
    /// If set, the quota is used up until then from the start.
    pub(crate) quota_reset_date: Option<DateTime<Utc>>,
    /// Connectors and their sign-in state.
    pub(crate) connectors: Vec<Connector>,
    /// What the account's organization forbids.
    pub(crate) organization_policy: OrganizationPolicy,
    /// Where the account is served (`us`, `eu`, ...); `None` sees every region's models.
    pub(crate) region: Option<String>,
    /// Projects the account can access, as `projects_list` shows them to it.
    pub(crate) projects: Vec<Project>,
    /// How the account looks to the Agent API.
    pub(crate) agent_api: AgentApiSettings,
}

/// A Project as `projects_list` returns it to one member (minus `project_url`, which is derived).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Project {
    /// Pass to `call_perplexity_computer` as `project_uuid`.
    pub(crate) project_uuid: String,
    /// Project name.
    pub(crate) name: String,
    /// Project description.
    pub(crate) description: String,
    /// The caller's role.
    pub(crate) role: String,
    /// Where it appears in Perplexity.
    pub(crate) landing_category: String,
    /// Whether Project knowledge is on.
    pub(crate) knowledge_enabled: bool,
    /// Instructions shown when a conversation starts inside the Project.
    #[serde(skip)]
    pub(crate) instructions: Option<String>,
    /// Ids of every member account.
    #[serde(skip)]
    pub(crate) members: Vec<String>,
    /// Ids of the members whose role lets them write (`owner`, `editor`).
    #[serde(skip)]
    pub(crate) writers: Vec<String>,
}

/// The accounts of a world file, each with the Projects it is a member of.
pub(super) fn accounts_of(fixture: &WorldFixture) -> Vec<Arc<Account>> {
    fixture
        .accounts
        .iter()
        .map(|spec| {
            Arc::new(Account {
                id: spec.id.clone(),
                name: spec.name.clone(),
                email: spec.email.clone(),
                plan: spec.plan,
                token: spec.token.clone(),
                credits: spec.credits,
                top_up_credits: spec.top_up_credits,
                spending_limit: spec.spending_limit,
                quota_reset_date: spec.quota_reset_date,
                connectors: spec.connectors.clone(),
                // No policy forbids nothing.
                organization_policy: spec.organization_policy.clone().unwrap_or_default(),
                region: spec.region.clone(),
                agent_api: spec.agent_api.clone(),
                projects: fixture
                    .projects
                    .iter()
                    .filter_map(|p| {
                        let me = p.members.iter().find(|m| m.account == spec.id)?;
                        Some(Project {
                            project_uuid: p.project_uuid.clone(),
                            name: p.name.clone(),
                            description: p.description.clone(),
                            role: me.role.clone(),
                            landing_category: me.landing_category.clone(),
                            knowledge_enabled: p.knowledge_enabled,
                            instructions: p.instructions.clone(),
                            members: p.members.iter().map(|m| m.account.clone()).collect(),
                            writers: p
                                .members
                                .iter()
                                .filter(|m| m.role != "viewer")
                                .map(|m| m.account.clone())
                                .collect(),
                        })
                    })
                    .collect(),
            })
        })
        .collect()
}
