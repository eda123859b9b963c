//! The Agent API's wire types, as serde values: the create request and its input items
//! (`request`), the approval vocabulary (`approval`), the response object (`response`), its
//! output items (`items`), its usage (`usage`), stream events (`events`), the other answers
//! (`lists`), and the ids the mock hands out (`ids`). Field names and order follow the live API
//! as recorded, and the Python SDK 0.46.1 types.
//!
//! The rest of the surface works with these values; they become JSON once, when an answer is
//! written.

pub(crate) mod approval;
pub(crate) mod events;
pub(crate) mod ids;
pub(crate) mod items;
pub(crate) mod lists;
pub(crate) mod request;
pub(crate) mod response;
pub(crate) mod usage;
