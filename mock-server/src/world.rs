//! The account world: accounts, plans, credits, quotas, connectors, models and Projects.
//!
//! Defaults come from `fixtures/world.json` (embedded); `--world PATH` replaces them. Either file
//! is validated against `fixtures/world.schema.json` at load, and a refused one names its path,
//! the JSON pointer and what was expected, like a scenario. Runtime state (credit balances,
//! exhausted quotas, uploads) lives here too, behind one lock, and [`World::reset`] restores the
//! defaults.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, Datelike, TimeZone, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{FixtureError, FixtureErrorKind};
pub(crate) use crate::fixtures::{
    AgentApiSettings, Connector, ConnectorState, ModeSpec, ModelSpec, OrganizationPolicy,
    PlanLimits, WorldFixture,
};
pub use crate::fixtures::{Plan, WORLD_FIXTURE};

/// One account, with the Projects it is a member of.
#[derive(Debug, Clone)]
pub struct Account {
    /// Stable id (`alice`, `bob`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// E-mail address shown on pages.
    pub email: String,
    /// The plan.
    pub plan: Plan,
    /// The ready-made bearer token.
    pub token: String,
    /// Starting credit balance.
    pub credits: i64,
    /// Credits a top-up on the billing page adds.
    pub top_up_credits: i64,
    /// Credits the account may spend before messages are refused; `None` is no limit.
    pub spending_limit: Option<i64>,
    /// If set, the quota is used up until then from the start.
    pub quota_reset_date: Option<DateTime<Utc>>,
    /// Connectors and their sign-in state.
    pub(crate) connectors: Vec<Connector>,
    /// What the account's organization forbids.
    pub(crate) organization_policy: OrganizationPolicy,
    /// Where the account is served (`us`, `eu`, ...); `None` sees every region's models.
    pub region: Option<String>,
    /// Projects the account can access, as `projects_list` shows them to it.
    pub projects: Vec<Project>,
    /// How the account looks to the Agent API.
    pub(crate) agent_api: AgentApiSettings,
}

/// A Project as `projects_list` returns it to one member (minus `project_url`, which is derived).
#[derive(Debug, Clone, Serialize)]
pub struct Project {
    /// Pass to `call_perplexity_computer` as `project_uuid`.
    pub project_uuid: String,
    /// Project name.
    pub name: String,
    /// Project description.
    pub description: String,
    /// The caller's role.
    pub role: String,
    /// Where it appears in Perplexity.
    pub landing_category: String,
    /// Whether Project knowledge is on.
    pub knowledge_enabled: bool,
    /// Instructions shown when a conversation starts inside the Project.
    #[serde(skip)]
    pub instructions: Option<String>,
    /// Ids of every member account.
    #[serde(skip)]
    pub members: Vec<String>,
    /// Ids of the members whose role lets them write (`owner`, `editor`).
    #[serde(skip)]
    pub writers: Vec<String>,
}

/// The accounts of a world file, each with the Projects it is a member of.
fn accounts_of(fixture: &WorldFixture) -> Vec<Account> {
    fixture
        .accounts
        .iter()
        .map(|spec| Account {
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
        .collect()
}

/// The mode, model and effort a request runs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskSettings {
    /// The mode chosen (or the default mode), `None` when a model was picked directly.
    pub mode: Option<String>,
    /// The model that runs.
    pub model: String,
    /// Its effort.
    pub effort: String,
}

/// An upload envelope handed out by `create_attachment_upload`.
#[derive(Debug, Clone)]
struct IssuedUpload {
    account: String,
    fields: std::collections::BTreeMap<String, String>,
    size_bytes: u64,
    expires_at: DateTime<Utc>,
    bytes: Option<bytes::Bytes>,
}

/// Why an upload POST was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UploadError {
    /// No envelope with this key was issued.
    UnknownKey,
    /// A field of the envelope is missing or was changed.
    FieldMismatch(String),
    /// The envelope's policy has expired.
    Expired,
    /// The file is larger than the size declared for the envelope.
    TooLarge {
        /// The size the envelope allows.
        declared: u64,
    },
}

#[derive(Debug, Default)]
struct Balances {
    credits: HashMap<String, i64>,
    quota_exhausted_until: HashMap<String, DateTime<Utc>>,
    /// Scripted refusals already applied, so a resend after a top-up goes through.
    applied_refusals: HashSet<String>,
    uploads: HashMap<String, IssuedUpload>,
    /// Credits spent since the last top-up, against the spending limit.
    spent: HashMap<String, i64>,
    /// When each upload envelope was handed out, per account, for the daily and weekly limits.
    envelopes: HashMap<String, Vec<DateTime<Utc>>>,
    /// Paging cursors handed out: opaque random strings, so a forged one is simply unknown.
    cursors: HashMap<String, IssuedCursor>,
}

/// What a paging cursor stands for.
#[derive(Debug, Clone)]
struct IssuedCursor {
    account: String,
    /// The listing and its arguments (`projects:<search_term>`, `assets:<thread>:<entry>`).
    scope: String,
    offset: usize,
}

/// Why a `cursor` argument was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorError {
    /// Never handed out (forged or mistyped), or handed to another account.
    Unknown,
    /// Handed out for another listing or other arguments.
    OtherQuery,
}

/// Accounts and their runtime state.
#[derive(Debug)]
pub struct World {
    fixture: WorldFixture,
    accounts: Vec<Account>,
    balances: Mutex<Balances>,
}

/// Why `create_attachment_upload` refused a new envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachmentRefusal {
    /// The file is over the plan's per-attachment size.
    TooLarge {
        /// The plan's largest attachment, in bytes.
        limit: u64,
    },
    /// The plan's uploads per rolling window are used up.
    LimitReached {
        /// `day` or `week`.
        window: &'static str,
        /// How many the plan allows in that window.
        limit: u32,
        /// When the oldest upload in the window leaves it.
        next_at: DateTime<Utc>,
    },
}

/// Why the credit check before sending a message failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CreditRefusal {
    /// No credits left.
    InsufficientCredits,
    /// The account spent its spending limit.
    SpendingLimit {
        /// The limit, in credits.
        limit: i64,
    },
    /// The plan's quota is used up until this time.
    QuotaExhausted {
        /// When the quota comes back.
        reset: DateTime<Utc>,
    },
}

impl World {
    /// The embedded world.
    pub fn builtin() -> Self {
        // The fixture is compiled in and covered by a test, so a parse failure is a build bug.
        Self::parse(Path::new("embedded:world.json"), WORLD_FIXTURE)
            .unwrap_or_else(|e| panic!("fixtures/world.json is invalid: {e}"))
    }

    /// The world in `path` (`--world`), or the embedded one.
    pub fn load(path: Option<&Path>) -> Result<Self, FixtureError> {
        let Some(path) = path else {
            return Ok(Self::builtin());
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| FixtureError::new(path, FixtureErrorKind::Read(e)))?;
        Self::parse(path, &text)
    }

    /// Parses and validates a world file.
    pub fn parse(path: &Path, text: &str) -> Result<Self, FixtureError> {
        Ok(Self::from_fixture(crate::fixtures::parse_world(
            path, text,
        )?))
    }

    /// The live world of a validated world file, every balance at its start.
    pub(crate) fn from_fixture(fixture: WorldFixture) -> Self {
        let world = Self {
            accounts: accounts_of(&fixture),
            fixture,
            balances: Mutex::default(),
        };
        world.reset();
        world
    }

    fn balances(&self) -> MutexGuard<'_, Balances> {
        self.balances
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Restores every balance and quota to the fixture's defaults.
    pub fn reset(&self) {
        let mut balances = self.balances();
        *balances = Balances::default();
        for account in &self.accounts {
            balances.credits.insert(account.id.clone(), account.credits);
            if let Some(reset) = account.quota_reset_date {
                balances
                    .quota_exhausted_until
                    .insert(account.id.clone(), reset);
            }
        }
    }

    /// Every account.
    pub fn accounts(&self) -> &[Account] {
        &self.accounts
    }

    /// The account with this id.
    pub fn account(&self, id: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.id == id)
    }

    /// The account a static bearer token belongs to.
    pub fn account_for_token(&self, token: &str) -> Option<&Account> {
        self.accounts.iter().find(|a| a.token == token)
    }

    /// What a plan allows.
    pub(crate) fn plan(&self, plan: Plan) -> &PlanLimits {
        match plan {
            Plan::Paid => &self.fixture.plans.paid,
            Plan::Free => &self.fixture.plans.free,
        }
    }

    /// A Project by id, as any of its members would see its name and instructions.
    pub fn project(&self, uuid: &str) -> Option<&Project> {
        self.accounts
            .iter()
            .flat_map(|a| a.projects.iter())
            .find(|p| p.project_uuid == uuid)
    }

    /// A cursor for the page of `scope` that starts at `offset`, usable by `account` only.
    pub fn issue_cursor(&self, account: &str, scope: &str, offset: usize) -> String {
        let cursor = uuid::Uuid::new_v4().simple().to_string();
        self.balances().cursors.insert(
            cursor.clone(),
            IssuedCursor {
                account: account.to_owned(),
                scope: scope.to_owned(),
                offset,
            },
        );
        cursor
    }

    /// The offset a cursor stands for, if `account` was handed it for this `scope`.
    pub fn resolve_cursor(
        &self,
        account: &str,
        scope: &str,
        cursor: &str,
    ) -> Result<usize, CursorError> {
        let balances = self.balances();
        let issued = balances
            .cursors
            .get(cursor)
            .filter(|c| c.account == account)
            .ok_or(CursorError::Unknown)?;
        if issued.scope != scope {
            return Err(CursorError::OtherQuery);
        }
        Ok(issued.offset)
    }

    /// Records a new upload envelope for `account`, unless its plan's limits refuse it.
    pub fn take_attachment(
        &self,
        account: &Account,
        size: u64,
        now: DateTime<Utc>,
    ) -> Result<(), AttachmentRefusal> {
        let limits = self.plan(account.plan);
        if size > limits.attachment_max_bytes {
            return Err(AttachmentRefusal::TooLarge {
                limit: limits.attachment_max_bytes,
            });
        }
        let mut balances = self.balances();
        let issued = balances.envelopes.entry(account.id.clone()).or_default();
        let week = chrono::Duration::days(7);
        issued.retain(|at| now - *at < week);
        for (window, span, limit) in [
            ("day", chrono::Duration::days(1), limits.attachments_per_day),
            ("week", week, limits.attachments_per_week),
        ] {
            let inside: Vec<&DateTime<Utc>> =
                issued.iter().filter(|at| now - **at < span).collect();
            if inside.len() >= usize::try_from(limit).unwrap_or(usize::MAX) {
                let oldest = inside.iter().min().map_or(now, |at| **at);
                return Err(AttachmentRefusal::LimitReached {
                    window,
                    limit,
                    next_at: oldest + span,
                });
            }
        }
        issued.push(now);
        Ok(())
    }

    /// The current credit balance.
    pub fn credits(&self, account: &str) -> i64 {
        self.balances().credits.get(account).copied().unwrap_or(0)
    }

    /// Takes `amount` credits (the balance may not go below zero).
    pub fn spend(&self, account: &str, amount: i64) {
        let mut balances = self.balances();
        if let Some(balance) = balances.credits.get_mut(account) {
            *balance = (*balance - amount).max(0);
        }
        *balances.spent.entry(account.to_owned()).or_insert(0) += amount;
    }

    /// Empties the balance, as a task that used up the last credits does.
    pub fn drain(&self, account: &str) {
        self.balances().credits.insert(account.to_owned(), 0);
    }

    /// Adds the account's top-up amount, as the billing page's button does; returns the balance.
    pub fn top_up(&self, account: &str) -> Option<i64> {
        let amount = self.account(account)?.top_up_credits;
        let mut balances = self.balances();
        let balance = balances.credits.entry(account.to_owned()).or_insert(0);
        *balance += amount;
        let balance = *balance;
        balances.quota_exhausted_until.remove(account);
        // The billing page stands for both documented fixes: top up, or raise the limit.
        balances.spent.remove(account);
        Some(balance)
    }

    /// Marks the quota used up until the first day of the next month (UTC) after `now`.
    pub fn exhaust_quota(&self, account: &str, now: DateTime<Utc>) -> DateTime<Utc> {
        let reset = first_of_next_month(now);
        self.balances()
            .quota_exhausted_until
            .insert(account.to_owned(), reset);
        reset
    }

    /// Applies a scripted refusal once per `key`; returns whether it was applied now.
    pub fn apply_once(&self, key: &str) -> bool {
        self.balances().applied_refusals.insert(key.to_owned())
    }

    /// The check made before a message is sent.
    pub fn check_before_send(&self, account: &str, now: DateTime<Utc>) -> Option<CreditRefusal> {
        let balances = self.balances();
        if let Some(reset) = balances.quota_exhausted_until.get(account)
            && *reset > now
        {
            return Some(CreditRefusal::QuotaExhausted { reset: *reset });
        }
        if balances.credits.get(account).copied().unwrap_or(0) <= 0 {
            return Some(CreditRefusal::InsufficientCredits);
        }
        let limit = self.account(account).and_then(|a| a.spending_limit);
        if let Some(limit) = limit
            && balances.spent.get(account).copied().unwrap_or(0) >= limit
        {
            return Some(CreditRefusal::SpendingLimit { limit });
        }
        None
    }

    /// Records an upload envelope so the upload endpoint can check the POST against it.
    pub fn issue_upload(
        &self,
        account: &str,
        fields: std::collections::BTreeMap<String, String>,
        size_bytes: u64,
        expires_at: DateTime<Utc>,
    ) {
        let Some(key) = fields.get("key").cloned() else {
            return;
        };
        self.balances().uploads.insert(
            key,
            IssuedUpload {
                account: account.to_owned(),
                fields,
                size_bytes,
                expires_at,
                bytes: None,
            },
        );
    }

    /// Checks an upload POST against its envelope (every field, expiry, size) and stores the file.
    pub fn complete_upload(
        &self,
        posted: &std::collections::BTreeMap<String, String>,
        file: bytes::Bytes,
        now: DateTime<Utc>,
    ) -> Result<(), UploadError> {
        let key = posted.get("key").ok_or(UploadError::UnknownKey)?;
        let mut balances = self.balances();
        let issued = balances
            .uploads
            .get_mut(key)
            .ok_or(UploadError::UnknownKey)?;
        if let Some((name, _)) = issued
            .fields
            .iter()
            .find(|(name, value)| posted.get(*name) != Some(value))
        {
            return Err(UploadError::FieldMismatch(name.clone()));
        }
        if now >= issued.expires_at {
            return Err(UploadError::Expired);
        }
        if u64::try_from(file.len()).unwrap_or(u64::MAX) > issued.size_bytes {
            return Err(UploadError::TooLarge {
                declared: issued.size_bytes,
            });
        }
        issued.bytes = Some(file);
        Ok(())
    }

    /// The size the envelope for `key` declared, if one was issued.
    pub fn declared_upload_size(&self, key: &str) -> Option<u64> {
        self.balances().uploads.get(key).map(|u| u.size_bytes)
    }

    /// The bytes uploaded under `key`, once the upload completed.
    pub fn uploaded_bytes(&self, key: &str) -> Option<bytes::Bytes> {
        self.balances()
            .uploads
            .get(key)
            .and_then(|u| u.bytes.clone())
    }

    /// Whether `account` uploaded the file behind `key`.
    pub fn owns_upload(&self, account: &str, key: &str) -> bool {
        self.balances()
            .uploads
            .get(key)
            .is_some_and(|u| u.account == account && u.bytes.is_some())
    }

    /// A model the account may use: its plan offers it and its organization allows it.
    fn model_offered(&self, account: &Account, id: &str) -> Option<&ModelSpec> {
        let blocked = &account.organization_policy.blocked_models;
        let in_region = |m: &ModelSpec| {
            m.regions.is_empty()
                || account
                    .region
                    .as_ref()
                    .is_none_or(|region| m.regions.contains(region))
        };
        self.fixture.models.iter().find(|m| {
            m.id == id
                && m.plans.contains(&account.plan)
                && !blocked.contains(&m.id)
                && in_region(m)
        })
    }

    /// A mode the account may use: its plan offers it and its model is allowed.
    fn mode_offered(&self, account: &Account, name: &str) -> Option<&ModeSpec> {
        self.fixture.modes.iter().find(|m| {
            m.mode == name
                && m.plans.contains(&account.plan)
                && self.model_offered(account, &m.model).is_some()
        })
    }

    /// The settings a request runs with: the `mode`, or the `model` with `effort` (else the
    /// model's `default_effort`), or the account's defaults when neither is given. `None` if a
    /// value is not offered to the account's plan.
    pub fn task_settings(
        &self,
        account: &Account,
        mode: Option<&str>,
        model: Option<&str>,
        effort: Option<&str>,
    ) -> Option<TaskSettings> {
        let plan = account.plan;
        let from_mode = |name: &str| {
            self.mode_offered(account, name).map(|m| TaskSettings {
                mode: Some(m.mode.clone()),
                model: m.model.clone(),
                effort: m.effort.clone(),
            })
        };
        let from_model = |id: &str, effort: Option<&str>| {
            let spec = self.model_offered(account, id)?;
            let effort = effort.unwrap_or(&spec.default_effort);
            spec.efforts
                .iter()
                .any(|e| e == effort)
                .then(|| TaskSettings {
                    mode: None,
                    model: spec.id.clone(),
                    effort: effort.to_owned(),
                })
        };
        match (mode, model) {
            (Some(mode), None) => from_mode(mode),
            (None, Some(model)) => from_model(model, effort),
            (Some(_), Some(_)) => None,
            (None, None) => self
                .fixture
                .default_mode
                .as_deref()
                .and_then(from_mode)
                .or_else(|| {
                    let model = self.fixture.default_model.get(&plan)?;
                    from_model(model, None)
                }),
        }
    }

    /// The `models_list` result for an account.
    pub fn models_list(&self, account: &Account) -> Value {
        let modes: Vec<Value> = self
            .fixture
            .modes
            .iter()
            .filter(|m| self.mode_offered(account, &m.mode).is_some())
            .map(|m| json!({"mode": m.mode, "model": m.model, "effort": m.effort}))
            .collect();
        let models: Vec<Value> = self
            .fixture
            .models
            .iter()
            .filter(|m| self.model_offered(account, &m.id).is_some())
            .map(|m| {
                json!({
                    "id": m.id, "label": m.label, "description": m.description, "fast": m.fast,
                    "efforts": m.efforts, "default_effort": m.default_effort,
                })
            })
            .collect();
        // A default the account may not use is no default for it (the document allows null).
        let default_mode = self
            .fixture
            .default_mode
            .as_deref()
            .filter(|mode| self.mode_offered(account, mode).is_some());
        let default_model = self
            .fixture
            .default_model
            .get(&account.plan)
            .filter(|model| self.model_offered(account, model).is_some());
        json!({
            "default_mode": default_mode,
            "modes": modes,
            "models": models,
            "default_model": default_model,
        })
    }
}

fn first_of_next_month(now: DateTime<Utc>) -> DateTime<Utc> {
    let (year, month) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_are_listed_to_their_members_with_each_members_role() {
        let world = World::builtin();
        let shared = "3e8a7d2c-1f4b-4a6e-9d0c-7b5a2e8f6c13";
        let role = |account: &str| {
            world
                .account(account)
                .and_then(|a| a.projects.iter().find(|p| p.project_uuid == shared))
                .map(|p| p.role.clone())
        };
        assert_eq!(role("alice").as_deref(), Some("editor"));
        assert_eq!(role("bob").as_deref(), Some("viewer"));
        assert_eq!(
            world.project(shared).map(|p| p.members.clone()),
            Some(vec!["alice".to_owned(), "bob".to_owned()])
        );
    }

    #[test]
    fn builtin_accounts_are_alice_paid_and_bob_free() {
        let world = World::builtin();
        let alice = world.account_for_token("alice-dev-token").expect("alice");
        let bob = world.account_for_token("bob-dev-token").expect("bob");
        assert_eq!((alice.id.as_str(), alice.plan), ("alice", Plan::Paid));
        assert_eq!((bob.id.as_str(), bob.plan), ("bob", Plan::Free));
        assert!(world.credits("alice") > world.credits("bob"));
    }

    #[test]
    fn a_drained_account_is_refused_until_it_tops_up() {
        let world = World::builtin();
        let now = Utc::now();
        world.drain("bob");
        assert_eq!(
            world.check_before_send("bob", now),
            Some(CreditRefusal::InsufficientCredits)
        );
        assert_eq!(world.check_before_send("alice", now), None);
        world.top_up("bob");
        assert_eq!(world.check_before_send("bob", now), None);
    }

    #[test]
    fn quota_comes_back_on_the_first_of_next_month() {
        let world = World::builtin();
        let now = Utc
            .with_ymd_and_hms(2026, 12, 15, 8, 0, 0)
            .single()
            .expect("date");
        let reset = world.exhaust_quota("alice", now);
        assert_eq!(reset.to_rfc3339(), "2027-01-01T00:00:00+00:00");
        assert!(world.check_before_send("alice", now).is_some());
        assert_eq!(world.check_before_send("alice", reset), None);
    }

    #[test]
    fn free_plans_see_fewer_modes_and_models() {
        let world = World::builtin();
        let alice = world.models_list(world.account("alice").expect("alice"));
        let bob = world.models_list(world.account("bob").expect("bob"));
        assert_eq!(alice["modes"].as_array().map(Vec::len), Some(4));
        assert_eq!(bob["modes"].as_array().map(Vec::len), Some(2));
        assert_eq!(bob["default_model"], "claude-sonnet-4-5");
    }
}
