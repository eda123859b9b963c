//! The account world: accounts, plans, credits, quotas, models and Projects.
//!
//! Defaults come from `fixtures/world.json` (embedded). Runtime state (credit balances, exhausted
//! quotas) lives here too, behind one lock, and [`World::reset`] restores the defaults.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use chrono::{DateTime, Datelike, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The world defaults shipped with the mock.
pub const WORLD_FIXTURE: &str = include_str!("../../fixtures/world.json");

/// A plan an account is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// A paid plan.
    Paid,
    /// The Free plan.
    Free,
}

/// One account as the fixture defines it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// Projects the account can access.
    #[serde(default)]
    pub projects: Vec<Project>,
}

/// A Project as `projects_list` returns it (minus `project_url`, which is derived).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelSpec {
    id: String,
    label: String,
    description: String,
    fast: bool,
    efforts: Vec<String>,
    default_effort: String,
    plans: Vec<Plan>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeSpec {
    mode: String,
    model: String,
    effort: String,
    plans: Vec<Plan>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorldFixture {
    accounts: Vec<Account>,
    models: Vec<ModelSpec>,
    modes: Vec<ModeSpec>,
    default_mode: String,
    default_model: HashMap<Plan, String>,
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
}

/// Accounts and their runtime state.
#[derive(Debug)]
pub struct World {
    fixture: WorldFixture,
    balances: Mutex<Balances>,
}

/// Why the credit check before sending a message failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CreditRefusal {
    /// No credits left.
    InsufficientCredits,
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
        let fixture: WorldFixture = serde_json::from_str(WORLD_FIXTURE)
            .unwrap_or_else(|e| panic!("fixtures/world.json is invalid: {e}"));
        let world = Self {
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
        for account in &self.fixture.accounts {
            balances.credits.insert(account.id.clone(), account.credits);
        }
    }

    /// Every account.
    pub fn accounts(&self) -> &[Account] {
        &self.fixture.accounts
    }

    /// The account with this id.
    pub fn account(&self, id: &str) -> Option<&Account> {
        self.fixture.accounts.iter().find(|a| a.id == id)
    }

    /// The account a static bearer token belongs to.
    pub fn account_for_token(&self, token: &str) -> Option<&Account> {
        self.fixture.accounts.iter().find(|a| a.token == token)
    }

    /// The current credit balance.
    pub fn credits(&self, account: &str) -> i64 {
        self.balances().credits.get(account).copied().unwrap_or(0)
    }

    /// Takes `amount` credits (the balance may not go below zero).
    pub fn spend(&self, account: &str, amount: i64) {
        if let Some(balance) = self.balances().credits.get_mut(account) {
            *balance = (*balance - amount).max(0);
        }
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

    /// The `models_list` result for an account.
    pub fn models_list(&self, account: &Account) -> Value {
        let plan = account.plan;
        let modes: Vec<Value> = self
            .fixture
            .modes
            .iter()
            .filter(|m| m.plans.contains(&plan))
            .map(|m| json!({"mode": m.mode, "model": m.model, "effort": m.effort}))
            .collect();
        let models: Vec<Value> = self
            .fixture
            .models
            .iter()
            .filter(|m| m.plans.contains(&plan))
            .map(|m| {
                json!({
                    "id": m.id, "label": m.label, "description": m.description, "fast": m.fast,
                    "efforts": m.efforts, "default_effort": m.default_effort,
                })
            })
            .collect();
        json!({
            "default_mode": self.fixture.default_mode,
            "modes": modes,
            "models": models,
            "default_model": self.fixture.default_model.get(&plan),
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
