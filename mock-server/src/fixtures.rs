//! Fixtures: the scenario and world files the mock is scripted with, their models, and how they
//! are loaded.
//!
//! One module owns both scenario schemas (Computer and Agent API scenarios share
//! `fixtures/scenario.schema.json`) and the world schema (`fixtures/world.schema.json`). Every
//! document is validated at load time, from a file or from a string, and a refused one names
//! where it came from, the JSON pointer of the first problem and what was expected there
//! ([`FixtureError`](crate::FixtureError)); the mock does not start with it.
//!
//! - `embedded`: every file compiled in, listed once;
//! - `computer`, `agent`, `sonar`, `world`: each document's serde model and its checks beyond
//!   the schema;
//! - `catalog`: the loaded scenarios and the routing of a new conversation (`#name`, then
//!   `match`, then the fallback).

mod agent;
mod catalog;
mod computer;
pub(crate) mod duration;
mod embedded;
mod faults;
mod routing;
mod schema;
mod sonar;
mod world;

pub use agent::LoadedAgentScenario;
pub(crate) use agent::{AgentScript, AgentStep, AgentTurn, EndStatus, ResultSpec, TurnEnd};
pub use catalog::Catalog;
pub(crate) use catalog::{DEFAULT_AGENT_SCENARIO, Loaded, parse_scenario};
pub(crate) use computer::{
    FileSpec, InteractionSpec, Outcome, QuestionSpec, Refusal, Segment, SignInSpec, SourceSpec,
    Step, StepEnd,
};
pub use computer::{LoadedScenario, Scenario, Settings};
pub use duration::parse_duration;
pub use embedded::{SCENARIO_SCHEMA, WORLD_FIXTURE, WORLD_SCHEMA, embedded_scenario};
pub use sonar::LoadedSonarScenario;
pub(crate) use sonar::{BeforeCall, DEFAULT_SONAR_SCENARIO, SonarImage, SonarResult, SonarScript};
pub use world::Plan;
pub(crate) use world::{
    AgentApiSettings, Connector, ConnectorState, ModeSpec, ModelSpec, OrganizationPolicy,
    PlanLimits, WorldFixture,
};
pub(crate) use world::{parse as parse_world, parse_builtin as parse_builtin_world};
