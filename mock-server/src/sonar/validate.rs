//! Request validation: each body is read once into its typed request, then checked rule by
//! rule; every refusal is a 400 in the error envelope naming the field (`param`) and saying
//! what to send instead.
//!
//! - `body`: JSON to a typed request, and the field to blame when it does not fit;
//! - `chat`: chat completions (and an async job's `request`);
//! - `search`: the Search API;
//! - `embeddings`: embeddings and contextualized embeddings.

pub(crate) mod body;
pub(crate) mod chat;
pub(crate) mod embeddings;
pub(crate) mod search;
