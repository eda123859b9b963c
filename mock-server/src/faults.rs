//! Injected faults: the failures real networks and services produce (a 429 with
//! `Retry-After`, a 5xx, a connection reset, a stream cut short, a forgotten session, latency
//! and a trickle of bytes), scripted and deterministic on the virtual clock.
//!
//! One vocabulary ([`spec`]), three doors (`mock-server --fault SPEC`, `POST /_mock/faults`,
//! a scenario's `faults`), one store ([`Faults`]) and one layer ([`layer`]) that every
//! surface's requests pass through; a scenario's faults are taken by the surface once it
//! knows the scenario ([`checkpoint`]), and finished by the layer. The journal records which fault touched an exchange and
//! does nothing else. `docs/faults.md` is the users' reference.

mod body;
mod checkpoint;
pub(crate) mod layer;
mod routes;
pub(crate) mod spec;
pub(crate) mod store;

pub(crate) use routes::routes;
pub(crate) use store::Faults;
