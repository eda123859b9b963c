//! A run: one Agent API response played by the scripted model on the virtual clock.
//!
//! - `continuation`: where in the script a request starts (a new conversation, a continuation by
//!   `previous_response_id`, or by history for zero-data-retention accounts);
//! - `setup`: what a run starts from;
//! - `history`: where a conversation sent as history in `input` stands;
//! - `engine`: the run's life (`queued`, `in_progress`, a terminal status) and its turn loop;
//! - `decide`: carrying out the approval decisions a continuation brought;
//! - `research`: the default model's run for a request no scenario selects;
//! - `steps`, `calls`: what each scripted step streams and adds;
//! - `choose`: which of the request's tools the default model calls for a message;
//! - `sandbox`: sandbox commands and the GitHub credentials they get;
//! - `honesty`: what an answer says when the run could not get its data;
//! - `items`: writing output items and streaming messages;
//! - `finish`: the terminal statuses;
//! - `response`, `usage`: the response object and its `usage`, as the live API shapes them.

mod calls;
mod choose;
mod continuation;
mod decide;
mod engine;
mod finish;
mod history;
mod honesty;
mod items;
mod research;
mod response;
mod sandbox;
mod setup;
mod steps;
mod usage;

pub(crate) use continuation::continuation;
pub(crate) use engine::start;
