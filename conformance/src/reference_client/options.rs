//! How the reference client is started: from the environment the conformance runner sets.

use std::collections::BTreeSet;

use parking_lot::Mutex;
use reqwest::header::{HeaderMap, HeaderValue};

use crate::error::ClientError;

/// How the reference client is started.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The MCP endpoint.
    pub url: String,
    /// The rule to break on purpose, if any.
    pub break_rule: Option<String>,
    /// The user channel.
    pub user_url: String,
    /// Bearer token.
    pub token: Option<String>,
    /// Protocol version to offer.
    pub protocol_version: String,
    /// How long to wait (real time) before every request, as a slow client would
    /// (`--delay-ms`); zero by default.
    pub delay: std::time::Duration,
    /// Poll tasks this often whatever `pollIntervalMs` says (`--fixed-poll-ms`): a client
    /// that hard-codes its interval, which the suite must catch.
    pub fixed_poll: Option<std::time::Duration>,
}

impl ClientOptions {
    /// The headers of every JSON-RPC POST in both eras: JSON in, JSON or SSE back, the token.
    pub(super) fn post_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert(
            "accept",
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        if let Some(token) = &self.token
            && let Ok(v) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            headers.insert("authorization", v);
        }
        headers
    }

    /// Options from the environment the conformance runner sets.
    pub fn from_env(url: String, break_rule: Option<String>) -> Result<Self, ClientError> {
        let user_url = std::env::var("CONFORMANCE_USER_URL")
            .map_err(|_| ClientError::MissingEnv("CONFORMANCE_USER_URL"))?;
        // Either era, as the runner announces; anything else falls back to the handshake era.
        let protocol_version = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
            Ok(v) if mock_server::HANDSHAKE_VERSIONS.contains(&v.as_str()) => v,
            Ok(v) if v == mock_server::MODERN_VERSION => v,
            _ => mock_server::LATEST_HANDSHAKE_VERSION.to_owned(),
        };
        Ok(Self {
            url,
            break_rule,
            user_url,
            token: std::env::var("CONFORMANCE_BEARER_TOKEN").ok(),
            protocol_version,
            delay: std::time::Duration::ZERO,
            fixed_poll: None,
        })
    }
}

/// The rules whose break point this process reached (asked whether to break them).
static REACHED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Whether a client started with `break_rule` breaks `rule` here; notes that the break point of
/// `rule` was reached, so a run can say which rules its scenario could have broken.
pub(super) fn breaks(break_rule: Option<&str>, rule: &str) -> bool {
    REACHED.lock().insert(rule.to_owned());
    break_rule == Some(rule)
}

/// The rules whose break point this process reached, in id order.
pub fn break_points_reached() -> Vec<String> {
    REACHED.lock().iter().cloned().collect()
}
