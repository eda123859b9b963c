//! The integration tests of `mock-server`, one file per behaviour, built as one test binary.
//!
//! Each `tests/*.rs` file is a module of this crate rather than a crate of its own: cargo then
//! links one binary instead of one per file (each about 50 MB with the server and its dependencies
//! inside), which keeps a clean build's `target/` a few gigabytes smaller and its link step short.
//! `cargo test --workspace` runs them all; filter by module path as usual (`cargo test -p
//! mock-server -- timeout::`).

mod common;

mod access_denied;
mod account_snapshots;
mod account_tools;
mod agent_approvals;
mod agent_bad_input;
mod agent_cancel_resume;
mod agent_connectors;
mod agent_custom_connector;
mod agent_function_calls;
mod agent_honest_answers;
mod agent_mcp_tool;
mod agent_modes;
mod agent_presets;
mod agent_run_states;
mod agent_sandbox_github;
mod agent_scripted;
mod agent_snapshots;
mod ask_user_question;
mod auth;
mod auth_required;
mod bad_input;
mod cancel;
mod catalog_snapshots;
mod complete;
mod computer_error;
mod confirm_action;
mod connections;
mod control_api;
mod credits;
mod credits_on_the_clock;
mod dashboard;
mod doc_links;
mod driven_clock;
mod elicitation_handshake;
mod elicitation_modern;
mod embedding;
mod file_facts;
mod files;
mod fixtures;
mod follow_up;
mod handshake;
mod interaction_required;
mod journal_bounds;
mod journal_normalize;
mod journal_queries;
mod journal_redaction;
mod mode_and_model;
mod modern_discover;
mod modern_headers;
mod modern_requests;
mod multiple_sign_ins;
mod no_outside_references;
mod no_request_panics;
mod notify_connected;
mod oauth;
mod optional_auth;
mod ownership;
mod pages;
mod paging;
mod pending_interactions;
mod progress;
mod projects;
mod read_thread;
mod refusal_shapes;
mod sleep;
mod sonar_async;
mod sonar_bad_input;
mod sonar_chat;
mod sonar_credits_and_limits;
mod sonar_dashboard;
mod sonar_embeddings;
mod sonar_search;
mod sonar_snapshots;
mod sonar_stream;
mod source_layout;
mod state_limits;
mod task_snapshots;
mod tasks_cancel;
mod tasks_follow_up;
mod tasks_input;
mod tasks_lifecycle;
mod time_limits;
mod timeout;
mod two_factor;
mod upload_abuse;
mod version_header;
mod waiting;
mod world;
