//! What an account may run: the modes and models its plan, its organization's policy and its
//! region allow, the settings a request resolves to, and the `models_list` result.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;

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

    /// The `models_list` result for an account: which of the world's modes and models it is
    /// offered, by position, so the answer is written straight from the fixture.
    pub(super) fn models_list(&self, account: &Account) -> Offered {
        let modes = (0..self.fixture.modes.len())
            .filter(|&i| {
                self.mode_offered(account, &self.fixture.modes[i].mode)
                    .is_some()
            })
            .collect();
        let models = (0..self.fixture.models.len())
            .filter(|&i| {
                self.model_offered(account, &self.fixture.models[i].id)
                    .is_some()
            })
            .collect();
        // A default the account may not use is no default for it (the document allows null).
        let default_mode = self
            .fixture
            .default_mode
            .as_deref()
            .is_some_and(|mode| self.mode_offered(account, mode).is_some());
        let default_model = self
            .fixture
            .default_model
            .get(&account.plan)
            .filter(|model| self.model_offered(account, model).is_some())
            .cloned();
        Offered {
            modes,
            models,
            default_mode,
            default_model,
        }
    }
}

/// One account's `models_list` result, rendered once when the world is built: neither the
/// world file nor its accounts change while the mock runs, so every call writes these bytes.
/// The result travels twice in a tool answer, as `structuredContent` and as the JSON string of
/// its text block, so both forms are kept.
#[derive(Debug, Clone)]
pub(crate) struct ModelsList {
    json: Arc<RawValue>,
    literal: Arc<RawValue>,
}

impl ModelsList {
    /// Renders what `offered` lists out of `fixture`.
    pub(super) fn render(fixture: &WorldFixture, offered: &Offered) -> Self {
        // Strings, booleans and lists of them always serialize, and a JSON string literal is
        // always JSON: a failure here would be a bug in `Listing`, not a bad world file, so it
        // fails loudly rather than answering `null`.
        const SERIALIZES: &str = "a listing of strings and booleans serializes";
        let json =
            serde_json::value::to_raw_value(&Listing { fixture, offered }).expect(SERIALIZES);
        let literal = serde_json::value::to_raw_value(json.get()).expect(SERIALIZES);
        Self {
            json: Arc::from(json),
            literal: Arc::from(literal),
        }
    }

    /// The result as JSON.
    pub(crate) fn json(&self) -> Arc<RawValue> {
        self.json.clone()
    }

    /// The same JSON as a JSON string literal (`"{\"default_mode\":…}"`).
    pub(crate) fn literal(&self) -> Arc<RawValue> {
        self.literal.clone()
    }
}

impl Serialize for ModelsList {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.json.serialize(serializer)
    }
}

/// What one account is offered, as `models_list` answers it: positions into the world's modes
/// and models, serialized from the fixture with no copy and no JSON tree.
struct Listing<'a> {
    fixture: &'a WorldFixture,
    offered: &'a Offered,
}

/// The positions of the modes and models offered, and which defaults stand.
#[derive(Debug, Clone, Default)]
pub(super) struct Offered {
    modes: Vec<usize>,
    models: Vec<usize>,
    default_mode: bool,
    default_model: Option<String>,
}

impl Serialize for Listing<'_> {
    /// `{"default_mode", "modes": [{mode, model, effort}], "models": [{id, label,
    /// description, fast, efforts, default_effort}], "default_model"}`, in that order.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Mode<'a> {
            mode: &'a str,
            model: &'a str,
            effort: &'a str,
        }
        #[derive(Serialize)]
        struct Model<'a> {
            id: &'a str,
            label: &'a str,
            description: &'a str,
            fast: bool,
            efforts: &'a [String],
            default_effort: &'a str,
        }
        #[derive(Serialize)]
        struct List<'a, M, N> {
            default_mode: Option<&'a str>,
            modes: M,
            models: N,
            default_model: Option<&'a str>,
        }
        let Listing { fixture, offered } = *self;
        let modes = offered.modes.iter().filter_map(|&i| fixture.modes.get(i));
        let models = offered.models.iter().filter_map(|&i| fixture.models.get(i));
        List {
            default_mode: fixture
                .default_mode
                .as_deref()
                .filter(|_| offered.default_mode),
            modes: Seq(modes.map(|m| Mode {
                mode: &m.mode,
                model: &m.model,
                effort: &m.effort,
            })),
            models: Seq(models.map(|m| Model {
                id: &m.id,
                label: &m.label,
                description: &m.description,
                fast: m.fast,
                efforts: &m.efforts,
                default_effort: &m.default_effort,
            })),
            default_model: offered.default_model.as_deref(),
        }
        .serialize(serializer)
    }
}

/// A sequence serialized from a cloneable iterator, without collecting it.
struct Seq<I>(I);

impl<I> Serialize for Seq<I>
where
    I: Iterator + Clone,
    I::Item: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.clone())
    }
}
