//! The Sonar routes' wire types, as the official SDKs (`perplexityai` 0.46.1's
//! `generated/api.py`) and the API reference declare them: requests are read into them once,
//! answers are built from them and rendered once, at the edge.
//!
//! - `chat`: the chat completions request (also the `request` of an async job);
//! - `completion`: the answer, its stream chunks, usage and cost;
//! - `jobs`: async chat completions (a job, its summary, the list);
//! - `search`: the Search API's request and answer;
//! - `embeddings`: the embeddings and contextualized embeddings requests and answers;
//! - `error`: the error envelope every refusal is answered in.

pub(crate) mod chat;
pub(crate) mod completion;
pub(crate) mod embeddings;
pub(crate) mod error;
pub(crate) mod jobs;
pub(crate) mod search;
