//! The world: accounts, plans, credits, quotas, connectors, models and Projects, and their live
//! state while the mock runs.
//!
//! Defaults come from `fixtures/world.json` (embedded); `--world PATH` or
//! [`world_json`](crate::MockServerBuilder::world_json) replaces them, validated like a scenario
//! (see [`fixtures`](crate::fixtures)). [`World`] is the one door: the credit ledger (`ledger`),
//! upload envelopes (`uploads`) and paging cursors (`cursors`) live behind one lock, what an
//! account may run is worked out in `offer`, and `POST /_mock/reset` restores the defaults.

mod account;
mod cursors;
mod ledger;
mod offer;
mod uploads;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use parking_lot::{Mutex, MutexGuard};

use chrono::{DateTime, Utc};

pub use account::Account;
pub(crate) use account::Project;
pub(crate) use cursors::CursorError;
pub(crate) use ledger::CreditRefusal;
pub(crate) use offer::{ModelsList, TaskSettings};
pub(crate) use uploads::{AttachmentRefusal, UploadError, UploadsKept};

pub(crate) use crate::fixtures::{ConnectorState, PlanLimits};
pub use crate::fixtures::{Plan, WORLD_FIXTURE};

use crate::error::{FixtureError, FixtureErrorKind};
use crate::fixtures::WorldFixture;
use cursors::Cursors;
use ledger::Ledger;
use offer::Offer;
use uploads::Uploads;

// The tests below build dates with `Utc.with_ymd_and_hms`.
#[cfg(test)]
use chrono::TimeZone;

/// The accounts of a running mock and their live state: balances, quotas, uploads, cursors.
#[derive(Debug)]
pub struct World {
    fixture: WorldFixture,
    /// Shared: every request holds its account for as long as it runs, without a copy.
    accounts: Vec<Arc<Account>>,
    /// Each account's `models_list` result, in the order of `accounts`.
    models_lists: Vec<ModelsList>,
    /// Most bytes of uploaded files kept (`StateLimits::max_upload_bytes`).
    max_upload_bytes: u64,
    state: Mutex<State>,
}

/// Everything that changes while the mock runs, behind one lock.
#[derive(Debug, Default)]
struct State {
    ledger: Ledger,
    uploads: Uploads,
    cursors: Cursors,
}

impl World {
    /// The embedded world.
    pub(crate) fn builtin() -> Self {
        // Parsed and validated once per process (a conformance run starts a mock per
        // scenario). The fixture is compiled in and covered by a test, so a parse failure is a
        // build bug.
        static BUILTIN: std::sync::LazyLock<WorldFixture> = std::sync::LazyLock::new(|| {
            crate::fixtures::parse_builtin_world(Path::new("embedded:world.json"), WORLD_FIXTURE)
                .unwrap_or_else(|e| panic!("fixtures/world.json is invalid: {e}"))
        });
        Self::from_fixture(BUILTIN.clone())
    }

    /// The world in `path` (`--world`), or the embedded one.
    pub(crate) fn load(path: Option<&Path>) -> Result<Self, FixtureError> {
        let Some(path) = path else {
            return Ok(Self::builtin());
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| FixtureError::new(path, FixtureErrorKind::Read(e)))?;
        Self::parse(path, &text)
    }

    /// Parses and validates a world file.
    pub(crate) fn parse(path: &Path, text: &str) -> Result<Self, FixtureError> {
        Ok(Self::from_fixture(crate::fixtures::parse_world(
            path, text,
        )?))
    }

    /// The live world of a validated world file, every balance at its start.
    pub(crate) fn from_fixture(fixture: WorldFixture) -> Self {
        let accounts = account::accounts_of(&fixture);
        let offer = Offer { fixture: &fixture };
        let models_lists = accounts
            .iter()
            .map(|account| ModelsList::render(&fixture, &offer.models_list(account)))
            .collect();
        let state = Mutex::new(State {
            ledger: Ledger::opening(&accounts),
            ..State::default()
        });
        Self {
            fixture,
            accounts,
            models_lists,
            max_upload_bytes: crate::limits::StateLimits::default().max_upload_bytes,
            state,
        }
    }

    /// The same world keeping at most `max` bytes of uploaded files.
    pub(crate) fn with_max_upload_bytes(mut self, max: u64) -> Self {
        self.max_upload_bytes = max;
        self
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    fn offer(&self) -> Offer<'_> {
        Offer {
            fixture: &self.fixture,
        }
    }

    /// Restores every balance and quota to the fixture's defaults, and forgets uploads and
    /// cursors (their maps too, so their memory goes back).
    pub(crate) fn reset(&self) {
        let old = std::mem::replace(
            &mut *self.state(),
            State {
                ledger: Ledger::opening(&self.accounts),
                ..State::default()
            },
        );
        // Stored files are freed outside the lock.
        drop(old);
    }

    /// What the uploads hold: files, bytes, the cap and how many were evicted.
    pub(crate) fn uploads_kept(&self) -> UploadsKept {
        self.state().uploads.kept(self.max_upload_bytes)
    }

    /// Every account.
    pub fn accounts(&self) -> &[Arc<Account>] {
        &self.accounts
    }

    /// The account with this id (`alice`, `bob`).
    pub fn account(&self, id: &str) -> Option<&Arc<Account>> {
        self.accounts.iter().find(|a| a.id == id)
    }

    /// The account a static bearer token belongs to.
    pub(crate) fn account_for_token(&self, token: &str) -> Option<&Arc<Account>> {
        self.accounts.iter().find(|a| a.token == token)
    }

    /// What a plan allows.
    pub(crate) fn plan(&self, plan: Plan) -> &PlanLimits {
        match plan {
            Plan::Paid => &self.fixture.plans.paid,
            Plan::Free => &self.fixture.plans.free,
        }
    }

    /// A Project by id, as any of its members would see its name and instructions (only the
    /// tests look Projects up by id; tools go through the caller's own `projects`).
    #[cfg(test)]
    fn project(&self, uuid: &str) -> Option<&Project> {
        self.accounts
            .iter()
            .flat_map(|a| a.projects.iter())
            .find(|p| p.project_uuid == uuid)
    }

    // --- the credit ledger ---

    /// The account's credit balance now.
    pub fn credits(&self, account: &str) -> i64 {
        self.state().ledger.credits(account)
    }

    /// Takes `amount` credits from `account`, as a finished step does (the balance stops at
    /// zero); a test uses it to bring an account to the edge of its balance.
    pub fn spend(&self, account: &str, amount: i64) {
        self.state().ledger.spend(account, amount);
    }

    /// Empties the balance, as a task that used up the last credits does.
    pub(crate) fn drain(&self, account: &str) {
        self.state().ledger.drain(account);
    }

    /// Adds the account's top-up amount, as the billing page's button does; returns the balance.
    pub(crate) fn top_up(&self, account: &str) -> Option<i64> {
        let amount = self.account(account)?.top_up_credits;
        Some(self.state().ledger.top_up(account, amount))
    }

    /// Puts one account's balance, quota and spending back where the world file starts them
    /// (the dashboard's reset button); returns the balance, `None` for an unknown account.
    pub(crate) fn reset_account(&self, account: &str) -> Option<i64> {
        let account = self.account(account)?;
        Some(self.state().ledger.reopen(account))
    }

    /// When the account's exhausted quota comes back (`None`: not exhausted).
    pub(crate) fn quota_exhausted_until(&self, account: &str) -> Option<DateTime<Utc>> {
        self.state().ledger.quota_exhausted_until(account)
    }

    /// Credits spent since the last top-up, counted against the spending limit.
    pub(crate) fn spent(&self, account: &str) -> i64 {
        self.state().ledger.spent(account)
    }

    /// Marks the quota used up until the first day of the next month (UTC) after `now`.
    pub(crate) fn exhaust_quota(&self, account: &str, now: DateTime<Utc>) -> DateTime<Utc> {
        self.state().ledger.exhaust_quota(account, now)
    }

    /// Applies a scripted refusal once per `key`; returns whether it was applied now.
    pub(crate) fn apply_once(&self, key: &str) -> bool {
        self.state().ledger.apply_once(key)
    }

    /// The check made before a message is sent.
    pub(crate) fn check_before_send(
        &self,
        account: &str,
        now: DateTime<Utc>,
    ) -> Option<CreditRefusal> {
        let limit = self.account(account).and_then(|a| a.spending_limit);
        self.state().ledger.check_before_send(account, limit, now)
    }

    // --- uploads ---

    /// Records a new upload envelope for `account`, unless its plan's limits refuse it.
    pub(crate) fn take_attachment(
        &self,
        account: &Account,
        size: u64,
        now: DateTime<Utc>,
    ) -> Result<(), AttachmentRefusal> {
        let limits = self.plan(account.plan);
        self.state()
            .uploads
            .take_attachment(&account.id, limits, size, now)
    }

    /// Records an upload envelope so the upload endpoint can check the POST against it.
    pub(crate) fn issue_upload(
        &self,
        account: &str,
        fields: BTreeMap<String, String>,
        size_bytes: u64,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) {
        self.state()
            .uploads
            .issue(account, fields, size_bytes, expires_at, now);
    }

    /// Checks an upload POST against its envelope (every field, expiry, size) and stores the file.
    pub(crate) fn complete_upload(
        &self,
        posted: &BTreeMap<String, String>,
        file: bytes::Bytes,
        now: DateTime<Utc>,
    ) -> Result<(), UploadError> {
        self.state()
            .uploads
            .complete(posted, file, now, self.max_upload_bytes)
    }

    /// The size the envelope for `key` declared, if one was issued.
    pub(crate) fn declared_upload_size(&self, key: &str) -> Option<u64> {
        self.state().uploads.declared_size(key)
    }

    /// The bytes `account` uploaded under `key`, once the upload completed, while they are kept.
    pub(crate) fn uploaded_bytes(
        &self,
        account: &str,
        key: &str,
        now: DateTime<Utc>,
    ) -> Option<bytes::Bytes> {
        self.state().uploads.bytes(account, key, now)
    }

    /// Whether `account` uploaded the file behind `key` and it is still kept at `now`.
    pub(crate) fn owns_upload(&self, account: &str, key: &str, now: DateTime<Utc>) -> bool {
        self.state().uploads.owns(account, key, now)
    }

    // --- paging cursors ---

    /// A cursor for the page of `scope` that starts at `offset`, usable by `account` only.
    pub(crate) fn issue_cursor(&self, account: &str, scope: &str, offset: usize) -> String {
        self.state().cursors.issue(account, scope, offset)
    }

    /// The offset a cursor stands for, if `account` was handed it for this `scope`.
    pub(crate) fn resolve_cursor(
        &self,
        account: &str,
        scope: &str,
        cursor: &str,
    ) -> Result<usize, CursorError> {
        self.state().cursors.resolve(account, scope, cursor)
    }

    // --- what an account may run ---

    /// The settings a request runs with: the `mode`, or the `model` with `effort` (else the
    /// model's `default_effort`), or the account's defaults when neither is given. `None` if a
    /// value is not offered to the account's plan.
    pub(crate) fn task_settings(
        &self,
        account: &Account,
        mode: Option<&str>,
        model: Option<&str>,
        effort: Option<&str>,
    ) -> Option<TaskSettings> {
        self.offer().task_settings(account, mode, model, effort)
    }

    /// Whether the account may choose mode `name`.
    pub(crate) fn offers_mode(&self, account: &Account, name: &str) -> bool {
        self.offer().offers_mode(account, name)
    }

    /// The efforts of model `id`, if the account may choose it.
    pub(crate) fn model_efforts(&self, account: &Account, id: &str) -> Option<Vec<String>> {
        self.offer()
            .model_efforts(account, id)
            .map(<[String]>::to_vec)
    }

    /// The `models_list` result for an account.
    pub(crate) fn models_list(&self, account: &Account) -> ModelsList {
        let rendered = self.accounts.iter().position(|a| a.id == account.id);
        match rendered.and_then(|i| self.models_lists.get(i)) {
            Some(list) => list.clone(),
            None => ModelsList::render(&self.fixture, &self.offer().models_list(account)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
    fn resetting_an_account_restores_its_opening_balance_and_quota() {
        let world = World::builtin();
        let alice = world.account("alice").cloned().expect("alice is built in");
        world.drain("alice");
        world.exhaust_quota("alice", Utc::now());
        assert_eq!(world.reset_account("alice"), Some(alice.credits));
        assert_eq!(world.credits("alice"), alice.credits);
        assert_eq!(world.spent("alice"), 0);
        assert_eq!(world.quota_exhausted_until("alice"), alice.quota_reset_date);
        assert_eq!(world.reset_account("nobody"), None);
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
        let list = |name| {
            let account = world.account(name).expect("a built-in account");
            serde_json::to_value(world.models_list(account)).expect("serializes")
        };
        let (alice, bob) = (list("alice"), list("bob"));
        assert_eq!(alice["modes"].as_array().map(Vec::len), Some(4));
        assert_eq!(bob["modes"].as_array().map(Vec::len), Some(2));
        assert_eq!(bob["default_model"], "claude-sonnet-4-5");
    }

    #[test]
    fn the_typed_offer_checks_what_models_list_shows() {
        // `call_perplexity_computer` checks mode, model and effort against the typed offer;
        // it must accept exactly what `models_list` renders for the same account.
        let world = World::builtin();
        let rendered =
            |account| serde_json::to_value(world.models_list(account)).expect("serializes");
        for account in world.accounts() {
            let listed = rendered(account);
            let modes: Vec<&str> = listed["modes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m["mode"].as_str())
                .collect();
            for mode in ["light", "standard", "high", "ultra", "nope"] {
                assert_eq!(
                    world.offers_mode(account, mode),
                    modes.contains(&mode),
                    "{} {mode}",
                    account.id
                );
            }
            for model in listed["models"].as_array().into_iter().flatten() {
                let id = model["id"].as_str().expect("every listed model has an id");
                let efforts = world.model_efforts(account, id).map(|e| json!(e));
                assert_eq!(
                    efforts.as_ref(),
                    Some(&model["efforts"]),
                    "{} {id}",
                    account.id
                );
            }
            assert_eq!(world.model_efforts(account, "no-such-model"), None);
        }
        // A model the free plan does not offer has no efforts for bob.
        let alice = world.account("alice").expect("alice");
        let bob = world.account("bob").expect("bob");
        let paid_only = rendered(alice)["models"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["id"].as_str())
            .find(|id| world.model_efforts(bob, id).is_none())
            .map(str::to_owned);
        assert!(paid_only.is_some(), "alice is offered a model bob is not");
    }
}
