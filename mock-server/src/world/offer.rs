//! What an account may run: the modes and models its plan, its organization's policy and its
//! region allow, the settings a request resolves to, and the `models_list` result.

use serde::Serialize;
use serde_json::{Value, json};

use super::account::Account;
use crate::fixtures::{ModeSpec, ModelSpec, WorldFixture};

/// The mode, model and effort a request runs with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct TaskSettings {
    /// The mode chosen (or the default mode), `None` when a model was picked directly.
    pub(crate) mode: Option<String>,
    /// The model that runs.
    pub(crate) model: String,
    /// Its effort.
    pub(crate) effort: String,
}

/// The modes and models of a world file, as one account may use them.
#[derive(Clone, Copy)]
pub(super) struct Offer<'a> {
    pub(super) fixture: &'a WorldFixture,
}

impl<'a> Offer<'a> {
    /// A model the account may use: its plan offers it and its organization allows it.
    fn model_offered(&self, account: &Account, id: &str) -> Option<&'a ModelSpec> {
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
    fn mode_offered(&self, account: &Account, name: &str) -> Option<&'a ModeSpec> {
        self.fixture.modes.iter().find(|m| {
            m.mode == name
                && m.plans.contains(&account.plan)
                && self.model_offered(account, &m.model).is_some()
        })
    }

    /// Whether the account may choose mode `name` (what `models_list` lists under `modes`).
    pub(super) fn offers_mode(&self, account: &Account, name: &str) -> bool {
        self.mode_offered(account, name).is_some()
    }

    /// The efforts of model `id`, if the account may choose it (what `models_list` lists).
    pub(super) fn model_efforts(&self, account: &Account, id: &str) -> Option<&'a [String]> {
        self.model_offered(account, id)
            .map(|m| m.efforts.as_slice())
    }

    /// The settings a request runs with: the `mode`, or the `model` with `effort` (else the
    /// model's `default_effort`), or the account's defaults when neither is given. `None` if a
    /// value is not offered to the account's plan.
    pub(super) fn task_settings(
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
    pub(super) fn models_list(&self, account: &Account) -> Value {
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
